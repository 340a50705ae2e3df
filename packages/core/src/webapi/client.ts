/**
 * The Web API v2 client. Resources are thin classes sharing one transport:
 * `uploads`, `jobs`, `presets`; `correct()` runs the whole flow and makes the
 * client a `CorrectionBackend` (kind `web`) that hosts use directly.
 */
import { readAll, type CorrectionBackend, type CorrectionResult, type CorrectOptions, type FileInput } from '../backend';
import { validatePfcParams, type ParamCheck, type PfcParams } from '../contract/webapi-params';
import type { JobRecord, PresetRecord } from '../contract/webapi-types';
import { defaultSleep, Transport, type CallOptions } from '../transport';
import { parseUrl } from '../address';
import { refusePlainHttpKey } from './plain-http';
import { correctOnWebApi } from './correct';
import { correctAgainWhenLost } from './lost-jobs';
import { Jobs, type JobRef } from './jobs';
import { DEFAULT_BASE_URL, DEFAULT_JOB_TIMEOUT_MS, DEFAULT_POLL, type ClientOptions, type WebApiContext } from './options';
import { JobDurations } from './poll-schedule';
import { Presets } from './presets';
import { Uploads, type UploadOptions } from './uploads';
import type { WaitOptions } from './wait';

/** `correctBytes()`'s answer: the corrected file in memory and what came with it. */
export interface CorrectedBytes extends Omit<CorrectionResult, 'body'> {
  bytes: Uint8Array;
}

export class WebApiClient implements CorrectionBackend {
  readonly kind = 'web' as const;
  /** `correct()` takes its job slot (`CorrectOptions.jobSlot`) after the upload and gives it back before the download. */
  readonly usesJobSlot = true;
  /** The base address, without a trailing slash. */
  readonly baseURL: string;
  readonly uploads: Uploads;
  readonly jobs: Jobs;
  readonly presets: Presets;
  // Private (#) so no printable form of the client (JSON, util.inspect, console.log) can show it.
  readonly #apiKey: string;

  constructor(options: ClientOptions) {
    if (typeof options?.apiKey !== 'string' || options.apiKey.trim() === '') {
      throw new TypeError('WebApiClient needs options.apiKey: the API key of your account');
    }
    this.#apiKey = options.apiKey;
    this.baseURL = (options.baseURL ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
    const base = parseUrl(this.baseURL);
    refusePlainHttpKey(base);
    const origin = base.origin;
    const sleep = options.sleep ?? defaultSleep;
    const transport = new Transport({
      baseURL: this.baseURL,
      fetch: options.fetch,
      timeout: options.timeout,
      maxRetries: options.maxRetries,
      retryBaseDelayMs: options.retryBaseDelayMs,
      retryMaxDelayMs: options.retryMaxDelayMs,
      retryAfterMaxMs: options.retryAfterMaxMs,
      onRetry: options.onRetry,
      sleep,
      authHeaders: () => ({ 'X-API-KEY': this.#apiKey }),
      secrets: () => [this.#apiKey],
    });
    const ctx: WebApiContext = {
      transport,
      poll: { ...DEFAULT_POLL, ...options.poll },
      durations: new JobDurations(),
      jobTimeoutMs: options.jobTimeoutMs ?? DEFAULT_JOB_TIMEOUT_MS,
      sleep,
      isOwnOrigin: (url) => transport.url(url).origin === origin,
    };
    this.uploads = new Uploads(ctx);
    this.jobs = new Jobs(ctx);
    this.presets = new Presets(ctx, this.uploads);
    this.correct = (input, params, opts = {}) => correctAgainWhenLost((o) => correctOnWebApi(ctx, this.uploads, this.jobs, input, params, o), input, opts, sleep);
  }

  /**
   * Correct one file: validate (before anything is sent), upload, start, poll,
   * and open the result as a stream (again, from a new upload, when the service lost the job and
   * `options.lostJobAttempts` allows). Rejects with `ParameterError`, `JobFailedError`,
   * `TimeoutError`, `UserAbortError` or an `APIError` (`JobLostError` among them).
   */
  readonly correct: (input: FileInput, params: PfcParams, options?: CorrectOptions) => Promise<CorrectionResult>;

  /** `correct()` with the result collected into memory. */
  async correctBytes(input: FileInput, params: PfcParams, options?: CorrectOptions): Promise<CorrectedBytes> {
    const { body, ...rest } = await this.correct(input, params, options);
    return { ...rest, bytes: await readAll(body) };
  }

  /** Check parameters as `correct()` will (no `fileKey` needed), without sending anything. */
  validate(params: PfcParams): ParamCheck {
    return validatePfcParams(params as Record<string, unknown>, { requireFileKey: false });
  }

  /** Upload a file and return its `fileKey` (for `bgFileKey`, `aiArtReferenceFileKey`, or `jobs.start`). */
  uploadFile(input: FileInput, options?: UploadOptions): Promise<string> {
    return this.uploads.upload(input, options);
  }

  /** Poll a job until COMPLETED (see `Jobs.wait`). */
  waitForJob(job: JobRef, options?: WaitOptions): Promise<JobRecord> {
    return this.jobs.wait(job, options);
  }

  /** The account's custom presets (every page). */
  listPresets(options?: CallOptions): AsyncIterable<PresetRecord> {
    return this.presets.list(options);
  }

  toJSON(): { kind: 'web'; baseURL: string } {
    return { kind: this.kind, baseURL: this.baseURL };
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `WebApiClient { baseURL: '${this.baseURL}' }`;
  }
}

/** A `CorrectionBackend` on the hosted Web API v2 (or the emulator): a `WebApiClient`. */
export function createWebBackend(options: ClientOptions): WebApiClient {
  return new WebApiClient(options);
}
