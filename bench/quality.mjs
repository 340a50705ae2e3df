#!/usr/bin/env node
/**
 * Colour-correction quality benchmark.
 *
 * Takes the public-domain / CC0 sample photos (samples/, see samples/LICENSES.md),
 * applies known degradations (colour casts, under/over-exposure, low contrast,
 * haze and combinations), corrects each degraded copy, and reports the mean
 * CIEDE2000 difference to the undegraded original for:
 *   - the degraded copy itself,
 *   - the engine (@pfc/engine correctImage with default parameters: AI preset selection),
 *   - sharp's normalise() alone,
 *   - ImageMagick's -auto-level (Debian `imagemagick`; installed with apt-get when
 *     missing and running as root, else the column is skipped with a note).
 * It also reports how far the engine moves the good originals.
 *
 * Goal: the engine at least halves the degraded set's mean error, beats both
 * baselines, and moves every good original by less than ΔE 3.
 *
 * Usage: node bench/quality.mjs [--json FILE] [--sheet FILE] [--strict] [--no-install]
 *   --json FILE    also write the figures as JSON (default bench/out/quality.json)
 *   --sheet FILE   write a contact sheet PNG of one photo per degradation
 *   --strict       exit 1 when a goal is missed
 *   --no-install   never apt-get install ImageMagick
 *   --detail       also print the engine's figure per photo and degradation
 *   --step N       measure every N-th pixel only (quick estimates while tuning)
 * Needs the engine built (`npm run build`; `npm run bench` does it).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { correctImage, meanDeltaE2000 } from '@pfc/engine';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SAMPLES = path.join(ROOT, 'samples');
const args = process.argv.slice(2);
const argValue = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] ? args[i + 1] : fallback;
};
const jsonOut = argValue('--json', path.join(ROOT, 'bench', 'out', 'quality.json'));
const sheetOut = argValue('--sheet', undefined);
const strict = args.includes('--strict');
const allowInstall = !args.includes('--no-install');
const step = Number(argValue('--step', '1'));
const detail = args.includes('--detail');

// ---- sRGB helpers (degradations are modelled in linear light, as a camera would make them) ----
const toLin = (v) => (v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
const toEnc = (v) => {
  const c = Math.min(1, Math.max(0, v));
  return c <= 0.0031308 ? c * 12.92 : 1.055 * c ** (1 / 2.4) - 0.055;
};
const LIN = Float64Array.from({ length: 256 }, (_, i) => toLin(i / 255));
const byte = (v) => Math.round(Math.min(1, Math.max(0, v)) * 255);

/** Per-channel map in linear light: f(linear value, channel) → linear value. */
const linearMap = (f) => (src) => {
  const out = new Uint8Array(src.length);
  for (let i = 0; i < src.length; i++) out[i] = byte(toEnc(f(LIN[src[i]], i % 3)));
  return out;
};
/** Per-channel map on encoded values 0..1. */
const encodedMap = (f) => (src) => {
  const out = new Uint8Array(src.length);
  for (let i = 0; i < src.length; i++) out[i] = byte(f(src[i] / 255, i % 3));
  return out;
};
const gains = (g) => linearMap((x, c) => x * g[c]);
const chain = (...fs) => (src) => fs.reduce((acc, f) => f(acc), src);

/** The degradations: illuminant casts (von Kries gains), exposure, flat contrast, haze. */
const DEGRADATIONS = [
  { name: 'warm cast (tungsten-like)', apply: gains([1.3, 1.0, 0.65]) },
  { name: 'cool cast (shade-like)', apply: gains([0.75, 0.95, 1.3]) },
  { name: 'green cast (fluorescent-like)', apply: gains([0.85, 1.15, 0.85]) },
  { name: 'magenta cast', apply: gains([1.15, 0.85, 1.1]) },
  { name: 'under-exposed (-1.5 EV)', apply: gains([0.35, 0.35, 0.35]) },
  { name: 'over-exposed (+1 EV, clipped)', apply: gains([2, 2, 2]) },
  { name: 'low contrast (editor -50%)', apply: encodedMap((v) => 0.22 + 0.56 * v) },
  { name: 'haze (veiling light 25%)', apply: linearMap((x) => 0.75 * x + 0.25 * 0.7) },
  { name: 'warm + under-exposed', apply: gains([0.6, 0.45, 0.3]) },
  { name: 'cool + low contrast', apply: chain(gains([0.8, 0.95, 1.25]), encodedMap((v) => 0.2 + 0.6 * v)) },
];

