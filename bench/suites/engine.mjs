/**
 * Engine: time per megapixel of @pfc/engine's default correction (AI preset
 * selection) against a bare sharp decode → resize → encode of the same
 * images in the same run, with the engine's own per-step times
 * (`CorrectOptions.timings`) per megapixel; the first request's extra cost
 * in a fresh process (module import and model loading); files/s with 1 and
 * 2 jobs at a time. The same comparison on camera-like JPEGs (EXIF, an sRGB
 * profile, orientation 6 on the portraits), whose metadata the engine keeps.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { correctImage } from '@pfc/engine';
import { BENCH_DIR, ROOT } from '../lib/paths.mjs';
import { runNode } from '../lib/proc.mjs';
import { median } from '../lib/stats.mjs';

/** The engine's steps in pipeline order (`CorrectionStep` of @pfc/engine), with the names the table shows. */
const STEPS = [
  ['decode', 'decode (with format probe)'],
  ['analysisCopy', 'analysis copy (400 px)'],
  ['faces', 'face detection (worker, boxes only; the wait beyond the overlapped analysis)'],
  ['planning', 'planning (scene, preset, colour plan)'],
  ['curves', 'look-up tables + vibrance (one WebAssembly pass, in bands over the free cores)'],
  ['sharpen', 'sharpening (luma blur + detail, one WebAssembly pass over the rows, in bands over the free cores)'],
  ['resize', 'resize'],
  ['encode', 'encode (with metadata; JPEG 4:2:0 from a 4:2:0 source, else 4:4:4)'],
];

/** The goal of issue #19: default correction per MP at most this many times the bare pipeline. */
const RATIO_GOAL = 4;

const SAMPLES = ['objects/chelsea.png', 'objects/coffee.jpg', 'outdoors/rocket.jpg', 'portraits/astronaut.jpg', 'portraits/grace_hopper.jpg'];

/** The sample photos at their own size and scaled up to about `mp` megapixels (Lanczos), as JPEG q90. */
async function imageSet(dir, sizesMp) {
  await mkdir(dir, { recursive: true });
  const files = [];
  for (const rel of SAMPLES) {
    const src = path.join(ROOT, 'samples', rel);
    const meta = await sharp(src).metadata();
    files.push(src);
    for (const mp of sizesMp) {
      const k = Math.sqrt((mp * 1e6) / (meta.width * meta.height));
      const out = path.join(dir, `${path.basename(rel, path.extname(rel))}-${mp}mp.jpg`);
      await sharp(src).resize(Math.round(meta.width * k), Math.round(meta.height * k), { kernel: 'lanczos3' }).jpeg({ quality: 90 }).toFile(out);
      files.push(out);
    }
  }
  return files;
}

/** What a camera writes into each of the camera-like copies (`cameraSet`). */
const CAMERA_EXIF = {
  IFD0: { Make: 'Canon', Model: 'Canon EOS 5D Mark IV', DateTime: '2024:06:01 12:34:56', Software: 'Firmware 1.3.3' },
  IFD2: { DateTimeOriginal: '2024:06:01 12:34:56', ExposureTime: '1/250', FNumber: '8/1', ISOSpeedRatings: '200' },
};

/**
 * The sample photos as a camera writes them, at about `mp` megapixels: EXIF (maker, model, dates,
 * exposure), an embedded sRGB profile, JPEG q90 at 4:2:0; the portraits stored on their side with
 * EXIF orientation 6, as a camera held upright stores them.
 */
async function cameraSet(dir, mp) {
  await mkdir(dir, { recursive: true });
  const files = [];
  for (const rel of SAMPLES) {
    const src = path.join(ROOT, 'samples', rel);
    const meta = await sharp(src).metadata();
    const k = Math.sqrt((mp * 1e6) / (meta.width * meta.height));
    const sized = await sharp(src).resize(Math.round(meta.width * k), Math.round(meta.height * k), { kernel: 'lanczos3' }).png().toBuffer();
    const portrait = rel.startsWith('portraits/');
    const out = path.join(dir, `${path.basename(rel, path.extname(rel))}-${mp}mp-camera.jpg`);
    await sharp(sized)
      .rotate(portrait ? -90 : 0)
      .withExif({ ...CAMERA_EXIF, IFD0: { ...CAMERA_EXIF.IFD0, Orientation: portrait ? '6' : '1' } })
      .withIccProfile('srgb')
      .jpeg({ quality: 90 })
      .toFile(out);
    files.push(out);
  }
  return files;
}

