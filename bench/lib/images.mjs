/** Test images generated on the fly: distinct, photo-sized, deterministic by seed. */
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { prng } from './rng.mjs';

/**
 * One JPEG of `width`×`height` whose content is unique to `seed`: a random
 * low-resolution field scaled up (smooth areas and edges, like a photo) plus
 * fine grain, so it compresses like a photo (~150–250 KB per megapixel at q90)
 * and the emulator's content cache never sees two equal files.
 */
export async function photoLikeJpeg(seed, width = 1000, height = 1000, quality = 90) {
  const rnd = prng(seed);
  const tw = Math.max(2, Math.round(width / 40));
  const th = Math.max(2, Math.round(height / 40));
  const tile = Buffer.alloc(tw * th * 3);
  for (let i = 0; i < tile.length; i++) tile[i] = Math.floor(rnd() * 256);
  const base = await sharp(tile, { raw: { width: tw, height: th, channels: 3 } }).resize(width, height, { kernel: 'cubic' }).raw().toBuffer();
  // Grain: cheap per-pixel noise of ±12 levels.
  let s = seed * 2654435761;
  for (let i = 0; i < base.length; i++) {
    s = (s * 1103515245 + 12345) >>> 0;
    const v = base[i] + ((s >>> 24) % 25) - 12;
    base[i] = v < 0 ? 0 : v > 255 ? 255 : v;
  }
  return sharp(base, { raw: { width, height, channels: 3 } }).jpeg({ quality }).toBuffer();
}

/**
 * Write `count` distinct JPEGs named `img-0000.jpg`… into `dir` (created),
 * spread over `subdirs` sub-folders when given (a nested tree, as users have).
 * Returns the file paths.
 */
export async function writeJpegs(dir, count, { width = 1000, height = 1000, seed = 1, subdirs = 0 } = {}) {
  const files = [];
  const jobs = [];
  for (let i = 0; i < count; i++) {
    const sub = subdirs > 0 ? `set-${i % subdirs}` : '';
    const file = path.join(dir, sub, `img-${String(i).padStart(4, '0')}.jpg`);
    files.push(file);
    jobs.push(async () => {
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, await photoLikeJpeg(seed * 100_003 + i, width, height));
    });
  }
  // A few at a time: sharp works off the main thread.
  for (let i = 0; i < jobs.length; i += 4) await Promise.all(jobs.slice(i, i + 4).map((j) => j()));
  return files;
}

/**
 * A folder holding `count` distinct 1000×1000 JPEGs (img-0000.jpg …) for the
 * given seed, generated once and kept under the system temp folder, since
 * making a thousand of them takes minutes. Treat it as read-only input.
 */
export async function cachedJpegSet(count, { seed = 1, width = 1000, height = 1000 } = {}) {
  const { default: os } = await import('node:os');
  const { existsSync } = await import('node:fs');
  const dir = path.join(os.tmpdir(), 'pfc-bench-images', `${width}x${height}-seed${seed}`);
  const missing = [];
  for (let i = 0; i < count; i++) {
    const file = path.join(dir, `img-${String(i).padStart(4, '0')}.jpg`);
    if (!existsSync(file)) missing.push(i);
  }
  if (missing.length) {
    await mkdir(dir, { recursive: true });
    for (let k = 0; k < missing.length; k += 4) {
      await Promise.all(missing.slice(k, k + 4).map(async (i) => {
        const file = path.join(dir, `img-${String(i).padStart(4, '0')}.jpg`);
        // Temp + rename: an interrupted run never leaves a truncated image in the cache.
        // A name of its own: two runs filling the cache at once must not share a temporary file.
        const tmp = `${file}.${process.pid}-${Math.random().toString(36).slice(2)}.tmp`;
        await writeFile(tmp, await photoLikeJpeg(seed * 100_003 + i, width, height));
        await rename(tmp, file);
      }));
    }
  }
  return { dir, files: Array.from({ length: count }, (_, i) => path.join(dir, `img-${String(i).padStart(4, '0')}.jpg`)) };
}

/**
 * A fresh input folder `dest` with copies of the first `count` cached JPEGs,
 * spread over `subdirs` sub-folders when given (a nested tree, as users have).
 * Copies, not links: a run that changed an input must not spoil the cache.
 */
export async function inputFolder(dest, count, { subdirs = 0, seed = 1 } = {}) {
  const { copyFile } = await import('node:fs/promises');
  const { files } = await cachedJpegSet(count, { seed });
  const out = [];
  for (const [i, src] of files.entries()) {
    const file = path.join(dest, subdirs > 0 ? `set-${i % subdirs}` : '', path.basename(src));
    await mkdir(path.dirname(file), { recursive: true });
    await copyFile(src, file);
    out.push(file);
  }
  return out;
}
