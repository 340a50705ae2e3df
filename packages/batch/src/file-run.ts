/**
 * One planned file through a run: the decision (up to date, refused, to
 * correct), the original kept (in place), the attempts (upload, job, atomic
 * write, manifest record) with whole-file retries of retryable failures, and
 * the file's result and events. `runner.ts` hands files here in plan order.
 */
import type { Stats } from 'node:fs';
import { stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import {
  AuthenticationError, type CorrectionProgress, defaultSleep, serviceWait, PermissionDeniedError, isRetryable, attemptBackoffMs, JobFailedError, JobLostError, type PfcParams, PfcError,
  TimeoutError, UserAbortError,
} from '@pfc/core';
import { keepOriginal } from './backup';
import { type Decision, decide, type FileSettings, type OutputOwner, outputOwner } from './decide';
import { asDiskRefusal, InputUnsupportedError, JobTimeoutError } from './errors';
import type { BatchEvent, FileResult } from './events';
import { DestinationExistsError, unreadableInput, writeStreamAtomic } from './files';
import { greyResultWriter } from './grey-result';
import { hashFile } from './hash';
import { type HostTerms, replaceAdvice } from './host-terms';
import { limitViolation } from './limits';
import type { Manifest, ManifestEntry } from './manifest';
import { outputFormat } from './paths';
import type { PlannedFile } from './plan';
import type { RunOptions } from './runner';
import type { AttemptGate } from './attempt-gate';
import type { EarlierResults } from './earlier-results';
import type { JobSlots } from './slots';
import { type MediaFormat, sniffFileSync } from './sniff';
import { uploadFor } from './upload';
import { verifyOutput } from './verify';

/** What every file of a run shares: the run's options and what the run derived from them. */
export interface FileContext extends RunOptions {
  params: PfcParams;
  backendId: string;
  attempts: number;
  emit: (e: BatchEvent) => void;
  slots: JobSlots | undefined;
  gate: AttemptGate;
  /** Earlier runs' results among the inputs (never corrected again). */
  earlier: EarlierResults;
}

/** `order`: the file's position in the plan (jobs start in this order); `settings`: its parameters and settings key (shared by every file of its kind). */
export async function processFile(file: PlannedFile, manifest: Manifest, ctx: FileContext, order: number, settings: FileSettings): Promise<FileResult> {
  const { params, effective, key } = settings;
  const base: FileResult = { input: file.input, output: file.output, rel: file.rel, status: 'failed', media: file.media, params: effective, bytesIn: file.size, warnings: [] };
  if (file.backup) base.backup = file.backup;
  const job: FileJob = { file, manifest, params, effective, key, order, t0: Date.now(), ids: { input: file.input, rel: file.rel } };
  try {
    const decision = await decide(file, manifest, job.key, { force: ctx.force ?? false, overwrite: ctx.overwrite ?? false, earlier: ctx.earlier, ...(ctx.terms ? { terms: ctx.terms } : {}), ...(ctx.signal ? { signal: ctx.signal } : {}) });
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
  // In place, a correction redone from the kept original sends its bytes, whose format may not be the result's
  // (a PNG named `x.jpg`, made JPEG by `outputType=jpg`): its media are the original's, not those of the file there.
  if (file.mediaFromManifest || decision.source !== file.input) sniffBeforeSending(job, decision.source, base, ctx);
  ctx.emit({ type: 'start', ...job.ids, output: file.output, bytes: file.size, reason: decision.reason });
  // In place, the file as it was when its original was kept: it is replaced only while it is still so.
  const kept = file.backup ? await stat(file.input) : undefined;
  // Hashed here, not taken from the decision: the file may have changed since.
  if (decision.backupFirst && file.backup) {
    const backup = file.backup;
    await keepOriginal(file.input, backup, file.rel, undefined, ctx.signal).catch((err: unknown) => {
      throw asDiskRefusal(err, dirname(backup));
    });
  }
  const sent = sentFrom(decision, file);
  // The upload as it is now, not as planning saw it: a photo rewritten since (edited while the cost question waited, a
  // sync tool) was declared at its planned size, which the upload then refused ("changed while it was being uploaded")
  // on every attempt. In place the upload is the kept original, whose size may differ from the planned file's too.
  const source = await stat(sent.source).catch(async (err: unknown) => {
    throw (await unreadableInput(sent.source)) ?? err;
  });
  // After a lost job the file is tried again alone: it may be what crashed the service (attempt-gate.ts).
  let alone = false;
  for (let attempt = 1; ; attempt++) {
    const leave = await ctx.gate.enter(alone, ctx.signal);
    let failure: unknown;
    try {
      return await attemptOnce(job, sent, source, kept, base, ctx);
    } catch (err) {
      failure = err;
    } finally {
      leave();
    }
    await beforeNextAttempt(job, sent.source, failure, attempt, ctx);
    alone = failure instanceof JobLostError;
  }
}

/**
 * What is uploaded. A new original in place is sent from the copy just kept
 * of it, not from the file, and its hash is taken from that upload: the bytes
 * kept, sent and recorded are then one and the same even when the file was
 * rewritten after the decision hashed it (a camera-sync tool). A hash recorded
 * from the decision's read would not match the kept original, and a later run
 * with new settings would take pfc's result for the original.
 */
function sentFrom(decision: CorrectDecision, file: PlannedFile): CorrectDecision {
  return decision.backupFirst && file.backup ? { ...decision, source: file.backup, sourceHash: undefined } : decision;
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

/** Upload, run the job, write the result atomically and record it in the manifest. */
async function attemptOnce(job: FileJob, decision: CorrectDecision, source: { size: number; mtimeMs: number }, kept: Stats | undefined, base: FileResult, ctx: FileContext): Promise<FileResult> {
  const { file, ids } = job;
  const { signal, emit } = ctx;
  let phase: CorrectionProgress['phase'] | undefined;
  let readHash: string | undefined;
  // Every upload is hashed as its file is read (`readHash`): the hash recorded is that of the bytes read (the user's
  // file, also when an RGB copy of it is sent), even when the file changed after the decision read it, and a file new
  // to the manifest is not read twice.
  const upload = await uploadFor(decision.source, source.size, file.media, { backend: ctx.backend.kind, params: job.params, output: file.output, rgbCopy: ctx.rgbCopy, signal: ctx.signal }, (h) => (readHash = h));
  const res = await ctx.backend.correct(upload.input, job.params, {
    ...(signal ? { signal } : {}),
    ...(ctx.jobTimeoutMs ? { timeoutMs: ctx.jobTimeoutMs } : {}),
    fileType: file.media.fileType,
    contentType: file.media.contentType,
    size: upload.size,
    fileName: file.rel.split('/').pop() ?? file.rel,
    // One event per change of phase: each status poll reports one, mostly the same.
    onProgress: (p) => {
      if (p.phase === phase) return;
      phase = p.phase;
      emit({ type: 'phase', ...ids, phase });
    },
    onRetry: (info) => emit({ type: 'waiting', ...ids, wait: serviceWait(info) }),
    ...(ctx.slots ? { jobSlot: (s: AbortSignal | undefined) => ctx.slots!.acquire(job.order, s), slotWanted: () => ctx.slots!.waiting > 0 } : {}),
  }).finally(upload.discard);
  job.jobId = res.job?._id;
  const jobId = job.jobId;
  const expected = outputFormat(file.media.format, job.params);
  let got: MediaFormat = expected;
  // No file at the output at the last check: put in place only if still none (no window before the rename).
  let absent = false;
  const write = upload.sentAsColour ? greyResultWriter(expected) : writeStreamAtomic;
  const written = await write(file.output, res.body, {
    ...(signal ? { signal } : {}),
    // In place, the result keeps the original's permissions, owner (a run as root leaves a user's photo theirs) and
    // extended attributes (Finder tags, ratings, comments): to the user it is the same file, corrected.
    ...(kept ? { mode: kept.mode & 0o7777, owner: { uid: kept.uid, gid: kept.gid }, extendedAttributesFrom: file.input } : {}),
    verify: async (tmp, streamed) => {
      got = await verifyOutput(tmp, expected);
      if (kept) await assertUnchangedSince(file.input, kept);
      else if (!ctx.overwrite) absent = (await assertNoForeignFile(file.output, job.manifest, signal, ctx.terms)) === 'absent';
      // Known as pfc's before it is in place, so a kill before `record` does not leave a stranger's file.
      await job.manifest.intend(file.output, streamed.hash);
    },
    exclusive: () => absent,
  }).catch((err: unknown) => {
    throw err instanceof DestinationExistsError ? foreignFileError(file.output, ctx.terms) : err;
  });
  const out = await stat(file.output);
  const durationMs = Date.now() - job.t0;
  await job.manifest.record({
    output: file.output, input: file.input, inputHash: readHash ?? decision.sourceHash ?? (await hashFile(decision.source, signal)), inputSize: source.size, inputMtimeMs: source.mtimeMs, settingsKey: job.key, params: job.effective, backend: ctx.backendId,
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
  const delayMs = attemptBackoffMs(attempt, ctx.retryDelayMs ?? 1000);
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

/**
 * Just before the result is renamed into place: the decision's no-clobber check again, for a file that appeared or
 * was edited meanwhile. By its bytes: an edit made during the job can keep size and mtime (`exiftool -P`).
 */
async function assertNoForeignFile(output: string, manifest: Manifest, signal: AbortSignal | undefined, terms: HostTerms | undefined): Promise<OutputOwner> {
  const owner = await outputOwner(output, manifest, signal, undefined, true);
  if (owner === 'foreign') throw foreignFileError(output, terms);
  return owner;
}

function foreignFileError(output: string, terms: HostTerms | undefined): OutputExistsError {
  return new OutputExistsError(`would overwrite a file pfc did not write: ${output} (it appeared while this file was being corrected); ${replaceAdvice(terms)}`);
}

async function assertUnchangedSince(path: string, kept: Stats): Promise<void> {
  const now = await stat(path).catch(() => undefined);
  // Not put back in place of a file deleted or moved meanwhile (its original stays kept).
  if (!now) throw new ChangedWhileCorrectingError(`${path} was deleted or moved while it was being corrected; its result was not written (its original is kept)`);
  // The change time too: an edit that keeps size and mtime (exiftool -P, `touch -r`) or retags the file still moves it.
  if (now.size !== kept.size || now.mtimeMs !== kept.mtimeMs || now.ino !== kept.ino || now.ctimeMs !== kept.ctimeMs) {
    throw new ChangedWhileCorrectingError(`${path} changed while it was being corrected; left as is (run again to correct the new version)`);
  }
}

function failure(job: FileJob, thrown: unknown, base: FileResult, ctx: FileContext): FileResult {
  if (ctx.signal?.aborted || thrown instanceof UserAbortError) {
    ctx.emit({ type: 'cancelled', ...job.ids });
    return { ...base, status: 'cancelled' };
  }
  // A full or read-only disk is said of the folder written to (the output's, unless the error names another path).
  const err = asDiskRefusal(thrown, dirname(job.file.output));
  if (err instanceof JobFailedError) job.jobId = err.jobId;
  const { jobId } = job;
  const error = messageOf(err);
  const errorName = err instanceof Error ? err.name : 'Error';
  base.fatal = err instanceof AuthenticationError || err instanceof PermissionDeniedError;
  ctx.emit({ type: 'failed', ...job.ids, error, errorName, ...(jobId ? { jobId } : {}) });
  return { ...base, status: 'failed', error, errorName, durationMs: Date.now() - job.t0, ...(jobId ? { jobId } : {}) };
}

/** The result of a planned file no worker took (the run stopped first). */
export function cancelledResult(file: PlannedFile, settings: FileSettings): FileResult {
  return {
    input: file.input, output: file.output, rel: file.rel, status: 'cancelled', media: file.media,
    params: settings.effective, bytesIn: file.size, warnings: [], ...(file.backup ? { backup: file.backup } : {}),
  };
}

/** Disk errors that another attempt will not fix. */
const LOCAL_ERRORS = new Set(['ENOSPC', 'EDQUOT', 'EACCES', 'EPERM', 'EROFS', 'EISDIR', 'ENOTDIR', 'EEXIST', 'ENOENT', 'EMFILE', 'ENAMETOOLONG']);

/**
 * Whether a whole file is worth another attempt: what core calls retryable
 * (408, 429, 5xx, connection, timeout), and a result stream cut off mid-download
 * (which the transport cannot retry, having already handed over the body).
 */
export function worthAnotherAttempt(err: unknown): boolean {
  if (err instanceof PfcError) return isRetryable(err);
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && LOCAL_ERRORS.has(code)) return false;
  if (err instanceof Error && (err.name === 'OutputCheckError' || err.name === 'InputUnsupportedError')) return false;
  return true;
}

function messageOf(err: unknown): string {
  if (err instanceof Error) {
    const cause = (err as { cause?: unknown }).cause;
    return cause instanceof Error && !err.message.includes(cause.message) ? `${err.message}: ${cause.message}` : err.message;
  }
  return String(err);
}
