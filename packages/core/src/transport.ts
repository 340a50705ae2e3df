/**
 * HTTP transport shared by every client in core: injectable `fetch`, an
 * inactivity timeout per attempt linked to the caller's `AbortSignal` (also
 * while the response body is read), retries with exponential backoff and jitter
 * honouring `Retry-After`, and typed errors. Runtime-agnostic: it uses only
 * `fetch`, `URL`, `AbortController`, web streams and timers.
 */
import { APIError, isRetryable, RateLimitError, redactError, UserAbortError } from './errors';
import { AttemptLink } from './link';
import { jittered } from './random';
import { type HttpUrl, isAbsoluteUrl, parseUrl, type QueryParams, withQuery } from './address';

export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** Options common to every client. */
export interface TransportOptions {
  /** Base address, e.g. `https://api.perfectlyclear.io/v2`. Paths are resolved below it. */
  baseURL: string;
  /** The `fetch` to use; default `globalThis.fetch`. Inject one for tests, proxies or hosts without a global. */
  fetch?: FetchLike;
  /**
   * Inactivity limit of one attempt in ms: the attempt fails with `TimeoutError`
   * when no response arrives, no upload chunk is taken and no download chunk
   * comes for this long. A Blob or byte body (whose progress cannot be seen)
   * gets 10 s more per MB. Default 60 000.
   */
  timeout?: number;
  /** Further attempts after a retryable failure (408, 429, 5xx, connection, timeout). Default 4. */
  maxRetries?: number;
  /** First backoff delay in ms; doubles each retry, with ±25 % jitter. Default 250. */
  retryBaseDelayMs?: number;
  /** Largest backoff delay (without a `Retry-After`), in ms. Default 30 000. */
  retryMaxDelayMs?: number;
  /**
   * Largest `Retry-After` waited out in full, in ms; a longer one is waited this long. Default 300 000: a retry
   * sent before the service's time is refused again (and may count against the limit), so it is honoured well
   * beyond the backoff's cap.
   */
  retryAfterMaxMs?: number;
  /** Headers sent on every request except those marked `auth: false` (holds the credential). */
  authHeaders?: () => Record<string, string>;
  /** Strings scrubbed from every error before it is thrown (the credentials). */
  secrets?: () => readonly string[];
  /** Called before each retry; for logging and tests. Never receives credentials. */
  onRetry?: (info: RetryInfo) => void;
  /** Timer seam for tests. Default `setTimeout`. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export interface RetryInfo {
  request: string;
  /** The retry about to be made: 1 for the first (the request's second attempt). */
  attempt: number;
  /** The wait before it, ms. */
  delayMs: number;
  error: unknown;
  /** Which of the account's limits a 429 on this request stands for (`RequestOptions.rateLimit`). */
  rateLimit: RateLimitKind;
  /**
   * The retries this request may make (`maxRetries`). Absent for a wait bounded by the correction's time
   * limit instead of a count: a refused job start or status poll of the Web API, waited out until it is taken.
   */
  maxRetries?: number;
}

/**
 * What a 429 on a request says: `'jobs'` — a job start refused because the
 * account holds its most jobs in progress (fewer jobs at once would help);
 * `'requests'` — a request rate (slowing the requests helps, the jobs at once
 * are not the cause).
 */
export type RateLimitKind = 'jobs' | 'requests';

/** A body, or a factory that makes a fresh one for each attempt (so streams from disk can be retried). */
export type BodySource = BodyInit | Uint8Array | (() => BodyInit | Uint8Array | Promise<BodyInit | Uint8Array>);

