/**
 * Typed client of the self-hosted background-removal (BGR) container: licence
 * activation once per container instance, submit, check, download, remove,
 * and `removeBackground()`, which always removes its job afterwards.
 */
import { readAll, type FileInput } from '../backend';
import { ParameterError, ProtocolError, TimeoutError, UserAbortError } from '../errors';
import { callRequestOptions, defaultSleep, readBody, Transport, type CallOptions, type TransportOptions } from '../transport';
import {
  isProcessId,
  validateBgrSubmitOptions,
  type BgrCheckResponse,
  type BgrLicenceStatus,
  type BgrRemoveResponse,
  type BgrSubmitOptions,
  type BgrSubmitResponse,
} from '../contract/bgr';
import { detectContentType, inputToBlob, isReplayable } from '../selfhosted/input';
import { BgrJobFailedError, BgrLicenceError, BgrNotReadyError, isUnlicensed, toBgrError, type BgrEndpoint } from './errors';
import { LicenceCache } from './licence';
import { path } from '../url-path';

export interface BgrClientOptions extends TransportOptions {
  /** Address of the container, e.g. `http://gpu-box:8000`. */
  baseURL: string;
  /** Licence key sent to `GET /Authorize/{key}` once per container instance. Never logged or put in errors. */
  licenseKey?: string;
  /** Time between `CheckImage` polls in ms. Default 1000. */
  pollIntervalMs?: number;
  /** Longest wait for one job, from submit to completed, in ms. Default 600 000 (10 minutes). */
  jobTimeoutMs?: number;
}

/** Per-call options of every `BgrClient` method (`timeout` is one request's, not the job's: see `timeoutMs`). */
export type BgrCallOptions = CallOptions;

export interface BgrSubmitCallOptions extends BgrSubmitOptions, BgrCallOptions {
  /** File name sent with the form (the container reports it as `original_name`). Default `image` plus an extension from the type. */
  fileName?: string;
  /** MIME type of the input; detected from its bytes when omitted. */
  contentType?: string;
}

export interface BgrProgress {
  phase: 'uploading' | 'queued' | 'processing' | 'downloading' | 'done';
  processId?: string;
  check?: BgrCheckResponse;
}

export interface RemoveBackgroundOptions extends BgrSubmitCallOptions {
  onProgress?: (p: BgrProgress) => void;
  /** Overrides the client's `pollIntervalMs`. */
  pollIntervalMs?: number;
  /** Overrides the client's `jobTimeoutMs`. */
  timeoutMs?: number;
}

/** A finished background removal: the PNG bytes and what the container said. */
export interface BgrResult {
  /** PNG with an alpha channel, the input's size. */
  bytes: Uint8Array;
  contentType: string;
  processId: string;
  submit: BgrSubmitResponse;
  check: BgrCheckResponse;
  /** Whether `RemoveImage` succeeded afterwards. */
  removed: boolean;
  warnings: string[];
}

const EXTENSION: Record<string, string> = { 'image/jpeg': 'jpg', 'image/png': 'png', 'image/webp': 'webp', 'image/gif': 'gif', 'image/tiff': 'tif' };
/** Cleanup gets its own time budget, independent of an aborted caller. */
const CLEANUP_TIMEOUT_MS = 30_000;

export class BgrClient {
  readonly transport: Transport;
  private readonly options: BgrClientOptions;
  private readonly licence: LicenceCache;

  constructor(options: BgrClientOptions) {
    this.options = options;
    this.transport = new Transport(options);
    this.licence = new LicenceCache(this.transport, options);
  }

  /**
   * `GET /Authorize/{key}`: activate the container. Cached per base URL (one
   * activation per container instance); `force` activates again. Throws
   * `BgrLicenceError` when the container stays `Unlicensed`.
   */
  authorize(key?: string, options: BgrCallOptions & { force?: boolean } = {}): Promise<BgrLicenceStatus> {
    return this.licence.authorize(key, options);
  }

  /** `GET /Status`: the licence status with `model_version`. */
  async status(options: BgrCallOptions = {}): Promise<BgrLicenceStatus> {
    return this.call('status', () => this.transport.json<BgrLicenceStatus>('/Status', callRequestOptions(options)));
  }

