/**
 * Running a plan: bounded jobs in the service (uploads and downloads beside
 * them), streaming uploads from disk, atomic writes, manifest updates after
 * each file, whole-file retries of retryable failures, and cancellation that
 * stops new work and aborts work in flight.
 */
import { setMaxListeners } from 'node:events';
import { AdaptiveLimit, ConnectionError, type CorrectionBackend, ParameterError, type PfcParams } from '@pfc/core';
import { fileSettings } from './decide';
import { DiskRefusedError } from './errors';
import type { BatchEvent, BatchSummary, FileResult } from './events';
import { cancelledResult, type FileContext, processFile } from './file-run';
import { extendedAttributesAvailable, removePartials } from './files';
import { type HeldLocks, type LockHolder, lockFolders } from './lock';
import { Manifest } from './manifest';
import type { BatchPlan, StreamedPlan } from './plan';
import { foldersOf, isStreamed, planFeed } from './plan-feed';
import { ResultsWriter, Tally } from './results';
import { AttemptGate } from './attempt-gate';
import { EarlierResults } from './earlier-results';
import { JobSlots } from './slots';
import type { RgbCopy } from './upload';
import type { HostTerms } from './host-terms';

export { worthAnotherAttempt } from './file-run';

export interface RunOptions {
  /** The service that corrects each file. */
  backend: CorrectionBackend;
  /**
   * Identity of the backend in the manifest's settings key: a result made by
   * another backend is redone. Default `backend.kind` (use `emulator` for the emulator).
   */
  backendId?: string;
  /** Parameters of every job (validated by `backend.validate` before any upload). Default `{}`. */
  params?: PfcParams;
  /**
   * Jobs in the service at once. With a backend that takes job slots (the Web
   * API, `usesJobSlot`), a slot is held from the job's start to its end only:
   * the next files upload while jobs run, and finished results download and are
   * written outside the slots, with at most `concurrency` more files in hand
   * (uploading, uploaded and waiting for a slot, or writing). With other
   * backends: files corrected at once. Default 2.
   */
  concurrency?: number;
  /** Redo files that are up to date. Default false. */
  force?: boolean;
  /** Cancels the run: no new file starts, files in flight are aborted, their temporary files removed. */
  signal?: AbortSignal;
  /** Attempts per file for retryable failures (connection resets, 5xx after the transport's own retries). Default 3. */
  attempts?: number;
  /** First delay between whole-file attempts in ms; doubles each time. Default 1000. */
  retryDelayMs?: number;
  /**
   * Overall time limit of one job in ms (passed to the backend). A file whose job
   * runs out of it fails with `JobTimeoutError` and is not retried in this run. Default: the backend's.
   */
  jobTimeoutMs?: number;
  /**
   * Replace existing outputs that pfc did not write (files the manifest does not
   * record with their current content). Default false: such a file is left alone
   * and its input fails with `OutputExistsError`. In-place mode always keeps the original.
   */
  overwrite?: boolean;
  /** When another run holds an output folder's lock, wait for it instead of throwing `FolderLockedError`. Default false. */
  waitForLock?: boolean;
  /** Called when the run starts waiting for another run's lock (`waitForLock`). */
  onLockWait?: (lockPath: string, holder: LockHolder | undefined) => void;
  onEvent?: (event: BatchEvent) => void;
  /**
   * Subscribes to the service's refusals for overload (429): with a backend
   * that takes job slots, the jobs in the service then follow an
   * `AdaptiveLimit` (down to the jobs the service holds when it refuses a
   * start, halved on other 429s, back up by one per round of jobs done and
   * more slowly towards a refused level, never above `concurrency`) instead of staying at `concurrency`. Returns
   * the unsubscribe function. `OpenedBackend.rateLimited` is one. Default:
   * a fixed `concurrency`.
   */
  rateLimited?: (listener: () => void) => () => void;
  /**
   * Keep every file's result in `BatchSummary.results` (O(files) memory). Default true.
   * False: the summary holds counts and the first failures only; write the results out with `resultsFile`.
   */
  keepResults?: boolean;
  /** Write every file's result to this file, one JSON line each (read it back with `readResults`). */
  resultsFile?: string;
  /**
   * Converts a greyscale JPEG or PNG to RGB for the Web API, which takes RGB or RGBA only (e.g.
   * `sharpRgbCopy`). Without it, such a file fails on the Web API, saying so; other backends take it as it is.
   */
  rgbCopy?: RgbCopy;
  /**
   * How the host names its choices (output folder, overwrite, waiting for a lock) in the advice of refusals and
   * errors, e.g. "…; use --overwrite to replace it". Default `CLI_TERMS`, the `pfc` CLI's flags.
   */
  terms?: HostTerms;
}

