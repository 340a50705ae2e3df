/**
 * The look's full-size passes on more than one core. The WebAssembly passes
 * of `kernels.ts` run on one thread; their rows are independent (a curves
 * pixel depends on its own colour only, a blur + detail row on the luma rows
 * within the mask's reach), so each pass is cut into bands of rows, this
 * thread doing the first and helper threads (`dist/band-worker.js`) the
 * others, writing into the same memory (SharedArrayBuffer: the curves pass's
 * output and luma, which the mask then reads and changes in place). The
 * result is the single-thread result to the bit. Only the curves pass's
 * input, the decoder's buffer, is copied for the helpers (their rows).
 *
 * Threads: `availableParallelism() − 1` helpers (at most
 * {@link MAX_HELPERS}), so a job's bands never ask for more threads than
 * the machine has cores, and none while the cores are busy anyway (idle
 * CPU time, see `helpers`). Several jobs at once (the emulator's `--workers`,
 * a batch) share the helpers: a pass takes only the helpers that are free
 * at that moment and otherwise runs alone on its own thread, so parallel
 * jobs never queue behind each other's bands nor oversubscribe the cores.
 * Helpers start on first use and never keep a process alive (see
 * `WorkerPool`).
 */
import { availableParallelism, cpus, loadavg } from 'node:os';
import { workerScript } from '../workers/paths';
import { WorkerPool } from '../workers/pool';
import { blurDetailPass, curvesPass, type IntegerMask, type RowRange } from './kernels';

/** Most helper threads, whatever the core count (bands of a 24 MP photo stay several megapixels). */
const MAX_HELPERS = 3;
/** Fewest pixels per band worth a message to another thread (a 0.3 MP photo runs on one). */
const MIN_BAND_PIXELS = 1 << 19;

/** One band of the mask's blur + detail pass (`blurDetailPass`) on shared pixels and luma. */
export interface DetailBandTask {
  kind: 'detail';
  /** The whole image's pixels and luma, on a SharedArrayBuffer; the band writes only its rows' pixels. */
  pixels: Uint8Array;
  luma: Uint16Array;
  width: number;
  height: number;
  channels: 3 | 4;
  taps: Int32Array;
  scale: number;
  table: Int16Array;
  rows: RowRange;
}

/** One band of the curves pass (`curvesPass`): its own input rows in, the shared output's rows written. */
export interface CurvesBandTask {
  kind: 'curves';
  /** The band's input pixels (a copy moved to the helper). */
  input: Uint8Array;
  channels: 3 | 4;
  luts: [Uint8Array, Uint8Array, Uint8Array];
  factors?: Float64Array;
  /** The band's rows of the shared output pixels and luma. */
  out: Uint8Array;
  luma?: Uint16Array;
}

/** What a band worker does. */
export type BandTask = DetailBandTask | CurvesBandTask;

/** Runs one band task on this thread (the band worker's handler). */
export function runBandTask(task: BandTask): void {
  if (task.kind === 'curves') {
    curvesPass({ data: task.input, channels: task.channels }, task.luts, task.factors, task.luma, task.out);
    return;
  }
  const { pixels, luma, width, height, channels, taps, scale, table, rows } = task;
  blurDetailPass({ data: pixels, width, height, channels }, luma, { taps, scale }, table, rows);
}

let pool: WorkerPool<BandTask, null> | undefined;
let helperLimit: number | undefined;
/** Helpers working for some pass right now (of every job of the process). */
let busy = 0;

/** Bands run on helper threads since the process started (for tests: proof the helpers did the work). */
export const bandCounters = { helperBands: 0 };

/**
 * Sets the number of helper threads (0: every pass on its caller's thread);
 * default `min(3, availableParallelism() − 1)`, or fewer while the machine
 * has fewer cores idle (see `helpers`). For benchmarks and tests comparing
 * one and several threads; takes effect for the next pass.
 */
export function setBandHelpers(n: number | undefined): void {
  if (n !== undefined && !(Number.isInteger(n) && n >= 0 && n <= MAX_HELPERS)) throw new RangeError(`setBandHelpers: n must be an integer 0..${MAX_HELPERS} (got ${n})`);
  helperLimit = n;
}

