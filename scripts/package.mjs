#!/usr/bin/env node
/**
 * `npm run package`: every artifact a user installs, from the built work tree
 * (the npm script builds first), into one folder (default `artifacts/`):
 *
 *   npm/        the published packages' tarballs (`npm publish <file>`, or `npm install -g` them)
 *   vscode/     the universal .vsix and the platform .vsix that carries the embedded emulator
 *   figma/      the plugin as a folder (manifest.json + dist/) and the same as a .zip
 *   photoshop/  the .ccx (Creative Cloud's plugin package)
 *   CHANGELOG.md, release.json (version, and every artifact's size and SHA-256)
 *
 * One version for all: the release refuses to start if any package disagrees
 * with the version or repository in scripts/packaging/workspace.mjs's source.
 *
 * Options: --out DIR; --no-platform-vsix (skip the ~75 MB platform package).
 */
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { zipSync } from 'fflate';
import { packAll } from './packaging/npm.mjs';
import { vscodePlatformVsix } from './packaging/vscode.mjs';
import { checkRelease, releaseInfo, ROOT } from './packaging/workspace.mjs';

const { values } = parseArgs({ options: { out: { type: 'string' }, 'no-platform-vsix': { type: 'boolean' } } });
const out = resolve(values.out ?? join(ROOT, 'artifacts'));

/** Stop with the reason when an input the release needs is missing. */
function need(path, hint) {
  if (!existsSync(path)) {
    console.error(`package: ${relative(ROOT, path)} is missing (${hint})`);
    process.exit(1);
  }
  return path;
}

/** Every file under `dir`, as archive paths relative to `dir`. */
function filesUnder(dir, base = dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? filesUnder(p, base) : [relative(base, p).split('\\').join('/')];
  });
}

function checkConsistent() {
  const problems = checkRelease();
  if (problems.length) {
    console.error(`package: the release is inconsistent:\n  ${problems.join('\n  ')}`);
    process.exit(1);
  }
}

function packFigma(version) {
  const plugin = join(ROOT, 'plugins/figma');
  const manifest = JSON.parse(readFileSync(join(plugin, 'manifest.json'), 'utf8'));
  const folder = join(out, 'figma', `pfc-figma-${version}`);
  // Exactly what the manifest names (Figma's "Import plugin from manifest…" loads these).
  for (const rel of ['manifest.json', manifest.main, manifest.ui]) {
    cpSync(need(join(plugin, rel), 'npm run build -w @pfc/figma'), join(folder, rel), { recursive: true });
  }
  const zip = join(out, 'figma', `pfc-figma-${version}.zip`);
  const entries = Object.fromEntries(filesUnder(folder).map((f) => [`pfc-figma-${version}/${f}`, readFileSync(join(folder, f))]));
  writeFileSync(zip, zipSync(entries, { level: 9 }));
  return [folder, zip];
}

function copyCcx(version) {
  const ccx = need(join(ROOT, 'plugins/photoshop/ccx', `pfc-photoshop-${version}.ccx`), 'npm run build -w pfc-photoshop');
  const dest = join(out, 'photoshop', `pfc-photoshop-${version}.ccx`);
  cpSync(ccx, dest);
  return dest;
}

function copyUniversalVsix(version) {
  const vsix = need(join(ROOT, 'plugins/vscode/dist/pfc-vscode.vsix'), 'npm run build -w pfc-vscode');
  const dest = join(out, 'vscode', `pfc-vscode-${version}.vsix`);
  mkdirSync(join(out, 'vscode'), { recursive: true });
  cpSync(vsix, dest);
  return dest;
}

/** The release's changelog: each published package's CHANGELOG.md (written by `changeset version`), in one file. */
function writeChangelog(version) {
  const parts = [`# Perfectly Clear hosts ${version}\n`];
  for (const dir of ['packages/core', 'packages/cli', 'packages/emulator', 'packages/engine', 'packages/batch', 'packages/node-io', 'plugins/vscode', 'plugins/figma', 'plugins/photoshop']) {
    const file = join(ROOT, dir, 'CHANGELOG.md');
    if (existsSync(file)) parts.push(readFileSync(file, 'utf8').replace(/^# /m, '## ').replace(/\n## /g, '\n### '));
  }
  const dest = join(out, 'CHANGELOG.md');
  writeFileSync(dest, parts.join('\n'));
  return dest;
}

function describe(path) {
  const st = statSync(path);
  if (st.isDirectory()) {
    const files = filesUnder(path);
    return { path: relative(out, path), kind: 'folder', files: files.length, bytes: files.reduce((n, f) => n + statSync(join(path, f)).size, 0) };
  }
  return { path: relative(out, path), kind: 'file', bytes: st.size, sha256: createHash('sha256').update(readFileSync(path)).digest('hex') };
}

checkConsistent();
const { version } = releaseInfo();
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const t0 = Date.now();

const tarballs = packAll(join(out, 'npm'));
const made = [
  ...tarballs.map((t) => t.file),
  copyUniversalVsix(version),
  ...(values['no-platform-vsix'] ? [] : [vscodePlatformVsix({ tarballs, dest: join(out, 'vscode'), version }).file]),
  ...packFigma(version),
  copyCcx(version),
  writeChangelog(version),
];
const artifacts = made.map(describe);
writeFileSync(join(out, 'release.json'), `${JSON.stringify({ version, builtAt: new Date().toISOString(), artifacts }, null, 2)}\n`);

const mb = (n) => `${(n / 1e6).toFixed(2)} MB`;
for (const a of artifacts) console.log(`  ${a.path.padEnd(48)} ${mb(a.bytes).padStart(10)}${a.kind === 'folder' ? ` (${a.files} files)` : ''}`);
console.log(`package: release ${version}, ${artifacts.length} artifacts in ${((Date.now() - t0) / 1000).toFixed(1)} s → ${out}`);
