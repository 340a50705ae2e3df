/**
 * Core's lossless JPEG rewrites of a greyscale photo — `greyJpegAsYcc` for
 * its upload, `yccJpegAsGrey` for its result — on worker threads. They are
 * pure JavaScript and synchronous, about a second each for a 24 MP photo
 * (profiled: Huffman decode and re-encode), which on the caller's thread
 * would hold its event loop that long per file: in VS Code the extension
 * host's, shared by every extension. The pool is node-io's: at most two
 * workers, started on first use, never keeping a finished process alive.
 *
 * The worker script is `rewrite-worker.js` beside this module's file (the
 * package's `dist/`, or the host's bundle folder, which builds it from
 * `@pfc/batch/rewrite-worker`), or, where this module runs from `src/`
 * (the package's tests), the package's `dist/`.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { WorkerPool } from '@pfc/node-io';
import type { GreyJpegOptions } from '@pfc/core';

/** A rewrite for the worker: which one, and the file's bytes (a copy). */
export type JpegRewriteTask = { kind: 'grey-as-ycc'; bytes: Uint8Array; options: GreyJpegOptions } | { kind: 'ycc-as-grey'; bytes: Uint8Array };

/** The rewritten file, or null where the rewrite does not apply (core's `undefined`). */
export type JpegRewriteResult = Uint8Array | null;

const SCRIPT_NAME = 'rewrite-worker.js';
let pool: WorkerPool<JpegRewriteTask, JpegRewriteResult> | undefined;

/** `greyJpegAsYcc(bytes, options)` on a worker thread (which gets a copy of `bytes`). */
export async function greyJpegAsYccOffThread(bytes: Uint8Array, options: GreyJpegOptions): Promise<Uint8Array | undefined> {
  return (await run({ kind: 'grey-as-ycc', bytes, options })) ?? undefined;
}

/** `yccJpegAsGrey(bytes)` on a worker thread (which gets a copy of `bytes`). */
export async function yccJpegAsGreyOffThread(bytes: Uint8Array): Promise<Uint8Array | undefined> {
  return (await run({ kind: 'ycc-as-grey', bytes })) ?? undefined;
}

/**
 * The task is copied to the worker (structured clone; a few MB of coded data, nothing beside the rewrite's
 * time), so the caller keeps its bytes: they are what is written or sent where the rewrite does not apply.
 */
function run(task: JpegRewriteTask): Promise<JpegRewriteResult> {
  pool ??= new WorkerPool({ script: workerScript(), name: 'JPEG rewrite' });
  return pool.run(task);
}

function workerScript(): string {
  const candidates = [new URL(`./${SCRIPT_NAME}`, import.meta.url), new URL(`../dist/${SCRIPT_NAME}`, import.meta.url)].map((u) => fileURLToPath(u));
  const found = candidates.find((c) => existsSync(c));
  if (!found) throw new Error(`@pfc/batch: the JPEG rewrite worker is missing (looked for ${candidates.join(', ')}); build the package, or bundle @pfc/batch/rewrite-worker beside the host's bundle`);
  return found;
}
