/**
 * The unsharp mask on luma (`image/sharpen.ts`) on a synthetic edge, where
 * what it must do is plain to see: overshoot on both sides of the edge, flat
 * areas untouched, the same change in R, G and B (no colour fringes), halos
 * no larger than libvips' limits, alpha and the input left alone.
 */
import { describe, expect, it } from 'vitest';
import { sharpenCurve, sharpenRaster, sharpenSpec } from '../src/image/sharpen';
import type { Raster } from '../src/image/raster';

/** A vertical edge: left half `dark`, right half `light` (RGB triples), optional alpha. */
function edge(dark: [number, number, number], light: [number, number, number], channels: 3 | 4 = 3, width = 64, height = 8): Raster {
  const data = new Uint8Array(width * height * channels);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * channels;
      data.set(x < width / 2 ? dark : light, i);
      if (channels === 4) data[i + 3] = 100 + x;
    }
  }
  return { data, width, height, channels };
}

const at = (r: Raster, x: number, y = 4) => Array.from(r.data.subarray((y * r.width + x) * r.channels, (y * r.width + x + 1) * r.channels));
const spec = sharpenSpec(64, 8, 1)!;

describe('sharpenRaster (unsharp mask on luma)', () => {
  it('overshoots on both sides of an edge and leaves flat areas alone', async () => {
    const img = edge([60, 60, 60], [180, 180, 180]);
    const out = await sharpenRaster(img, spec);
    expect(at(out, 31)[0]).toBeLessThan(60);
    expect(at(out, 32)[0]).toBeGreaterThan(180);
    expect(at(out, 2)).toEqual([60, 60, 60]);
    expect(at(out, 60)).toEqual([180, 180, 180]);
  });

  it('adds the same change to R, G and B, so a coloured edge gains no fringe', async () => {
    const img = edge([120, 40, 30], [200, 150, 90]);
    const out = await sharpenRaster(img, spec);
    for (const x of [30, 31, 32, 33]) {
      const [r0, g0, b0] = at(img, x);
      const [r, g, b] = at(out, x);
      expect(r! - r0!).toBe(g! - g0!);
      expect(g! - g0!).toBe(b! - b0!);
    }
    expect(at(out, 31)[0]).not.toBe(120);
  });

  it('keeps halos within libvips limits: at most +10 and −20 L (25.5 and 51 levels)', async () => {
    // A strong mask on a mid-grey edge: unclamped, both sides would move by ~60 levels.
    const img = edge([60, 60, 60], [200, 200, 200]);
    const out = await sharpenRaster(img, sharpenSpec(64, 8, 2)!);
    const brightened = at(out, 32)[0]! - 200;
    const darkened = 60 - at(out, 31)[0]!;
    expect(brightened).toBeGreaterThan(20);
    expect(brightened).toBeLessThanOrEqual(26);
    expect(darkened).toBeGreaterThan(26);
    expect(darkened).toBeLessThanOrEqual(51);
    expect(sharpenCurve(spec, 255)).toBeCloseTo(25.5, 5);
    expect(sharpenCurve(spec, -255)).toBeCloseTo(-51, 5);
    // Within ±x1 (2 L = 5.1 levels) the gentle slope m1, beyond it m2.
    expect(sharpenCurve(spec, 2.55)).toBeCloseTo(spec.m1 * 2.55, 5);
    expect(sharpenCurve(spec, 10.2) - sharpenCurve(spec, 7.65)).toBeCloseTo(spec.m2 * 2.55, 5);
  });

  it('leaves alpha and the input raster untouched', async () => {
    const img = edge([60, 60, 60], [180, 180, 180], 4);
    const before = new Uint8Array(img.data);
    const out = await sharpenRaster(img, spec);
    expect(img.data).toEqual(before);
    for (let i = 3; i < out.data.length; i += 4) expect(out.data[i]).toBe(before[i]);
    expect(at(out, 32)[0]).toBeGreaterThan(180);
  });
});
