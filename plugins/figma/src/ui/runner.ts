/**
 * One run from the UI's side: ask the main thread for the plan, then correct
 * each distinct image (two at a time), fit it to Figma and hand it back. A
 * failed image is reported and the others go on; cancel aborts what is in
 * flight and starts nothing new. The run always ends with `run/end`, which
 * makes everything it changed one undo step.
 */
import { readAll, type CorrectionBackend } from '@pfc/core';
import { mimeOf } from '../shared/image-header';
import type { ApplyResult, ImageJob, RunPlan, RunSummary } from '../shared/messages';
import type { MainBridge } from './bridge';
import { fitForFigma } from './fit-output';
import { describeError } from './network';
import { describeOptions, toPfcParams, type RunOptions } from './options';

/** Images corrected at the same time. */
export const CONCURRENCY = 2;

export type ItemPhase = 'queued' | 'reading' | 'uploading' | 'processing' | 'downloading' | 'applying' | 'done' | 'failed' | 'cancelled';

export interface ItemUpdate {
  phase: ItemPhase;
  /** Notes for the user (resizes made to fit Figma, service warnings). */
  notes?: string[];
  error?: string;
  /** The input bytes (on `reading`) or the result bytes (on `done`), for thumbnails. */
  bytes?: Uint8Array;
  applied?: ApplyResult;
}

export interface RunCallbacks {
  onPlan(plan: RunPlan): void;
  onItem(hash: string, update: ItemUpdate): void;
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

async function correctOne(
  bridge: MainBridge,
  backend: CorrectionBackend,
  plan: RunPlan,
  job: ImageJob,
  options: RunOptions,
  signal: AbortSignal,
  report: (u: ItemUpdate) => void,
): Promise<void> {
  const notes = [...job.notes];
  report({ phase: 'reading' });
  const { bytes } = await bridge.request('image/read', { runId: plan.runId, hash: job.hash });
  report({ phase: 'reading', bytes });
  const params = toPfcParams(options, job.resize);
  const check = backend.validate(params);
  if (check.errors.length > 0) throw new Error(`Invalid options: ${check.errors.map((e) => e.message).join('; ')}`);
  const result = await backend.correct(bytes, params, {
    signal,
    contentType: mimeOf(job.format),
    size: bytes.byteLength,
    fileName: `${job.nodeNames[0] ?? 'image'}.${job.format === 'png' ? 'png' : 'jpg'}`,
    onProgress: (p) => {
      if (p.phase === 'uploading' || p.phase === 'downloading') report({ phase: p.phase });
      else if (p.phase === 'queued' || p.phase === 'processing') report({ phase: 'processing' });
    },
  });
  notes.push(...result.warnings);
  const output = await readAll(result.body);
  if (signal.aborted) throw signal.reason ?? new Error('Cancelled');
  const fitted = await fitForFigma(output);
  notes.push(...fitted.notes);
  report({ phase: 'applying', notes });
  const applied = await bridge.request('image/apply', {
    runId: plan.runId,
    hash: job.hash,
    bytes: fitted.bytes,
    relaunchNote: describeOptions(options),
  });
  report({ phase: 'done', notes: [...notes, ...applied.warnings], bytes: fitted.bytes, applied });
}

/** Run the selection with `options`; resolves with the summary once the main thread has closed the run. */
export async function runCorrection(
  bridge: MainBridge,
  backend: CorrectionBackend,
  options: RunOptions,
  signal: AbortSignal,
  callbacks: RunCallbacks,
): Promise<{ plan: RunPlan; summary: RunSummary; message: string }> {
  const plan = await bridge.request('run/plan', { options });
  callbacks.onPlan(plan);
  const summary: RunSummary = { done: 0, failed: 0, skipped: plan.skipped.length, cancelled: false };
  try {
    await pool(plan.images, CONCURRENCY, async (job) => {
      const report = (u: ItemUpdate) => callbacks.onItem(job.hash, u);
      if (signal.aborted) {
        report({ phase: 'cancelled' });
        return;
      }
      try {
        await correctOne(bridge, backend, plan, job, options, signal, report);
        summary.done += 1;
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
  const { message } = await bridge.request('run/end', { runId: plan.runId, summary });
  return { plan, summary, message };
}
