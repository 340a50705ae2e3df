/**
 * The UI's one drawing step for tests in Node, where the browser's decoder
 * and canvas are not; the e2e test holds it to what Chromium does.
 */
import sharp, { type Sharp } from 'sharp';
import { fitWithin } from '../src/shared/fit';
import type { Redraw } from '../src/ui/redraw';

/** What sharp writes for each type a canvas is asked to encode (the types the UI uses). */
const SHARP_ENCODERS: Record<string, (img: Sharp, quality: number) => Sharp> = {
  'image/jpeg': (img, q) => img.removeAlpha().jpeg({ quality: Math.round(q * 100) }),
  // A canvas's pixels always carry alpha, and it writes them as RGBA.
  'image/png': (img) => img.ensureAlpha().png(),
  'image/webp': (img, q) => img.webp({ quality: Math.round(q * 100) }),
};

/**
 * The UI's `redrawWithin` for Node (the browser's decoder and canvas are not
 * here), doing what they do: decode with the EXIF orientation applied, into
 * 8-bit sRGB (grey becomes RGB), scale down only, and encode without
 * metadata. The e2e test checks the real one in Chromium.
 */
export const nodeRedraw: Redraw = async (bytes, max, type, quality) => {
  const encode = SHARP_ENCODERS[type];
  if (!encode) throw new Error(`nodeRedraw: no encoder for ${type}`);
  const meta = await sharp(bytes).metadata();
  const source = meta.autoOrient;
  const target = fitWithin(source, max);
  const drawn = sharp(bytes).autoOrient().resize(target.width, target.height).toColourspace('srgb');
  const out = await encode(drawn, quality).toBuffer();
  return { blob: new Blob([new Uint8Array(out)], { type }), source, target };
};