/** CPU time so far (ms): the machine's, summed over its cores, and this process's own (all its threads). */
export interface CpuSample {
  idle: number;
  total: number;
  own: number;
  cores: number;
}

function cpuSample(): CpuSample {
  let idle = 0;
  let total = 0;
  const all = cpus();
  for (const { times: t } of all) {
    idle += t.idle;
    total += t.user + t.nice + t.sys + t.idle + t.irq;
  }
  const { user, system } = process.cpuUsage();
  return { idle, total, own: (user + system) / 1000, cores: all.length };
}

/**
 * Cores left for this process's helpers between two samples: the cores
 * less one for the job's own thread and less what other processes kept
 * busy (busy time not this process's own). This process's own threads
 * (libvips decoding, other jobs) are not counted against it: they are what
 * the helpers share the cores with already (see `takeHelpers`).
 */
export function freeCoresBetween(a: CpuSample, b: CpuSample): number {
  const coreMs = (b.total - a.total) / b.cores;
  if (!(coreMs > 0)) return b.cores - 1;
  const othersBusy = Math.max(0, b.total - a.total - (b.idle - a.idle) - (b.own - a.own)) / coreMs;
  return b.cores - 1 - othersBusy;
}

/** Fewest free cores, on average, for a helper to gain wall time rather than take it from other work. */
const MIN_FREE_CORES = 0.5;

/** Helpers worth starting when `free` cores are left for them and the machine has `cores`. */
export function helpersFor(free: number, cores: number): number {
  return free < MIN_FREE_CORES ? 0 : Math.max(0, Math.min(MAX_HELPERS, cores - 1, Math.round(free)));
}

/** Shortest span between two CPU samples, ms (os.cpus() times tick every 10 ms). */
const SAMPLE_MS = 250;
let lastSample: { at: number; cpu: CpuSample } | undefined;
let freeCores: number | undefined;

/** Cores free for helpers over the span since the previous sample (at least `SAMPLE_MS`), or undefined before a first span. */
function freeCoresNow(): number | undefined {
  const now = { at: Date.now(), cpu: cpuSample() };
  if (lastSample === undefined) lastSample = now;
  else if (now.at - lastSample.at >= SAMPLE_MS) {
    freeCores = freeCoresBetween(lastSample.cpu, now.cpu);
    lastSample = now;
  }
  return freeCores;
}

/**
 * Helpers a pass may use: by default as many as the cores other processes
 * left idle over the last moment beyond the job's own, none while they keep
 * the cores busy: a helper then only adds the shared buffers' cost (about a
 * tenth more CPU per job, measured at load 19) and gains no wall time. CPU
 * time rather than the load average, which lags a minute and counts this
 * process's own threads: on a 2-core machine a run of the engine alone kept
 * the load at 2 and switched its helpers off. Before the first span is
 * sampled, the load average decides.
 */
function helpers(): number {
  if (helperLimit !== undefined) return helperLimit;
  const cores = availableParallelism();
  return helpersFor(freeCoresNow() ?? cores - 1 - loadavg()[0]!, cores);
}

function bandPool(): WorkerPool<BandTask, null> {
  pool ??= new WorkerPool({ name: 'band', script: workerScript('band-worker'), size: MAX_HELPERS });
  return pool;
}

/**
 * Whether a pass over an image of `pixels` may be split: there are helpers
 * and at least two bands' worth of pixels. Only then are its buffers
 * shared, since copying rows in and out of a SharedArrayBuffer costs the
 * WebAssembly passes about a fifth more CPU (one thread, 12 MP).
 */
function splittable(pixels: number): boolean {
  return helpers() > 0 && pixels >= 2 * MIN_BAND_PIXELS;
}

/** A zeroed byte buffer for an image of `pixels`, shared with the band helpers when its passes may be split. */
export function sharedBytes(length: number, pixels: number): Uint8Array {
  return splittable(pixels) ? new Uint8Array(new SharedArrayBuffer(length)) : new Uint8Array(length);
}