export interface RequestOptions {
  method?: string;
  /** Query parameters, each encoded and appended to the address (see `withQuery`). */
  query?: QueryParams;
  headers?: Record<string, string>;
  body?: BodySource;
  signal?: AbortSignal | undefined;
  /** Send the credential headers. Default true; false for pre-signed addresses. */
  auth?: boolean;
  /** Override the per-attempt inactivity timeout (ms). */
  timeout?: number;
  /** Retry retryable failures. Default true; a plain (non-factory) stream body is never retried. */
  retry?: boolean;
  /** Override the client's `maxRetries` for this request. */
  maxRetries?: number;
  /**
   * Retry a 429 here (bounded by `maxRetries`). Default true. False throws the
   * `RateLimitError` at once, for callers that wait it out themselves without
   * a bound on the count (a refused job start that gives its job slot back
   * meanwhile, a status poll bounded by the job's deadline).
   */
  retryRateLimited?: boolean;
  /**
   * Whether repeating the request is harmless. Default: true except for POST.
   * A non-idempotent request is retried only on 408, 429 and 503, answers that
   * say the server did not act on it; never on 500/502/504 or a lost connection,
   * which could create a second preset.
   */
  idempotent?: boolean;
  /** `manual` keeps 3xx answers as they are. Default `follow`; `error` for stream and Blob bodies (see `attempt`). */
  redirect?: RequestRedirect;
  /** How the request is named in errors, instead of `METHOD path` (e.g. to keep a signed path out). */
  label?: string;
  /** Which account limit a 429 on this request stands for, told in `RetryInfo.rateLimit`. Default `'requests'`; `'jobs'` for a job start. */
  rateLimit?: RateLimitKind;
  /** Called before each retry of this request, after the client's `onRetry`: for a caller that shows its own call's waits. */
  onRetry?: ((info: RetryInfo) => void) | undefined;
}

/**
 * What every resource method of the clients takes per call (as the Stainless
 * SDKs' `RequestOptions`): the call's abort signal, and the client's timeout
 * and retries overridden for this call alone.
 *
 * @example
 * ```ts
 * // One attempt of at most 5 s, whatever the client's defaults:
 * await container.version({ timeout: 5_000, maxRetries: 0 });
 * ```
 */
export interface CallOptions {
  /** Aborts the call; it rejects with `UserAbortError`. */
  signal?: AbortSignal | undefined;
  /** Inactivity timeout of each attempt in ms, instead of the client's `timeout`. */
  timeout?: number | undefined;
  /** Retries after the first attempt, instead of the client's `maxRetries`; 0 makes one attempt. */
  maxRetries?: number | undefined;
  /** Told before each wait of this call before trying again (besides the client's `onRetry`), e.g. to show it. */
  onRetry?: ((info: RetryInfo) => void) | undefined;
}

/** The transport's request options for a call's `CallOptions` (only the ones it set). */
export function callRequestOptions(call: CallOptions | undefined): Pick<RequestOptions, 'signal' | 'timeout' | 'maxRetries' | 'onRetry'> {
  const out: Pick<RequestOptions, 'signal' | 'timeout' | 'maxRetries' | 'onRetry'> = {};
  if (call?.signal) out.signal = call.signal;
  if (call?.timeout !== undefined) out.timeout = call.timeout;
  if (call?.maxRetries !== undefined) out.maxRetries = call.maxRetries;
  if (call?.onRetry) out.onRetry = call.onRetry;
  return out;
}

/**
 * The defaults of `TransportOptions`, the one place they are defined: every
 * client built on the transport (Web API, containers) documents and uses these.
 */
export const TRANSPORT_DEFAULTS = { timeout: 60_000, maxRetries: 4, retryBaseDelayMs: 250, retryMaxDelayMs: 30_000, retryAfterMaxMs: 300_000 } as const satisfies Pick<
  Required<TransportOptions>,
  'timeout' | 'maxRetries' | 'retryBaseDelayMs' | 'retryMaxDelayMs' | 'retryAfterMaxMs'
>;
/** Statuses that mean the server did not act on the request, so even a POST may be repeated. */
const NOT_ACTED_ON = new Set([408, 429, 503]);
/** Extra inactivity allowance per byte of an opaque body: 10 s per MB, i.e. a floor of 100 kB/s. */
const OPAQUE_BODY_MS_PER_BYTE = 10_000 / 1_000_000;

