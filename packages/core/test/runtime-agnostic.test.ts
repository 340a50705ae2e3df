import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// Core runs in Node, in Figma's UI iframe and in Adobe UXP: no Node built-ins
// in its sources or its build (the lint rule and tsup's neutral platform also
// refuse them; this test names the offending file).
const SRC = new URL('../src/', import.meta.url).pathname;
const DIST = new URL('../dist/', import.meta.url).pathname;
const BUILTIN = new Set(builtinModules.filter((m) => !m.startsWith('_')));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? sources(join(dir, d.name)) : d.name.endsWith('.ts') ? [join(dir, d.name)] : []));
}

function importsOf(code: string): string[] {
  return [...code.matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)].map((m) => m[1]!);
}

const isNodeBuiltin = (spec: string) => spec.startsWith('node:') || BUILTIN.has(spec.split('/')[0]!);

describe('@pfc/core is runtime-agnostic', () => {
  it('no source file imports a Node built-in', () => {
    const offenders = sources(SRC).flatMap((f) => importsOf(readFileSync(f, 'utf8')).filter(isNodeBuiltin).map((s) => `${f}: ${s}`));
    expect(offenders).toEqual([]);
  });

  it('the build imports nothing but its own chunks (entries index and media)', () => {
    const built = readdirSync(DIST).filter((f) => f.endsWith('.js'));
    expect(built).toEqual(expect.arrayContaining(['index.js', 'media.js']));
    const foreign = built.flatMap((f) => importsOf(readFileSync(join(DIST, f), 'utf8')).filter((spec) => !/^\.\/[\w-]+\.js$/.test(spec)).map((spec) => `${f}: ${spec}`));
    expect(foreign).toEqual([]);
  });

  it('the check itself catches a node: import', () => {
    expect(importsOf("import { readFile } from 'node:fs';\nconst x = await import('path');").filter(isNodeBuiltin)).toEqual(['node:fs', 'path']);
  });
});
