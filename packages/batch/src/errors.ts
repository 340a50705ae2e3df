import { dirname } from 'node:path';
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

/** A file that turned out, when it was about to be sent, not to be something the service corrects (or not within its limits): final, not retried. */
export class InputUnsupportedError extends Error {
  override name = 'InputUnsupportedError';
}

/**
 * Throws `UserAbortError` once the caller's `signal` has aborted: how planning
 * reports a cancel, as a run cancelled while it waits for a lock does.
 */
export function throwIfCancelled(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new UserAbortError();
}

/** Write errors of a whole file system, not of one file: every later write there fails the same way. */
const DISK_REFUSALS = {
  ENOSPC: (folder: string) => `no space left on the disk holding ${folder} (ENOSPC)`,
  EDQUOT: (folder: string) => `disk quota exceeded on the disk holding ${folder} (EDQUOT)`,
  EROFS: (folder: string) => `the file system holding ${folder} is read-only (EROFS)`,
} as const;

type DiskRefusalCode = keyof typeof DISK_REFUSALS;

/**
 * A write refused by the file system as a whole (full, over quota, read-only),
 * said of the folder written to rather than as the system's bare `ENOSPC: no
 * space left on device, write`. A run stops starting files on the first one
 * (see `runner.ts`): each later file would fail the same way.
 */
export class DiskRefusedError extends Error {
  override name = 'DiskRefusedError';
  constructor(
    /** The system's error code, kept so retries and callers judge it as the raw error. */
    readonly code: DiskRefusalCode,
    /** The folder whose disk refused the write. */
    readonly folder: string,
  ) {
    super(DISK_REFUSALS[code](folder));
  }
}

/**
 * `err` as a `DiskRefusedError` when it is a file system's refusal (ENOSPC,
 * EDQUOT, EROFS), naming the folder of the path it names, else `folder`; any
 * other error as it is.
 */
export function asDiskRefusal(err: unknown, folder: string): unknown {
  const { code, path } = (err ?? {}) as NodeJS.ErrnoException;
  if (err instanceof DiskRefusedError || code === undefined || !Object.hasOwn(DISK_REFUSALS, code)) return err;
  return new DiskRefusedError(code as DiskRefusalCode, path ? dirname(path) : folder);
}
