/** `GET /pfc`, `GET /status/{jobID}` and the corrected file. */
import { bodyMessage, ParameterError, ProtocolError } from '../errors';
import type { JobRecord } from '../contract/webapi-types';
import { pfcParamsToQuery, validatePfcParams, type PfcParams } from '../contract/webapi-params';
import { callRequestOptions, readBody, type CallOptions } from '../transport';
import { readAll } from '../backend';
import type { WebApiContext } from './options';
import { preview } from './uploads';
import { waitForJob, type WaitOptions } from './wait';
import { parseUrl } from '../address';
import { path } from '../url-path';

/** A started job: its id and the absolute status address the service gave. */
export interface JobHandle {
  jobId: string;
  statusEndpoint: string;
  /** What the service will ignore under its priority rules (from validation). */
  warnings: string[];
}

/** A job named by its id, its status address, a handle, or its record. */
export type JobRef = string | { jobId: string; statusEndpoint?: string } | { _id: string };

/** The corrected file, opened. */
export interface DownloadedFile {
  /** Read once: stream it to disk, or collect it with `readAll`. Stays linked to the signal. */
  body: ReadableStream<Uint8Array>;
  contentType: string | undefined;
  /** Content-Length, when the server sent one. */
  size: number | undefined;
  url: string;
}

export class Jobs {
  readonly #ctx: WebApiContext;

  constructor(ctx: WebApiContext) {
    this.#ctx = ctx;
  }

  /**
   * Start a correction job: `GET /pfc`. Every parameter is checked first and a
   * `ParameterError` naming each bad one is thrown before anything is sent.
   * An answer without `statusEndpoint` is a `ProtocolError` carrying the body.
   * A refusal for the account's limits (429) is retried like any retryable
   * failure unless `retryRateLimited` is false: then the `RateLimitError`
   * (with `retryAfterMs`) is thrown at once, for a caller that waits it out
   * itself and starts the job again with the same `fileKey`.
   */
  async start(params: PfcParams, options: CallOptions & { retryRateLimited?: boolean } = {}): Promise<JobHandle> {
    const check = validatePfcParams(params as Record<string, unknown>, { requireFileKey: true });
    if (check.errors.length > 0) throw new ParameterError(check.errors);
    const res = await this.#ctx.transport.request('/pfc', {
      query: pfcParamsToQuery(check.params),
      ...callRequestOptions(options),
      rateLimit: 'jobs',
      ...(options.retryRateLimited === false ? { retryRateLimited: false } : {}),
    });
    const body = await readBody(res);
    const endpoint = typeof body === 'object' && body !== null ? (body as { statusEndpoint?: unknown }).statusEndpoint : undefined;
    if (typeof endpoint !== 'string' || endpoint === '') {
      throw new ProtocolError(`GET /pfc answered without statusEndpoint: ${bodyMessage(body) ?? preview(body)}`, body);
    }
    const statusEndpoint = this.#ctx.transport.url(endpoint).href;
    return { jobId: jobIdOf(statusEndpoint), statusEndpoint, warnings: check.warnings };
  }

  /**
   * The job record: `GET {statusEndpoint}?noRedirect=true`, so a finished job
   * answers JSON instead of a redirect (browsers cannot read a 302's Location).
   */
  async status(job: JobRef, options: CallOptions & { retryRateLimited?: boolean } = {}): Promise<JobRecord> {
    const url = this.#ctx.transport.url(this.statusUrl(job), { noRedirect: 'true' });
    const body = await this.#ctx.transport.json<unknown>(url, {
      ...callRequestOptions(options),
      auth: this.#ctx.isOwnOrigin(url),
      ...(options.retryRateLimited === false ? { retryRateLimited: false } : {}),
    });
    return asJobRecord(body, `GET ${url.pathname}`);
  }

  /** The status address of a job (absolute; without `noRedirect`). */
  statusUrl(job: JobRef): string {
    if (typeof job === 'string') {
      return /^[a-z][a-z0-9+.-]*:/i.test(job) ? job : this.#ctx.transport.url(path`/status/${job}`).href;
    }
    if ('statusEndpoint' in job && job.statusEndpoint) return this.#ctx.transport.url(job.statusEndpoint).href;
    const id = '_id' in job ? job._id : job.jobId;
    return this.#ctx.transport.url(path`/status/${id}`).href;
  }

  /**
   * Poll until the job is COMPLETED and return its record. FAILED and REJECTED
   * throw `JobFailedError` with `statusText`; see `WaitOptions` for timing.
   * A poll refused for the account's request rate (429) is waited out and
   * repeated, bounded by the wait's deadline and signal, not by `maxRetries`.
   */
  wait(job: JobRef, options: WaitOptions = {}): Promise<JobRecord> {
    const told = options.onRetry ? { onRetry: options.onRetry } : {};
    return waitForJob(this.#ctx, (signal) => this.status(job, { signal, retryRateLimited: false, ...told }), this.statusUrl(job), options);
  }

  /** Open the corrected file of a completed job (or a result URL) as a stream. No API key is sent. */
  async download(job: JobRecord | string, options: CallOptions = {}): Promise<DownloadedFile> {
    const url = typeof job === 'string' ? job : job.correctedFile;
    if (!url) throw new ProtocolError(`job ${typeof job === 'string' ? job : job._id} has no correctedFile (status ${typeof job === 'string' ? '?' : job.status})`, job);
    const res = await this.#ctx.transport.request(url, { ...callRequestOptions(options), auth: false, label: 'GET corrected file' });
    if (!res.body) throw new ProtocolError('the corrected file answered without a body');
    const length = res.headers.get('content-length');
    return {
      body: res.body,
      contentType: res.headers.get('content-type') ?? undefined,
      size: length !== null && /^\d+$/.test(length) ? Number(length) : undefined,
      url,
    };
  }

  /** The corrected file as bytes. */
  async downloadBytes(job: JobRecord | string, options: CallOptions = {}): Promise<Uint8Array> {
    const file = await this.download(job, options);
    return readAll(file.body);
  }
}

/** The job id: the last path segment of the status address. */
export function jobIdOf(statusEndpoint: string): string {
  const pathname = parseUrl(statusEndpoint).pathname.replace(/\/+$/, '');
  return decodeURIComponent(pathname.slice(pathname.lastIndexOf('/') + 1));
}

function asJobRecord(body: unknown, request: string): JobRecord {
  const rec = typeof body === 'object' && body !== null ? (body as Partial<JobRecord>) : undefined;
  if (!rec || typeof rec.status !== 'string') {
    throw new ProtocolError(`${request} answered something other than a job record: ${preview(body)}`, body);
  }
  return rec as JobRecord;
}
