/**
 * Shared helpers of the colour tests: sample photos, degradations modelled as
 * in bench/quality.mjs, and raw decoding for pixel comparisons.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { applyCurves } from '../src/colour/apply';
import { NEUTRAL_COLOUR_PARAMS, type ColourParams } from '../src/colour/params';
import { planCorrection } from '../src/colour/plan';
import { linearToSrgb } from '../src/colour/srgb';
import type { Raster } from '../src/image/raster';

const samples = fileURLToPath(new URL('../../../samples/', import.meta.url));
export const sample = (name: string): Buffer => readFileSync(samples + name);

export interface Rgb {
  data: Uint8Array;
  width: number;
  height: number;
}

/** Decode to 8-bit RGB (alpha dropped). */
export async function rgb(input: Buffer): Promise<Rgb> {
  const { data, info } = await sharp(input).removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.length), width: info.width, height: info.height };
}

export const png = (img: Rgb): Promise<Buffer> => sharp(Buffer.from(img.data), { raw: { width: img.width, height: img.height, channels: 3 } }).png().toBuffer();

/** sRGB encoded (0..1) to linear light. */
export const toLin = (v: number): number => (v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
/** Linear light to sRGB encoded (0..1), clamped. */
export const toEnc = (v: number): number => {
  const c = Math.min(1, Math.max(0, v));
  return c <= 0.0031308 ? c * 12.92 : 1.055 * c ** (1 / 2.4) - 0.055;
};

/** Multiply linear R, G, B by gains (a colour cast or an exposure change), clipping like a camera. */
export function linearGains(img: Rgb, g: readonly [number, number, number]): Rgb {
  const out = new Uint8Array(img.data.length);
  for (let i = 0; i < out.length; i++) out[i] = Math.round(toEnc(toLin(img.data[i]! / 255) * g[i % 3]!) * 255);
  return { ...img, data: out };
}

/** Flatten contrast on encoded values: v → offset + scale·v. */
export function flatten(img: Rgb, offset: number, scale: number): Rgb {
  const out = new Uint8Array(img.data.length);
  for (let i = 0; i < out.length; i++) out[i] = Math.round((offset + (scale * img.data[i]!) / 255) * 255);
  return { ...img, data: out };
}

/** Mean saturation (max − min over 255) of an image. */
export function meanSaturation(img: Rgb): number {
  let s = 0;
  for (let i = 0; i < img.data.length; i += 3) {
    const r = img.data[i]!;
    const g = img.data[i + 1]!;
    const b = img.data[i + 2]!;
    s += (Math.max(r, g, b) - Math.min(r, g, b)) / 255;
  }
  return s / (img.data.length / 3);
}

/** Mean encoded value of one channel (0..255). */
export function channelMean(img: Rgb, c: 0 | 1 | 2): number {
  let s = 0;
  for (let i = c; i < img.data.length; i += 3) s += img.data[i]!;
  return s / (img.data.length / 3);
}

/**
 * A synthetic scene of `width` × `height`: `pixel(x, y)` gives linear RGB in
 * 0..1, each channel times `gains` (a cast or an exposure), clipped and
 * sRGB-encoded to bytes.
 */
export function linearScene(width: number, height: number, pixel: (x: number, y: number) => readonly number[], gains: readonly number[] = [1, 1, 1]): Raster {
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const p = pixel(x, y);
      for (let c = 0; c < 3; c++) data[(y * width + x) * 3 + c] = Math.round(linearToSrgb(p[c]! * gains[c]!) * 255);
    }
  }
  return { data, width, height, channels: 3 };
}

/** The automatic corrections in full, nothing creative: what the plan alone does. */
export const AUTO: ColourParams = { ...NEUTRAL_COLOUR_PARAMS, exposure: 1, whiteBalance: 1, contrast: 1 };

/** Mean absolute difference of two rasters, in 8-bit codes. */
export function moved(a: Raster, b: Raster): number {
  let s = 0;
  for (let i = 0; i < a.data.length; i++) s += Math.abs(a.data[i]! - b.data[i]!);
  return s / a.data.length;
}

/** The raster through its own automatic plan (white balance, levels, exposure). */
export const corrected = (img: Raster): Raster => applyCurves(img, planCorrection(img, AUTO).plan);
