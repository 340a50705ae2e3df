/**
 * The planner's collision, duplicate and overwrite checks (keyed by real
 * paths, shared with the planned files' own strings where a path is its real
 * path) must equal a settlement made on the full paths. The reference below is
 * the settlement on full, lower-cased real paths, applied to the same files.
 */
import { symlinkSync } from 'node:fs';
import { basename, dirname, extname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PfcParams } from '@pfc/core';
import { type PlannedFile, planBatch } from '../src/index';
import { disambiguatedName, outputName, portableRelative } from '../src/paths';
import { realPathOf } from '../src/realpaths';
import { jpegBytes, pngBytes, tempDir, writeTree } from './helpers';

/** Settlement on full real paths: groups by lower-cased output, keeper keeps its name, the rest renamed, then claims in plan order. */
function referenceSettle(files: PlannedFile[], params: PfcParams, realRoot: (p: string) => string): void {
  const keyOf = (f: PlannedFile) => realRoot(f.output).normalize('NFC').toLowerCase();
  const groups = new Map<string, PlannedFile[]>();
  for (const f of files) groups.set(keyOf(f), [...(groups.get(keyOf(f)) ?? []), f]);
  const renamed = new Set<PlannedFile>();
  for (const group of groups.values()) {
    if (group.length < 2) continue;
    const keeper = group.find((f) => basename(f.input) === basename(f.output))
      ?? group.find((f) => extname(f.input).toLowerCase() === extname(f.output).toLowerCase()) ?? group[0]!;
    for (const f of group) {
      if (f === keeper) continue;
      f.output = join(dirname(f.output), disambiguatedName(basename(f.input), f.media.format, params, ''));
      renamed.add(f);
    }
  }
  const claimed = new Map<string, PlannedFile>();
  for (const f of [...files.filter((x) => !renamed.has(x)), ...files.filter((x) => renamed.has(x))]) {
    const owner = claimed.get(keyOf(f));
    if (owner) f.refusal = `its output ${f.output} would also be the output of ${owner.input}; rename one of the two`;
    else claimed.set(keyOf(f), f);
  }
}

/** A seeded tree of names that collide in many ways: case, extension, `x.png` beside `x.png.jpg`. */
function messyTree(seed: number): Record<string, Buffer> {
  let s = seed;
  const rnd = (n: number) => ((s = (s * 1103515245 + 12345) >>> 0) >>> 8) % n;
  const tree: Record<string, Buffer> = {};
  const stems = ['a', 'b', 'c', 'd'];
  const exts = ['.jpg', '.JPG', '.jpeg', '.png', '.png.jpg', '.jpg.jpg', '.PNG'];
  for (let i = 0; i < 120; i++) {
    const stem = stems[rnd(stems.length)]!;
    const name = (rnd(2) ? stem.toUpperCase() : stem) + exts[rnd(exts.length)]!;
    const path = `${['', 'x/', 'x/y/', 'X/'][rnd(4)]}${name}`;
    tree[path] = name.toLowerCase().endsWith('png') ? pngBytes(64, 64) : jpegBytes(64, 64);
  }
  return tree;
}

describe('planBatch collision keys', () => {
  for (const seed of [1, 2, 3]) {
    it(`settles collisions exactly as on full paths (seed ${seed})`, async () => {
      const root = tempDir();
      writeTree(root, messyTree(seed));
      // The same file reached twice (through a link) is planned once.
      symlinkSync(join(root, 'x'), join(root, 'xlink'));
      const params: PfcParams = { outputType: 'jpg' };
      const plan = await planBatch({ inputs: [join(root, 'x'), join(root, 'xlink'), root], output: { kind: 'mirror', dir: join(root, 'out') }, params });
      const got = plan.files.map((f) => [f.input, f.output, f.refusal ?? '']);
      expect(plan.files.length, JSON.stringify(plan.leftOut.kept.slice(0, 3))).toBeGreaterThan(20);
      expect(got.filter((g) => g[2]).length).toBeGreaterThan(0);
      expect(got.filter((g) => basename(g[1]!) !== outputName(basename(g[0]!), g[0]!.toLowerCase().endsWith('png') ? 'png' : 'jpeg', params)).length).toBeGreaterThan(0);

      const fresh = plan.files.map((f) => {
        const { refusal: _r, ...rest } = f;
        const file: PlannedFile = { ...rest, output: join(dirname(f.output), outputName(basename(f.input), f.media.format, params)) };
        return file;
      });
      const realDirs = new Map<string, string>();
      for (const f of fresh) realDirs.set(dirname(f.output), await realPathOf(dirname(f.output)));
      referenceSettle(fresh, params, (p) => join(realDirs.get(dirname(p))!, basename(p)));
      expect(got).toEqual(fresh.map((f) => [f.input, f.output, f.refusal ?? '']));
      expect(plan.leftOut.kept.filter((p) => p.code === 'duplicate').length).toBeGreaterThan(0);
    });
  }
});

describe('outputName', () => {
  it('follows a parameter object changed in place (the output type is remembered per object and its content)', () => {
    const params: PfcParams = {};
    expect(outputName('a.png', 'png', params)).toBe('a.png');
    params.outputType = 'jpg';
    expect(outputName('a.png', 'png', params)).toBe('a.jpg');
    params.outputType = 'original';
    expect(outputName('a.png', 'png', params)).toBe('a.png');
  });
});

describe('portableRelative', () => {
  it('equals path.relative, also for paths it cannot simply cut', () => {
    const pairs: Array<[string, string]> = [
      ['/a/b', '/a/b/c/d.jpg'], ['/a/b', '/a/bc/d.jpg'], ['/a/b', '/a/b'], ['/a/b', '/a/x/y.jpg'], ['/a/b/', '/a/b/c.jpg'],
      ['/a/b', '/a/b/../c.jpg'], ['/a/b', '/a/b/./c.jpg'], ['/a/b', '/a/b//c.jpg'], ['/a/./b', '/a/b/c.jpg'], ['/', '/a.jpg'],
      ['/a/b', '/a/b/.pfc-originals/c.jpg'], ['/a/b', '/a/b/c/..'],
    ];
    for (const [from, to] of pairs) expect(portableRelative(from, to), `${from} → ${to}`).toBe(relative(from, to));
  });
});
