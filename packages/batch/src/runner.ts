/**
 * Running a plan: bounded jobs in the service (uploads and downloads beside
 * them), streaming uploads from disk, atomic writes, manifest updates after
 * each file, whole-file retries of retryable failures, and cancellation that
 * stops new work and aborts work in flight.
 */
import { setMaxListeners } from 'node:events';
import type { Stats } from 'node:fs';
import { stat } from 'node:fs/promises';
import {
  AdaptiveLimit, AuthenticationError, ConnectionError, type CorrectionBackend, type CorrectionProgress, defaultSleep, PermissionDeniedError, isRetryable, JobFailedError, ParameterError, type PfcParams, PfcError,
  TimeoutError, UserAbortError,
} from '@pfc/core';
import { keepOriginal } from './backup';
import { type Decision, decide, type FileSettings, fileSettings, type OutputOwner, outputOwner } from './decide';
import { JobTimeoutError } from './errors';
import type { BatchEvent, BatchSummary, FileResult } from './events';
import { DestinationExistsError, fileInputFromPath, removePartials, unreadableInput, writeStreamAtomic } from './files';
import { hashFile } from './hash';
import { limitViolation } from './limits';
import { type HeldLocks, type LockHolder, lockFolders } from './lock';
import { Manifest, type ManifestEntry } from './manifest';
import { outputFormat } from './paths';
import type { BatchPlan, PlannedFile, StreamedPlan } from './plan';
import { foldersOf, isStreamed, planFeed } from './plan-feed';
import { ResultsWriter, Tally } from './results';
import { JobSlots } from './slots';
import { type MediaFormat, sniffFileSync } from './sniff';
import { verifyOutput } from './verify';

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
    ...(options.onLockWait ? { onWait: options.onLockWait } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
}

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
  emit({ type: 'plan', files: total, bytes: streamed ? 0 : plan.totalBytes, excluded: plan.skipped.length, outputRoots: plan.outputRoots, concurrency, backend: backendId });
  // Paths left out are reported as planning finds them (all at once for a whole plan).
  let reported = 0;
  const reportSkipped = (): void => {
    for (; reported < plan.skipped.length; reported++) {
      const s = plan.skipped[reported]!;
      emit({ type: 'skipped', input: s.path, code: s.code, reason: s.reason });
    }
  };
  reportSkipped();

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
  const ctx: FileContext = { ...options, signal, params, backendId, attempts, emit, slots };
  const feed = planFeed(plan, signal, (files, bytes) => emit({ type: 'planned', files, bytes }));
  const worker = async (k: number): Promise<void> => {
    // A worker beyond `concurrency` uploads ahead: it starts once the k-th file before it
    // has asked for its slot, so at the start the first files' uploads do not share the
    // line with the ones that will wait anyway. (Files 0…concurrency-1 are taken at once
    // by the first workers, so this wait always ends.)
    if (slots && k >= concurrency) await slots.passed(k - concurrency);
    while (!signal?.aborted) {
      const fed = await feed.next();
      reportSkipped();
      if (!fed) {
        // No position from here on will be taken: the workers still waiting for one's turn (a streamed
        // plan whose files were mostly left out has fewer files than workers) need not wait.
        for (let o = feed.taken; o < feed.taken + inHand; o++) slots?.pass(o);
        return;
      }
      const { file, index: i } = fed;
      const r = await processFile(file, manifests.get(file.outputRoot)!, ctx, i, settingsOf(file));
      slots?.pass(i);
      breaker.observe(r);
      await tally.add(i, r);
    }
  };
  await Promise.all(Array.from({ length: Math.min(inHand, Math.max(1, total)) }, (_, k) => worker(k))).finally(unsubscribe);
  const planError = await feed.close().then(() => undefined, (err: unknown) => ({ err }));
  reportSkipped();
  // Every file a worker took has its result; the ones no worker reached are cancelled (a streamed plan's unplanned ones counted only).
  const { planned: notTaken, unplanned } = feed.leftOver();
  for (const [k, f] of notTaken.entries()) await tally.add(feed.taken + k, cancelledResult(f, settingsOf(f)));
  await writer?.close();
  await Promise.all([...manifests.values()].map((m) => m.tidy().catch(() => undefined)));
  if (planError) throw planError.err;

  const { counts } = tally;
  // Files found but not readable are failures of the run (exit 1), not deliberate exclusions.
  const unreadable = plan.skipped.filter((p) => p.code === 'unreadable').length;
  return {
    corrected: counts.corrected,
    skipped: counts['up-to-date'] + plan.skipped.length - unreadable,
    upToDate: counts['up-to-date'],
    excluded: plan.skipped.length - unreadable,
    failed: counts.failed + unreadable,
    cancelled: counts.cancelled + unplanned,
    bytesIn: tally.bytesIn,
    bytesOut: tally.bytesOut,
    durationMs: Date.now() - started,
    interrupted: options.signal?.aborted ?? false,
    ...(stopReason ? { stoppedBecause: stopReason } : {}),
    outputRoots: plan.outputRoots,
    results: tally.all ?? [],
    failures: tally.failures,
    ...(writer ? { resultsFile: writer.path } : {}),
    ...(adaptive ? { jobsAtOnce: { started: concurrency, ended: adaptive.current, lowest: Math.min(concurrency, ...adaptive.changes.map((c) => c.limit)), changes: adaptive.changes.length } } : {}),
    excludedPaths: plan.skipped,
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

interface FileContext extends RunOptions {
  params: PfcParams;
  backendId: string;
  attempts: number;
  emit: (e: BatchEvent) => void;
  slots: JobSlots | undefined;
}

/** `order`: the file's position in the plan (jobs start in this order); `settings`: its parameters and settings key (shared by every file of its kind). */
async function processFile(file: PlannedFile, manifest: Manifest, ctx: FileContext, order: number, settings: FileSettings): Promise<FileResult> {
  const { params, effective, key } = settings;
  const base: FileResult = { input: file.input, output: file.output, rel: file.rel, status: 'failed', media: file.media, params: effective, bytesIn: file.size, warnings: [] };
  if (file.backup) base.backup = file.backup;
  const job: FileJob = { file, manifest, params, effective, key, order, t0: Date.now(), ids: { input: file.input, rel: file.rel } };
  try {
    const decision = await decide(file, manifest, job.key, { force: ctx.force ?? false, overwrite: ctx.overwrite ?? false, ...(ctx.signal ? { signal: ctx.signal } : {}) });
    if (decision.action === 'skip') return upToDate(job, decision.entry, base, ctx);
    if (decision.action === 'refuse') return refused(job, decision.errorName, decision.reason, base, ctx);
    return await correctFile(job, decision, base, ctx);
  } catch (err) {
    return failure(job, err, base, ctx);
  }
}

/** One planned file on its way through the run. */
interface FileJob {
  file: PlannedFile;
  manifest: Manifest;
  params: PfcParams;
  effective: PfcParams;
  /** Settings key of the file (backend and effective parameters). */
  key: string;
  /** The file's position in the plan: jobs start in this order. */
  order: number;
  /** Start time, ms since the epoch. */
  t0: number;
  ids: { input: string; rel: string };
  jobId?: string;
}

type CorrectDecision = Extract<Decision, { action: 'correct' }>;

/** The result of a file found up to date (most of a rerun's files: `base`, the file's own, is completed in place, not copied). */
function upToDate(job: FileJob, entry: ManifestEntry, base: FileResult, ctx: FileContext): FileResult {
  const { file } = job;
  ctx.emit({ type: 'skipped', input: file.input, rel: file.rel, code: 'up-to-date', output: file.output, bytes: file.size, reason: UP_TO_DATE });
  base.status = 'up-to-date';
  base.bytesOut = entry.outputSize;
  base.durationMs = entry.durationMs;
  // Read once: the manifest's entry makes the job id from its bytes when asked.
  const { jobId } = entry;
  if (jobId) base.jobId = jobId;
  return base;
}

const UP_TO_DATE = 'already corrected with the same input and settings';

/** A file left alone so that no file pfc did not write is replaced: reported failed with the reason, nothing sent. */
function refused(job: FileJob, errorName: string, error: string, base: FileResult, ctx: FileContext): FileResult {
  ctx.emit({ type: 'failed', ...job.ids, error, errorName });
  return { ...base, status: 'failed', error, errorName, durationMs: 0 };
}

/** Keep the original (in-place), then correct with whole-file retries of retryable failures. */
async function correctFile(job: FileJob, decision: CorrectDecision, base: FileResult, ctx: FileContext): Promise<FileResult> {
  const { file } = job;
  if (file.mediaFromManifest) sniffBeforeSending(job, decision.source, base, ctx);
  ctx.emit({ type: 'start', ...job.ids, output: file.output, bytes: file.size, reason: decision.reason });
  // In place, the file as it was when its original was kept: it is replaced only while it is still so.
  const kept = file.backup ? await stat(file.input) : undefined;
  // Hashed here, not taken from the decision: the file may have changed since.
  if (decision.backupFirst && file.backup) await keepOriginal(file.input, file.backup, file.rel, undefined, ctx.signal);
  const mode = kept?.mode;
  // In in-place mode the upload may be the kept original, whose size differs from the current file's.
  const source = decision.source === file.input ? { size: file.size, mtimeMs: file.mtimeMs } : await stat(decision.source);
  for (let attempt = 1; ; attempt++) {
    try {
      return await attemptOnce(job, decision, source, { mode, kept }, base, ctx);
    } catch (err) {
      await beforeNextAttempt(job, decision.source, err, attempt, ctx);
    }
  }
}

/**
 * A file planned from its manifest entry (its headers unread) is sniffed before
 * it is sent: its bytes may have changed under the same size and mtime, or its
 * content may not be what its extension says. Its output name stays as planned;
 * the limits planning skipped for it are checked here.
 */
function sniffBeforeSending(job: FileJob, source: string, base: FileResult, ctx: FileContext): void {
  const { file } = job;
  const media = sniffFileSync(source);
  if (!media) throw new InputUnsupportedError(`${source} is no longer a JPEG, PNG, MP4 or MOV file (judged by content)`);
  // Its parameters and settings key were chosen for the kind its extension names.
  if (media.fileType !== file.media.fileType) throw new InputUnsupportedError(`${source} is a ${media.fileType}, not the ${file.media.fileType} its name says; run again to plan it afresh`);
  const violation = limitViolation(media, file.size, job.params, ctx.backend.kind);
  if (violation) throw new InputUnsupportedError(`${source}: ${violation}`);
  file.media = media;
  delete file.mediaFromManifest;
  base.media = media;
}

/** A file planned from the manifest turned out not to be something the service corrects (or not within its limits). */
class InputUnsupportedError extends Error {
  override name = 'InputUnsupportedError';
}

/** Upload, run the job, write the result atomically and record it in the manifest. */
async function attemptOnce(job: FileJob, decision: CorrectDecision, source: { size: number; mtimeMs: number }, inPlace: { mode: number | undefined; kept: Stats | undefined }, base: FileResult, ctx: FileContext): Promise<FileResult> {
  const { file, ids } = job;
  const { mode, kept } = inPlace;
  const { signal, emit } = ctx;
  let phase: CorrectionProgress['phase'] | undefined;
  let readHash: string | undefined;
  // A file new to the manifest is hashed as it is uploaded (`readHash`), not read twice.
  const res = await ctx.backend.correct(fileInputFromPath(decision.source, decision.sourceHash === undefined ? (h) => (readHash = h) : undefined), job.params, {
    ...(signal ? { signal } : {}),
    ...(ctx.jobTimeoutMs ? { timeoutMs: ctx.jobTimeoutMs } : {}),
    fileType: file.media.fileType,
    contentType: file.media.contentType,
    size: source.size,
    fileName: file.rel.split('/').pop() ?? file.rel,
    // One event per change of phase: each status poll reports one, mostly the same.
    onProgress: (p) => {
      if (p.phase === phase) return;
      phase = p.phase;
      emit({ type: 'phase', ...ids, phase });
    },
    ...(ctx.slots ? { jobSlot: (s: AbortSignal | undefined) => ctx.slots!.acquire(job.order, s), slotWanted: () => ctx.slots!.waiting > 0 } : {}),
  });
  job.jobId = res.job?._id;
  const jobId = job.jobId;
  const expected = outputFormat(file.media.format, job.params);
  let got: MediaFormat = expected;
  // No file at the output at the last check: put in place only if still none (no window before the rename).
  let absent = false;
  const written = await writeStreamAtomic(file.output, res.body, {
    ...(signal ? { signal } : {}),
    ...(mode !== undefined ? { mode } : {}),
    verify: async (tmp, streamed) => {
      got = await verifyOutput(tmp, expected);
      if (kept) await assertUnchangedSince(file.input, kept);
      else if (!ctx.overwrite) absent = (await assertNoForeignFile(file.output, job.manifest, signal)) === 'absent';
      // Known as pfc's before it is in place, so a kill before `record` does not leave a stranger's file.
      await job.manifest.intend(file.output, streamed.hash);
    },
    exclusive: () => absent,
  }).catch((err: unknown) => {
    throw err instanceof DestinationExistsError ? foreignFileError(file.output) : err;
  });
  const out = await stat(file.output);
  const durationMs = Date.now() - job.t0;
  await job.manifest.record({
    output: file.output, input: file.input, inputHash: decision.sourceHash ?? readHash ?? (await hashFile(decision.source, signal)), inputSize: source.size, inputMtimeMs: source.mtimeMs, settingsKey: job.key, params: job.effective, backend: ctx.backendId,
    outputHash: written.hash, outputSize: written.bytes, outputMtimeMs: out.mtimeMs, ...(jobId ? { jobId } : {}), durationMs, completedAt: new Date().toISOString(),
  });
  const warnings = got === expected ? res.warnings : [...res.warnings, `the service returned ${got.toUpperCase()} where ${expected.toUpperCase()} was expected; the file keeps its planned name`];
  emit({ type: 'corrected', ...ids, output: file.output, bytesIn: source.size, bytesOut: written.bytes, durationMs, ...(jobId ? { jobId } : {}), warnings, ...(file.backup ? { backup: file.backup } : {}) });
  return { ...base, status: 'corrected', reason: decision.reason, bytesIn: source.size, bytesOut: written.bytes, durationMs, warnings, ...(jobId ? { jobId } : {}), ...(res.job ? { job: { _id: res.job._id, status: res.job.status, timeTaken: res.job.timeTaken } } : {}) };
}

/** Rethrow what another attempt cannot fix; otherwise report the retry and wait its backoff. */
async function beforeNextAttempt(job: FileJob, source: string, err: unknown, attempt: number, ctx: FileContext): Promise<void> {
  if (ctx.signal?.aborted || err instanceof ChangedWhileCorrectingError || err instanceof OutputExistsError) throw err;
  // A file deleted or unreadable mid-run fails with its own reason, not as a retried connection error.
  const gone = await unreadableInput(source);
  if (gone) throw gone;
  // The caller's own per-job limit ran out: final for this run, not a flaky connection.
  if (err instanceof TimeoutError && ctx.jobTimeoutMs && err.timeoutMs === ctx.jobTimeoutMs) throw new JobTimeoutError(ctx.jobTimeoutMs);
  if (attempt >= ctx.attempts || !worthAnotherAttempt(err)) throw err;
  // Later files do not wait for this one's turn through its backoff.
  ctx.slots?.pass(job.order);
  const delayMs = (ctx.retryDelayMs ?? 1000) * 2 ** (attempt - 1);
  ctx.emit({ type: 'retry', ...job.ids, attempt: attempt + 1, delayMs, error: messageOf(err) });
  await defaultSleep(delayMs, ctx.signal);
}

/** In place: the user changed the file while it was being corrected; it is left as is (the next run corrects the new version). */
class ChangedWhileCorrectingError extends Error {
  override name = 'ChangedWhileCorrectingError';
}

/** A file that pfc did not write appeared at the output path while the file was being corrected. */
class OutputExistsError extends Error {
  override name = 'OutputExistsError';
}

/** Just before the result is renamed into place: the decision's no-clobber check again, for a file that appeared meanwhile. */
async function assertNoForeignFile(output: string, manifest: Manifest, signal: AbortSignal | undefined): Promise<OutputOwner> {
  const owner = await outputOwner(output, manifest, signal);
  if (owner === 'foreign') throw foreignFileError(output);
  return owner;
}

function foreignFileError(output: string): OutputExistsError {
  return new OutputExistsError(`would overwrite a file pfc did not write: ${output} (it appeared while this file was being corrected); use --overwrite to replace it`);
}

async function assertUnchangedSince(path: string, kept: Stats): Promise<void> {
  const now = await stat(path).catch(() => undefined);
  if (!now || now.size !== kept.size || now.mtimeMs !== kept.mtimeMs || now.ino !== kept.ino) {
    throw new ChangedWhileCorrectingError(`${path} changed while it was being corrected; left as is (run again to correct the new version)`);
  }
}

function failure(job: FileJob, err: unknown, base: FileResult, ctx: FileContext): FileResult {
  if (ctx.signal?.aborted || err instanceof UserAbortError) {
    ctx.emit({ type: 'cancelled', ...job.ids });
    return { ...base, status: 'cancelled' };
  }
  if (err instanceof JobFailedError) job.jobId = err.jobId;
  const { jobId } = job;
  const error = messageOf(err);
  const errorName = err instanceof Error ? err.name : 'Error';
  base.fatal = err instanceof AuthenticationError || err instanceof PermissionDeniedError;
  ctx.emit({ type: 'failed', ...job.ids, error, errorName, ...(jobId ? { jobId } : {}) });
  return { ...base, status: 'failed', error, errorName, durationMs: Date.now() - job.t0, ...(jobId ? { jobId } : {}) };
}

function cancelledResult(file: PlannedFile, settings: FileSettings): FileResult {
  return {
    input: file.input, output: file.output, rel: file.rel, status: 'cancelled', media: file.media,
    params: settings.effective, bytesIn: file.size, warnings: [], ...(file.backup ? { backup: file.backup } : {}),
  };
}

/** Disk errors that another attempt will not fix. */
const LOCAL_ERRORS = new Set(['ENOSPC', 'EACCES', 'EPERM', 'EROFS', 'EISDIR', 'ENOTDIR', 'EEXIST', 'ENOENT', 'EMFILE', 'ENAMETOOLONG']);

/**
 * Whether a whole file is worth another attempt: what core calls retryable
 * (408, 429, 5xx, connection, timeout), and a result stream cut off mid-download
 * (which the transport cannot retry, having already handed over the body).
 */
export function worthAnotherAttempt(err: unknown): boolean {
  if (err instanceof PfcError) return isRetryable(err);
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && LOCAL_ERRORS.has(code)) return false;
  if (err instanceof Error && err.name === 'OutputCheckError') return false;
  return true;
}

function messageOf(err: unknown): string {
  if (err instanceof Error) {
    const cause = (err as { cause?: unknown }).cause;
    return cause instanceof Error && !err.message.includes(cause.message) ? `${err.message}: ${cause.message}` : err.message;
  }
  return String(err);
}

/** Consecutive failures of the connection after which the run stops: the service is down, not one file. */
const MAX_CONSECUTIVE_CONNECTION_FAILURES = 3;

/** Watches results and stops the run on a refused credential or a service that cannot be reached. */
class Breaker {
  private connectionFailures = 0;
  constructor(private readonly trip: (reason: string) => void) {}

  observe(r: FileResult): void {
    if (r.status !== 'failed') {
      if (r.status === 'corrected') this.connectionFailures = 0;
      return;
    }
    if (r.fatal) return this.trip(`the service refused the credentials: ${r.error}`);
    if (r.errorName === ConnectionError.name || r.errorName === 'TimeoutError') {
      if (++this.connectionFailures >= MAX_CONSECUTIVE_CONNECTION_FAILURES) {
        this.trip(`${MAX_CONSECUTIVE_CONNECTION_FAILURES} files in a row could not reach the service: ${r.error}`);
      }
    } else {
      this.connectionFailures = 0;
    }
  }
}
