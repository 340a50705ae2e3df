/**
 * Seeded randomness for whatever must repeat exactly: the emulator's fault
 * draws, the engine's textures, the benchmarks' fuzz cases; and the jitter
 * of retry delays. Not for secrets.
 */

/**
 * `ms` spread evenly over ±`spread` of itself (0.25: 75–125 %), so the retries of many requests or files that
 * failed together (a service restarting) do not all come back at one instant.
 */
export function jittered(ms: number, spread: number, random: () => number = Math.random): number {
  return Math.round(ms * (1 - spread + random() * 2 * spread));
}

/**
 * The wait before another attempt at a whole correction, after `attempt` attempts failed: `firstMs`, doubled
 * for each later attempt, ±50 % (files or images that failed together, a service restarting, do not all
 * come back at once). One rule for a batch's files and a host's lost jobs.
 */
export function attemptBackoffMs(attempt: number, firstMs: number): number {
  return jittered(firstMs * 2 ** (attempt - 1), 0.5);
}

/**
 * mulberry32: a small, fast PRNG with 32 bits of state. The same seed gives
 * the same sequence on every run and machine. Returns floats in [0, 1).
 */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