function listPhotos() {
  const out = [];
  for (const dir of readdirSync(SAMPLES, { withFileTypes: true })) {
    if (!dir.isDirectory()) continue;
    for (const f of readdirSync(path.join(SAMPLES, dir.name))) {
      if (/\.(jpe?g|png)$/i.test(f)) out.push(path.join(SAMPLES, dir.name, f));
    }
  }
  return out.sort();
}

async function rawRgb(input) {
  const { data, info } = await sharp(input).removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.length), width: info.width, height: info.height };
}
const pngOf = (data, width, height) => sharp(Buffer.from(data), { raw: { width, height, channels: 3 } }).png().toBuffer();

function findImageMagick() {
  for (const bin of ['/usr/bin/convert-im6.q16', '/usr/bin/magick', '/usr/bin/convert']) {
    if (existsSync(bin) && spawnSync(bin, ['-version'], { encoding: 'utf8' }).stdout?.includes('ImageMagick')) return bin;
  }
  return undefined;
}
function ensureImageMagick() {
  let bin = findImageMagick();
  if (bin || !allowInstall) return bin;
  if (typeof process.getuid === 'function' && process.getuid() === 0) {
    console.log('ImageMagick not found; installing Debian package imagemagick with apt-get ...');
    const r = spawnSync('apt-get', ['install', '-y', '--no-install-recommends', 'imagemagick'], { stdio: 'ignore' });
    if (r.status !== 0) spawnSync('sh', ['-c', 'apt-get update && apt-get install -y --no-install-recommends imagemagick'], { stdio: 'ignore' });
    bin = findImageMagick();
  }
  return bin;
}
const imAutoLevel = (bin, png) => execFileSync(bin, ['png:-', '-auto-level', 'png:-'], { input: png, maxBuffer: 1 << 28 });

const mean = (xs) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);
const fmt = (v) => (Number.isFinite(v) ? v.toFixed(2).padStart(6) : '   n/a');