  /** Whether the container answers `GET /Status` (one attempt, no retries; licensed or not): the health check of a fleet. */
  async health(options: Omit<CallOptions, 'maxRetries'> = {}): Promise<boolean> {
    try {
      const res = await this.transport.request('/Status', { signal: options.signal, retry: false, timeout: options.timeout ?? 10_000 });
      await readBody(res);
      return true;
    } catch {
      return false;
    }
  }

  /** `POST /SubmitImage`: start a job. Options are checked before anything is sent. */
  async submit(input: FileInput, options: BgrSubmitCallOptions = {}): Promise<BgrSubmitResponse> {
    const { errors } = validateBgrSubmitOptions(options as Record<string, unknown>);
    if (errors.length > 0) throw new ParameterError(errors);
    const type = await detectContentType(input, options);
    const fileName = options.fileName ?? `image.${(type && EXTENSION[type]) ?? 'bin'}`;
    const cfg = options.preprocessingConfig;
    const form = async () => {
      const f = new FormData();
      f.append('file', await inputToBlob(input, type), fileName);
      if (options.mode) f.append('mode', options.mode);
      f.append('preprocessing_config', cfg === undefined ? '' : typeof cfg === 'string' ? cfg : JSON.stringify(cfg));
      return f;
    };
    const query = { preprocessing: options.preprocessing, postprocessing: options.postprocessing };
    // A one-shot stream is read into a Blob once, so a retried or re-licensed submit can resend it.
    const body = isReplayable(input) ? form : await form().then((f) => () => f);
    const res = await this.licensed('submit', options, () =>
      this.transport.json<unknown>('/SubmitImage', { method: 'POST', body, query, ...callRequestOptions(options) }),
    );
    const r = res as Partial<BgrSubmitResponse> | undefined;
    if (typeof r?.process_id !== 'string' || !isProcessId(r.process_id)) throw new ProtocolError('POST /SubmitImage answered without a process_id', res);
    return r as BgrSubmitResponse;
  }

  /** `GET /CheckImage/{id}`: the job's state. */
  async check(processId: string, options: BgrCallOptions = {}): Promise<BgrCheckResponse> {
    checkId(processId);
    return this.licensed('check', options, () => this.transport.json<BgrCheckResponse>(path`/CheckImage/${processId}`, callRequestOptions(options)));
  }

  /**
   * `GET /DownloadImage/{id}`: the PNG. Checks first that the job is completed
   * (`verify`, default true): the container's "still processing" answer (HTTP
   * 102) is never taken as the result; any non-200 answer is `BgrNotReadyError`.
   */
  async download(processId: string, options: BgrCallOptions & { verify?: boolean } = {}): Promise<{ body: ReadableStream<Uint8Array>; contentType: string }> {
    checkId(processId);
    if (options.verify !== false) {
      const c = await this.check(processId, options);
      if (c.status === 'failed') throw new BgrJobFailedError(processId, c.error ?? '', c);
      if (c.status !== 'completed') throw new BgrNotReadyError(processId, c.status);
    }
    const res = await this.licensed('download', options, () => this.transport.request(path`/DownloadImage/${processId}`, callRequestOptions(options)));
    if (res.status !== 200 || !res.body) {
      await res.body?.cancel().catch(() => undefined);
      throw new BgrNotReadyError(processId, `HTTP ${res.status}`);
    }
    return { body: res.body, contentType: res.headers.get('content-type') ?? 'image/png' };
  }

  /** `DELETE /RemoveImage/{id}`: delete the job's files, in any state. */
  async remove(processId: string, options: BgrCallOptions = {}): Promise<BgrRemoveResponse> {
    checkId(processId);
    return this.licensed('remove', options, () =>
      this.transport.json<BgrRemoveResponse>(path`/RemoveImage/${processId}`, { method: 'DELETE', ...callRequestOptions(options) }),
    );
  }

