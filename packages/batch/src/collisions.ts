/**
 * Two inputs never share an output. Outputs are compared by real path and
 * case-insensitively (macOS and Windows folders do not tell `A.jpg` from
 * `a.jpg`), and settled at planning: `a.png` and `a.jpg` with outputType=jpg
 * become `a.jpg` and `a.png.jpg`; what still collides after that (`a.png`
 * beside a file really named `a.png.jpg`, or `A.jpg` beside `a.jpg`) is
 * refused, naming both inputs.
 */
import { basename, dirname, extname, join } from 'node:path';
import type { PfcParams } from '@pfc/core';
import { disambiguatedName } from './paths';
import type { PlannedFile } from './plan';
import { realFilePaths } from './realpaths';

/** Settle the outputs of `files` (mirror and suffix modes): rename or refuse (`refusal`) so no two share a real path. */
export function settleCollisions(files: PlannedFile[], params: PfcParams, suffix: string): void {
  // The real path as the key, folded as those file systems fold names (a hash of it cost more than the maps it saved).
  // Synchronous: one real-path lookup per folder, and no promise per file.
  const realFolded = realFilePaths(true);
  const keyOf = (f: PlannedFile): string => realFolded(f.output);
  const renamed = new Set<PlannedFile>();
  const groups = groupBy(files, keyOf);
  // No two outputs share a key: nothing to rename, nothing to refuse (the common case, and a second key per file saved).
  if (groups.length === 0) return;
  for (const group of groups) {
    const keeper = pickKeeper(group);
    for (const f of group) {
      if (f === keeper) continue;
      f.output = join(dirname(f.output), disambiguatedName(basename(f.input), f.media.format, params, suffix));
      renamed.add(f);
    }
  }
  // Outputs that kept their plain name claim it first; then the renamed ones, in plan order.
  const claimed = new Map<string, PlannedFile>();
  for (const f of [...files.filter((x) => !renamed.has(x)), ...files.filter((x) => renamed.has(x))]) {
    const key = keyOf(f);
    const owner = claimed.get(key);
    if (owner) f.refusal = `its output ${f.output} would also be the output of ${owner.input}; rename one of the two`;
    else claimed.set(key, f);
  }
}

/** The groups of more than one file with equal keys (one key per file is all that is kept of the others). */
function groupBy(files: PlannedFile[], keyOf: (f: PlannedFile) => string): PlannedFile[][] {
  const first = new Map<string, PlannedFile>();
  const groups = new Map<string, PlannedFile[]>();
  for (const f of files) {
    const key = keyOf(f);
    const owner = first.get(key);
    if (!owner) first.set(key, f);
    else groups.set(key, [...(groups.get(key) ?? [owner]), f]);
  }
  return [...groups.values()];
}

/** The input whose output name is its own name, else the first whose extension already matches, else the first. */
function pickKeeper(group: PlannedFile[]): PlannedFile {
  return group.find((f) => basename(f.input) === basename(f.output))
    ?? group.find((f) => extname(f.input).toLowerCase() === extname(f.output).toLowerCase())
    ?? group[0]!;
}
