/**
 * HTTP transport shared by every client in core: injectable `fetch`, a timeout
 * per attempt linked to the caller's `AbortSignal`, retries with exponential
 * backoff and jitter honouring `Retry-After`, and typed errors. Runtime-agnostic:
 * it uses only `fetch`, `URL`, `AbortController` and timers.
 */
import { APIError, ConnectionError, isRetryable, TimeoutError, UserAbortError } from './errors';

export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** Options common to every client. */
export interface TransportOptions {
  /** Base address, e.g. `https://api.perfectlyclear.io/v2`. Paths are resolved below it. */
  baseURL: string;
  /** The `fetch` to use; default `globalThis.fetch`. Inject one for tests, proxies or hosts without a global. */
  fetch?: FetchLike;
  /** Timeout of one attempt in ms, from sending to the end of the body. Default 60 000. */
  timeout?: number;
  /** Further attempts after a retryable failure (408, 429, 5xx, connection, timeout). Default 4. */
  maxRetries?: number;
  /** First backoff delay in ms; doubles each retry, with ±25 % jitter. Default 250. */
  retryBaseDelayMs?: number;
  /** Largest backoff delay and largest `Retry-After` honoured, in ms. Default 30 000. */
  retryMaxDelayMs?: number;
  /** Headers sent on every request except those marked `auth: false` (holds the credential). */
  authHeaders?: () => Record<string, string>;
  /** Called before each retry; for logging and tests. Never receives credentials. */
  onRetry?: (info: RetryInfo) => void;
  /** Timer seam for tests. Default `setTimeout`. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export interface RetryInfo {
  request: string;
  attempt: number;
  delayMs: number;
  error: unknown;
}

/** A body, or a factory that makes a fresh one for each attempt (so streams from disk can be retried). */
export type BodySource = BodyInit | Uint8Array | (() => BodyInit | Uint8Array | Promise<BodyInit | Uint8Array>);

export interface RequestOptions {
  method?: string;
  /** Query parameters appended with the URL API (never by string concatenation). */
  query?: Record<string, string | number | boolean | undefined> | URLSearchParams;
  headers?: Record<string, string>;
  body?: BodySource;
  signal?: AbortSignal | undefined;
  /** Send the credential headers. Default true; false for pre-signed addresses. */
  auth?: boolean;
  /** Override the per-attempt timeout (ms). */
  timeout?: number;
  /** Retry retryable failures. Default true; a plain (non-factory) stream body is never retried. */
  retry?: boolean;
  /** `manual` keeps 3xx answers as they are. Default `follow`. */
  redirect?: RequestRedirect;
}

const DEFAULTS = { timeout: 60_000, maxRetries: 4, retryBaseDelayMs: 250, retryMaxDelayMs: 30_000 };

export function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new UserAbortError());
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(new UserAbortError());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** `Retry-After` in ms (seconds or HTTP date), or undefined. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const s = Number(value);
  if (Number.isFinite(s) && s >= 0) return s * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Parse a body leniently: JSON when it says or looks so, else text. */
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

  /** Absolute URL for a path below the base address, or an absolute URL as given. */
  url(pathOrUrl: string | URL, query?: RequestOptions['query']): URL {
    const u = pathOrUrl instanceof URL ? new URL(pathOrUrl.href)
      : /^[a-z][a-z0-9+.-]*:/i.test(pathOrUrl) ? new URL(pathOrUrl)
      : new URL(this.baseURL + (pathOrUrl.startsWith('/') ? '' : '/') + pathOrUrl);
    if (query) {
      const entries = query instanceof URLSearchParams ? [...query.entries()] : Object.entries(query);
      for (const [k, v] of entries) if (v !== undefined) u.searchParams.set(k, String(v));
    }
    return u;
  }

  /**
   * Send a request with retries and return the response (any 2xx or 3xx).
   * Non-2xx/3xx answers throw the `APIError` subclass of their status.
   */
  async request(pathOrUrl: string | URL, opts: RequestOptions = {}): Promise<Response> {
    const method = (opts.method ?? 'GET').toUpperCase();
    const url = this.url(pathOrUrl, opts.query);
    const label = `${method} ${url.pathname}`;
    const maxRetries = this.options.maxRetries ?? DEFAULTS.maxRetries;
    const streamOnce = opts.body !== undefined && typeof opts.body !== 'function' && isStream(opts.body);
    const mayRetry = opts.retry !== false && !streamOnce;
    for (let attempt = 0; ; attempt++) {
      if (opts.signal?.aborted) throw new UserAbortError();
      try {
        return await this.attempt(url, method, label, opts);
      } catch (err) {
        if (!mayRetry || attempt >= maxRetries || !isRetryable(err)) throw err;
        const delayMs = this.backoff(attempt, err);
        this.options.onRetry?.({ request: label, attempt: attempt + 1, delayMs, error: err });
        await this.sleep(delayMs, opts.signal);
      }
    }
  }

  /** `request` and parse the body as JSON (lenient). */
  async json<T>(pathOrUrl: string | URL, opts: RequestOptions = {}): Promise<T> {
    const res = await this.request(pathOrUrl, opts);
    return (await readBody(res)) as T;
  }

  private backoff(attempt: number, err: unknown): number {
    const base = this.options.retryBaseDelayMs ?? DEFAULTS.retryBaseDelayMs;
    const cap = this.options.retryMaxDelayMs ?? DEFAULTS.retryMaxDelayMs;
    const retryAfter = err instanceof APIError ? (err as APIError & { retryAfterMs?: number }).retryAfterMs : undefined;
    if (retryAfter !== undefined) return Math.min(cap, retryAfter);
    const exp = Math.min(cap, base * 2 ** attempt);
    return Math.round(exp * (0.75 + Math.random() * 0.5));
  }

  private async attempt(url: URL, method: string, label: string, opts: RequestOptions): Promise<Response> {
    const timeout = opts.timeout ?? this.options.timeout ?? DEFAULTS.timeout;
    const ctrl = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      ctrl.abort();
    }, timeout);
    const onAbort = () => ctrl.abort();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const headers: Record<string, string> = { ...(opts.auth === false ? {} : this.options.authHeaders?.()), ...opts.headers };
      const body = typeof opts.body === 'function' ? await opts.body() : opts.body;
      const init: RequestInit & { duplex?: 'half' } = { method, headers, signal: ctrl.signal, redirect: opts.redirect ?? 'follow' };
      if (body !== undefined) {
        init.body = body as BodyInit;
        if (isStream(body)) init.duplex = 'half';
      }
      let res: Response;
      try {
        res = await this.fetchImpl(url.href, init);
      } catch (err) {
        if (opts.signal?.aborted) throw new UserAbortError();
        if (timedOut) throw new TimeoutError(label, timeout);
        throw new ConnectionError(label, { cause: err });
      }
      if (res.status >= 400 || res.status === 0) {
        let parsed: unknown;
        try {
          parsed = await readBody(res);
        } catch {
          parsed = undefined;
        }
        const e = APIError.fromResponse(res.status, parsed, requestIdOf(res), label);
        const ra = parseRetryAfter(res.headers.get('retry-after'));
        if (ra !== undefined) Object.defineProperty(e, 'retryAfterMs', { value: ra, enumerable: false });
        throw e;
      }
      return res;
    } catch (err) {
      if (err instanceof APIError || err instanceof UserAbortError || err instanceof TimeoutError || err instanceof ConnectionError) throw err;
      if (opts.signal?.aborted) throw new UserAbortError();
      if (timedOut) throw new TimeoutError(label, timeout);
      throw new ConnectionError(label, { cause: err });
    } finally {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
    }
  }
}

function requestIdOf(res: Response): string | undefined {
  return res.headers.get('x-request-id') ?? res.headers.get('x-amzn-requestid') ?? res.headers.get('request-id') ?? undefined;
}

function isStream(body: unknown): boolean {
  return typeof ReadableStream !== 'undefined' && body instanceof ReadableStream;
}
