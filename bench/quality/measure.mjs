/**
 * One photo through the benchmark: the good original through the engine,
 * then each degradation through the engine and both baselines, every result
 * measured as mean CIEDE2000 against the original.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import sharp from 'sharp';
import { applyLook, correctImage, detectFaces, meanDeltaE2000 } from '@pfc/engine';

/** Decoded 8-bit sRGB without alpha. */
export async function rawRgb(input) {
  const { data, info } = await sharp(input).removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.length), width: info.width, height: info.height };
}

/** Lossless (fast) PNG of raw RGB. */
export const pngOf = (data, width, height) => sharp(Buffer.from(data), { raw: { width, height, channels: 3 } }).png({ compressionLevel: 1 }).toBuffer();

function findImageMagick() {
  for (const bin of ['/usr/bin/convert-im6.q16', '/usr/bin/magick', '/usr/bin/convert']) {
    if (existsSync(bin) && spawnSync(bin, ['-version'], { encoding: 'utf8' }).stdout?.includes('ImageMagick')) return bin;
  }
  return undefined;
}

/** ImageMagick's binary; installs Debian's `imagemagick` with apt-get when missing, allowed and running as root. */
export function ensureImageMagick(allowInstall) {
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

/**
 * The correctors compared, each PNG in → raw RGB out. Options (the tuning
 * loop): `engineOnly` leaves out the baselines; `lookOnly` runs the engine's
 * look (`applyLook`: scene, preset, colour correction) on the decoded pixels
 * without face detection, and so without portraits (their sharpening) and
 * without the faces' skin bounding the white balance, skipping the job's
 * encode; `faces` gives that look the engine's face detector.
 */
export function correctors(im, timing, { engineOnly = false, lookOnly = false, faces = false } = {}) {
  const lookOptions = faces ? { findFaces: detectFaces } : {};
  const engine = lookOnly
    ? async (png) => {
        const r = await rawRgb(png);
        return { ...r, data: (await applyLook({ ...r, channels: 3 }, {}, lookOptions)).raster.data };
      }
    : async (png) => rawRgb((await correctImage(png, {})).output);
  return {
    engine: async (png) => {
      const t = performance.now();
      const r = await engine(png);
      timing.ms += performance.now() - t;
      timing.runs++;
      return r;
    },
    ...(engineOnly ? {} : { normalise: async (png) => rawRgb(await sharp(png).normalise().png({ compressionLevel: 1 }).toBuffer()) }),
    ...(im ? { autoLevel: async (png) => rawRgb(imAutoLevel(im, png)) } : {}),
  };
}

/**
 * Measure one photo: `{ original, rows }` where `original` is how far the
 * engine moves the good original and each row holds the ΔE of the degraded
 * copy and of each corrector's result.
 */
export async function measurePhoto(file, degradations, fix, step) {
  const orig = await rawRgb(file);
  const { width, height } = orig;
  const dE = (x) => meanDeltaE2000(orig.data, x, 3, step);
  const original = dE((await fix.engine(await pngOf(orig.data, width, height))).data);
  const rows = [];
  for (const d of degradations) {
    const deg = d.apply(orig.data);
    const png = await pngOf(deg, width, height);
    const row = { degradation: d.name, kind: d.kind, degraded: dE(deg) };
    for (const [name, f] of Object.entries(fix)) row[name] = dE((await f(png)).data);
    rows.push(row);
  }
  return { original, rows };
}

/** Tiles of one case for a contact sheet: original, degraded and each corrector's result (PNG). */
export async function caseTiles(file, degradation, fix) {
  const orig = await rawRgb(file);
  const { width, height } = orig;
  const origPng = await pngOf(orig.data, width, height);
  const input = degradation ? await pngOf(degradation.apply(orig.data), width, height) : origPng;
  const tiles = [origPng, input];
  for (const f of Object.values(fix)) {
    const r = await f(input);
    tiles.push(await pngOf(r.data, r.width, r.height));
  }
  return tiles;
}
