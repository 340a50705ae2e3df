/**
 * The unsharp mask's blur (`blurPlane` / `blurDetailPass` of
 * image/kernels.ts, WebAssembly) against libvips' own integer Gaussian
 * (sharp's `blur` with precision integer, as the mask used before): the same
 * 16-bit values to the bit, on noise and on a photo's luma, at the mask's
 * sigmas, on sizes with odd widths, one-pixel images and images shorter
 * than the mask.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { blurDetailPass, blurPlane } from '../src/image/kernels';
import { decodeRaster } from '../src/image/raster';
import { gaussianMask, lumaPlane } from '../src/image/sharpen';

/** Deterministic pseudo-random u16 values up to 65280 (256 × 255, the luma's range), a fixed LCG. */
function noise(n: number, seed: number): Uint16Array {
  const out = new Uint16Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = (s >>> 16) % 65281;
  }
  return out;
}

/** libvips' blur of the plane, as image/sharpen.ts ran it before the WebAssembly pass. */
async function libvipsBlur(luma: Uint16Array, width: number, height: number, sigma: number): Promise<Uint16Array> {
  const { data } = await sharp(luma, { raw: { width, height, channels: 1 } })
    .blur({ sigma, minAmplitude: 0.1, precision: 'integer' })
    .toColourspace('grey16')
    .raw({ depth: 'ushort' })
    .toBuffer({ resolveWithObject: true });
  return new Uint16Array(data.buffer, data.byteOffset, data.length / 2);
}

function firstDifference(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) return Math.min(a.length, b.length);
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return i;
  return -1;
}

const SIGMAS = [0.6, 1, 1.37, 2];

describe('gaussianMask (libvips gaussmat, integer, separable)', () => {
  it('makes libvips\' taps for the mask\'s smallest and largest sigma', () => {
    expect(Array.from(gaussianMask(2).taps)).toEqual([3, 6, 12, 18, 20, 18, 12, 6, 3]);
    expect(gaussianMask(2).scale).toBe(98);
    expect(Array.from(gaussianMask(0.6).taps)).toEqual([5, 20, 5]);
  });

  it('divides exactly in float32 for every sum the blur can make at these sigmas', () => {
    for (const sigma of SIGMAS) {
      const { scale } = gaussianMask(sigma);
      const half = scale >> 1;
      for (let a = 0; a <= 65535 * scale; a++) {
        if (Math.trunc(Math.fround(Math.fround(a + half) / scale)) !== Math.floor((a + half) / scale)) throw new Error(`sum ${a}, scale ${scale}`);
      }
    }
  });
});

describe('blurPlane (WebAssembly) against libvips', () => {
  for (const sigma of SIGMAS) {
    it(`gives libvips' values on noise at σ ${sigma}`, async () => {
      for (const [w, h] of [[257, 41], [1, 1], [3, 2], [1, 9], [13, 1], [6, 5]] as const) {
        const luma = noise(w * h, w * 31 + h);
        const ours = blurPlane(luma, w, h, gaussianMask(sigma));
        expect({ w, h, at: firstDifference(ours, await libvipsBlur(luma, w, h, sigma)) }).toEqual({ w, h, at: -1 });
      }
    });
  }

  it("gives libvips' values on a photo's luma", async () => {
    const img = await decodeRaster(await readFile(fileURLToPath(new URL('../../../samples/outdoors/rocket.jpg', import.meta.url))));
    const luma = lumaPlane(img);
    for (const sigma of [0.6, 2]) {
      expect(firstDifference(blurPlane(luma, img.width, img.height, gaussianMask(sigma)), await libvipsBlur(luma, img.width, img.height, sigma))).toBe(-1);
    }
  });

  it('adds the detail of that blur to R, G and B: the same pixels as the detail of libvips\' blur', async () => {
    const [w, h, ch] = [300, 37, 4] as const;
    const luma = noise(w * h, 5);
    const data = Uint8Array.from(noise(w * h * ch, 6), (v) => v & 255);
    const table = Int16Array.from({ length: 16384 }, (_, k) => Math.round((k - 8192) / 40));
    const blurred = await libvipsBlur(luma, w, h, 2);
    const expected = new Uint8Array(data);
    for (let p = 0; p < w * h; p++) {
      const delta = table[((luma[p]! - blurred[p]!) >> 3) + 8192]!;
      for (let c = 0; c < 3; c++) expected[p * ch + c] = Math.min(255, Math.max(0, data[p * ch + c]! + delta));
    }
    blurDetailPass({ data, width: w, height: h, channels: ch }, luma, gaussianMask(2), table);
    expect(firstDifference(data, expected)).toBe(-1);
  });
});
