#!/usr/bin/env node
/**
 * Colour-correction quality benchmark on photos the engine is not tuned on.
 *
 * 129 photos of many kinds (bench/photos/, licences in bench/photos/LICENSES.md)
 * in a fixed split: `tune` (99, may be tuned on) and `heldout` (30, measured
 * only). Each photo gets 18 known degradations (casts, exposure, haze, flat
 * contrast in two strengths, two combinations: quality/degradations.mjs);
 * each degraded copy is corrected by the engine (@pfc/engine correctImage,
 * default parameters: AI preset selection), by sharp's normalise() and by
 * ImageMagick's -auto-level (Debian `imagemagick`, installed with apt-get
 * when missing and running as root), all in the same run. The figure is the
 * mean CIEDE2000 to the undegraded original; how far the engine moves the
 * good originals is reported too (mean, 90th percentile, worst, named).
 * Photos with a face are also corrected under each cast by the engine's look
 * with and without its face detector (quality/portraits.mjs).
 *
 * Goals, on the held-out set: better than the degraded copy for every
 * degradation kind; overall mean at most half the degraded one; better than
 * normalise() and -auto-level; good originals p90 < ΔE 2 and none > ΔE 4.
 *
 * Usage: node bench/quality.mjs [--set tune|heldout|all] [--json FILE] [--sheet FILE]
 *          [--strict] [--no-install] [--detail] [--step N] [--only name,name]
 *          [--quick] [--small N] [--engine-only] [--look-only] [--faces] [--sheet-from FILE] [--help]
 *   --set       which photos (default all; goals are judged on heldout)
 *   --json      figures as JSON (default bench/out/quality.json)
 *   --sheet     contact sheet PNG of the held-out worst cases
 *   --sheet-from FILE  draw the --sheet from a saved run's figures (its --json)
 *               instead of measuring again: only the sheet's cases are corrected
 *   --strict    exit 1 when a goal is missed
 *   --detail    also print every photo's figures
 *   --step N    measure every N-th pixel (default 5: ~70,000 pixels a photo)
 *   --small N   measure copies resized to long side N (cached as PNG under
 *               bench/out/quality-small-N/), for fast iteration
 *   --engine-only  leave out the normalise() and -auto-level columns
 *   --look-only the engine's look on decoded pixels (no faces, so no portraits; no encode)
 *   --faces     with --look-only: the look finds faces (portraits, and their skin bounds the white balance)
 *   --quick     the tuning loop: --set tune --small 384 --step 4 --engine-only --look-only --detail
 *               (a few minutes on a loaded machine; goals are judged on full runs only)
 * Needs the engine built (`npm run build`; `npm run bench` does it).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { closeEngineWorkers } from '@pfc/engine';
import { DEGRADATIONS, KINDS } from './quality/degradations.mjs';
import { caseTiles, correctors, ensureImageMagick, measurePhoto } from './quality/measure.mjs';
import { writeSheet } from './quality/sheet.mjs';
import { summarise, goalsOf, printSummary } from './quality/report.mjs';
import { measurePortraits, printPortraits } from './quality/portraits.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const PHOTOS = path.join(HERE, 'photos');
const rawArgs = process.argv.slice(2);
if (rawArgs.includes('--help') || rawArgs.includes('-h')) {
  // The usage is this file's opening comment, from "Usage:" to the build note.
  const doc = readFileSync(fileURLToPath(import.meta.url), 'utf8').split('*/')[0];
  console.log(doc.slice(doc.indexOf('Usage:')).replace(/^ \* ?/gm, '').trim());
  process.exit(0);
}
const args = rawArgs.includes('--quick') ? [...rawArgs, '--set', 'tune', '--small', '384', '--step', '4', '--engine-only', '--look-only', '--detail'] : rawArgs;
const argValue = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] ? args[i + 1] : fallback;
};
const jsonOut = argValue('--json', path.join(HERE, 'out', args.includes('--small') ? 'quality-small.json' : 'quality.json'));
const sheetOut = argValue('--sheet', undefined);
const sets = argValue('--set', 'all') === 'all' ? ['tune', 'heldout'] : [argValue('--set')];
const only = argValue('--only', '').split(',').filter(Boolean);
const small = Number(argValue('--small', '0'));
const step = Number(argValue('--step', small ? '2' : '5'));

function listPhotos() {
  const out = [];
  for (const set of sets) {
    for (const f of readdirSync(path.join(PHOTOS, set)).sort()) {
      const name = f.replace(/\.(jpe?g|png)$/i, '');
      if (name !== f && (only.length === 0 || only.includes(name))) out.push({ set, name, file: path.join(PHOTOS, set, f) });
    }
  }
  return out;
}

/** The photo's copy at long side `small` (made once, then reused), or the photo itself. */
async function sizedCopy(p) {
  if (!small) return p.file;
  const file = path.join(HERE, 'out', `quality-small-${small}`, p.set, `${p.name}.png`);
  if (!existsSync(file)) {
    mkdirSync(path.dirname(file), { recursive: true });
    await sharp(p.file).resize(small, small, { fit: 'inside', withoutEnlargement: true }).png().toFile(file);
  }
  return file;
}

