/**
 * The planner's histograms (colour/histograms.ts, in WebAssembly) give what
 * `histogram(img, value)` gives with the function they stand for, on
 * analysis copies of the samples, a cast copy, random pixels (RGB and RGBA)
 * and the extremes.
 */
import { describe, expect, it } from 'vitest';
import { luma8 } from '../src/colour/apply';
import { histogram } from '../src/colour/estimate';
import { lumaHistogram, maxHistogram, minHistogram } from '../src/colour/histograms';
import { thumbnailRaster, type Raster } from '../src/image/raster';
import { linearGains, rgb, sample } from './colour-helpers';
import { noiseBytes } from './noise';

function random(n: number, ch: 3 | 4, seed: number): Raster {
  return { data: noiseBytes(n * ch, seed), width: n, height: 1, channels: ch };
}

describe('histogram loops', () => {
  it('equal histogram() with max, min and luma8', async () => {
    const images: Raster[] = [random(50_000, 3, 1), random(50_000, 4, 2), { data: Uint8Array.from([0, 0, 0, 255, 255, 255, 255, 0, 128]), width: 3, height: 1, channels: 3 }];
    for (const name of ['objects/coffee.jpg', 'outdoors/rocket.jpg', 'objects/chelsea.png']) {
      const img = await rgb(sample(name));
      for (const copy of [img, linearGains(img, [1.3, 1, 0.7])]) images.push(await thumbnailRaster({ ...copy, channels: 3 }, 400));
    }
    for (const img of images) {
      expect(Array.from(maxHistogram(img))).toEqual(Array.from(histogram(img, (r, g, b) => Math.max(r, g, b))));
      expect(Array.from(minHistogram(img))).toEqual(Array.from(histogram(img, (r, g, b) => Math.min(r, g, b))));
      expect(Array.from(lumaHistogram(img))).toEqual(Array.from(histogram(img, luma8)));
    }
  });

  it('equal histogram() with luma8 on every one of the 2^24 colours (the rounding at every half level)', () => {
    for (let r0 = 0; r0 < 256; r0 += 16) {
      const data = new Uint8Array(16 * 256 * 256 * 3);
      for (let i = 0, o = 0; i < 16 * 65536; i++, o += 3) {
        data[o] = r0 + (i >> 16);
        data[o + 1] = (i >> 8) & 255;
        data[o + 2] = i & 255;
      }
      const img: Raster = { data, width: 4096, height: 256, channels: 3 };
      expect(Array.from(lumaHistogram(img))).toEqual(Array.from(histogram(img, luma8)));
    }
  });
});