  /** Poll `CheckImage` until the job is completed; `BgrJobFailedError` when it failed. */
  async waitFor(processId: string, options: BgrCallOptions & { pollIntervalMs?: number; timeoutMs?: number; onProgress?: (p: BgrProgress) => void } = {}): Promise<BgrCheckResponse> {
    const interval = options.pollIntervalMs ?? this.options.pollIntervalMs ?? 1000;
    const timeoutMs = options.timeoutMs ?? this.options.jobTimeoutMs ?? 600_000;
    const sleep = this.options.sleep ?? defaultSleep;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const c = await this.check(processId, options);
      if (c.status === 'completed') return c;
      if (c.status === 'failed') throw new BgrJobFailedError(processId, c.error ?? '', c);
      options.onProgress?.({ phase: c.status === 'queued' ? 'queued' : 'processing', processId, check: c });
      if (Date.now() + interval > deadline) throw new TimeoutError(`background removal ${processId}`, timeoutMs);
      await sleep(interval, options.signal);
    }
  }

  /**
   * Submit, wait, download and remove, as one call. `RemoveImage` runs
   * afterwards in every case (completed, failed, timed out or aborted by the
   * caller, with its own time budget), so the container never fills up with
   * our images. The result is read into memory before the job is removed.
   */
  async removeBackground(input: FileInput, options: RemoveBackgroundOptions = {}): Promise<BgrResult> {
    options.onProgress?.({ phase: 'uploading' });
    const submitted = await this.submit(input, options);
    const id = submitted.process_id;
    let outcome: Omit<BgrResult, 'removed' | 'warnings'> | undefined;
    let failure: { error: unknown } | undefined;
    try {
      const check = await this.waitFor(id, options);
      options.onProgress?.({ phase: 'downloading', processId: id, check });
      const file = await this.download(id, { ...callRequestOptions(options), verify: false });
      const bytes = await readAll(file.body);
      if (options.signal?.aborted) throw new UserAbortError();
      outcome = { bytes, contentType: file.contentType, processId: id, submit: submitted, check };
    } catch (error) {
      failure = { error };
    }
    // On success and on every failure; a cleanup failure never hides the original error.
    const removed = await this.cleanup(id);
    if (failure || !outcome) throw failure?.error;
    options.onProgress?.({ phase: 'done', processId: id, check: outcome.check });
    return { ...outcome, removed, warnings: removed ? [] : [`RemoveImage ${id} failed; the container keeps the job's files until removed`] };
  }

  private async cleanup(processId: string): Promise<boolean> {
    const ctrl = new AbortController();
    const timer = setTimeout(() => ctrl.abort(), CLEANUP_TIMEOUT_MS);
    try {
      await this.remove(processId, { signal: ctrl.signal });
      return true;
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Run a call with the licence in place: activate first when this container
   * instance has not been activated, and when the call says `Unlicensed`
   * (e.g. the container restarted) activate again once before failing.
   * The activation's waits are told to the call's `onRetry` too, as its own.
   */
  private async licensed<T>(endpoint: BgrEndpoint, call: CallOptions, fn: () => Promise<T>): Promise<T> {
    const { signal, onRetry } = call;
    await this.licence.ensure(signal, onRetry);
    try {
      return await this.call(endpoint, fn);
    } catch (err) {
      if (!isUnlicensed(err)) throw err;
      this.licence.forget();
      if (!this.options.licenseKey) throw new BgrLicenceError('the background-removal container is Unlicensed and no licenseKey was given to activate it');
      await this.licence.authorize(undefined, { signal, force: true, onRetry });
      try {
        return await this.call(endpoint, fn);
      } catch (again) {
        if (isUnlicensed(again)) throw new BgrLicenceError('the background-removal container still reports Unlicensed after activating it again; check the licence key', (again as { body?: unknown }).body);
        throw again;
      }
    }
  }

  private async call<T>(endpoint: BgrEndpoint, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw toBgrError(err, endpoint);
    }
  }
}

function checkId(processId: string): void {
  if (!isProcessId(processId)) {
    throw new ParameterError([{ param: 'process_id', message: `process_id must be a UUID as returned by SubmitImage (got ${JSON.stringify(processId)})` }]);
  }
}

