/**
 * `applyAiArt`: one image and an AI Art token in, the re-rendered image out,
 * sized to the `aiArtOutputSize` budget, with the reference's palette when
 * one is given.
 */
import sharp from 'sharp';
import { EngineError } from '../errors';
import type { Raster } from '../image/raster';
import { type ArtMask, maskPlane, renderCharacter } from './character';
import { labStats, transferPalette } from './palette';
import { fromRgb, toRgb, type Rgb } from './planes';
import { ART_PIXEL_BUDGET, artDimensions, type ArtOutputSize } from './size';
import { comics, cartoon, pencilBw, popArt } from './styles-ink';
import { oilPainting, softPastel, vanGogh, watercolor } from './styles-paint';
import { AI_ART_TOKENS, type AiArtStyle, isArtCharacter, isArtStyle } from './tokens';

/** Finds the person in an image: a mask (255 = subject) of any size. `segmentPerson` of the engine fits. */
export type PersonSegmenter = (image: Raster) => Promise<ArtMask>;

/** Options of {@link applyAiArt}. */
export interface AiArtOptions {
  /** AI Art token (`aiArt`): a style (`pencilBw` … `vanGogh`) or a character (`christmasnye` … `groupPirate`). */
  token: string;
  /** Pixel budget tier (`aiArtOutputSize`); default `2k` (see {@link artDimensions}). */
  outputSize?: ArtOutputSize;
  /** Style reference (`aiArtReferenceFileKey`): JPEG/PNG bytes or a raster whose palette is transferred. */
  reference?: Uint8Array | Raster;
  /** Person mask for characters (255 = subject); takes precedence over `segment`. */
  mask?: ArtMask;
  /** Person segmentation used for characters when no `mask` is given. */
  segment?: PersonSegmenter;
}

/**
 * Styles are rendered at most at the 2k budget (4.2 MP) and scaled up to a
 * 4k output: they are low-frequency renderings (patches, strokes, dots), and
 * this keeps the JS filters near a second on two cores.
 */
export const ART_WORK_PIXELS = ART_PIXEL_BUDGET['2k'];

const STYLES: Readonly<Record<AiArtStyle, (img: Rgb) => Rgb | Promise<Rgb>>> = {
  pencilBw,
  oilPainting,
  cartoon,
  watercolor,
  softPastel,
  comics,
  popArt,
  vanGogh,
};

/**
 * Re-render an image with an AI Art token.
 *
 * Styles keep the input's alpha channel (scaled); characters are opaque RGB.
 * The original raster is not modified.
 *
 * @param image 8-bit RGB or RGBA pixels.
 * @returns RGB (or RGBA) pixels at {@link artDimensions} of the input size and tier.
 * @throws EngineError `unsupported-input` for an unknown token, `missing-resource`
 *   for a character without `mask` or `segment`.
 */
export async function applyAiArt(image: Raster, options: AiArtOptions): Promise<Raster> {
  const { token } = options;
  if (!isArtStyle(token) && !isArtCharacter(token)) {
    throw new EngineError('unsupported-input', `aiArt must be one of ${AI_ART_TOKENS.join(', ')} (got ${JSON.stringify(token)})`);
  }
  const out = artDimensions(image.width, image.height, options.outputSize ?? '2k');
  let result: Raster;
  if (isArtStyle(token)) {
    const work = out.width * out.height > ART_WORK_PIXELS ? artDimensions(image.width, image.height, '2k') : out;
    const styled = fromRgb(await STYLES[token](toRgb(await resizeRgb(image, work.width, work.height))));
    result = work.width === out.width ? styled : await resizeRgb(styled, out.width, out.height);
  } else {
    const mask = options.mask ?? (options.segment ? await options.segment(await resizeRgb(image, image.width, image.height)) : undefined);
    if (!mask) throw new EngineError('missing-resource', `AI Art character ${token} needs a person mask: no mask was given and no person segmentation is available`);
    const rgb = await resizeRgb(image, out.width, out.height);
    result = await renderCharacter(token, rgb, await maskPlane(mask, out.width, out.height));
  }
  if (options.reference) transferPalette(result, await referenceStats(options.reference));
  if (image.channels === 4 && isArtStyle(token)) result = await withAlpha(result, image);
  return result;
}

/** An RGB copy of a raster at w × h (Lanczos 3), alpha dropped. */
async function resizeRgb(img: Raster, w: number, h: number): Promise<Raster> {
  let s = sharp(img.data, { raw: { width: img.width, height: img.height, channels: img.channels }, limitInputPixels: false });
  if (w !== img.width || h !== img.height) s = s.resize(w, h, { fit: 'fill', kernel: 'lanczos3' });
  const { data, info } = await s.removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: 3 };
}

/** The input's alpha scaled to the result and joined to it. */
async function withAlpha(rgb: Raster, source: Raster): Promise<Raster> {
  // Two pipelines: resizing in the extracting pipeline treats the channel as premultiplied (127 → 126).
  const plane = await sharp(source.data, { raw: { width: source.width, height: source.height, channels: 4 } }).extractChannel(3).raw().toBuffer();
  const alpha = await sharp(plane, { raw: { width: source.width, height: source.height, channels: 1 } })
    .resize(rgb.width, rgb.height, { fit: 'fill' })
    .extractChannel(0)
    .raw()
    .toBuffer();
  const data = new Uint8Array(rgb.width * rgb.height * 4);
  for (let i = 0, o = 0, s = 0; i < alpha.length; i++, o += 4, s += 3) {
    data[o] = rgb.data[s]!;
    data[o + 1] = rgb.data[s + 1]!;
    data[o + 2] = rgb.data[s + 2]!;
    data[o + 3] = alpha[i]!;
  }
  return { data, width: rgb.width, height: rgb.height, channels: 4 };
}

/** Lab statistics of a reference given as encoded bytes or pixels (a 256 px copy is enough). */
async function referenceStats(ref: Uint8Array | Raster): Promise<ReturnType<typeof labStats>> {
  const input = 'width' in ref ? sharp(ref.data, { raw: { width: ref.width, height: ref.height, channels: ref.channels } }) : sharp(ref, { failOn: 'error' }).autoOrient();
  try {
    const { data, info } = await input.resize(256, 256, { fit: 'inside' }).removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
    return labStats({ data, width: info.width, height: info.height, channels: 3 });
  } catch (err) {
    throw new EngineError('unsupported-input', `aiArtReferenceFileKey is not a readable JPEG or PNG image (${(err as Error).message})`);
  }
}
