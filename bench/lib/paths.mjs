/** Where things are: the repository, the built bins, the results folder. */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BENCH_DIR = path.join(ROOT, 'bench');
/** The built `pfc` CLI (packages/cli). */
export const CLI_BIN = path.join(ROOT, 'packages', 'cli', 'dist', 'main.js');
/** The built `pfc-emulator` (packages/emulator). */
export const EMULATOR_BIN = path.join(ROOT, 'packages', 'emulator', 'dist', 'bin.js');
/** Git-ignored folder for figures (`/bench-results/` in .gitignore). */
export const RESULTS_DIR = path.join(ROOT, 'bench-results');
/** Preloaded into measured child processes: reports their peak RSS on exit. */
export const RSS_PRELOAD = path.join(BENCH_DIR, 'lib', 'rss-preload.mjs');
