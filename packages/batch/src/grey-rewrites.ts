/**
 * Core's lossless rewrites of a greyscale photo — its upload as colour
 * (`greyJpegAsYcc`, `greyPngAsRgb`) and its result as grey again
 * (`yccJpegAsGrey`, `rgbPngAsGrey`) — on worker threads. They are pure
 * JavaScript: a JPEG's about half a second for a 24 MP photo in one
 * synchronous call (Huffman decode and re-encode), a PNG's a second or two
 * in pieces of 50–170 ms (inflate, rows, deflate). On the caller's thread
 * they would hold its event loop that long: in VS Code the extension host's,
 * shared by every extension. The pool is node-io's: at most two workers,
 * started on first use, stopped after 30 s idle, never keeping a finished
 * process alive. A PNG goes
 * file to file (the worker streams it, so memory stays flat); a JPEG's coded
 * data is moved to the worker and back, never copied.
 *
 * The worker script is `rewrite-worker.js` beside this module's file (the
 * package's `dist/`, or the host's bundle folder, which builds it from
 * `@pfc/batch/rewrite-worker`), or, where this module runs from `src/`
 * (the package's tests), the package's `dist/`.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { GreyJpegOptions, GreyPngOptions } from '@pfc/core';
import { WorkerPool, type WrittenFile } from '@pfc/node-io';

/** A rewrite for the worker: a JPEG's bytes (moved there), or a PNG's file and the new file its rewrite goes to. */
export type GreyRewriteTask =
  | { kind: 'jpeg-grey-as-ycc'; bytes: Uint8Array; options: GreyJpegOptions }
  | { kind: 'jpeg-ycc-as-grey'; bytes: Uint8Array }
  | { kind: 'png-grey-as-rgb'; from: string; to: string; options: GreyPngOptions }
  | { kind: 'png-rgb-as-grey'; from: string; to: string };

/** A JPEG rewrite's outcome: the rewritten file, or (where it does not apply: core's `undefined`) the bytes given, handed back. */
export interface JpegRewrite {
  bytes: Uint8Array;
  rewritten: boolean;
}

/** A JPEG's outcome, or the PNG file written; null where a PNG's rewrite does not apply (core's `undefined`, or colour in a pixel). */
export type GreyRewriteResult = JpegRewrite | WrittenFile | null;

const SCRIPT_NAME = 'rewrite-worker.js';
/** A worker idle this long is stopped: in a long-lived host (VS Code's extension host) it would otherwise stay for good. */
const IDLE_MS = 30_000;
let pool: WorkerPool<GreyRewriteTask, GreyRewriteResult> | undefined;

/**
 * `greyJpegAsYcc(bytes, options)` on a worker thread. `bytes` is moved there (unusable afterwards):
 * use the outcome's `bytes`, the rewritten file or, where the rewrite does not apply, the same bytes.
 */
export async function greyJpegAsYccOffThread(bytes: Uint8Array, options: GreyJpegOptions, signal?: AbortSignal): Promise<JpegRewrite> {
  return (await run({ kind: 'jpeg-grey-as-ycc', bytes: owning(bytes), options }, signal)) as JpegRewrite;
}

/** `yccJpegAsGrey(bytes)` on a worker thread; `bytes` is moved there as for {@link greyJpegAsYccOffThread}. */
export async function yccJpegAsGreyOffThread(bytes: Uint8Array, signal?: AbortSignal): Promise<JpegRewrite> {
  return (await run({ kind: 'jpeg-ycc-as-grey', bytes: owning(bytes) }, signal)) as JpegRewrite;
}

/** Whether `bytes` span their whole buffer, so moving it moves nothing else (a small Buffer is a slice of Node's shared pool). */
export function ownsItsBuffer(bytes: Uint8Array): boolean {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
}

/** Bytes that can be moved alone: `bytes`, or a copy where they are a slice. */
function owning(bytes: Uint8Array): Uint8Array {
  return ownsItsBuffer(bytes) ? bytes : new Uint8Array(bytes);
}

/**
 * The grey PNG file `from` as RGB(A) in the new file `to` (`greyPngAsRgb`) on a worker thread; undefined
 * where that does not apply. Rejects with the reason where its data cannot be converted (`to` may then hold a part).
 */
export async function greyPngAsRgbFile(from: string, to: string, options: GreyPngOptions, signal?: AbortSignal): Promise<WrittenFile | undefined> {
  return ((await run({ kind: 'png-grey-as-rgb', from, to, options }, signal)) as WrittenFile | null) ?? undefined;
}

/**
 * The RGB(A) PNG file `from` as grey in the new file `to` (`rgbPngAsGrey`) on a worker thread; undefined
 * where that does not apply: a pixel with colour, or data the rewrite does not carry (`to` is then removed).
 */
export async function rgbPngAsGreyFile(from: string, to: string, signal?: AbortSignal): Promise<WrittenFile | undefined> {
  return ((await run({ kind: 'png-rgb-as-grey', from, to }, signal)) as WrittenFile | null) ?? undefined;
}

/**
 * A JPEG's bytes are moved to the worker (and come back in its outcome): a large file is never held twice.
 * When `signal` aborts, the rewrite is stopped (its worker with it) and this rejects with its reason; a PNG's
 * part-written file is left to the caller's clean-up.
 */
function run(task: GreyRewriteTask, signal: AbortSignal | undefined): Promise<GreyRewriteResult> {
  pool ??= new WorkerPool({ script: workerScript(), name: 'greyscale rewrite', idleMs: IDLE_MS });
  return pool.run(task, 'bytes' in task ? [task.bytes.buffer as ArrayBuffer] : [], signal);
}

function workerScript(): string {
  const candidates = [new URL(`./${SCRIPT_NAME}`, import.meta.url), new URL(`../dist/${SCRIPT_NAME}`, import.meta.url)].map((u) => fileURLToPath(u));
  const found = candidates.find((c) => existsSync(c));
  if (!found) throw new Error(`@pfc/batch: the greyscale rewrite worker is missing (looked for ${candidates.join(', ')}); build the package, or bundle @pfc/batch/rewrite-worker beside the host's bundle`);
  return found;
}
