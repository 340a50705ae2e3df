/** Test fixtures: tiny files with real headers, and a fake backend driven by the CorrectionBackend interface. */
import { mkdtempSync, mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import sharp from 'sharp';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  type CorrectionBackend, type CorrectOptions, type CorrectionResult, type FileInput, InternalServerError, JobFailedError,
  type PfcParams, UserAbortError, validatePfcParams,
} from '@pfc/core';
import { type BatchSummary, planBatch, runBatch } from '../src/index';

/** Most corrections an instance held at once, from its records (an end at the same instant as a start frees first). */
export function peakConcurrency(records: readonly { startedAt: number; endedAt?: number }[]): number {
  const edges = records.flatMap((r) => [[r.startedAt, 1], [r.endedAt ?? Infinity, -1]] as const).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let now = 0;
  let most = 0;
  for (const [, d] of edges) most = Math.max(most, (now += d));
  return most;
}

/** `n` small JPEGs of distinct solid colours in `dir`, named `<prefix>000.jpg`, …; their names. */
export async function solidJpegs(dir: string, n: number, { prefix = 'p', width = 96, height = 64 } = {}): Promise<string[]> {
  mkdirSync(dir, { recursive: true });
  const names = Array.from({ length: n }, (_, i) => `${prefix}${String(i).padStart(3, '0')}.jpg`);
  await Promise.all(names.map((name, i) =>
    sharp({ create: { width, height, channels: 3, background: { r: (i * 37) % 256, g: (i * 91) % 256, b: 120 } } }).jpeg().toFile(join(dir, name))));
  return names;
}

export function tempDir(prefix = 'pfc-batch-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** A PNG signature and IHDR chunk of the given size, plus filler bytes (enough for sniffing). */
export function pngBytes(width: number, height: number, filler = 'png'): Buffer {
  const ihdr = Buffer.alloc(25);
  ihdr.writeUInt32BE(13, 0);
  ihdr.write('IHDR', 4, 'latin1');
  ihdr.writeUInt32BE(width, 8);
  ihdr.writeUInt32BE(height, 12);
  ihdr[16] = 8;
  ihdr[17] = 2;
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), ihdr, Buffer.from(filler)]);
}

/** A JPEG with an APP1 segment of `app1Bytes` before its SOF0 frame header. */
export function jpegBytes(width: number, height: number, options: { app1Bytes?: number; components?: number; filler?: string } = {}): Buffer {
  const app1Len = (options.app1Bytes ?? 16) + 2;
  const app1 = Buffer.alloc(2 + app1Len);
  app1[0] = 0xff;
  app1[1] = 0xe1;
  app1.writeUInt16BE(app1Len, 2);
  const comps = options.components ?? 3;
  const sof = Buffer.alloc(2 + 8 + comps * 3);
  sof[0] = 0xff;
  sof[1] = 0xc0;
  sof.writeUInt16BE(8 + comps * 3, 2);
  sof[4] = 8;
  sof.writeUInt16BE(height, 5);
  sof.writeUInt16BE(width, 7);
  sof[9] = comps;
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app1, sof, Buffer.from(options.filler ?? 'jpeg-body'), Buffer.from([0xff, 0xd9])]);
}

/** Every file below `dir`, recursively, relative. */
export function listAll(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((d) => d.isFile()).map((d) => join(d.parentPath, d.name).slice(dir.length + 1)).sort();
}

/** Plan and run `root` in place, as `pfc correct <root> --in-place` does. */
export async function inPlace(root: string, backend: FakeBackend, params = {}): Promise<BatchSummary> {
  const plan = await planBatch({ inputs: [root], output: { kind: 'in-place' }, params });
  return runBatch(plan, { backend, params, retryDelayMs: 1 });
}

/**
 * Edit the file at `path` without changing its size, as a tag editor writing into reserved space does: one byte
 * changed, a later modification time. Returns the bytes it now holds.
 */
export function editKeepingSize(path: string): Buffer {
  const bytes = readFileSync(path);
  const at = bytes.length - 3;
  bytes.writeUInt8(bytes.readUInt8(at) ^ 0xff, at);
  writeFileSync(path, bytes);
  const later = new Date(statSync(path).mtimeMs + 60_000);
  utimesSync(path, later, later);
  return bytes;
}

/** Write files (path → bytes) under `root`, creating folders. */
export function writeTree(root: string, files: Record<string, Buffer | string>): void {
  for (const [rel, bytes] of Object.entries(files)) {
    const p = join(root, rel);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, bytes);
  }
}

