/**
 * The look's passes in bands on helper threads (image/bands.ts): the same
 * bytes as one thread, with the helpers proven to have done their share.
 * Needs the built band worker (`dist/band-worker.js`), as the vision tests
 * need theirs.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { correctImage } from '../src/correct';
import { bandCounters, blurDetailBands, curvesBands, freeCoresBetween, helpersFor, setBandHelpers, sharedBytes, sharedU16 } from '../src/image/bands';
import { blurDetailPass, curvesPass } from '../src/image/kernels';
import { gaussianMask } from '../src/image/sharpen';
import { noiseBytes } from './noise';

const sample = (rel: string) => fileURLToPath(new URL(`../../../samples/${rel}`, import.meta.url));


/** A table that changes every level differently, so a wrong row or a wrong luma shows. */
function detailTable(): Int16Array {
  return Int16Array.from({ length: 16384 }, (_, k) => ((k * 7919) % 41) - 20);
}

afterAll(() => setBandHelpers(undefined));

describe('helpers by the cores other processes leave free', () => {
  const at = (idle: number, total: number, own: number) => ({ idle, total, own, cores: 2 });
  it('counts the cores left beyond the job\'s own, not charging this process\'s threads against it', () => {
    // 1,000 ms of two cores' time: all idle; half busy with this process's own threads; half busy with others'.
    expect(freeCoresBetween(at(0, 0, 0), at(1000, 1000, 0))).toBe(1);
    expect(freeCoresBetween(at(0, 0, 0), at(500, 1000, 500))).toBe(1);
    expect(freeCoresBetween(at(0, 0, 0), at(500, 1000, 0))).toBe(0);
    expect(freeCoresBetween(at(0, 0, 0), at(100, 1000, 300))).toBeCloseTo(-0.2);
  });
  it('takes a helper for a free core, none when the cores are busy, never more than the cores allow', () => {
    expect(helpersFor(1, 2)).toBe(1);
    expect(helpersFor(0.6, 2)).toBe(1);
    expect(helpersFor(0.4, 2)).toBe(0);
    expect(helpersFor(2, 2)).toBe(1);
    expect(helpersFor(6.5, 8)).toBe(3);
    expect(helpersFor(1.4, 8)).toBe(1);
  });
});

describe('blurDetailBands', () => {
  // 1501 × 1403 (odd sizes, bands of unequal heights), 2.1 MP: enough pixels for three helpers.
  const [w, h] = [1501, 1403];
  for (const helpers of [1, 2, 3]) {
    it(`gives one thread's bytes with ${helpers} helper(s), on noise, at the mask's largest sigma`, async () => {
      const data = noiseBytes(w * h * 3, 7);
      const lumaValues = Uint16Array.from(noiseBytes(w * h, 11), (v, i) => v * 256 + (i % 256));
      const expected = new Uint8Array(data);
      const mask = gaussianMask(2);
      const table = detailTable();
      blurDetailPass({ data: expected, width: w, height: h, channels: 3 }, lumaValues, mask, table);

      setBandHelpers(helpers);
      const pixels = sharedBytes(data.length, w * h);
      pixels.set(data);
      const luma = sharedU16(lumaValues.length);
      luma.set(lumaValues);
      const before = bandCounters.helperBands;
      await blurDetailBands({ data: pixels, width: w, height: h, channels: 3 }, luma, mask, table);
      expect(bandCounters.helperBands - before).toBe(helpers);
      expect(Buffer.from(pixels).equals(Buffer.from(expected))).toBe(true);
    });
  }
});

describe('band buffers', () => {
  it('are shared only when a pass can be split (helpers, at least two bands of pixels)', () => {
    setBandHelpers(1);
    expect(sharedBytes(3 << 20, 1 << 20).buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(sharedU16(1 << 20).buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(sharedBytes(3 << 18, 1 << 18).buffer).not.toBeInstanceOf(SharedArrayBuffer);
    setBandHelpers(0);
    expect(sharedBytes(3 << 20, 1 << 20).buffer).not.toBeInstanceOf(SharedArrayBuffer);
    expect(sharedU16(1 << 20).buffer).not.toBeInstanceOf(SharedArrayBuffer);
  });
});

describe('curvesBands', () => {
  it('gives one thread\'s pixels and luma with 2 helpers, RGBA with vibrance', async () => {
    const [w, h] = [1201, 1777];
    const data = noiseBytes(w * h * 4, 3);
    const luts = [0, 1, 2].map((c) => Uint8Array.from({ length: 256 }, (_, i) => (i * (3 + c) + 17) & 255)) as [Uint8Array, Uint8Array, Uint8Array];
    const factors = Float64Array.from({ length: 512 }, (_, i) => 1 + ((i * 37) % 100) / 150);
    const expectedLuma = new Uint16Array(w * h);
    const expected = curvesPass({ data, channels: 4 }, luts, factors, expectedLuma);

    setBandHelpers(2);
    const out = sharedBytes(data.length, w * h);
    const luma = sharedU16(w * h);
    const before = bandCounters.helperBands;
    const ownRows: number[] = [];
    await curvesBands({ data, width: w, height: h, channels: 4 }, luts, factors, out, luma, async ({ from, to }) => {
      ownRows.push(from, to);
      curvesPass({ data: data.subarray(from * w * 4, to * w * 4), channels: 4 }, luts, factors, luma.subarray(from * w, to * w), out.subarray(from * w * 4, to * w * 4));
    });
    expect(bandCounters.helperBands - before).toBe(2);
    expect(ownRows).toEqual([0, Math.round(h / 3)]);
    expect(Buffer.from(out).equals(Buffer.from(expected))).toBe(true);
    expect(Buffer.from(luma.buffer).equals(Buffer.from(expectedLuma.buffer))).toBe(true);
  });
});

describe('correctImage with band helpers', () => {
  it('writes the same pixels with 0 and 1 helper on a 2.6 MP photo', async () => {
    // A sample scaled up so both passes are split (at least two bands of 0.5 MP).
    const input = await sharp(await readFile(sample('outdoors/rocket.jpg'))).resize(1980).jpeg({ quality: 90 }).toBuffer();
    const run = async (helpers: number) => {
      setBandHelpers(helpers);
      const before = bandCounters.helperBands;
      const r = await correctImage(input, { outputType: 'png' }, { findFaces: null });
      return { pixels: await sharp(r.output).raw().toBuffer(), bands: bandCounters.helperBands - before };
    };
    const one = await run(0);
    const two = await run(1);
    expect(one.bands).toBe(0);
    // The curves pass and the mask, one helper band each.
    expect(two.bands).toBe(2);
    expect(two.pixels.equals(one.pixels)).toBe(true);
  });
});
