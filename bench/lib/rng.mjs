/** Seeded randomness: the same seed gives the same sequence on every run and machine. */

/** mulberry32: a small, fast PRNG with a 32-bit state. Returns floats in [0, 1). */
export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Helpers over one PRNG. */
export function rng(seed) {
  const next = prng(seed);
  const r = {
    next,
    /** Integer in [lo, hi]. */
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
    /** True with probability p. */
    chance: (p) => next() < p,
    /** One element of a list. */
    pick: (list) => list[Math.floor(next() * list.length)],
    /** `n` random bytes. */
    bytes: (n) => {
      const b = Buffer.alloc(n);
      for (let i = 0; i < n; i++) b[i] = Math.floor(next() * 256);
      return b;
    },
    /** A random string of `n` characters from `alphabet`. */
    string: (n, alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789') => Array.from({ length: n }, () => alphabet[Math.floor(next() * alphabet.length)]).join(''),
  };
  return r;
}