async function main() {
  const photos = listPhotos();
  if (photos.length === 0) throw new Error(`no photos found under ${SAMPLES}`);
  const im = ensureImageMagick();
  const notes = [];
  if (!im) notes.push('ImageMagick not available: the -auto-level column is skipped (install Debian package imagemagick).');

  const rows = DEGRADATIONS.map((d) => ({ name: d.name, degraded: [], engine: [], normalise: [], autoLevel: [] }));
  const originals = [];
  const sheet = [];
  const started = performance.now();
  let engineMs = 0;
  let engineRuns = 0;

  for (const file of photos) {
    const name = path.relative(SAMPLES, file);
    const orig = await rawRgb(file);
    const origPng = await pngOf(orig.data, orig.width, orig.height);
    const runEngine = async (png) => {
      const t = performance.now();
      const r = await correctImage(png, {});
      engineMs += performance.now() - t;
      engineRuns++;
      return rawRgb(r.output);
    };
    const same = await runEngine(origPng);
    originals.push({ photo: name, deltaE: meanDeltaE2000(orig.data, same.data, 3, step) });

    for (let k = 0; k < DEGRADATIONS.length; k++) {
      const deg = DEGRADATIONS[k].apply(orig.data);
      const degPng = await pngOf(deg, orig.width, orig.height);
      const eng = await runEngine(degPng);
      const norm = await rawRgb(await sharp(degPng).normalise().png().toBuffer());
      const row = rows[k];
      row.degraded.push(meanDeltaE2000(orig.data, deg, 3, step));
      row.engine.push(meanDeltaE2000(orig.data, eng.data, 3, step));
      row.normalise.push(meanDeltaE2000(orig.data, norm.data, 3, step));
      let lvl;
      if (im) {
        lvl = await rawRgb(imAutoLevel(im, degPng));
        row.autoLevel.push(meanDeltaE2000(orig.data, lvl.data, 3, step));
      }
      if (sheetOut && sheet.length < DEGRADATIONS.length && file === photos[0]) {
        sheet.push({ label: DEGRADATIONS[k].name, tiles: [origPng, degPng, await pngOf(eng.data, orig.width, orig.height), await pngOf(norm.data, orig.width, orig.height), ...(lvl ? [await pngOf(lvl.data, orig.width, orig.height)] : [])] });
      }
    }
  }

  const all = (key) => mean(rows.flatMap((r) => r[key]));
  const summary = {
    photos: photos.map((f) => path.relative(SAMPLES, f)),
    degradations: rows.map((r) => ({
      name: r.name,
      degraded: mean(r.degraded),
      engine: mean(r.engine),
      normalise: mean(r.normalise),
      autoLevel: im ? mean(r.autoLevel) : null,
    })),
    overall: { degraded: all('degraded'), engine: all('engine'), normalise: all('normalise'), autoLevel: im ? all('autoLevel') : null },
    originals,
    engineMsPerImage: engineMs / Math.max(1, engineRuns),
    notes,
  };

  console.log(`\nColour-correction quality: mean CIEDE2000 to the undegraded original (lower is better)`);
  console.log(`${photos.length} photos x ${DEGRADATIONS.length} degradations\n`);
  console.log(`${'degradation'.padEnd(32)} degraded  engine normalise auto-level`);
  for (const d of summary.degradations) {
    console.log(`${d.name.padEnd(32)} ${fmt(d.degraded)}  ${fmt(d.engine)}  ${fmt(d.normalise)}   ${fmt(d.autoLevel ?? NaN)}`);
  }
  const o = summary.overall;
  console.log(`${'ALL'.padEnd(32)} ${fmt(o.degraded)}  ${fmt(o.engine)}  ${fmt(o.normalise)}   ${fmt(o.autoLevel ?? NaN)}`);
  if (detail) {
    console.log(`\nengine per photo: ${summary.photos.join(' | ')}`);
    for (const r of rows) console.log(`${r.name.padEnd(32)} ${r.engine.map(fmt).join(' ')}   (degraded ${r.degraded.map(fmt).join(' ')})`);
  }
  console.log(`\nGood originals through the engine (ΔE moved):`);
  for (const r of originals) console.log(`  ${r.photo.padEnd(30)} ${fmt(r.deltaE)}`);

  const goals = [
    { goal: 'engine at least halves the mean error', ok: o.engine <= o.degraded / 2 },
    { goal: "engine beats sharp's normalise()", ok: o.engine < o.normalise },
    { goal: "engine beats ImageMagick's -auto-level", ok: o.autoLevel === null ? null : o.engine < o.autoLevel },
    { goal: 'every good original moves less than ΔE 3', ok: originals.every((r) => r.deltaE < 3) },
  ];
  summary.goals = goals;
  console.log('');
  for (const g of goals) console.log(`${g.ok === null ? 'SKIP' : g.ok ? 'PASS' : 'FAIL'}  ${g.goal}`);
  for (const n of notes) console.log(`note: ${n}`);
  console.log(`\nengine: ${summary.engineMsPerImage.toFixed(0)} ms per image (${engineRuns} runs); total ${((performance.now() - started) / 1000).toFixed(1)} s`);

  mkdirSync(path.dirname(jsonOut), { recursive: true });
  writeFileSync(jsonOut, JSON.stringify(summary, null, 2) + '\n');
  console.log(`figures written to ${path.relative(process.cwd(), jsonOut)}`);
  if (sheetOut) await writeSheet(sheet, sheetOut);
  if (strict && goals.some((g) => g.ok === false)) process.exitCode = 1;
}

/** One row per degradation: original, degraded, engine, normalise, auto-level. */
async function writeSheet(rows, file) {
  const tile = 220;
  const label = 22;
  const cols = Math.max(...rows.map((r) => r.tiles.length));
  const header = ['original', 'degraded', 'engine', 'normalise()', '-auto-level'].slice(0, cols);
  const width = cols * tile;
  const height = label + rows.length * (tile + label);
  const text = (s, w) =>
    Buffer.from(`<svg width="${w}" height="${label}"><rect width="100%" height="100%" fill="white"/><text x="4" y="16" font-family="sans-serif" font-size="13">${s.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</text></svg>`);
  const layers = header.map((h, i) => ({ input: text(h, tile), left: i * tile, top: 0 }));
  for (const [r, row] of rows.entries()) {
    const top = label + r * (tile + label);
    layers.push({ input: text(row.label, width), left: 0, top });
    for (const [c, png] of row.tiles.entries()) {
      layers.push({ input: await sharp(png).resize(tile, tile, { fit: 'contain', background: '#ffffff' }).png().toBuffer(), left: c * tile, top: top + label });
    }
  }
  mkdirSync(path.dirname(file), { recursive: true });
  await sharp({ create: { width, height, channels: 3, background: '#ffffff' } }).composite(layers).png().toFile(file);
  console.log(`contact sheet written to ${path.relative(process.cwd(), file)}`);
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
