/**
 * Greyscale PNG to RGB for the Web API (which reads RGB or RGBA PNG only):
 * @pfc/core's `greyPngAsRgb` — pure JS, streamed row by row through the
 * platform's DecompressionStream / CompressionStream, what hosts without an
 * image library use (batch's choice without the host's rgbCopy) — beside `sharpRgbCopy(sharp)`
 * of @pfc/batch (libvips), on the same files in the same run. Time per
 * megapixel (wall and CPU, all threads), peak RSS and output size, at two
 * sizes and both depths, so a peak that grows with the image shows.
 *
 * Each conversion runs file → file in a process of its own (this file,
 * started with `--child`), so its peak RSS (the preload's VmHWM) is its own.
 * The core side's process never loads sharp. Each output is then checked with
 * sharp (dimensions, 3 channels, depth; rows at the top, middle and bottom
 * equal to the input's grey in R, G and B — decoding the bottom rows reads
 * the whole stream), so a broken conversion cannot report a fast time.
 */
import { createReadStream, createWriteStream, statSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { ROOT } from '../lib/paths.mjs';
import { runNode } from '../lib/proc.mjs';

const SELF = fileURLToPath(import.meta.url);
const MB = 1e6;
/** "Flat": core's peak RSS at the large size may exceed the small size's by this much at most. */
const FLAT_BYTES = 20 * MB;
/** The photo scaled up to the large size (Lanczos); the small size is a crop of it, so both have the same content statistics. */
const PHOTO = 'outdoors/rocket.jpg';
/** Rows compared per band (top, middle, bottom) in the check of each output. */
const BAND_ROWS = 8;

const SIDES = {
  core: 'core (greyPngAsRgb, streamed)',
  sharp: 'sharp (sharpRgbCopy)',
};

/**
 * The child: one conversion `side` of `input` into `output`, timed from after the imports; prints
 * `{ ms, cpuMs, bytes, rssAtStartBytes }` as one JSON line.
 */
async function child(side, input, output) {
  let convert;
  if (side === 'core') {
    const { greyPngAsRgb } = await import('@pfc/core');
    convert = async () => {
      const rgb = await greyPngAsRgb(Readable.toWeb(createReadStream(input)));
      if (!rgb) throw new Error(`greyPngAsRgb did not apply to ${input}`);
      await pipeline(Readable.fromWeb(rgb), createWriteStream(output));
    };
  } else if (side === 'sharp') {
    const { default: sharp } = await import('sharp');
    const { sharpRgbCopy } = await import('@pfc/batch');
    const copy = sharpRgbCopy(sharp);
    convert = () => copy(input, 'png', output);
  } else throw new Error(`unknown side ${side}`);
  const rssAtStartBytes = process.memoryUsage().rss;
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await convert();
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(c0);
  process.stdout.write(`${JSON.stringify({ ms, cpuMs: (cpu.user + cpu.system) / 1000, bytes: statSync(output).size, rssAtStartBytes })}\n`);
}

if (process.argv[1] === SELF && process.argv[2] === '--child') {
  await child(...process.argv.slice(3, 6));
}

/**
 * Grey PNGs of a photo: the sample scaled up to about `largeMp` megapixels as 16-bit grey, with a seeded
 * noise of about 1.5 grey levels (8-bit) so it compresses like a camera's photo rather than a smooth
 * upscale; the 8-bit files are its top bytes; the small size a centred crop of `smallMp`.
 */
async function makeImages(sharp, dir, smallMp, largeMp) {
  await mkdir(dir, { recursive: true });
  const src = path.join(ROOT, 'samples', PHOTO);
  const meta = await sharp(src).metadata();
  const k = Math.sqrt((largeMp * 1e6) / (meta.width * meta.height));
  const [width, height] = [Math.round(meta.width * k), Math.round(meta.height * k)];
  const raw = await sharp(src).resize(width, height, { kernel: 'lanczos3' }).toColourspace('grey16').raw({ depth: 'ushort' }).toBuffer();
  const grey16 = new Uint16Array(raw.buffer, raw.byteOffset, raw.length / 2);
  let seed = 7;
  for (let i = 0; i < grey16.length; i++) {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    // Two uniform terms (roughly bell-shaped), about ±1000 of 65535 at most.
    const v = grey16[i] + 2 * (((seed >>> 16) & 0x3ff) - 512 + ((seed >>> 8) & 0xff) - 128);
    grey16[i] = v < 0 ? 0 : v > 0xffff ? 0xffff : v;
  }
  const grey8 = new Uint8Array(grey16.length);
  for (let i = 0; i < grey16.length; i++) grey8[i] = grey16[i] >> 8;
  const ks = Math.sqrt(smallMp / largeMp);
  const [cw, ch] = [Math.round(width * ks), Math.round(height * ks)];
  const crop = { left: Math.floor((width - cw) / 2), top: Math.floor((height - ch) / 2), width: cw, height: ch };
  const files = [];
  for (const [label, pixels, space, depth] of [['8bit', grey8, 'b-w', 8], ['16bit', grey16, 'grey16', 16]]) {
    for (const [mp, region] of [[smallMp, crop], [largeMp, undefined]]) {
      const file = path.join(dir, `grey-${mp}mp-${label}.png`);
      let img = sharp(pixels, { raw: { width, height, channels: 1 } });
      if (region) img = img.extract(region);
      // Without toColourspace this sharp writes a one-band raw image as RGB.
      const info = await img.toColourspace(space).png().toFile(file);
      files.push({ file, mp, depth, width: info.width, height: info.height, bytes: info.size });
    }
  }
  return files;
}

/**
 * Rows [top, top + n) of a PNG as raw samples (16-bit ones as Uint16Array) in `space` (named, or this
 * sharp hands one band as three), read sequentially: the rows above are decoded on the way.
 */
async function band(sharp, file, top, n, depth, space) {
  const { data, info } = await sharp(file, { sequentialRead: true, failOn: 'warning' })
    .extract({ left: 0, top, width: (await sharp(file).metadata()).width, height: n })
    .toColourspace(space)
    .raw({ depth: depth === 16 ? 'ushort' : 'uchar' })
    .toBuffer({ resolveWithObject: true });
  const samples = depth === 16 ? new Uint16Array(data.buffer, data.byteOffset, data.length / 2) : data;
  return { samples, channels: info.channels };
}

/**
 * The output checked against its input: same size, three channels, the input's depth (else `problem`),
 * and on three bands of rows (the last one at the bottom: the whole stream decodes) how many samples
 * differ from R = G = B = the input's grey, by how much at most, and the first such pixel.
 */
async function check(sharp, image, output) {
  const m = await sharp(output).metadata();
  const depth = m.depth === 'ushort' ? 16 : m.depth === 'uchar' ? 8 : m.depth;
  if (m.format !== 'png' || m.width !== image.width || m.height !== image.height || m.channels !== 3 || depth !== image.depth) {
    return { problem: `${m.format} ${m.width}×${m.height}, ${m.channels} channels, depth ${m.depth} (wanted png ${image.width}×${image.height}, 3 channels, ${image.depth}-bit)` };
  }
  const found = { compared: 0, differing: 0, maxDiff: 0, first: undefined };
  for (const top of [0, Math.floor(image.height / 2), image.height - BAND_ROWS]) {
    const grey = await band(sharp, image.file, top, BAND_ROWS, image.depth, image.depth === 16 ? 'grey16' : 'b-w');
    const rgb = await band(sharp, output, top, BAND_ROWS, image.depth, image.depth === 16 ? 'rgb16' : 'srgb');
    if (grey.channels !== 1 || rgb.channels !== 3 || rgb.samples.length !== 3 * grey.samples.length) return { problem: `rows ${top}+: ${grey.channels} → ${rgb.channels} channels` };
    for (let i = 0; i < grey.samples.length; i++) {
      const g = grey.samples[i];
      for (let c = 0; c < 3; c++) {
        const diff = Math.abs(rgb.samples[3 * i + c] - g);
        found.compared++;
        if (diff === 0) continue;
        found.differing++;
        found.maxDiff = Math.max(found.maxDiff, diff);
        found.first ??= `pixel ${i % image.width},${top + Math.floor(i / image.width)}: grey ${g} became ${[0, 1, 2].map((k) => rgb.samples[3 * i + k]).join('/')}`;
      }
    }
  }
  return found;
}

async function measure(sharp, image, side, dir, log) {
  const output = path.join(dir, `${path.basename(image.file, '.png')}-${side}.png`);
  const r = await runNode(SELF, ['--child', side, image.file, output], { cwd: ROOT, rss: true, timeoutMs: 10 * 60_000 });
  if (r.code !== 0) throw new Error(`${side} on ${path.basename(image.file)} exited ${r.code ?? r.signal}: ${r.stderr.slice(-2000)}`);
  const out = JSON.parse(r.stdout.trim().split('\n').at(-1));
  // A broken output must not report a fast time; core's must be exact, sharp's differences are reported.
  const checked = await check(sharp, image, output);
  const wrong = checked.problem ?? (side === 'core' && checked.differing > 0 ? `${checked.differing} of ${checked.compared} samples differ (${checked.first})` : undefined);
  if (wrong) throw new Error(`${SIDES[side]} on ${path.basename(image.file)}: wrong output: ${wrong}`);
  const mp = (image.width * image.height) / 1e6;
  const row = {
    sizeMp: image.mp, depth: image.depth, side, width: image.width, height: image.height, mp: +mp.toFixed(2), inputBytes: image.bytes,
    ms: out.ms, msPerMp: out.ms / mp, cpuMs: out.cpuMs, cpuMsPerMp: out.cpuMs / mp, maxRssBytes: r.maxRssBytes, rssAtStartBytes: out.rssAtStartBytes,
    processCpuMs: r.cpuMs, processMs: r.ms, outputBytes: out.bytes, checked, load: os.loadavg()[0],
  };
  log(`${image.mp} MP ${String(image.depth).padStart(2)}-bit ${side.padEnd(5)}: ${row.msPerMp.toFixed(0).padStart(4)} ms/MP, CPU ${row.cpuMsPerMp.toFixed(0).padStart(4)} ms/MP, peak RSS ${(row.maxRssBytes / MB).toFixed(1).padStart(6)} MB (${(out.rssAtStartBytes / MB).toFixed(0)} MB at start), output ${(out.bytes / MB).toFixed(1)} MB (${(out.ms / 1000).toFixed(1)} s)${checked.differing ? `; ${checked.differing} of ${checked.compared} checked samples differ from the grey, by ≤ ${checked.maxDiff} (${checked.first})` : ''}`);
  return row;
}

export default {
  name: 'grey',
  area: 'Grey PNG',
  title: "Greyscale PNG to RGB for the Web API: core's streamed transcode vs sharp",
  async run({ quick, dir, log }) {
    // Only here: the measured core process must not load libvips.
    const { default: sharp } = await import('sharp');
    const [smallMp, largeMp] = quick ? [2, 8] : [12, 48];
    const t0 = performance.now();
    const images = await makeImages(sharp, path.join(dir, 'images'), smallMp, largeMp);
    log(`images (${((performance.now() - t0) / 1000).toFixed(1)} s): ${images.map((i) => `${i.width}×${i.height} ${i.depth}-bit ${(i.bytes / MB).toFixed(1)} MB (${((8 * i.bytes) / (i.width * i.height * i.depth)).toFixed(2)} of raw)`).join('; ')}`);
    const outDir = path.join(dir, 'out');
    await mkdir(outDir, { recursive: true });
    const rows = [];
    for (const [n, image] of images.entries()) {
      // Alternate which side goes first, so neither always meets a warmer page cache or a quieter machine.
      const sides = n % 2 ? ['sharp', 'core'] : ['core', 'sharp'];
      for (const side of sides) rows.push(await measure(sharp, image, side, outDir, log));
    }

    const row = (mp, depth, side) => rows.find((r) => r.sizeMp === mp && r.depth === depth && r.side === side);
    // The table: by depth, size, then core beside sharp.
    const ordered = [...rows].sort((a, b) => a.depth - b.depth || a.sizeMp - b.sizeMp || (a.side === 'core' ? -1 : 1));
    log('size    depth side   ms/MP  CPU ms/MP  peak RSS MB  output MB');
    for (const r of ordered) {
      log(`${`${r.sizeMp} MP`.padEnd(7)} ${`${r.depth}-bit`.padEnd(5)} ${r.side.padEnd(5)} ${r.msPerMp.toFixed(0).padStart(6)} ${r.cpuMsPerMp.toFixed(0).padStart(10)} ${(r.maxRssBytes / MB).toFixed(1).padStart(12)} ${(r.outputBytes / MB).toFixed(1).padStart(10)}`);
    }
    const figures = ordered.map((r) => ({
      name: `${r.sizeMp} MP ${r.depth}-bit: ${SIDES[r.side]}`,
      value: Math.round(r.msPerMp),
      unit: 'ms/MP',
      note: `CPU ${r.cpuMsPerMp.toFixed(0)} ms/MP; peak RSS ${(r.maxRssBytes / MB).toFixed(1)} MB (${(r.rssAtStartBytes / MB).toFixed(0)} MB before the conversion); output ${(r.outputBytes / MB).toFixed(1)} MB from ${(r.inputBytes / MB).toFixed(1)} MB; ${(r.ms / 1000).toFixed(1)} s; ${r.checked.differing ? `${r.checked.differing} of ${r.checked.compared} checked samples differ from the grey, by ≤ ${r.checked.maxDiff}` : `checked rows exact (${r.checked.compared} samples)`}`,
    }));
    for (const depth of [8, 16]) {
      const [cs, cl, ss, sl] = [row(smallMp, depth, 'core'), row(largeMp, depth, 'core'), row(smallMp, depth, 'sharp'), row(largeMp, depth, 'sharp')];
      const growth = cl.maxRssBytes - cs.maxRssBytes;
      figures.push({
        name: `${depth}-bit: core's peak RSS growth ${smallMp} → ${largeMp} MP`,
        value: +(growth / MB).toFixed(1),
        unit: 'MB',
        goal: `flat (≤ ${FLAT_BYTES / MB} MB)`,
        ok: growth <= FLAT_BYTES,
        note: `${(cs.maxRssBytes / MB).toFixed(1)} → ${(cl.maxRssBytes / MB).toFixed(1)} MB; sharp ${(ss.maxRssBytes / MB).toFixed(1)} → ${(sl.maxRssBytes / MB).toFixed(1)} MB (${((sl.maxRssBytes - ss.maxRssBytes) / MB).toFixed(1)} MB)`,
      });
    }
    for (const depth of [8, 16]) {
      const sum = (side, f) => [smallMp, largeMp].reduce((a, mp) => a + f(row(mp, depth, side)), 0);
      const mp = sum('core', (r) => r.mp);
      const [core, bare, coreCpu, sharpCpu] = [sum('core', (r) => r.ms) / mp, sum('sharp', (r) => r.ms) / mp, sum('core', (r) => r.cpuMs) / mp, sum('sharp', (r) => r.cpuMs) / mp];
      figures.push({
        name: `${depth}-bit: core's time per MP ÷ sharp's`,
        value: +(core / bare).toFixed(2),
        unit: '×',
        note: `core ${core.toFixed(0)} ms/MP, sharp ${bare.toFixed(0)} ms/MP over both sizes; CPU (all threads) ${(coreCpu / sharpCpu).toFixed(2)}×: core ${coreCpu.toFixed(0)}, sharp ${sharpCpu.toFixed(0)} ms/MP`,
      });
    }
    const sharpDiffers = rows.filter((r) => r.side === 'sharp' && r.checked.differing > 0);
    return {
      figures,
      data: { images, rows, sharpConcurrency: sharp.concurrency() },
      notes: [
        `Grey PNGs of ${PHOTO} scaled up (Lanczos) to ${largeMp} MP as 16-bit grey with a seeded noise of about 1.5 levels of 8 bits (compresses like a photo: see the input sizes); the 8-bit files are the top bytes, the ${smallMp} MP ones a centred crop; written by sharp (PNG level 6).`,
        `Each conversion file → file in a process of its own (node --import rss-preload.mjs): wall and CPU time (process.cpuUsage, every thread: libvips', zlib's) from after the imports; peak RSS is the process's own high-water mark from the kernel (rss-preload's VmHWM; imports included). core: greyPngAsRgb(Readable.toWeb(createReadStream)) piped by Readable.fromWeb to a file stream, as batch's rgbPngCopy does; its process never loads sharp. sharp: sharpRgbCopy(sharp)(file, 'png', copy) from @pfc/batch, libvips with sharp's default threads (${sharp.concurrency()} here, as the pfc CLI leaves it).`,
        `Every output checked with sharp before its figures count: PNG, same size, 3 channels, the input's depth, and R = G = B = the input's grey on ${BAND_ROWS} rows at the top, middle and bottom (the bottom rows decode the whole stream). Shared 2-core machine: load average in bench.json per row.`,
        ...(sharpDiffers.length
          ? [`sharp's copy is not sample-exact on ${sharpDiffers.map((r) => `${r.sizeMp} MP ${r.depth}-bit (${r.checked.differing} of ${r.checked.compared} checked samples, by ≤ ${r.checked.maxDiff})`).join(', ')}: sharpRgbCopy's withIccProfile('srgb') runs a colour transform (sRGB to sRGB) over the 16-bit samples; without it, toColourspace('rgb16') alone copies them exactly.`]
          : []),
      ],
    };
  },
};
