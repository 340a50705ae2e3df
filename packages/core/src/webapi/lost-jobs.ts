/**
 * Another attempt at a whole correction whose job the service lost (it
 * restarted, or forgot the upload or the job: `JobLostError`). No single
 * request can be repeated for it; the file is sent again from a new upload.
 * A host that corrects one image at a time asks for it per call
 * (`CorrectOptions.lostJobAttempts`); a batch runs its own attempts per file.
 */
import type { CorrectionResult, CorrectOptions, FileInput } from '../backend';
import { JobLostError } from '../errors';
import { attemptBackoffMs } from '../random';

/** What a host is told before another attempt at a correction whose job was lost. */
export interface LostJobRetryInfo {
  /** The attempt about to start (2 for the first retry). */
  attempt: number;
  /** Attempts in all (`lostJobAttempts`). */
  attempts: number;
  /** The wait before it, ms. */
  delayMs: number;
  /** What the service said. */
  error: JobLostError;
}

/** The attempts a host correcting one image at a time asks for (`lostJobAttempts`): as many as a batch makes per file. */
export const LOST_JOB_ATTEMPTS = 3;

/** The first wait before another attempt, ms (`attemptBackoffMs`). */
const LOST_JOB_RETRY_DELAY_MS = 1_000;

/** `correct` (one attempt), tried again as `options.lostJobAttempts` allows while its job is lost. */
export async function correctAgainWhenLost(
  correct: (options: CorrectOptions) => Promise<CorrectionResult>,
  input: FileInput,
  options: CorrectOptions,
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>,
): Promise<CorrectionResult> {
  const attempts = Math.max(1, Math.floor(options.lostJobAttempts ?? 1));
  for (let attempt = 1; ; attempt++) {
    try {
      return await correct(options);
    } catch (err) {
      if (!(err instanceof JobLostError) || attempt >= attempts || !canSendAgain(input) || options.signal?.aborted) throw err;
      const delayMs = attemptBackoffMs(attempt, LOST_JOB_RETRY_DELAY_MS);
      options.onLostJob?.({ attempt: attempt + 1, attempts, delayMs, error: err });
      await sleep(delayMs, options.signal);
    }
  }
}

/** A stream is read once; every other input (bytes, a Blob, a factory called per attempt) can be sent again. */
function canSendAgain(input: FileInput): boolean {
  return !(typeof ReadableStream !== 'undefined' && input instanceof ReadableStream);
}
