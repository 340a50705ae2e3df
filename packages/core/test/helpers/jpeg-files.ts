/**
 * Grey JPEG test images and pixel comparisons for the grey-jpeg tests
 * (sequential and progressive): deterministic grey pixels for sharp to
 * encode, decoding as stored, and the check that a YCbCr transcode decodes
 * to R = G = B = the grey JPEG's samples, or shows the same tones under its
 * ICC profile.
 */

import sharp, { type Metadata } from 'sharp';
import { expect } from 'vitest';

/** A gradient with noise, so blocks carry many AC coefficients; deterministic. */
export function greyPixels(width: number, height: number): Buffer {
  const pixels = Buffer.alloc(width * height);
  let seed = 12345;
  for (let i = 0; i < pixels.length; i++) {
    seed = (seed * 1103515245 + 12345) >>> 0;
    pixels[i] = ((i % width) * 200) / Math.max(1, width - 1) + (seed >>> 26);
  }
  return pixels;
}

/**
 * Decoded samples as stored (sharp would otherwise widen grey to three
 * channels on output), refusing any libjpeg warning (a scan too short or too
 * long, a bad code, a bad progression).
 */
export async function decoded(jpeg: Uint8Array, space: 'b-w' | 'srgb'): Promise<{ data: Buffer; channels: number }> {
  const { data, info } = await sharp(jpeg, { failOn: 'warning' }).toColourspace(space).raw().toBuffer({ resolveWithObject: true });
  return { data, channels: info.channels };
}

/**
 * The colour JPEG decodes as sRGB of the same size (and with the `metadata`
 * given, such as `isProgressive`), every pixel R = G = B = the grey JPEG's
 * decoded sample.
 */
export async function expectSamePixels(grey: Uint8Array, ycc: Uint8Array | undefined, metadata: Partial<Metadata> = {}): Promise<void> {
  expect(ycc).toBeDefined();
  const [greyMeta, yccMeta] = await Promise.all([sharp(grey).metadata(), sharp(ycc!).metadata()]);
  expect(yccMeta).toMatchObject({ format: 'jpeg', channels: 3, space: 'srgb', ...metadata, width: greyMeta.width, height: greyMeta.height });
  const [g, c] = await Promise.all([decoded(grey, 'b-w'), decoded(ycc!, 'srgb')]);
  expect([g.channels, c.channels]).toEqual([1, 3]);
  const rgbOfGrey = Buffer.alloc(g.data.length * 3);
  g.data.forEach((v, i) => rgbOfGrey.fill(v, 3 * i, 3 * i + 3));
  expect(c.data.equals(rgbOfGrey)).toBe(true);
}

/** Largest difference between two images' samples as a colour-managed viewer (lcms, in sharp) shows them in sRGB. */
export async function shownDifference(a: Uint8Array, b: Uint8Array): Promise<number> {
  const [x, y] = await Promise.all([a, b].map((jpeg) => decoded(jpeg, 'srgb')));
  expect(x!.data.length).toBe(y!.data.length);
  return x!.data.reduce((max, v, i) => Math.max(max, Math.abs(v - y!.data[i]!)), 0);
}
