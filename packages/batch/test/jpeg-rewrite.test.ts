/**
 * Core's JPEG rewrites of a greyscale photo run on a worker thread: the same
 * bytes as core gives on the caller's thread, while the caller's event loop
 * keeps turning (a synchronous rewrite of this photo would let no timer fire
 * until it returned). The run-level checks of the results are
 * greyscale.test.ts and test/cli/greyscale.test.ts.
 */
import { greyJpegAsYcc, yccJpegAsGrey } from '@pfc/core';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { greyJpegAsYccOffThread, yccJpegAsGreyOffThread } from '../src/jpeg-rewrite';

/** A grey JPEG of 12 MP with grain (so its coded data is a photo's size, several MB). */
async function greyPhoto(): Promise<Buffer> {
  const [width, height] = [4000, 3000];
  const pixels = Buffer.alloc(width * height);
  let seed = 1;
  for (let i = 0; i < pixels.length; i++) {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    pixels[i] = ((i % width) >> 4) + ((seed >>> 24) & 31);
  }
  return sharp(pixels, { raw: { width, height, channels: 1 } }).toColourspace('b-w').jpeg({ quality: 90 }).toBuffer();
}

/** Byte for byte (toEqual walks a few MB element by element: seconds). */
const same = (a: Uint8Array, b: Uint8Array): boolean => Buffer.compare(a, b) === 0;

/** Runs `work`, counting the turns of a 1 ms timer on this thread meanwhile. */
async function withTicks<T>(work: () => Promise<T>): Promise<{ result: T; ticks: number }> {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 1);
  try {
    const result = await work();
    return { result, ticks };
  } finally {
    clearInterval(timer);
  }
}

describe('JPEG rewrites off the caller\'s thread', () => {
  it('grey → colour and back: core\'s bytes exactly, with the caller\'s event loop turning all along', async () => {
    const grey = await greyPhoto();
    const ycc = await withTicks(() => greyJpegAsYccOffThread(grey, { profiles: true }));
    expect(same(ycc.result!, greyJpegAsYcc(grey, { profiles: true })!)).toBe(true);
    expect(ycc.ticks).toBeGreaterThanOrEqual(3);

    const colour = ycc.result!;
    const expected = yccJpegAsGrey(colour)!;
    const back = await withTicks(() => yccJpegAsGreyOffThread(colour.slice()));
    expect(same(back.result!, expected)).toBe(true);
    expect(back.ticks).toBeGreaterThanOrEqual(3);
    expect((await sharp(back.result!).metadata()).channels).toBe(1);
  });

  it('where a rewrite does not apply, undefined, as core says; the caller keeps its bytes (a slice of a larger buffer too)', async () => {
    const colour = await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 200, g: 40, b: 10 } } }).jpeg().toBuffer();
    const pool = Buffer.alloc(colour.length + 64);
    colour.copy(pool, 32);
    const slice = pool.subarray(32, 32 + colour.length);
    expect(await greyJpegAsYccOffThread(slice, {})).toBeUndefined();
    expect(await yccJpegAsGreyOffThread(slice)).toBeUndefined();
    expect(same(slice, colour)).toBe(true);
  });
});