/** Per-megapixel medians of `rows` from {@link timePerMp}: wall and CPU of both sides, and the engine's steps. */
function perMp(rows) {
  const totalMp = rows.reduce((a, r) => a + r.mp, 0);
  const sum = (f) => rows.reduce((a, r) => a + f(r), 0) / totalMp;
  return {
    totalMp,
    engine: sum((r) => r.engineMs),
    sharp: sum((r) => r.sharpMs),
    engineCpu: sum((r) => r.engineCpuMs),
    sharpCpu: sum((r) => r.sharpCpuMs),
    steps: STEPS.map(([k, label]) => ({ step: k, label, msPerMp: sum((r) => r.stepMs[k]) })).filter((s) => s.msPerMp > 0),
  };
}

/**
 * The bare pipeline: decode, resize to the same size (the floor of any correction), encode as sharp does by default
 * (JPEG q90 at 4:2:0 with optimised Huffman tables / PNG).
 */
async function bareSharp(input) {
  const img = sharp(input);
  const { width, height, format } = await img.metadata();
  const p = img.resize(width, height, { kernel: 'lanczos3' });
  return (format === 'png' ? p.png() : p.jpeg({ quality: 90 })).toBuffer();
}

/**
 * CPU time of the whole process (every thread: libvips', the vision workers') in ms. On a machine
 * shared with other work, wall time measures the load as much as the code; CPU time much less.
 */
function cpuMs() {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

async function timePerMp(files, rounds) {
  const rows = [];
  for (const file of files) {
    const input = await readFile(file);
    const { width, height } = await sharp(input).metadata();
    const mp = (width * height) / 1e6;
    const engine = [];
    const bare = [];
    const engineCpu = [];
    const bareCpu = [];
    const steps = [];
    for (let r = 0; r < rounds; r++) {
      // Alternate the order so neither side always runs on a warmer cache.
      const pair = [
        async () => {
          const timings = {};
          const c = cpuMs();
          const t = performance.now();
          await correctImage(input, {}, { timings });
          engine.push(performance.now() - t);
          engineCpu.push(cpuMs() - c);
          steps.push(timings);
        },
        async () => {
          const c = cpuMs();
          const t = performance.now();
          await bareSharp(input);
          bare.push(performance.now() - t);
          bareCpu.push(cpuMs() - c);
        },
      ];
      if (r % 2) pair.reverse();
      for (const f of pair) await f();
    }
    // Per step: the median over the rounds (like the totals), so one disturbed round does not count.
    const stepMs = Object.fromEntries(STEPS.map(([k]) => [k, median(steps.map((t) => t[k] ?? 0))]));
    rows.push({ file: path.basename(file), mp: +mp.toFixed(2), engineMs: median(engine), sharpMs: median(bare), engineCpuMs: median(engineCpu), sharpCpuMs: median(bareCpu), stepMs });
  }
  return rows;
}

/**
 * Correct `files` with `n` jobs at a time in this process, as a service with
 * `n` workers runs the engine (its own vision worker pool and sharp's thread
 * pool are shared); returns files/s.
 */
async function throughput(files, n) {
  const queue = [...files];
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: n }, async () => {
      for (let f = queue.shift(); f; f = queue.shift()) await correctImage(await readFile(f), {});
    }),
  );
  return files.length / ((performance.now() - t0) / 1000);
}

