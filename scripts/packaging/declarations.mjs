#!/usr/bin/env node
/**
 * Per-file declarations with declaration maps for a published package, so a
 * consumer's "Go to Definition" lands in the shipped TypeScript source
 * (`src`, listed in the package's `files`) rather than in a bundled `.d.ts`.
 *
 * Usage (from the package folder, after tsup): `node ../../scripts/packaging/declarations.mjs [--cjs]`
 *
 * Steps:
 * 1. `tsc --emitDeclarationOnly --declaration --declarationMap` over `src` into `dist`.
 * 2. Relative specifiers get explicit extensions: the sources use extensionless
 *    imports (moduleResolution "Bundler"), which a consumer under `node16`
 *    cannot resolve inside a `.d.ts` (attw reports an internal resolution error).
 * 3. With `--cjs`: every `X.d.ts` gets a `X.d.cts` twin whose specifiers end in
 *    `.cjs`, so a `require` consumer's types are CommonJS like the file it loads
 *    (a `.d.ts` under `"type": "module"` is ESM). Each twin gets its own map.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createRequire } from 'node:module';

const OUT = 'dist';
const SPECIFIER = /(\bfrom\s+|\bimport\s*\(\s*)(['"])(\.{1,2}\/[^'"]*)\2/g;

/** Every file under `dir` whose name ends in `suffix`. */
function walk(dir, suffix) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return walk(path, suffix);
    return name.endsWith(suffix) ? [path] : [];
  });
}

/** Step 1: tsc's per-file declarations and maps, next to tsup's JavaScript. */
function emitDeclarations(pkgDir) {
  const tsc = createRequire(join(pkgDir, 'package.json')).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [
    tsc, '-p', 'tsconfig.json',
    '--noEmit', 'false', '--emitDeclarationOnly', '--declaration', '--declarationMap',
    '--rootDir', 'src', '--outDir', OUT,
  ], { cwd: pkgDir, stdio: 'inherit' });
}

/** The `.js` path a relative specifier in `file` means: `./x` → `./x.js` or `./x/index.js`. */
function withExtension(file, spec) {
  if (/\.(c|m)?js$/.test(spec)) return spec;
  const target = resolve(dirname(file), spec);
  if (existsSync(`${target}.d.ts`)) return `${spec}.js`;
  if (existsSync(join(target, 'index.d.ts'))) return `${spec}/index.js`;
  throw new Error(`${file}: cannot resolve '${spec}' to an emitted declaration`);
}

/** Step 2: explicit `.js` extensions on every relative specifier of every `.d.ts`. */
function addExtensions(files) {
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const fixed = text.replace(SPECIFIER, (_, lead, q, spec) => `${lead}${q}${withExtension(file, spec)}${q}`);
    if (fixed !== text) writeFileSync(file, fixed);
  }
}

/** Step 3: a CommonJS twin (`.d.cts` + `.d.cts.map`) of each ESM declaration. */
function writeCjsTwins(files) {
  for (const file of files) {
    const twin = file.replace(/\.d\.ts$/, '.d.cts');
    const base = twin.slice(twin.lastIndexOf('/') + 1);
    const text = readFileSync(file, 'utf8')
      .replace(SPECIFIER, (_, lead, q, spec) => `${lead}${q}${spec.replace(/\.js$/, '.cjs')}${q}`)
      .replace(/\/\/# sourceMappingURL=.*$/m, `//# sourceMappingURL=${base}.map`);
    writeFileSync(twin, text);
    const map = JSON.parse(readFileSync(`${file}.map`, 'utf8'));
    writeFileSync(`${twin}.map`, JSON.stringify({ ...map, file: base }));
  }
}

const pkgDir = process.cwd();
emitDeclarations(pkgDir);
const declarations = walk(join(pkgDir, OUT), '.d.ts');
addExtensions(declarations);
if (process.argv.includes('--cjs')) writeCjsTwins(declarations);
