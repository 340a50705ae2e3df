/**
 * CIEDE2000 against the published test data (Sharma, Wu & Dalal 2005), and the
 * image mean used by the benchmark.
 */
import { describe, expect, it } from 'vitest';
import { ciede2000, meanDeltaE2000, srgbToLab } from '../src/colour/deltaE';

describe('ciede2000', () => {
  // [L1, a1, b1, L2, a2, b2, ΔE00] rows of Sharma et al.'s table.
  const pairs = [
    [50, 2.6772, -79.7751, 50, 0, -82.7485, 2.0425],
    [50, 3.1571, -77.2803, 50, 0, -82.7485, 2.8615],
    [50, 0, 0, 50, -1, 2, 2.3669],
    [50, 2.5, 0, 73, 25, -18, 27.1492],
    [50, 2.5, 0, 50, 3.1736, 0.5854, 1.0],
    [60.2574, -34.0099, 36.2677, 60.4626, -34.1751, 39.4387, 1.2644],
    [22.7233, 20.0904, -46.694, 23.0331, 14.973, -42.5619, 2.0373],
    [90.9257, -0.5406, -0.9208, 88.6381, -0.8985, -0.7239, 1.5381],
  ] as const;
  it.each(pairs)('matches the published value for (%f, %f, %f) vs (%f, %f, %f)', (L1, a1, b1, L2, a2, b2, expected) => {
    expect(ciede2000({ L: L1, a: a1, b: b1 }, { L: L2, a: a2, b: b2 })).toBeCloseTo(expected, 3);
    expect(ciede2000({ L: L2, a: a2, b: b2 }, { L: L1, a: a1, b: b1 })).toBeCloseTo(expected, 3);
  });

  it('converts sRGB white and black to L* 100 and 0', () => {
    const white = srgbToLab(255, 255, 255);
    expect(white.L).toBeCloseTo(100, 1);
    expect(Math.abs(white.a) + Math.abs(white.b)).toBeLessThan(0.1);
    expect(srgbToLab(0, 0, 0).L).toBeCloseTo(0, 5);
  });

  it('averages over pixels and rejects mismatched sizes', () => {
    const a = new Uint8Array([0, 0, 0, 255, 255, 255]);
    const b = new Uint8Array([0, 0, 0, 0, 0, 0]);
    expect(meanDeltaE2000(a, a, 3)).toBe(0);
    expect(meanDeltaE2000(a, b, 3)).toBeCloseTo(100 / 2, 0);
    expect(() => meanDeltaE2000(a, new Uint8Array(3), 3)).toThrow(/differ in size/);
  });
});