/** A zeroed u16 plane of `length` values (one per pixel), shared with the band helpers when its passes may be split. */
export function sharedU16(length: number): Uint16Array {
  return splittable(length) ? new Uint16Array(new SharedArrayBuffer(2 * length)) : new Uint16Array(length);
}

/** `n` bands of about equal height covering `height` rows. */
function splitRows(height: number, n: number): RowRange[] {
  return Array.from({ length: n }, (_, i) => ({ from: Math.round((i * height) / n), to: Math.round(((i + 1) * height) / n) }));
}

/** Helpers this pass may take now (0 when the buffers are not shared, the image small, or every helper busy). */
function takeHelpers(pixels: number, shared: boolean): number {
  if (!shared) return 0;
  const n = Math.min(helpers() - busy, Math.floor(pixels / MIN_BAND_PIXELS) - 1);
  if (n <= 0) return 0;
  busy += n;
  return n;
}

/**
 * `blurDetailPass` over the whole image, split into bands over the free
 * helper threads when the pixels and luma are on SharedArrayBuffers (see
 * {@link sharedBytes}); the same pixels as one thread would make.
 */
export async function blurDetailBands(
  img: { data: Uint8Array; width: number; height: number; channels: 3 | 4 },
  luma: Uint16Array,
  mask: IntegerMask,
  table: Int16Array,
): Promise<void> {
  const shared = img.data.buffer instanceof SharedArrayBuffer && luma.buffer instanceof SharedArrayBuffer;
  const n = takeHelpers(img.width * img.height, shared);
  if (n === 0) return blurDetailPass(img, luma, mask, table);
  try {
    const [own, ...others] = splitRows(img.height, n + 1);
    const { data: pixels, width, height, channels } = img;
    const remote = others.map((rows) => bandPool().run({ kind: 'detail', pixels, luma, width, height, channels, taps: mask.taps, scale: mask.scale, table, rows }));
    // Awaited below; a failure while this thread works must not count as unhandled.
    const all = Promise.all(remote);
    all.catch(() => undefined);
    blurDetailPass(img, luma, mask, table, own);
    await all;
    bandCounters.helperBands += others.length;
  } finally {
    busy -= n;
  }
}

/**
 * The curves pass over `img` into `out` (and `luma`), split into bands over
 * the free helper threads when `out` (and `luma`) are on SharedArrayBuffers:
 * `own` runs this thread's rows (the caller's loop, which may yield between
 * strips), the helpers the others. The same pixels as one thread would make.
 */
export async function curvesBands(
  img: { data: Uint8Array; width: number; height: number; channels: 3 | 4 },
  luts: [Uint8Array, Uint8Array, Uint8Array],
  factors: Float64Array | undefined,
  out: Uint8Array,
  luma: Uint16Array | undefined,
  own: (rows: RowRange) => Promise<void>,
): Promise<void> {
  const shared = out.buffer instanceof SharedArrayBuffer && (!luma || luma.buffer instanceof SharedArrayBuffer);
  const n = takeHelpers(img.width * img.height, shared);
  if (n === 0) return own({ from: 0, to: img.height });
  try {
    const [mine, ...others] = splitRows(img.height, n + 1);
    const { width: w, channels: ch } = img;
    const remote = others.map((rows) => {
      const [p0, p1] = [rows.from * w, rows.to * w];
      // A copy of its own (also when `img.data` is a Buffer, whose slice would be a view), moved to the helper.
      const input = new Uint8Array(img.data.subarray(p0 * ch, p1 * ch));
      const task: CurvesBandTask = { kind: 'curves', input, channels: ch, luts, out: out.subarray(p0 * ch, p1 * ch), ...(factors ? { factors } : {}), ...(luma ? { luma: luma.subarray(p0, p1) } : {}) };
      return bandPool().run(task, [input.buffer as ArrayBuffer]);
    });
    const all = Promise.all(remote);
    all.catch(() => undefined);
    await own(mine!);
    await all;
    bandCounters.helperBands += others.length;
  } finally {
    busy -= n;
  }
}