async function readInput(input: FileInput): Promise<Uint8Array> {
  const v = typeof input === 'function' ? await input() : input;
  if (v instanceof Uint8Array) return v;
  if (v instanceof Blob) return new Uint8Array(await v.arrayBuffer());
  return new Uint8Array(await new Response(v).arrayBuffer());
}

export const CORRECTED_MARK = Buffer.from('|corrected');

export interface FakeBackendOptions {
  /** Delay before answering, in ms (abortable). */
  delayMs?: number;
  /** Decide a fault per call: throw to fail the call. `n` counts calls for this file name, from 1. */
  fault?: (fileName: string, n: number) => void;
  /** Return this body instead of the corrected bytes. */
  body?: (input: Uint8Array) => Uint8Array;
  /** Resolved when called: lets a test wait until work is in flight. */
  onCall?: (fileName: string) => void;
  /** Take a job slot (`CorrectOptions.jobSlot`) after the "upload", as the Web API client does; the delay runs inside it. */
  jobSlots?: boolean;
  /** Time the "upload" of a file takes, in ms (before the job slot). */
  uploadMs?: (fileName: string) => number;
}

/** A backend that "corrects" by appending a mark to the input bytes; counts calls and concurrency. */
export class FakeBackend implements CorrectionBackend {
  readonly kind = 'web' as const;
  calls: { fileName: string; params: PfcParams; input: Uint8Array; options: CorrectOptions }[] = [];
  /** `correct()` calls running (with `jobSlots`: files in hand, upload to opened result). */
  inFlight = 0;
  maxInFlight = 0;
  /** Jobs holding a slot (with `jobSlots`). */
  jobs = 0;
  /** File names in the order their jobs started (took a slot, or were called without slots). */
  started: string[] = [];
  maxJobs = 0;
  aborted = 0;
  readonly usesJobSlot: boolean;
  private perFile = new Map<string, number>();
  constructor(private readonly opts: FakeBackendOptions = {}) {
    this.usesJobSlot = opts.jobSlots ?? false;
  }

  validate(params: PfcParams) {
    return validatePfcParams(params as Record<string, unknown>);
  }

  async correct(input: FileInput, params: PfcParams, options: CorrectOptions = {}): Promise<CorrectionResult> {
    const fileName = options.fileName ?? '?';
    const n = (this.perFile.get(fileName) ?? 0) + 1;
    this.perFile.set(fileName, n);
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      const bytes = await readInput(input);
      // As a real server would: a declared size that does not match the body fails the upload.
      if (options.size !== undefined && options.size !== bytes.length) throw new Error(`declared size ${options.size} but sent ${bytes.length} bytes`);
      this.calls.push({ fileName, params, input: bytes, options });
      this.opts.onCall?.(fileName);
      options.onProgress?.({ phase: 'uploading' });
      const uploadMs = this.opts.uploadMs?.(fileName) ?? 0;
      if (uploadMs > 0) await abortableDelay(uploadMs, options.signal, () => this.aborted++);
      const release = this.usesJobSlot && options.jobSlot ? await options.jobSlot(options.signal) : undefined;
      this.started.push(fileName);
      if (release) this.maxJobs = Math.max(this.maxJobs, ++this.jobs);
      try {
        if (this.opts.delayMs) await abortableDelay(this.opts.delayMs, options.signal, () => this.aborted++);
        this.opts.fault?.(fileName, n);
      } finally {
        if (release) {
          this.jobs--;
          release();
        }
      }
      options.onProgress?.({ phase: 'done' });
      const out = this.opts.body ? this.opts.body(bytes) : Buffer.concat([bytes, CORRECTED_MARK]);
      return { body: new Response(out as Uint8Array<ArrayBuffer>).body!, contentType: options.contentType, backend: 'web', warnings: [], info: {} };
    } finally {
      this.inFlight--;
    }
  }
}

function abortableDelay(ms: number, signal: AbortSignal | undefined, onAbort: () => void): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      onAbort();
      return reject(new UserAbortError());
    }
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(t);
      onAbort();
      reject(new UserAbortError());
    }, { once: true });
  });
}

export const faults = {
  serverError: () => new InternalServerError(503, { error: 'busy' }, undefined, 'GET /pfc'),
  jobFailed: () => new JobFailedError('job-1', 'FAILED', 'could not decode the image', {}),
};
