/** Every suite, in the order `npm run bench` runs them. */
import memory from './memory.mjs';
import polling from './polling.mjs';

export const SUITES = [polling, memory];