export default {
  name: 'engine',
  area: 'Engine',
  title: 'Engine: time per megapixel, first request, throughput',
  async run({ quick, dir, log }) {
    // libvips' threads as a service runs the engine (the emulator and createImagingEngine() set them to the cores;
    // sharp's own default on glibc Linux is 1). Both sides of the comparison run with the same setting.
    if (sharp.concurrency() < os.availableParallelism()) sharp.concurrency(os.availableParallelism());
    const files = await imageSet(path.join(dir, 'images'), quick ? [4] : [4, 12]);
    // One untimed run of each side first: module set-up, the vision workers' start and model loading
    // are the first request's figure below, not a per-megapixel cost (with one round, --quick, they
    // would land on the first image).
    await correctImage(await readFile(files[0]), {});
    await bareSharp(await readFile(files[0]));
    const rows = await timePerMp(files, quick ? 1 : 3);
    const all = perMp(rows);
    const { totalMp, steps: stepMsPerMp } = all;
    const [engineMsPerMp, sharpMsPerMp, engineCpuPerMp, sharpCpuPerMp] = [all.engine, all.sharp, all.engineCpu, all.sharpCpu];
    const ratio = engineMsPerMp / sharpMsPerMp;
    const cpuRatio = engineCpuPerMp / sharpCpuPerMp;
    log(`engine ${engineMsPerMp.toFixed(0)} ms/MP, bare sharp ${sharpMsPerMp.toFixed(0)} ms/MP (${ratio.toFixed(1)}×) over ${rows.length} images (${totalMp.toFixed(1)} MP); load average ${os.loadavg()[0].toFixed(1)}`);
    log(`CPU time (all threads): engine ${engineCpuPerMp.toFixed(0)} ms/MP, bare sharp ${sharpCpuPerMp.toFixed(0)} ms/MP (${cpuRatio.toFixed(1)}×)`);
    log(`steps (ms/MP): ${stepMsPerMp.map((s) => `${s.step} ${s.msPerMp.toFixed(1)}`).join(', ')}`);

    // Camera JPEGs (metadata of their own to keep), both sides on the same files in the same run.
    const cameraFiles = await cameraSet(path.join(dir, 'camera'), quick ? 4 : 12);
    const cameraRows = await timePerMp(cameraFiles, quick ? 1 : 3);
    const camera = perMp(cameraRows);
    const cameraEncode = camera.steps.find((s) => s.step === 'encode')?.msPerMp ?? 0;
    const plainEncode = stepMsPerMp.find((s) => s.step === 'encode')?.msPerMp ?? 0;
    log(`camera JPEGs (EXIF, sRGB profile; ${camera.totalMp.toFixed(1)} MP): engine ${camera.engine.toFixed(0)} ms/MP, bare sharp ${camera.sharp.toFixed(0)} ms/MP (${(camera.engine / camera.sharp).toFixed(1)}×); CPU ${(camera.engineCpu / camera.sharpCpu).toFixed(1)}×; encode ${cameraEncode.toFixed(1)} ms/MP`);

    const firsts = [];
    for (let i = 0; i < (quick ? 1 : 3); i++) {
      const r = await runNode(path.join(BENCH_DIR, 'clients', 'engine-first.mjs'), [path.join(ROOT, 'samples', 'outdoors', 'rocket.jpg')]);
      if (r.code !== 0) throw new Error(`engine-first exited ${r.code}: ${r.stderr}`);
      firsts.push(JSON.parse(r.stdout));
    }
    const firstExtra = median(firsts.map((f) => f.importMs + f.firstMs - f.warmMs));
    log(`first request: import ${median(firsts.map((f) => f.importMs)).toFixed(0)} ms + first ${median(firsts.map((f) => f.firstMs)).toFixed(0)} ms vs warm ${median(firsts.map((f) => f.warmMs)).toFixed(0)} ms`);

    // Throughput on 1-megapixel-class photos (the sample set at 4 MP would take minutes at full size).
    const batch = path.join(dir, 'batch');
    await mkdir(batch, { recursive: true });
    const batchFiles = [];
    for (let i = 0; i < (quick ? 8 : 24); i++) {
      const src = path.join(ROOT, 'samples', SAMPLES[i % SAMPLES.length]);
      const out = path.join(batch, `b${i}.jpg`);
      await writeFile(out, await sharp(src).resize(1200, 1200, { fit: 'inside' }).modulate({ brightness: 1 + (i % 7) / 50 }).jpeg({ quality: 90 }).toBuffer());
      batchFiles.push(out);
    }
    const one = await throughput(batchFiles, 1);
    const two = await throughput(batchFiles, 2);
    log(`throughput: ${one.toFixed(2)} files/s with 1 worker, ${two.toFixed(2)} with 2`);

    return {
      figures: [
        { name: 'engine default correction, per megapixel', value: Math.round(engineMsPerMp), unit: 'ms/MP', note: `${ratio.toFixed(1)}× the bare sharp pipeline` },
        { name: 'bare sharp decode → resize → encode, per megapixel', value: Math.round(sharpMsPerMp), unit: 'ms/MP', note: `load average ${os.loadavg()[0].toFixed(1)} after the timed runs; ${sharp.concurrency()} libvips threads; the engine's passes on up to ${Math.min(3, os.availableParallelism() - 1) + 1} threads` },
        { name: 'engine per MP ÷ bare sharp per MP', value: +ratio.toFixed(1), unit: '×', goal: `≤ ${RATIO_GOAL}×`, ok: ratio <= RATIO_GOAL },
        { name: 'CPU time per MP (all threads), engine ÷ bare sharp', value: +cpuRatio.toFixed(1), unit: '×', note: `engine ${engineCpuPerMp.toFixed(0)} ms/MP, bare ${sharpCpuPerMp.toFixed(0)} ms/MP of CPU; less sensitive to other work on the machine than wall time` },
        { name: 'camera JPEGs (EXIF + sRGB profile): engine per MP ÷ bare sharp per MP', value: +(camera.engine / camera.sharp).toFixed(1), unit: '×', goal: `≤ ${RATIO_GOAL}×`, ok: camera.engine / camera.sharp <= RATIO_GOAL, note: `engine ${camera.engine.toFixed(0)} ms/MP, bare ${camera.sharp.toFixed(0)} ms/MP on the same ${cameraFiles.length} files (the samples at ${quick ? 4 : 12} MP, portraits with orientation 6); CPU ${(camera.engineCpu / camera.sharpCpu).toFixed(1)}×` },
        { name: 'camera JPEGs: encode with their metadata kept, per megapixel', value: +cameraEncode.toFixed(1), unit: 'ms/MP', note: `the images without metadata of their own: ${plainEncode.toFixed(1)} ms/MP` },
        ...stepMsPerMp.map((s) => ({ name: `engine step: ${s.label}, per megapixel`, value: +s.msPerMp.toFixed(1), unit: 'ms/MP', note: `${((100 * s.msPerMp) / engineMsPerMp).toFixed(0)} % of the correction` })),
        { name: 'first request in a fresh process: extra time', value: Math.round(firstExtra), unit: 'ms', note: `import ${Math.round(median(firsts.map((f) => f.importMs)))} ms; first correction ${Math.round(median(firsts.map((f) => f.firstMs)))} ms vs ${Math.round(median(firsts.map((f) => f.warmMs)))} ms warm (0.27 MP photo)` },
        { name: 'throughput, 2 workers (2 jobs at a time)', value: +two.toFixed(2), unit: 'files/s', note: `${one.toFixed(2)} files/s with 1 (×${(two / one).toFixed(2)}); ${batchFiles.length} photos of ~1.2 MP; load average ${os.loadavg()[0].toFixed(1)}` },
      ],
      data: { rows, steps: stepMsPerMp, camera: { rows: cameraRows, steps: camera.steps }, firsts, throughput: { oneWorker: one, twoWorkers: two, files: batchFiles.length } },
      notes: [`Per-megapixel figures: sum of median times over the sum of megapixels of ${rows.length} images (the ${SAMPLES.length} sample photos at their size and scaled to ${quick ? '4' : '4 and 12'} MP). The bare pipeline resizes to the same size, so both produce the same pixels count and format.`, 'Steps: the engine\'s own wall times per step (`CorrectOptions.timings`), median over the rounds per image, summed over images and divided by their megapixels; planning and face detection cost about the same on every image, so they weigh most on the small ones.'],
    };
  },
};
