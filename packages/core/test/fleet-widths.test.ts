import { describe, expect, it } from 'vitest';
import { AutoWidth, Fleet } from '../src/index';

/**
 * A modelled instance with `workers` workers of `processingMs` each, always
 * kept at its width by the client: a call waits behind the files beyond its
 * workers, `(width − workers) × processingMs / workers`.
 */
function callMs(width: number, workers: number, processingMs: number): number {
  return processingMs + (Math.max(0, width - workers) * processingMs) / workers;
}

/** `rounds` rounds of calls (as many as the width each), every one taking the last free slot. */
function run(width: AutoWidth, rounds: number, ms: (width: number) => number, quickestMs: number, full = true): number[] {
  const path: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const n = width.current;
    for (let i = 0; i < n; i++) width.observe(ms(n), full, quickestMs);
    path.push(width.current);
  }
  return path;
}

describe('AutoWidth', () => {
  it('gives the instance that returns files faster more of them: the same queue time is more of its files', () => {
    const fast = new AutoWidth(2, 8);
    const slow = new AutoWidth(2, 8);
    // Two workers each; the fleet's quickest call is the fast one's 100 ms.
    run(fast, 30, (w) => callMs(w, 2, 100), 100);
    const slowPath = run(slow, 30, (w) => callMs(w, 2, 800), 100);
    // Fast: widened while its queue held less than one quickest call (2 files × 50 ms each = 100 ms).
    expect(fast.current).toBe(4);
    // Slow: one file waiting there is 400 ms, over three quickest calls: it stays at its workers (trying one more now and then).
    expect(Math.max(...slowPath.slice(10))).toBeLessThanOrEqual(3);
    expect(Math.min(...slowPath.slice(10))).toBe(2);
  });

  it('widens an instance that idles between the client\'s files (its calls wait in no queue), up to its most', () => {
    const w = new AutoWidth(2, 5);
    // The client turns files round slower than the workers free: no call ever waits.
    expect(run(w, 10, () => 120, 120)).toEqual([3, 4, 5, 5, 5, 5, 5, 5, 5, 5]);
  });

  it('does not widen on rounds where the client left slots free, and narrows where files only wait', () => {
    const idle = new AutoWidth(2, 8);
    run(idle, 10, () => 100, 100, false);
    expect(idle.current).toBe(2);
    const queued = new AutoWidth(4, 8);
    // One worker of 100 ms (its first call waited in no queue); the fleet's quickest call is 50 ms elsewhere.
    queued.observe(100, true, 50);
    const path = run(queued, 10, (w) => callMs(w, 1, 100), 50);
    // 3 files waiting (300 ms), then 2 (200 ms), are over three quickest calls; 1 (100 ms) is not.
    expect(path.slice(0, 3)).toEqual([3, 2, 2]);
    expect(queued.current).toBe(2);
  });

  it('a width given by the user stays as given', () => {
    const fixed = new AutoWidth(3, 3);
    run(fixed, 10, () => 100, 100);
    run(fixed, 10, (w) => callMs(w, 1, 100), 10);
    expect(fixed.current).toBe(3);
  });

  it('a fleet refuses a most below the start, naming the instance', () => {
    const member = { name: 'http://gpu-1:8081', client: {}, health: async () => true };
    expect(() => new Fleet([{ ...member, concurrency: 3, maxConcurrency: 2 }])).toThrow(/maxConcurrency of http:\/\/gpu-1:8081 must be an integer ≥ its concurrency 3 \(got 2\)/);
    expect(new Fleet([{ ...member, concurrency: 2, maxConcurrency: 6 }]).maxConcurrency).toBe(6);
  });
});
