/**
 * Seeded randomness for whatever must repeat exactly: the emulator's fault
 * draws, the engine's textures, the benchmarks' fuzz cases. Not for secrets.
 */

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
