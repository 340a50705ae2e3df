/**
 * What a run reports: one event per step of each file (for progress bars,
 * `--json` lines and the VS Code progress notification), one result per file
 * and a summary. Paths are absolute; `rel` is the input's path below the
 * folder it was found in, for display.
 */
import type { CorrectionProgress, JobRecord, PfcParams, ServiceWait } from '@pfc/core';
import type { LeftOutCounts, SkipCode, SkippedPath } from './left-out';
import type { MediaInfo } from './sniff';

/** Why a file is being corrected. */
export type CorrectReason = 'new' | 'input-changed' | 'settings-changed' | 'output-missing' | 'output-changed' | 'forced';

export type BatchEvent =
  /** The run starts: what will be looked at. */
  | { type: 'plan'; files: number; bytes: number; excluded: number; outputRoots: string[]; concurrency: number; backend: string }
  /**
   * A streamed plan has ended (sent only for one): the files planned and their bytes. The `plan` event's
   * `files` was the count by name (an upper bound: some files are then left out) and its `bytes` 0.
   */
  | { type: 'planned'; files: number; bytes: number }
  /** Temporary files of an interrupted run were removed. */
  | { type: 'cleanup'; removed: string[] }
  /**
   * A path left out by the planner (every one, as planning finds it: the summary keeps only the first), or a
   * file already done with the same input and settings.
   */
  | { type: 'skipped'; input: string; rel?: string; code: SkipCode | 'up-to-date'; reason: string; output?: string; bytes?: number }
  | { type: 'start'; input: string; rel: string; output: string; bytes: number; reason: CorrectReason }
  | { type: 'phase'; input: string; rel: string; phase: CorrectionProgress['phase'] }
  /**
   * The service made a file's request wait before it is made again: a 429's or 503's `Retry-After`, a backoff
   * after a failed request, a refused job start (`wait.rateLimit` `'jobs'`). The file is still in flight.
   */
  | { type: 'waiting'; input: string; rel: string; wait: ServiceWait }
  /** A whole-file retry after a retryable failure (the transport's own retries are `waiting` events). */
  | { type: 'retry'; input: string; rel: string; attempt: number; delayMs: number; error: string }
  | { type: 'corrected'; input: string; rel: string; output: string; bytesIn: number; bytesOut: number; durationMs: number; jobId?: string; warnings: string[]; backup?: string }
  | { type: 'failed'; input: string; rel: string; error: string; errorName: string; jobId?: string }
  /** A file in flight when the run was cancelled. */
  | { type: 'cancelled'; input: string; rel: string }
  /** Something about the run as a whole worth a line (e.g. the jobs at once lowered after 429s). */
  | { type: 'notice'; message: string };

/**
 * What a result keeps of the final job record (Web API): its id, state and the
 * service's time. The whole record (usage, dates, dimensions) is not kept per
 * file, so a run's results stay small at 100,000 files.
 */
export type ResultJob = Pick<JobRecord, '_id' | 'status' | 'timeTaken'>;

export type FileStatus = 'corrected' | 'up-to-date' | 'failed' | 'cancelled';

/** The outcome for one planned file. */
export interface FileResult {
  input: string;
  output: string;
  rel: string;
  status: FileStatus;
  media: MediaInfo;
  /** Effective parameters of this file (defaults filled, ignored ones dropped). */
  params: PfcParams;
  /** Input size in bytes. */
  bytesIn: number;
  /** Output size in bytes (corrected and up-to-date files). */
  bytesOut?: number;
  /** Wall time of the correction in ms (corrected files; up-to-date: as recorded). */
  durationMs?: number;
  reason?: CorrectReason;
  /** The service's or the disk's reason (failed files). Never holds a credential. */
  error?: string;
  errorName?: string;
  jobId?: string;
  /** Of the final job record, when the backend has one (Web API): see `ResultJob`. */
  job?: ResultJob;
  warnings: string[];
  /** In-place mode: where the original is kept. */
  backup?: string;
  /** The failure stops the run (the credentials were refused). */
  fatal?: boolean;
}

/** The adaptive jobs at once of a run (core's `AdaptiveLimit`): where they started, ended, and went lowest. */
export interface JobsAtOnce {
  started: number;
  ended: number;
  lowest: number;
  /** Times the number changed (lowered after refusals, raised while the service kept up). */
  changes: number;
}

export interface BatchSummary {
  corrected: number;
  /** Up-to-date files plus paths the planner left out (not counting unreadable ones). */
  skipped: number;
  upToDate: number;
  /** Paths the planner left out on purpose (hidden, unsupported, over the limits…); unreadable ones count as failed. */
  excluded: number;
  /** Files that failed, including files and folders the planner found but could not read (`excludedCounts.byCode.unreadable`; the first of them in `excludedPaths`). */
  failed: number;
  /** Of `failed`, the files left as is on purpose (`REFUSALS`: pfc's own results, outputs that would replace others…): a retry refuses them again. */
  refused: number;
  /** Files not finished because the run was cancelled (in flight or not started). */
  cancelled: number;
  /** Bytes of the inputs corrected in this run. */
  bytesIn: number;
  /** Bytes of the outputs written in this run. */
  bytesOut: number;
  /** Wall time of the run in ms. */
  durationMs: number;
  /** Whether the run was cancelled through its signal. */
  interrupted: boolean;
  /** Why the run stopped itself early (credentials refused, service unreachable, a disk full or read-only); unfinished files are `cancelled`. */
  stoppedBecause?: string;
  /** The folders holding the run's manifests (mirror: its output folders) that got a planned file, in plan order. */
  outputRoots: string[];
  /**
   * One per planned file, in plan order, when the run kept them (`RunOptions.keepResults`,
   * the default); empty otherwise: then every result is a line of `resultsFile`.
   */
  results: FileResult[];
  /** The failed files' results, the first `MAX_FAILURES_KEPT` (1,000) of them; `failed` counts them all. */
  failures: FileResult[];
  /** The file holding every result as a JSON line (`RunOptions.resultsFile`), in the order the files finished. */
  resultsFile?: string;
  /** Where the jobs at once went when they adapted to the service's refusals (`RunOptions.rateLimited`: the Web API); absent when no job was sent. */
  jobsAtOnce?: JobsAtOnce;
  /**
   * The paths the planner left out, unreadable ones included, in the order found: at most `LEFT_OUT_KEPT`
   * (1,000), the unreadable first kept, then photos and folders, then dot-files and Live Photo clips, then
   * files that are no photo or video (so thousands of sidecars never push a HEIC or raw photo out).
   * `excludedCounts` counts them all; every one was a `skipped` event.
   */
  excludedPaths: SkippedPath[];
  /** Every path the planner left out, counted (by code, raw photos, non-media files by kind, hidden paths by reason). */
  excludedCounts: LeftOutCounts;
}
