#!/usr/bin/env node
/**
 * Adds the lockfile entries that npm leaves out here: the npm registry this
 * workplace reaches serves no darwin/windows/android… builds of packages such as
 * turbo, rollup, esbuild and sharp, so `npm install` writes a lockfile without
 * those optional platform packages and `npm ci` then refuses it as "out of sync".
 * Each missing optional dependency gets a version-only entry beside its
 * installed sibling (e.g. `@turbo/darwin-64` beside `@turbo/linux-64`); npm ci
 * accepts the lockfile and skips those entries on this platform. Versions of
 * everything installed are untouched. Idempotent.
 *
 * Usage: node scripts/complete-lockfile.mjs [package-lock.json]
 */
import { readFileSync, writeFileSync } from 'node:fs';

const path = process.argv[2] ?? 'package-lock.json';
const lock = JSON.parse(readFileSync(path, 'utf8'));
const pk = lock.packages;

/** Where Node's resolution from `loc` finds `name`, or undefined. */
function resolveFrom(loc, name) {
  let cur = loc;
  for (;;) {
    const candidate = `${cur ? `${cur}/` : ''}node_modules/${name}`;
    if (pk[candidate]) return candidate;
    if (!cur) return undefined;
    const i = cur.lastIndexOf('/node_modules/');
    cur = i >= 0 ? cur.slice(0, i) : '';
  }
}

let added = 0;
for (const [loc, meta] of Object.entries(pk)) {
  const optional = Object.entries(meta.optionalDependencies ?? {});
  const present = optional.map(([n]) => resolveFrom(loc, n)).find(Boolean);
  for (const [name, range] of optional) {
    if (resolveFrom(loc, name)) continue;
    const dir = present ? present.slice(0, present.lastIndexOf('node_modules/') + 'node_modules/'.length) : `${loc ? `${loc}/` : ''}node_modules/`;
    pk[`${dir}${name}`] = { version: String(range).replace(/^[\^~=]/, ''), optional: true };
    added++;
  }
}
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`complete-lockfile: added ${added} optional platform entries`);
