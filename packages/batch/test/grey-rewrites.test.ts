/**
 * Core's rewrites of a greyscale photo run on a worker thread: the same
 * bytes as core gives on the caller's thread, while the caller's event loop
 * keeps turning (a synchronous JPEG rewrite of this photo would let no timer
 * fire until it returned; a PNG's, streamed here, would fire few and late).
 * The run-level checks of the results are greyscale.test.ts and
 * test/cli/greyscale.test.ts.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { greyJpegAsYcc, greyPngAsRgb, rgbPngAsGrey, yccJpegAsGrey } from '@pfc/core';
import sharp, { type Sharp } from 'sharp';
import { describe, expect, it, vi } from 'vitest';
import { greyJpegAsYccOffThread, greyPngAsRgbFile, rgbPngAsGreyFile, yccJpegAsGreyOffThread } from '../src/grey-rewrites';
import { tempDir } from './helpers';

/** A grey image of 12 MP with grain (so its coded data is a photo's size, several MB). */
function greyImage(): Sharp {
  const [width, height] = [4000, 3000];
  const pixels = Buffer.alloc(width * height);
  let seed = 1;
  for (let i = 0; i < pixels.length; i++) {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    pixels[i] = ((i % width) >> 4) + ((seed >>> 24) & 31);
  }
  return sharp(pixels, { raw: { width, height, channels: 1 } }).toColourspace('b-w');
}

const greyPhoto = (): Promise<Buffer> => greyImage().jpeg({ quality: 90 }).toBuffer();

/** What core's streamed rewrite gives on this thread, whole. */
const whole = async (stream: ReadableStream<Uint8Array> | undefined): Promise<Buffer> => Buffer.from(await new Response(stream).arrayBuffer());

/** Byte for byte (toEqual walks a few MB element by element: seconds). */
const same = (a: Uint8Array, b: Uint8Array): boolean => Buffer.compare(a, b) === 0;

/**
 * Runs `work`, counting the turns of a 1 ms timer on this thread meanwhile, and how busy this thread's
 * event loop was (its utilisation, 0–1: the share of the time it was not waiting for events).
 */
async function withTicks<T>(work: () => Promise<T>): Promise<{ result: T; ticks: number; busy: number }> {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 1);
  const start = performance.eventLoopUtilization();
  try {
    const result = await work();
    return { result, ticks, busy: performance.eventLoopUtilization(start).utilization };
  } finally {
    clearInterval(timer);
  }
}