/** The sheet of a saved run (`--sheet-from`): its figures pick the cases, the correctors draw them now. */
async function sheetFromSaved(file) {
  const saved = JSON.parse(readFileSync(file, 'utf8'));
  const files = new Map(listPhotos().map((p) => [`${p.set}/${p.name}`, p.file]));
  const results = saved.perPhoto.filter((r) => files.has(`${r.set}/${r.name}`)).map((r) => ({ ...r, file: files.get(`${r.set}/${r.name}`) }));
  const im = ensureImageMagick(!args.includes('--no-install'));
  const fix = correctors(args.includes('--engine-only') ? undefined : im, { ms: 0, runs: 0 }, { engineOnly: args.includes('--engine-only'), lookOnly: args.includes('--look-only'), faces: args.includes('--faces') });
  await writeWorstSheet(results, fix, sheetOut ?? 'quality-worst.jpg');
  await closeEngineWorkers();
}

async function main() {
  if (argValue('--sheet-from')) return sheetFromSaved(argValue('--sheet-from'));
  const photos = listPhotos();
  if (photos.length === 0) throw new Error(`no photos selected under ${PHOTOS}`);
  const im = ensureImageMagick(!args.includes('--no-install'));
  const notes = im ? [] : ['ImageMagick not available: the -auto-level column is skipped (install Debian package imagemagick).'];
  const timing = { ms: 0, runs: 0 };
  const engineOnly = args.includes('--engine-only');
  const fix = correctors(engineOnly ? undefined : im, timing, { engineOnly, lookOnly: args.includes('--look-only'), faces: args.includes('--faces') });
  const started = performance.now();
  const results = [];
  for (const p of photos) {
    const r = await measurePhoto(await sizedCopy(p), DEGRADATIONS, fix, step);
    results.push({ ...p, ...r });
    if (args.includes('--detail')) {
      console.log(`${p.set.padEnd(7)} ${p.name.padEnd(22)} orig ${r.original.toFixed(2)}  ` + r.rows.map((x) => `${x.degraded.toFixed(1)}→${x.engine.toFixed(1)}`).join(' '));
    }
  }
  const portraits = await measurePortraits(await Promise.all(photos.map(async (p) => ({ name: p.name, file: await sizedCopy(p) }))), DEGRADATIONS, step);
  const summary = {
    photos: photos.map((p) => ({ set: p.set, name: p.name })),
    degradations: DEGRADATIONS.map((d) => ({ kind: d.kind, name: d.name })),
    sets: Object.fromEntries(sets.filter((s) => results.some((r) => r.set === s)).map((s) => [s, summarise(results.filter((r) => r.set === s), KINDS)])),
    perPhoto: results.map((r) => ({ set: r.set, name: r.name, original: r.original, rows: r.rows })),
    portraits,
    engineMsPerImage: timing.ms / Math.max(1, timing.runs),
    step,
    notes,
  };
  summary.goals = summary.sets.heldout ? goalsOf(summary.sets.heldout, !!im) : [];
  printSummary(summary, DEGRADATIONS.length);
  printPortraits(portraits);
  console.log(`\nengine: ${summary.engineMsPerImage.toFixed(0)} ms per image (${timing.runs} runs); total ${((performance.now() - started) / 1000).toFixed(1)} s`);
  mkdirSync(path.dirname(jsonOut), { recursive: true });
  writeFileSync(jsonOut, JSON.stringify(summary, null, 2) + '\n');
  console.log(`figures written to ${path.relative(process.cwd(), jsonOut)}`);
  if (sheetOut) await writeWorstSheet(results, fix, sheetOut);
  await closeEngineWorkers();
  if (args.includes('--strict') && summary.goals.some((g) => g.ok === false)) process.exitCode = 1;
}

/** The held-out set's worst cases: the originals moved most, and the corrections that helped least. */
async function writeWorstSheet(results, fix, file) {
  const held = results.filter((r) => r.set === 'heldout');
  const pool = held.length ? held : results;
  const originals = [...pool].sort((a, b) => b.original - a.original).slice(0, 4);
  const cases = pool
    .flatMap((r) => r.rows.map((row) => ({ r, row, harm: row.engine - row.degraded / 2 })))
    .sort((a, b) => b.harm - a.harm)
    .slice(0, 8);
  const rows = [];
  for (const r of originals) rows.push({ label: `${r.name}: good original, moved ΔE ${r.original.toFixed(2)}`, tiles: await caseTiles(r.file, undefined, fix) });
  for (const { r, row } of cases) {
    const d = DEGRADATIONS.find((x) => x.name === row.degradation);
    rows.push({ label: `${r.name}, ${row.degradation}: degraded ${row.degraded.toFixed(1)} → engine ${row.engine.toFixed(1)} (normalise ${row.normalise.toFixed(1)})`, tiles: await caseTiles(r.file, d, fix) });
  }
  await writeSheet(rows, ['original', 'input', ...Object.keys(fix)], file);
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
