/** The job-time model: a seeded log-normal around the median, plus a share per megapixel. Pure draws, no clocks. */
import { describe, expect, it } from 'vitest';
import { jobTimer } from '../src/webapi/job-time';
import type { Job } from '../src/webapi/jobs';

const jobOf = (width?: number, height?: number): Job => ({ spec: { file: { dimensions: width && height ? { width, height } : undefined } } }) as unknown as Job;

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

describe('jobTimer', () => {
  it('σ = 0: every job takes the median, plus its megapixels × the per-MP share', () => {
    const t = jobTimer({ medianMs: 300, sigma: 0, perMegapixelMs: 100, seed: 1 });
    expect(t(jobOf())).toBe(300);
    expect(t(jobOf(2000, 1000))).toBe(500);
  });

  it('σ = 0.5: the median holds, the logarithms spread with σ, and the same seed gives the same times', () => {
    const t = jobTimer({ medianMs: 300, sigma: 0.5, perMegapixelMs: 0, seed: 7 });
    const xs = Array.from({ length: 4000 }, () => t(jobOf(1000, 1000)));
    expect(median(xs) / 300).toBeGreaterThan(0.95);
    expect(median(xs) / 300).toBeLessThan(1.05);
    const logs = xs.map((x) => Math.log(x / 300));
    const sd = Math.sqrt(logs.reduce((a, l) => a + l * l, 0) / logs.length);
    expect(sd).toBeGreaterThan(0.47);
    expect(sd).toBeLessThan(0.53);
    expect(new Set(xs.map((x) => Math.round(x))).size).toBeGreaterThan(300);
    const again = jobTimer({ medianMs: 300, sigma: 0.5, perMegapixelMs: 0, seed: 7 });
    expect(Array.from({ length: 5 }, () => again(jobOf()))).toEqual(xs.slice(0, 5));
    const other = jobTimer({ medianMs: 300, sigma: 0.5, perMegapixelMs: 0, seed: 8 });
    expect(other(jobOf())).not.toBe(xs[0]);
  });
});
