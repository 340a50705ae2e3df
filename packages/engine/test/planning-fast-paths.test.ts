/**
 * The planner's fast paths give what their plain definitions give: grey-edge's
 * p = 12 norm with |∇|⁶ as multiplications (not `** 6`), and the scene's
 * colour count from a bitmap (not a Set). Checked on analysis copies of the
 * samples (with degraded copies, which change the gradients).
 */
import { describe, expect, it } from 'vitest';
import { greyEdgeIlluminant } from '../src/colour/estimate';
import { LINEAR_OF_BYTE } from '../src/colour/srgb';
import { thumbnailRaster, type Raster } from '../src/image/raster';
import { detectScene } from '../src/scene/detect';
import { linearGains, rgb, sample } from './colour-helpers';

const NAMES = ['objects/coffee.jpg', 'outdoors/rocket.jpg', 'portraits/astronaut.jpg', 'objects/chelsea.png'];

async function thumbs(): Promise<Raster[]> {
  const out: Raster[] = [];
  for (const name of NAMES) {
    const img = await rgb(sample(name));
    for (const copy of [img, linearGains(img, [1.3, 1, 0.7])]) out.push(await thumbnailRaster({ ...copy, channels: 3 }, 400));
  }
  return out;
}

/** Grey-edge from its definition: linear planes, [1 2 1]/4 smoothing twice, Σ hypot(dx, dy)^p over unclipped pixels, p-th root, mean 1. */
function greyEdgeReference(img: Raster, p: number): number[] {
  const { data, width: w, height: h, channels: ch } = img;
  const at = (a: Float64Array, x: number, y: number) => a[Math.min(h - 1, Math.max(0, y)) * w + Math.min(w - 1, Math.max(0, x))]!;
  const smooth = (a: Float64Array) => {
    const rows = Float64Array.from(a, (_, i) => (at(a, (i % w) - 1, Math.floor(i / w)) + 2 * a[i]! + at(a, (i % w) + 1, Math.floor(i / w))) / 4);
    return Float64Array.from(rows, (_, i) => (at(rows, i % w, Math.floor(i / w) - 1) + 2 * rows[i]! + at(rows, i % w, Math.floor(i / w) + 1)) / 4);
  };
  const e = [0, 1, 2].map((c) => {
    const plane = smooth(smooth(Float64Array.from({ length: w * h }, (_, i) => LINEAR_OF_BYTE[data[i * ch + c]!]!)));
    let sum = 0;
    for (let y = 1; y < h - 1; y++) {
      for (let x = 1; x < w - 1; x++) {
        const o = (y * w + x) * ch;
        if (data[o]! >= 250 || data[o + 1]! >= 250 || data[o + 2]! >= 250) continue;
        sum += Math.hypot(at(plane, x + 1, y) - at(plane, x - 1, y), at(plane, x, y + 1) - at(plane, x, y - 1)) ** p;
      }
    }
    return sum ** (1 / p);
  });
  const mean = (e[0]! + e[1]! + e[2]!) / 3;
  return e.map((v) => v / mean);
}

describe('planning fast paths', () => {
  it('grey-edge at p = 12 equals its definition (to 1e-12)', async () => {
    for (const t of await thumbs()) {
      const fast = greyEdgeIlluminant(t);
      const ref = greyEdgeReference(t, 12);
      for (let c = 0; c < 3; c++) expect(Math.abs(fast[c]! - ref[c]!)).toBeLessThan(1e-12);
    }
  });

  it('the scene counts distinct 15-bit colours as a Set would', async () => {
    for (const t of await thumbs()) {
      const colours = new Set<number>();
      for (let i = 0; i < t.data.length; i += 3) colours.add(((t.data[i]! >> 3) << 10) | ((t.data[i + 1]! >> 3) << 5) | (t.data[i + 2]! >> 3));
      expect(detectScene(t, []).signals.colourDensity).toBeCloseTo((colours.size * 1000) / (t.width * t.height), 12);
    }
  });
});
