/** Every suite, in the order `npm run bench` runs them. */
import polling from './polling.mjs';

export const SUITES = [polling];