export function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new UserAbortError());
    const onAbort = () => {
      clearTimeout(t);
      reject(new UserAbortError());
    };
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Parse a body leniently: JSON when it parses, else text; undefined when empty. */
export async function readBody(res: Response): Promise<unknown> {
  const text = await res.text();
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

export class Transport {
  readonly baseURL: string;
  readonly options: Readonly<TransportOptions>;
  private readonly fetchImpl: FetchLike;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;

  constructor(options: TransportOptions) {
    this.options = options;
    this.baseURL = options.baseURL.replace(/\/+$/, '');
    const f = options.fetch ?? (globalThis.fetch as FetchLike | undefined);
    if (!f) throw new TypeError('no fetch available: pass options.fetch');
    // Calling a global fetch as a method of another object throws "Illegal invocation" in browsers.
    this.fetchImpl = options.fetch ? options.fetch : (input, init) => f.call(globalThis, input, init);
    this.sleep = options.sleep ?? defaultSleep;
  }

  /** Absolute address for a path below the base address, or an absolute address as given; `query` added (see `withQuery`). */
  url(pathOrUrl: string | HttpUrl, query?: RequestOptions['query']): HttpUrl {
    const u = typeof pathOrUrl !== 'string' ? pathOrUrl
      : isAbsoluteUrl(pathOrUrl) ? parseUrl(pathOrUrl)
      : parseUrl(this.baseURL + (pathOrUrl.startsWith('/') ? '' : '/') + pathOrUrl);
    return query ? withQuery(u, query) : u;
  }

  /**
   * Send a request with retries and return the response (any 2xx or 3xx).
   * Non-2xx/3xx answers throw the `APIError` subclass of their status. The
   * returned body stays linked to `signal` and the inactivity timeout: read it
   * to the end or cancel it.
   */
  async request(pathOrUrl: string | HttpUrl, opts: RequestOptions = {}): Promise<Response> {
    const method = (opts.method ?? 'GET').toUpperCase();
    const url = this.url(pathOrUrl, opts.query);
    const label = opts.label ?? `${method} ${url.pathname}`;
    const maxRetries = opts.maxRetries ?? this.options.maxRetries ?? TRANSPORT_DEFAULTS.maxRetries;
    const streamOnce = opts.body !== undefined && typeof opts.body !== 'function' && isStream(opts.body);
    const mayRetry = opts.retry !== false && !streamOnce;
    const idempotent = opts.idempotent ?? method !== 'POST';
    try {
      for (let attempt = 0; ; attempt++) {
        if (opts.signal?.aborted) throw new UserAbortError();
        try {
          return await this.attempt(url, method, label, opts);
        } catch (err) {
          if (!mayRetry || attempt >= maxRetries || !isRetryable(err)) throw err;
          if (opts.retryRateLimited === false && err instanceof RateLimitError) throw err;
          if (!idempotent && !(err instanceof APIError && NOT_ACTED_ON.has(err.status))) throw err;
          const delayMs = this.backoff(attempt, err);
          const info: RetryInfo = { request: label, attempt: attempt + 1, delayMs, error: redactError(err, this.secrets()), rateLimit: opts.rateLimit ?? 'requests', maxRetries };
          this.options.onRetry?.(info);
          opts.onRetry?.(info);
          await this.sleep(delayMs, opts.signal);
        }
      }
    } catch (err) {
      throw redactError(err, this.secrets());
    }
  }

  /** `request` and parse the body as JSON (lenient: text when it is not JSON). */
  async json<T>(pathOrUrl: string | HttpUrl, opts: RequestOptions = {}): Promise<T> {
    const res = await this.request(pathOrUrl, opts);
    try {
      return (await readBody(res)) as T;
    } catch (err) {
      throw redactError(err, this.secrets());
    }
  }

  private secrets(): readonly string[] {
    return this.options.secrets?.() ?? [];
  }

  private backoff(attempt: number, err: unknown): number {
    const base = this.options.retryBaseDelayMs ?? TRANSPORT_DEFAULTS.retryBaseDelayMs;
    const cap = this.options.retryMaxDelayMs ?? TRANSPORT_DEFAULTS.retryMaxDelayMs;
    const retryAfter = err instanceof APIError ? err.retryAfterMs : undefined;
    if (retryAfter !== undefined) return Math.min(this.options.retryAfterMaxMs ?? TRANSPORT_DEFAULTS.retryAfterMaxMs, retryAfter);
    const exp = Math.min(cap, base * 2 ** attempt);
    return jittered(exp, 0.25);
  }

  private async attempt(url: HttpUrl, method: string, label: string, opts: RequestOptions): Promise<Response> {
    const timeout = opts.timeout ?? this.options.timeout ?? TRANSPORT_DEFAULTS.timeout;
    // A failing body factory (e.g. a file that cannot be opened) is the caller's error, thrown as is.
    const body = typeof opts.body === 'function' ? await opts.body() : opts.body;
    const link = new AttemptLink(opts.signal, timeout, label);
    const headers: Record<string, string> = { ...(opts.auth === false ? {} : this.options.authHeaders?.()), ...opts.headers };
    // A file body (stream or Blob) is sent with redirect 'error' unless asked otherwise: to be
    // able to follow a redirect, fetch clones the request, and the clone's tee keeps every
    // chunk sent in memory (Node 20's undici: a 2 GB upload held 2 GB). A redirected file
    // upload could not be replayed from a stream anyway; pre-signed addresses do not redirect.
    const redirect = opts.redirect ?? (isStream(body) || isBlob(body) ? 'error' : 'follow');
    const init: RequestInit & { duplex?: 'half' } = { method, headers, signal: link.signal, redirect };
    if (body !== undefined) {
      if (isStream(body)) {
        init.body = link.trackUpload(body, declaredLength(headers));
        init.duplex = 'half';
      } else init.body = body as BodyInit;
    }
    let res: Response;
    try {
      link.arm(timeout + opaqueSize(body) * OPAQUE_BODY_MS_PER_BYTE);
      if (link.signal.aborted) throw new UserAbortError();
      res = await this.fetchImpl(url.href, init);
      // The answer has come; from here the timer runs only while a body read waits on the network.
      link.disarm();
    } catch (err) {
      const e = link.failure(err);
      link.release();
      if (isStream(init.body)) init.body.cancel().catch(() => undefined);
      throw e;
    }
    if (res.status >= 400 || res.status === 0) {
      let parsed: unknown;
      try {
        parsed = await readBody(link.linkResponse(res));
      } catch {
        parsed = undefined;
      } finally {
        link.release();
      }
      throw APIError.fromResponse(res.status, parsed, requestIdOf(res), label, res.headers);
    }
    return link.linkResponse(res);
  }
}

function requestIdOf(res: Response): string | undefined {
  return res.headers.get('x-request-id') ?? res.headers.get('x-amzn-requestid') ?? res.headers.get('request-id') ?? undefined;
}

/** The Content-Length a request declares (header names are case-insensitive), if any. */
function declaredLength(headers: Record<string, string>): number | undefined {
  const raw = Object.entries(headers).find(([k]) => k.toLowerCase() === 'content-length')?.[1];
  const n = raw === undefined ? NaN : Number(raw);
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

function isStream(body: unknown): body is ReadableStream<Uint8Array> {
  return typeof ReadableStream !== 'undefined' && body instanceof ReadableStream;
}

function isBlob(body: unknown): body is Blob {
  return typeof Blob !== 'undefined' && body instanceof Blob;
}

/** Byte size of a body whose sending cannot be observed chunk by chunk. */
function opaqueSize(body: unknown): number {
  if (isBlob(body)) return body.size;
  if (body instanceof Uint8Array || body instanceof ArrayBuffer) return body.byteLength;
  return 0;
}
