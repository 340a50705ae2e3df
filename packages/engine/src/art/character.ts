/**
 * AI Art characters: the subject, cut out by a person mask, placed into a
 * generated themed backdrop with a soft contact shadow. Subject pixels are
 * kept as they are (identity preserved); only the background changes.
 */
import sharp from 'sharp';
import type { Raster } from '../image/raster';
import { gaussian, scaled } from './planes';
import { sceneSvg } from './scenes';
import type { AiArtCharacter } from './tokens';

/** A person mask: one byte per pixel, 255 = subject, 0 = background. Any size; it is scaled to the image. */
export interface ArtMask {
  data: Uint8Array;
  width: number;
  height: number;
  /** 1 (the only layout read; a multi-channel mask is read from its first channel). */
  channels?: number;
}

/** Renders a character's backdrop as RGB pixels at w × h. */
export async function renderScene(token: AiArtCharacter, w: number, h: number): Promise<Raster> {
  const { data, info } = await sharp(Buffer.from(sceneSvg(token, w, h)), { limitInputPixels: false })
    .resize(w, h, { fit: 'fill' })
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: 3 };
}

/** The mask as a 0..1 float plane at w × h, edges feathered by ~1 px. */
export async function maskPlane(mask: ArtMask, w: number, h: number): Promise<Float32Array> {
  const ch = mask.channels ?? Math.round(mask.data.length / (mask.width * mask.height));
  if (![1, 2, 3, 4].includes(ch) || mask.data.length !== mask.width * mask.height * ch) {
    throw new RangeError(`mask must be ${mask.width}x${mask.height} bytes with 1 channel (got ${mask.data.length} bytes)`);
  }
  let data: Uint8Array = mask.data;
  if (mask.width !== w || mask.height !== h || ch !== 1) {
    data = await sharp(mask.data, { raw: { width: mask.width, height: mask.height, channels: ch as 1 | 2 | 3 | 4 } })
      .extractChannel(0)
      .resize(w, h, { fit: 'fill', kernel: 'cubic' })
      .extractChannel(0)
      .raw()
      .toBuffer();
  }
  const plane = new Float32Array(w * h);
  for (let i = 0; i < plane.length; i++) plane[i] = data[i]! / 255;
  return gaussian(plane, w, h, Math.max(0.8, Math.min(w, h) / 1200));
}

/**
 * Composite the subject of `image` (RGB, already at the output size) over
 * the token's backdrop. `mask` is 0..1 at the image size (see {@link maskPlane}).
 */
export async function renderCharacter(token: AiArtCharacter, image: Raster, mask: Float32Array): Promise<Raster> {
  const { width: w, height: h } = image;
  const scene = await renderScene(token, w, h);
  const shadow = contactShadow(mask, w, h);
  const out = new Uint8Array(w * h * 3);
  const ch = image.channels;
  for (let i = 0, o = 0, s = 0; i < w * h; i++, o += 3, s += ch) {
    const m = mask[i]!;
    const dim = 1 - 0.4 * shadow[i]! * (1 - m);
    for (let c = 0; c < 3; c++) out[o + c] = Math.round(m * image.data[s + c]! + (1 - m) * scene.data[o + c]! * dim);
  }
  return { data: out, width: w, height: h, channels: 3 };
}

/** A soft shadow of the subject, offset down and to the right, 0..1. */
function contactShadow(mask: Float32Array, w: number, h: number): Float32Array {
  const dx = scaled(w, h, 0.012, 1);
  const dy = scaled(w, h, 0.018, 1);
  const shifted = new Float32Array(w * h);
  for (let y = dy; y < h; y++) {
    for (let x = dx; x < w; x++) shifted[y * w + x] = mask[(y - dy) * w + (x - dx)]!;
  }
  return gaussian(shifted, w, h, scaled(w, h, 1 / 60, 2));
}
