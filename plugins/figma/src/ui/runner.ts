/**
 * One run from the UI's side, in two steps so nothing on the canvas changes
 * before the user has seen the results:
 *
 * 1. `correctForPreview`: ask the main thread for the plan, then correct each
 *    distinct image (two at a time), fit it to Figma and hand it to the main
 *    thread at once (`image/stage`: Figma keeps it, on no layer). Only a
 *    before and an after thumbnail stay here, so what the window holds while
 *    the user reviews does not grow with the results' size: full-size bytes
 *    live only while their image is in flight. A failed image is reported and
 *    the others go on; cancel aborts what is in flight and starts nothing new.
 * 2. `applyAccepted`: ask the main thread to put the accepted results into
 *    their layers (each image's layers change together or not at all), then
 *    `run/end`, which makes everything the run changed one undo step.
 *    `discardRun` ends a run with nothing applied.
 */
import { LOST_JOB_ATTEMPTS, progressWithWaits, readAll, type CorrectionBackend, type JobUsage } from '@pfc/core';
import { cropRegionOf, type CropRegion } from '../shared/crop';
import { mimeOf } from '../shared/image-header';
import type { ApplyResult, ImageJob, RunPlan, RunSummary } from '../shared/messages';
import type { MainBridge } from './bridge';
import { fitForFigma } from './fit-output';
import { describeError } from './network';
import { describeOptions, toPfcParams, type RunOptions } from './options';
import type { Redraw } from './redraw';
import { makeThumbnail, type Thumbnailer } from './thumbnail';
import { rgbForWebApi } from './web-api-input';

/** Images corrected at the same time. */
export const CONCURRENCY = 2;

export type ItemPhase =
  | 'queued' | 'reading' | 'uploading' | 'processing' | 'downloading'
  | 'ready' | 'applying' | 'done' | 'rejected' | 'skipped' | 'failed' | 'cancelled';

export interface ItemUpdate {
  phase: ItemPhase;
  /**
   * The service made the image wait (a 429's `Retry-After`, a 503…): why and how long is left, shown
   * instead of the phase (core's `retryWaitText`). Absent again once the request is made again.
   */
  waiting?: string;
  /** Notes for the user (resizes made to fit Figma, service warnings, usage). */
  notes?: string[];
  error?: string;
  /** The before (on `reading`) or after (on `ready`) thumbnail: small, made once from the full-size bytes. */
  thumbnail?: Blob;
  applied?: ApplyResult;
  /** What the service counted for this job (Web API). */
  usage?: JobUsage;
}

export interface RunCallbacks {
  onPlan(plan: RunPlan): void;
  onItem(hash: string, update: ItemUpdate): void;
}

/** The browser steps of a run, replaceable where there is no browser (tests in Node). */
export interface RunTools {
  /** Makes the before/after thumbnails. Default {@link makeThumbnail}. */
  thumbnail?: Thumbnailer;
  /** Decodes and re-encodes an image (greyscale inputs for the Web API). Default `redrawWithin`. */
  redraw?: Redraw;
}

/** A corrected image waiting for the user's decision; its result is already in Figma (`image/stage`), on no layer. */
export interface Preview {
  job: ImageJob;
  notes: string[];
  usage?: JobUsage;
  /** The part of the original the result shows, when the service cropped it. */
  crop?: CropRegion;
}

export interface PreviewRun {
  plan: RunPlan;
  previews: Map<string, Preview>;
  summary: RunSummary;
  options: RunOptions;
}

