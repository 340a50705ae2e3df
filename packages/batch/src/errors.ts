import { UserAbortError } from '@pfc/core';

/** Errors of the batch engine that are the caller's to fix (the CLI maps them to exit code 2). */
export class BatchUsageError extends Error {
  override name = 'BatchUsageError';
  constructor(
    message: string,
    /**
     * `not-found`: an input path does not exist; `bad-output`: outputs would overwrite inputs or land in an input folder;
     * `bad-report`: the report path is not a new `.html` file nor an earlier report; `locked`: another run holds the output folder.
     */
    readonly code: 'not-found' | 'bad-output' | 'bad-params' | 'bad-report' | 'locked',
  ) {
    super(message);
  }
}

/**
 * A job that produced no result within the caller's `jobTimeoutMs`. Not
 * retried in the same run (another attempt would wait the whole limit again);
 * the file is not recorded, so the next run tries it again.
 */
export class JobTimeoutError extends Error {
  override name = 'JobTimeoutError';
  constructor(
    /** The limit that ran out, in ms. */
    readonly timeoutMs: number,
  ) {
    super(`timed out: no result within the job time limit of ${timeoutMs / 1000} s (the next run tries this file again)`);
  }
}

/**
 * Throws `UserAbortError` once the caller's `signal` has aborted: how planning
 * reports a cancel, as a run cancelled while it waits for a lock does.
 */
export function throwIfCancelled(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new UserAbortError();
}
