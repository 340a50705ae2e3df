/** Seeded randomness: the same seed gives the same sequence on every run and machine. */

/** mulberry32 floats in [0, 1): `@pfc/core`'s seededRandom, the one the emulator's fault draws use. */
export { seededRandom as prng } from '@pfc/core';
import { seededRandom as prng } from '@pfc/core';

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