describe('JPEG rewrites off the caller\'s thread', () => {
  it('grey → colour and back: core\'s bytes exactly, with the caller\'s event loop turning all along', async () => {
    // As batch reads a file (Buffer.concat, Response.arrayBuffer): bytes owning their buffer (sharp's own are not movable).
    const grey = new Uint8Array(await greyPhoto());
    const expectedYcc = greyJpegAsYcc(grey, { profiles: true })!;
    const ycc = await withTicks(() => greyJpegAsYccOffThread(grey, { profiles: true }));
    expect(ycc.result.rewritten).toBe(true);
    expect(same(ycc.result.bytes, expectedYcc)).toBe(true);
    // Moved, not copied: the caller's buffer went to the worker.
    expect(grey.buffer.byteLength).toBe(0);
    expect(ycc.ticks).toBeGreaterThanOrEqual(3);
    expect(ycc.busy).toBeLessThan(0.5);

    const colour = ycc.result.bytes;
    const expected = yccJpegAsGrey(colour)!;
    const back = await withTicks(() => yccJpegAsGreyOffThread(colour));
    expect(back.result.rewritten).toBe(true);
    expect(same(back.result.bytes, expected)).toBe(true);
    expect(back.ticks).toBeGreaterThanOrEqual(3);
    expect(back.busy).toBeLessThan(0.5);
    expect((await sharp(back.result.bytes).metadata()).channels).toBe(1);
  });

  it('where a rewrite does not apply, as core says, the bytes come back as they were; a slice of a larger buffer is copied, the rest left alone', async () => {
    const colour = await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 200, g: 40, b: 10 } } }).jpeg().toBuffer();
    const pool = Buffer.alloc(colour.length + 64);
    colour.copy(pool, 32);
    const slice = pool.subarray(32, 32 + colour.length);
    const a = await greyJpegAsYccOffThread(slice, {});
    expect(a.rewritten).toBe(false);
    expect(same(a.bytes, colour)).toBe(true);
    expect(same(slice, colour)).toBe(true);
    const b = await yccJpegAsGreyOffThread(a.bytes);
    expect(b.rewritten).toBe(false);
    expect(same(b.bytes, colour)).toBe(true);
  });

  it('a PNG file to file, grey → colour and back: core\'s bytes exactly, the caller\'s event loop turning all along', async () => {
    const dir = tempDir();
    const grey = join(dir, 'grey.png');
    writeFileSync(grey, await greyImage().png().toBuffer());
    const rgb = await withTicks(() => greyPngAsRgbFile(grey, join(dir, 'rgb.png'), { profiles: true }));
    const rgbBytes = readFileSync(join(dir, 'rgb.png'));
    expect(same(rgbBytes, await whole(await greyPngAsRgb(new Blob([readFileSync(grey)]).stream(), { profiles: true })))).toBe(true);
    expect(rgb.result).toMatchObject({ bytes: rgbBytes.length, hash: expect.stringMatching(/^sha256:/) });
    // Streamed on this thread, the PNG rewrite would let the timer fire between its pieces, but keep the loop busy.
    expect(rgb.ticks).toBeGreaterThanOrEqual(3);
    expect(rgb.busy).toBeLessThan(0.5);

    const back = await withTicks(() => rgbPngAsGreyFile(join(dir, 'rgb.png'), join(dir, 'back.png')));
    const backBytes = readFileSync(join(dir, 'back.png'));
    expect(same(backBytes, await whole(await rgbPngAsGrey(new Blob([rgbBytes]).stream())))).toBe(true);
    expect(back.result?.bytes).toBe(backBytes.length);
    expect(back.ticks).toBeGreaterThanOrEqual(3);
    expect(back.busy).toBeLessThan(0.5);
    expect((await sharp(backBytes).metadata()).channels).toBe(1);
  });

  it('a PNG with colour in its last pixel is not made grey, and leaves no file; a broken one says why', async () => {
    const dir = tempDir();
    const pixels = Buffer.alloc(64 * 48 * 3, 128);
    pixels[pixels.length - 1] = 200;
    writeFileSync(join(dir, 'toned.png'), await sharp(pixels, { raw: { width: 64, height: 48, channels: 3 } }).png().toBuffer());
    expect(await rgbPngAsGreyFile(join(dir, 'toned.png'), join(dir, 'out.png'))).toBeUndefined();
    expect(existsSync(join(dir, 'out.png'))).toBe(false);

    // Its header is sound (so the rewrite applies) and its compressed rows are not.
    const broken = await greyImage().resize(64, 48).png().toBuffer();
    broken.fill(7, broken.length - 40, broken.length - 16);
    writeFileSync(join(dir, 'broken.png'), broken);
    await expect(greyPngAsRgbFile(join(dir, 'broken.png'), join(dir, 'rgb.png'), {})).rejects.toThrow(/\w/);
  });

  it('a cancel stops a rewrite in flight (its worker with it): it rejects with the cancel\'s reason, and the next rewrite is whole', async () => {
    const dir = tempDir();
    const grey = join(dir, 'grey.png');
    writeFileSync(grey, await greyImage().png().toBuffer());
    const expected = await whole(await greyPngAsRgb(new Blob([readFileSync(grey)]).stream(), { profiles: true }));
    const stop = new AbortController();
    const cancelled = greyPngAsRgbFile(grey, join(dir, 'cancelled.png'), { profiles: true }, stop.signal);
    // Once the worker has begun writing.
    await vi.waitFor(() => expect(existsSync(join(dir, 'cancelled.png'))).toBe(true), { timeout: 10_000, interval: 5 });
    stop.abort(new Error('cancelled by the user'));
    await expect(cancelled).rejects.toThrow('cancelled by the user');
    // Aborted before it is sent: never started.
    await expect(rgbPngAsGreyFile(grey, join(dir, 'never.png'), AbortSignal.abort(new Error('too late')))).rejects.toThrow('too late');
    expect(existsSync(join(dir, 'never.png'))).toBe(false);
    await greyPngAsRgbFile(grey, join(dir, 'rgb.png'), { profiles: true });
    expect(same(readFileSync(join(dir, 'rgb.png')), expected)).toBe(true);
  });
});