/** Run `worker` over `items`, at most `limit` at once, in order of start. */
async function pool<T>(items: readonly T[], limit: number, worker: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await worker(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

/** The usage counters worth showing (non-zero), e.g. `imageCorrectionCount 1, removeBackgroundCount 1 (MEDIUM)`. */
export function describeUsage(usage: JobUsage): string {
  const counts = Object.entries(usage).filter(([k, v]) => k !== 'size' && typeof v === 'number' && v > 0).map(([k, v]) => `${k} ${String(v)}`);
  return `Usage: ${counts.length > 0 ? counts.join(', ') : 'nothing counted'}${usage.size ? ` (${usage.size})` : ''}`;
}

/** The bytes to send: the Web API takes RGB or RGBA only, the other backends take the image as Figma holds it. */
async function inputFor(backend: CorrectionBackend, bytes: Uint8Array, redraw: Redraw | undefined): Promise<{ bytes: Uint8Array; notes: string[] }> {
  return backend.kind === 'web' ? rgbForWebApi(bytes, redraw) : { bytes, notes: [] };
}

/**
 * A thumbnail, or a note saying why there is none: the picture only helps
 * the user compare, so its failure does not fail the image.
 */
async function thumbnailOf(make: Thumbnailer, bytes: Uint8Array, notes: string[]): Promise<Blob | undefined> {
  try {
    return await make(bytes);
  } catch (err) {
    notes.push(`No preview picture: ${err instanceof Error ? err.message : String(err)}`);
    return undefined;
  }
}

/**
 * The row while the service has the image: its phase and, while a request waits before trying again (a 429's
 * `Retry-After`, a 503), why and how long, counting down until the phase comes back (core's `progressWithWaits`).
 */
function serviceRow(report: (u: ItemUpdate) => void): ReturnType<typeof progressWithWaits> {
  return progressWithWaits((service, waiting) => {
    const phase = service === 'uploading' || service === 'downloading' ? service : service === 'queued' || service === 'processing' ? 'processing' : undefined;
    if (phase) report(waiting === undefined ? { phase } : { phase, waiting });
  });
}

async function correctOne(
  bridge: MainBridge,
  backend: CorrectionBackend,
  plan: RunPlan,
  job: ImageJob,
  options: RunOptions,
  signal: AbortSignal,
  report: (u: ItemUpdate) => void,
  tools: RunTools,
): Promise<Preview | { skip: string }> {
  const makeThumb = tools.thumbnail ?? makeThumbnail;
  const notes = [...job.notes];
  report({ phase: 'reading' });
  const read = await bridge.request('image/read', { runId: plan.runId, hash: job.hash });
  if ('skip' in read) return read;
  const { format } = read;
  const before = await thumbnailOf(makeThumb, read.bytes, notes);
  report({ phase: 'reading', ...(before ? { thumbnail: before } : {}) });
  const params = toPfcParams(options, job.resize);
  const check = backend.validate(params);
  if (check.errors.length > 0) throw new Error(`Invalid options: ${check.errors.map((e) => e.message).join('; ')}`);
  const input = await inputFor(backend, read.bytes, tools.redraw);
  notes.push(...input.notes);
  const row = serviceRow(report);
  const result = await backend.correct(input.bytes, params, {
    signal,
    contentType: mimeOf(format),
    size: input.bytes.byteLength,
    fileName: `${job.nodeNames[0] ?? 'image'}.${format === 'png' ? 'png' : 'jpg'}`,
    onProgress: row.onProgress,
    onRetry: row.onRetry,
    // The service lost the job (it restarted): the same image is sent again, as a batch does per file.
    lostJobAttempts: LOST_JOB_ATTEMPTS,
    onLostJob: ({ attempt, attempts }) => notes.push(`the service lost the job (it may have restarted), so the image was sent again (attempt ${attempt} of ${attempts})`),
  }).finally(row.stop);
  notes.push(...result.warnings);
  const output = await readAll(result.body);
  if (signal.aborted) throw signal.reason ?? new Error('Cancelled');
  const fitted = await fitForFigma(output);
  notes.push(...fitted.notes);
  const after = await thumbnailOf(makeThumb, fitted.bytes, notes);
  // The full-size result goes to Figma now; this window keeps only the thumbnail.
  await bridge.request('image/stage', { runId: plan.runId, hash: job.hash, bytes: fitted.bytes });
  const usage = result.job?.usage;
  if (usage) notes.push(describeUsage(usage));
  const crop = cropRegionOf(params, result.job);
  const preview: Preview = { job, notes, ...(usage ? { usage } : {}), ...(crop ? { crop } : {}) };
  report({ phase: 'ready', notes, ...(after ? { thumbnail: after } : {}), ...(usage ? { usage } : {}) });
  return preview;
}

/** Plan and correct the selection with `options`; nothing in the document changes. */
export async function correctForPreview(
  bridge: MainBridge,
  backend: CorrectionBackend,
  options: RunOptions,
  signal: AbortSignal,
  callbacks: RunCallbacks,
  tools: RunTools = {},
): Promise<PreviewRun> {
  const plan = await bridge.request('run/plan', { options });
  callbacks.onPlan(plan);
  const summary: RunSummary = { done: 0, failed: 0, skipped: plan.skipped.length, rejected: 0, cancelled: false };
  const previews = new Map<string, Preview>();
  try {
    await pool(plan.images, CONCURRENCY, async (job) => {
      const report = (u: ItemUpdate) => callbacks.onItem(job.hash, u);
      if (signal.aborted) return report({ phase: 'cancelled' });
      try {
        const out = await correctOne(bridge, backend, plan, job, options, signal, report, tools);
        if ('skip' in out) {
          summary.skipped += 1;
          report({ phase: 'skipped', notes: [out.skip] });
        } else previews.set(job.hash, out);
      } catch (err) {
        if (signal.aborted) report({ phase: 'cancelled' });
        else {
          summary.failed += 1;
          report({ phase: 'failed', error: describeError(err) });
        }
      }
    });
  } finally {
    summary.cancelled = signal.aborted;
  }
  return { plan, previews, summary, options };
}

/**
 * Put the accepted results into the document (in plan order), mark the rest
 * rejected, and end the run; resolves with the summary the user sees.
 */
export async function applyAccepted(
  bridge: MainBridge,
  run: PreviewRun,
  accepted: ReadonlySet<string>,
  onItem: RunCallbacks['onItem'],
): Promise<{ summary: RunSummary; message: string }> {
  const summary = { ...run.summary };
  const note = describeOptions(run.options);
  for (const [hash, preview] of run.previews) {
    if (!accepted.has(hash)) {
      summary.rejected += 1;
      onItem(hash, { phase: 'rejected' });
      continue;
    }
    onItem(hash, { phase: 'applying' });
    try {
      const applied = await bridge.request('image/apply', { runId: run.plan.runId, hash, relaunchNote: note, ...(preview.crop ? { crop: preview.crop } : {}) });
      summary.done += 1;
      onItem(hash, { phase: 'done', notes: [...preview.notes, ...applied.warnings], applied });
    } catch (err) {
      summary.failed += 1;
      onItem(hash, { phase: 'failed', error: `Not put back, nothing changed: ${describeError(err)}` });
    }
  }
  const { message } = await bridge.request('run/end', { runId: run.plan.runId, summary });
  return { summary, message };
}

/** End a run without changing anything (the user discarded every result, or cancelled). */
export async function discardRun(bridge: MainBridge, run: PreviewRun): Promise<{ summary: RunSummary; message: string }> {
  return applyAccepted(bridge, run, new Set(), () => undefined);
}

/** Correct and apply every result without asking (the tests' and scripted runs' shortcut). */
export async function runCorrection(
  bridge: MainBridge,
  backend: CorrectionBackend,
  options: RunOptions,
  signal: AbortSignal,
  callbacks: RunCallbacks,
  tools: RunTools = {},
): Promise<{ plan: RunPlan; summary: RunSummary; message: string }> {
  const run = await correctForPreview(bridge, backend, options, signal, callbacks, tools);
  const accepted = signal.aborted ? new Set<string>() : new Set(run.previews.keys());
  const { summary, message } = await applyAccepted(bridge, run, accepted, callbacks.onItem);
  return { plan: run.plan, summary, message };
}
