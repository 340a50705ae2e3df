/**
 * The one interface hosts program against, whichever service runs the work:
 * the hosted Web API, the self-hosted colour container (optionally followed by
 * the background-removal container), or the BGR container alone. Hosts call
 * `correct()` and get the same result shape from each.
 */
import type { ParamCheck, PfcParams } from './contract/webapi-params';
import type { JobRecord, PresetRecord } from './contract/webapi-types';
import type { CallOptions, RetryInfo } from './transport';
import type { LostJobRetryInfo } from './webapi/lost-jobs';

/**
 * An input file. A factory is called once per attempt, so a file streamed from
 * disk can be re-opened and an upload retried without holding it in memory.
 */
export type FileInput =
  | Blob
  | Uint8Array
  | ReadableStream<Uint8Array>
  | (() => Blob | Uint8Array | ReadableStream<Uint8Array> | Promise<Blob | Uint8Array | ReadableStream<Uint8Array>>);

/** Progress of one file, for progress bars and logs. */
export interface CorrectionProgress {
  phase: 'validating' | 'uploading' | 'queued' | 'processing' | 'downloading' | 'done';
  /** The latest job record, when the backend has one. */
  job?: JobRecord;
}

export interface CorrectOptions {
  /** Aborts the upload, the polling and the download; the promise rejects with `UserAbortError`. */
  signal?: AbortSignal;
  onProgress?: (p: CorrectionProgress) => void;
  /** `image` (default) or `video`. */
  fileType?: 'image' | 'video';
  /** MIME type of the input, when known (`image/jpeg`, `image/png`, `video/mp4`, `video/quicktime`). */
  contentType?: string;
  /** Size of the input in bytes, when known (sent as Content-Length; checked against limits). */
  size?: number;
  /** Name of the input file, when known (used by backends that keep names). */
  fileName?: string;
  /** Overall time limit of the job in ms, from upload to result (a wait in `jobSlot` not counted). Default 30 minutes. */
  timeoutMs?: number;
  /**
   * Lets a host bound the jobs running in the service apart from its uploads
   * and downloads (see `CorrectionBackend.usesJobSlot`). Called once the input
   * is uploaded, before the job starts; the job starts when the promise
   * resolves, and the function it resolves to is called exactly once when the
   * job has reached a final state (before the result is downloaded) or the
   * correction failed. A rejection ends the correction with that error.
   * When the service refuses the start for the account's limits (429), the
   * slot is given back with `'refused'` (the service holds fewer jobs than the
   * host allowed) and asked for again after the service's `Retry-After`.
   */
  jobSlot?: (signal: AbortSignal | undefined) => Promise<(outcome?: 'refused') => void>;
  /**
   * Web API: attempts at the whole correction while the service loses its job (`JobLostError`: it
   * restarted, or no longer knows the upload or the job), each sending the file again from a new
   * upload after a wait (1 s, then 2 s…, ±50 %). Default 1 (the error is thrown). Not for a
   * `ReadableStream` input, which cannot be read twice. A batch runs its own attempts per file.
   */
  lostJobAttempts?: number;
  /** Told before each such new attempt (the host may say "trying again"). */
  onLostJob?: (info: LostJobRetryInfo) => void;
  /**
   * Told before each wait of this correction before trying again, so a host can say the service made it
   * wait and for how long (`retryWaitText`, `RetryCountdown`): each retry of a request (429 with its
   * `Retry-After`, 503, other 5xx, a lost connection), and on the Web API each job start or status poll
   * refused with 429 and waited out. The client's `onRetry` sees the retries of every call.
   */
  onRetry?: (info: RetryInfo) => void;
  /**
   * Whether files wait for a job slot now (with `jobSlot`): the job's end is
   * then polled for more closely, since the slot idles until it is noticed.
   */
  slotWanted?: () => boolean;
}

export interface CorrectionResult {
  /** The corrected file. Read it once: stream it to disk, or collect it with `readAll`. */
  body: ReadableStream<Uint8Array>;
  /** MIME type of the result, when the server said. */
  contentType: string | undefined;
  /** Which backend ran the job. */
  backend: BackendKind;
  /** The final job record (Web API), when there is one. */
  job?: JobRecord;
  /** What the service ignored under its priority rules, and other notes for the user. */
  warnings: string[];
  /** Backend-specific facts (e.g. the container's `scene`, an origin rewrite). */
  info: Record<string, unknown>;
}

export type BackendKind = 'web' | 'container' | 'container+bgr' | 'bgr';

export interface CorrectionBackend {
  readonly kind: BackendKind;
  /**
   * Whether `correct()` calls `CorrectOptions.jobSlot` between the upload and
   * the job (the Web API). Backends that do not run the whole call as the job.
   */
  readonly usesJobSlot?: boolean;
  /** Check parameters as this backend will, before any upload. */
  validate(params: PfcParams): ParamCheck;
  /** Correct one file: validate, upload, run, wait, and open the result. */
  correct(input: FileInput, params: PfcParams, options?: CorrectOptions): Promise<CorrectionResult>;
  /** The account's custom presets, when the backend has an account (Web API). */
  listPresets?(options?: CallOptions): AsyncIterable<PresetRecord>;
}

/** Collect a stream into one array (for hosts that need the bytes in memory). */
export async function readAll(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    total += value.byteLength;
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}
