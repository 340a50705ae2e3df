/**
 * Core's lossless rewrites of a greyscale photo — its upload as colour
 * (`greyJpegAsYcc`, `greyPngAsRgb`) and its result as grey again
 * (`yccJpegAsGrey`, `rgbPngAsGrey`) — on worker threads. They are pure
 * JavaScript: a JPEG's about half a second for a 24 MP photo in one
 * synchronous call (Huffman decode and re-encode), a PNG's a second or two
 * in pieces of 50–170 ms (inflate, rows, deflate). On the caller's thread
 * they would hold its event loop that long: in VS Code the extension host's,
 * shared by every extension. The pool is node-io's: at most two workers,
 * started on first use, never keeping a finished process alive. A PNG goes
 * file to file (the worker streams it, so memory stays flat); a JPEG's coded
 * data is copied to the worker and back.
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

/** A rewrite for the worker: a JPEG's bytes (a copy), or a PNG's file and the new file its rewrite goes to. */
export type GreyRewriteTask =
  | { kind: 'jpeg-grey-as-ycc'; bytes: Uint8Array; options: GreyJpegOptions }
  | { kind: 'jpeg-ycc-as-grey'; bytes: Uint8Array }
  | { kind: 'png-grey-as-rgb'; from: string; to: string; options: GreyPngOptions }
  | { kind: 'png-rgb-as-grey'; from: string; to: string };

/** The rewritten JPEG, or the PNG file written; null where the rewrite does not apply (core's `undefined`, or colour in a PNG). */
export type GreyRewriteResult = Uint8Array | WrittenFile | null;

const SCRIPT_NAME = 'rewrite-worker.js';
let pool: WorkerPool<GreyRewriteTask, GreyRewriteResult> | undefined;

/** `greyJpegAsYcc(bytes, options)` on a worker thread (which gets a copy of `bytes`). */
export async function greyJpegAsYccOffThread(bytes: Uint8Array, options: GreyJpegOptions): Promise<Uint8Array | undefined> {
  return ((await run({ kind: 'jpeg-grey-as-ycc', bytes, options })) as Uint8Array | null) ?? undefined;
}

/** `yccJpegAsGrey(bytes)` on a worker thread (which gets a copy of `bytes`). */
export async function yccJpegAsGreyOffThread(bytes: Uint8Array): Promise<Uint8Array | undefined> {
  return ((await run({ kind: 'jpeg-ycc-as-grey', bytes })) as Uint8Array | null) ?? undefined;
}

/**
 * The grey PNG file `from` as RGB(A) in the new file `to` (`greyPngAsRgb`) on a worker thread; undefined
 * where that does not apply. Rejects with the reason where its data cannot be converted (`to` may then hold a part).
 */
export async function greyPngAsRgbFile(from: string, to: string, options: GreyPngOptions): Promise<WrittenFile | undefined> {
  return ((await run({ kind: 'png-grey-as-rgb', from, to, options })) as WrittenFile | null) ?? undefined;
}

/**
 * The RGB(A) PNG file `from` as grey in the new file `to` (`rgbPngAsGrey`) on a worker thread; undefined
 * where that does not apply: a pixel with colour, or data the rewrite does not carry (`to` is then removed).
 */
export async function rgbPngAsGreyFile(from: string, to: string): Promise<WrittenFile | undefined> {
  return ((await run({ kind: 'png-rgb-as-grey', from, to })) as WrittenFile | null) ?? undefined;
}

/**
 * A JPEG's bytes are copied to the worker (structured clone; a few MB of coded data, nothing beside the
 * rewrite's time), so the caller keeps them: they are what is written or sent where the rewrite does not apply.
 */
function run(task: GreyRewriteTask): Promise<GreyRewriteResult> {
  pool ??= new WorkerPool({ script: workerScript(), name: 'greyscale rewrite' });
  return pool.run(task);
}

function workerScript(): string {
  const candidates = [new URL(`./${SCRIPT_NAME}`, import.meta.url), new URL(`../dist/${SCRIPT_NAME}`, import.meta.url)].map((u) => fileURLToPath(u));
  const found = candidates.find((c) => existsSync(c));
  if (!found) throw new Error(`@pfc/batch: the greyscale rewrite worker is missing (looked for ${candidates.join(', ')}); build the package, or bundle @pfc/batch/rewrite-worker beside the host's bundle`);
  return found;
}