/**
 * Run a plan to the end (or until cancelled). Throws `ParameterError` before any
 * upload when the parameters are invalid, and `FolderLockedError` when another
 * run is writing to one of the plan's output folders (see `waitForLock`).
 * A streamed plan (`planStream`) is planned while its first files are corrected;
 * its `BatchUsageError` (an output over an input found late) stops the run
 * (files in flight finish) and is thrown once the run has stopped.
 */
export async function runBatch(plan: BatchPlan | StreamedPlan, options: RunOptions): Promise<BatchSummary> {
  const params = options.params ?? {};
  const check = options.backend.validate(params);
  if (check.errors.length > 0) throw new ParameterError(check.errors);
  const locks = await lockOutputFolders(plan, options);
  try {
    return await runLocked(plan, options, params);
  } finally {
    await locks.release();
  }
}

/** One run per output folder: the lock is taken before temporary files are cleaned up or the manifest is read. */
function lockOutputFolders(plan: BatchPlan | StreamedPlan, options: RunOptions): Promise<HeldLocks> {
  return lockFolders(plan.outputRoots, {
    mode: plan.mode.kind,
    wait: options.waitForLock ?? false,
    ...(options.terms ? { terms: options.terms } : {}),
    ...(options.onLockWait ? { onWait: options.onLockWait } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
}

/**
 * In place, a result keeps its original's extended attributes (Finder tags, ratings, comments) through
 * `@pfc/node-io`; an installation that cannot load their native module (a VS Code .vsix without it) says so
 * before it replaces anything, rather than drop them unsaid. Windows keeps none to lose.
 */
async function noticeAttributesNotKept(plan: BatchPlan | StreamedPlan, emit: (e: BatchEvent) => void): Promise<void> {
  if (plan.mode.kind !== 'in-place' || process.platform === 'win32' || (await extendedAttributesAvailable())) return;
  emit({ type: 'notice', message: EXTENDED_ATTRIBUTES_NOT_KEPT });
}

/** The notice of {@link noticeAttributesNotKept}. */
export const EXTENDED_ATTRIBUTES_NOT_KEPT = 'this installation cannot read extended attributes (the @pfc/node-io native module @napi-rs/xattr is missing): files replaced in place, and the originals kept for them, lose any Finder tags, ratings or comments they carry';

async function runLocked(plan: BatchPlan | StreamedPlan, options: RunOptions, params: PfcParams): Promise<BatchSummary> {
  const started = Date.now();
  const { backend } = options;
  // The run stops itself on failures no other file can escape (a refused key, an unreachable service).
  const stop = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
  const breaker = new Breaker((reason) => {
    stopReason ??= reason;
    stop.abort();
  });
  let stopReason: string | undefined;
  const backendId = options.backendId ?? backend.kind;
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? 2));
  const attempts = Math.max(1, options.attempts ?? 3);
  const emit = (e: BatchEvent): void => options.onEvent?.(e);

  // A streamed plan's total is its names count (the files it will judge); its bytes are not known before they are planned.
  const streamed = isStreamed(plan);
  const total = streamed ? plan.expectedFiles : plan.files.length;
  const { leftOut } = plan;
  emit({ type: 'plan', files: total, bytes: streamed ? 0 : plan.totalBytes, excluded: leftOut.counts.total, outputRoots: plan.outputRoots, concurrency, backend: backendId });
  // Paths left out are reported as planning finds them (those found before, all at once): the plan keeps only the first.
  const stopReporting = leftOut.reportTo((s) => emit({ type: 'skipped', input: s.path, code: s.code, reason: s.reason }));
  await noticeAttributesNotKept(plan, emit);

  const removed = await removePartials(foldersOf(plan));
  if (removed.length > 0) emit({ type: 'cleanup', removed });

  const manifests = await manifestsOf(plan);

  // Job slots keep `concurrency` jobs running while the files around them upload and
  // download, so the service's workers do not idle on the client's transfers. The extra
  // files in hand are bounded (each streams from and to disk, never held in memory).
  const adaptive = backend.usesJobSlot && options.rateLimited ? new AdaptiveLimit({ max: concurrency }) : undefined;
  adaptive?.onChange((limit) => emit({ type: 'notice', message: `${limit} job(s) at once (${adaptive.changes.at(-1)?.why === 'kept-up' ? 'the service keeps up: one more' : 'the service refused work: fewer jobs'})` }));
  const unsubscribe = adaptive && options.rateLimited ? options.rateLimited(() => adaptive.congested()) : () => undefined;
  const slots = backend.usesJobSlot ? new JobSlots(adaptive ?? concurrency) : undefined;
  const inHand = slots ? 2 * concurrency : concurrency;
  // Each file in hand listens on the run's signal (its wait for a slot, its requests).
  setMaxListeners(Math.max(10, inHand * 4), signal);
  const writer = options.resultsFile ? new ResultsWriter(options.resultsFile) : undefined;
  const tally = new Tally(options.keepResults ?? true, writer);
  const settingsOf = fileSettings(params, backendId);
  // One context for every file (a copy of the options per file was much of a rerun's garbage).
  const ctx: FileContext = { ...options, signal, params, backendId, attempts, emit, slots, gate: new AttemptGate(), earlier: new EarlierResults(manifests.values(), plan.earlierOutputs) };
  const feed = planFeed(plan, signal, (files, bytes) => emit({ type: 'planned', files, bytes }));
  // The output roots that hold a result of the run: a root whose every file was left out (e.g. a folder
  // given again below another input) or failed is no output folder of it (the lock removes it, left empty).
  const rootsWithOutput = new Set<string>();
  const worker = async (k: number): Promise<void> => {
    // A worker beyond `concurrency` uploads ahead: it starts once the k-th file before it
    // has asked for its slot, so at the start the first files' uploads do not share the
    // line with the ones that will wait anyway. (Files 0…concurrency-1 are taken at once
    // by the first workers, so this wait always ends.)
    if (slots && k >= concurrency) await slots.passed(k - concurrency);
    while (!signal?.aborted) {
      // No new file while an attempt waits to run alone (attempt-gate.ts): its moment comes once those in hand are done.
      await ctx.gate.quiet(signal);
      const fed = await feed.next();
      if (!fed) {
        // No position from here on will be taken: the workers still waiting for one's turn (a streamed
        // plan whose files were mostly left out has fewer files than workers) need not wait.
        for (let o = feed.taken; o < feed.taken + inHand; o++) slots?.pass(o);
        return;
      }
      const { file, index: i } = fed;
      const r = await processFile(file, manifests.get(file.outputRoot)!, ctx, i, settingsOf(file));
      if (r.status === 'corrected' || r.status === 'up-to-date') rootsWithOutput.add(file.outputRoot);
      slots?.pass(i);
      breaker.observe(r);
      await tally.add(i, r);
    }
  };
  await Promise.all(Array.from({ length: Math.min(inHand, Math.max(1, total)) }, (_, k) => worker(k))).finally(unsubscribe);
  const planError = await feed.close().then(() => undefined, (err: unknown) => ({ err }));
  stopReporting();
  // Every file a worker took has its result; the ones no worker reached are cancelled (a streamed plan's unplanned ones counted only).
  const { planned: notTaken, unplanned } = feed.leftOver();
  for (const [k, f] of notTaken.entries()) {
    await tally.add(feed.taken + k, cancelledResult(f, settingsOf(f)));
  }
  await writer?.close();
  await Promise.all([...manifests.values()].map((m) => m.tidy().catch(() => undefined)));
  if (planError) throw planError.err;

  const { counts } = tally;
  // Files found but not readable are failures of the run (exit 1), not deliberate exclusions.
  const unreadable = leftOut.counts.byCode.unreadable ?? 0;
  return {
    corrected: counts.corrected,
    skipped: counts['up-to-date'] + leftOut.counts.total - unreadable,
    upToDate: counts['up-to-date'],
    excluded: leftOut.counts.total - unreadable,
    failed: counts.failed + unreadable,
    refused: tally.refused,
    cancelled: counts.cancelled + unplanned,
    bytesIn: tally.bytesIn,
    bytesOut: tally.bytesOut,
    durationMs: Date.now() - started,
    interrupted: options.signal?.aborted ?? false,
    ...(stopReason ? { stoppedBecause: stopReason } : {}),
    outputRoots: plan.outputRoots.filter((root) => rootsWithOutput.has(root)),
    results: tally.all ?? [],
    failures: tally.failures,
    ...(writer ? { resultsFile: writer.path } : {}),
    // Only when a job was sent: a rerun with nothing to send said "2 throughout (the service refused none)".
    ...(adaptive && slots!.granted > 0 ? { jobsAtOnce: { started: concurrency, ended: adaptive.current, lowest: Math.min(concurrency, ...adaptive.changes.map((c) => c.limit)), changes: adaptive.changes.length } } : {}),
    excludedPaths: leftOut.kept,
    excludedCounts: leftOut.counts,
  };
}

/** The plan's manifests, read again unless the one planning read is still the file on disk (now that the run holds the lock). */
async function manifestsOf(plan: BatchPlan | StreamedPlan): Promise<Map<string, Manifest>> {
  const manifests = new Map<string, Manifest>();
  for (const root of plan.outputRoots) {
    const read = plan.manifests?.get(root);
    manifests.set(root, read && read.mode === plan.mode.kind && (await read.unchangedOnDisk()) ? read : await Manifest.load(root, plan.mode.kind));
  }
  return manifests;
}

/** Consecutive failures of the connection after which the run stops: the service is down, not one file. */
const MAX_CONSECUTIVE_CONNECTION_FAILURES = 3;
/**
 * Consecutive files whose jobs the service lost on every attempt (`JobLostError`) after which the run stops:
 * it crashes on everything. Fewer would stop a run through a folder with many photos that crash it (each
 * fails alone, tried last, attempt-gate.ts), which should fail while the rest is corrected.
 */
const MAX_CONSECUTIVE_LOST_FILES = 10;

/** Watches results and stops the run on a refused credential, a service that cannot be reached or keeps losing its jobs, or a disk that refuses writes. */
class Breaker {
  private connectionFailures = 0;
  private lostFiles = 0;
  constructor(private readonly trip: (reason: string) => void) {}

  observe(r: FileResult): void {
    if (r.status !== 'failed') {
      if (r.status === 'corrected') this.connectionFailures = this.lostFiles = 0;
      return;
    }
    // By name: a bundler may rename the class (JobLostError has a static member), not its `name` field.
    if (r.errorName === 'JobLostError' && ++this.lostFiles >= MAX_CONSECUTIVE_LOST_FILES) {
      return this.trip(`the service lost the jobs of ${MAX_CONSECUTIVE_LOST_FILES} files in a row, on each of their attempts (it forgets what it was given: it keeps crashing or restarting): ${r.error}`);
    }
    if (r.fatal) return this.trip(`the service refused the credentials: ${r.error}`);
    if (r.errorName === DiskRefusedError.name) return this.trip(`${r.error}; no further file was started, as each would fail the same way`);
    if (r.errorName === ConnectionError.name || r.errorName === 'TimeoutError') {
      if (++this.connectionFailures >= MAX_CONSECUTIVE_CONNECTION_FAILURES) {
        this.trip(`${MAX_CONSECUTIVE_CONNECTION_FAILURES} files in a row could not reach the service: ${r.error}`);
      }
    } else {
      this.connectionFailures = 0;
    }
  }
}
