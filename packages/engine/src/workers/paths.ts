/**
 * Where the engine's files are at run time. The engine is built to
 * `dist/` (the worker scripts are `dist/vision-worker.js` and
 * `dist/upscale-worker.js`) and its models sit in `models/` of the package, so both are found from the package root, whether
 * this module runs from `dist/` or, in tests, from `src/`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EngineError } from '../errors';

let root: string | undefined;

/** Absolute path of the `@pfc/engine` package folder. */
export function packageRoot(): string {
  if (root) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === '@pfc/engine') return (root = dir);
    const up = dirname(dir);
    if (up === dir) throw new EngineError('missing-resource', '@pfc/engine: package folder not found (was the engine bundled into another file? it needs its dist/ and models/ folders)');
    dir = up;
  }
}

/**
 * A worker script of the package, e.g. `vision-worker` → `dist/vision-worker.js`;
 * it exists once the package is built.
 */
export function workerScript(name: 'vision-worker' | 'upscale-worker' | 'band-worker'): string {
  const script = join(packageRoot(), 'dist', `${name}.js`);
  if (!existsSync(script)) throw new EngineError('missing-resource', `@pfc/engine: ${script} is missing; build the package (npm run build -w @pfc/engine)`);
  return script;
}

/** Folder of the models copied into the package (see models/NOTICE.md). */
export function modelsDir(): string {
  return join(packageRoot(), 'models');
}
