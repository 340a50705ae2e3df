/**
 * One error hierarchy for every client in core. Each error carries what a
 * caller needs to decide (status, parsed body, request id) and never the API key.
 */

/** Base class of every error thrown by `@pfc/core`. */
export class PfcError extends Error {
  override name = 'PfcError';
}

/** The caller's input was rejected before anything was sent. */
export class ParameterError extends PfcError {
  override name = 'ParameterError';
  constructor(
    /** Each rejected parameter with a message naming the allowed values. */
    readonly issues: readonly { param: string; message: string }[],
  ) {
    super(issues.map((i) => i.message).join('; '));
  }
  /** Names of the rejected parameters. */
  get params(): string[] {
    return this.issues.map((i) => i.param);
  }
}

/** An HTTP answer outside 2xx/3xx. */
export class APIError extends PfcError {
  override name = 'APIError';
  constructor(
    /** HTTP status. */
    readonly status: number,
    /** Parsed body: JSON when it parses, else text. */
    readonly body: unknown,
    /** `x-request-id` (or similar) of the answer, when the server sent one. */
    readonly requestId: string | undefined,
    /** Method and URL path of the request (never its query, which may hold a licence key). */
    readonly request: string,
    message?: string,
    /** Response headers of the answer, when there was one. */
    readonly headers?: Headers,
  ) {
    super(message ?? `${request} answered ${status}${bodyMessage(body) ? `: ${bodyMessage(body)}` : ''}`);
    // Parsed once, at the time of the answer, so an HTTP-date is measured from then.
    const ra = parseRetryAfter(headers?.get('retry-after') ?? null);
    if (ra !== undefined) this.retryAfterMs = ra;
  }

  /** The server's `Retry-After` in ms (seconds or HTTP date), when it sent one. */
  readonly retryAfterMs?: number;

  /** The error class for a status. */
  static fromResponse(status: number, body: unknown, requestId: string | undefined, request: string, headers?: Headers): APIError {
    const C =
      status === 400 ? BadRequestError
      : status === 401 ? AuthenticationError
      : status === 403 ? PermissionDeniedError
      : status === 404 ? NotFoundError
      : status === 408 ? RequestTimeoutError
      : status === 409 ? ConflictError
      : status === 422 ? UnprocessableEntityError
      : status === 429 ? RateLimitError
      : status >= 500 ? InternalServerError
      : APIError;
    return new C(status, body, requestId, request, undefined, headers);
  }
}

export class BadRequestError extends APIError { override name = 'BadRequestError'; }
export class AuthenticationError extends APIError { override name = 'AuthenticationError'; }
export class PermissionDeniedError extends APIError { override name = 'PermissionDeniedError'; }
export class NotFoundError extends APIError { override name = 'NotFoundError'; }
export class RequestTimeoutError extends APIError { override name = 'RequestTimeoutError'; }
export class ConflictError extends APIError { override name = 'ConflictError'; }
export class UnprocessableEntityError extends APIError { override name = 'UnprocessableEntityError'; }
export class RateLimitError extends APIError { override name = 'RateLimitError'; }
export class InternalServerError extends APIError { override name = 'InternalServerError'; }

/**
 * A refusal of what a correction made on the service itself — its upload, its job, its result — once the
 * service had taken it (a 404, or a job start refused for the upload's `fileKey`): the service no longer
 * knows it (it restarted, or lost it). Another attempt, from a new upload, may succeed, so
 * {@link isRetryable} says so; no single request is repeated for it.
 */
export class JobLostError extends APIError {
  override name = 'JobLostError';

  static of(err: APIError): JobLostError {
    const why = 'the service no longer knows what this correction sent or started (it may have restarted); another attempt sends the file again';
    return new JobLostError(err.status, err.body, err.requestId, err.request, `${err.message} (${why})`, err.headers);
  }
}

/** No HTTP answer: refused, reset, DNS failure, or blocked by the browser (CORS). */
export class ConnectionError extends PfcError {
  override name = 'ConnectionError';
  constructor(readonly request: string, options?: { cause?: unknown }) {
    super(`could not reach ${request}${causeText(options?.cause)}`, options);
  }
}

/** An attempt, or the whole operation, took longer than its timeout. */
export class TimeoutError extends PfcError {
  override name = 'TimeoutError';
  constructor(readonly request: string, readonly timeoutMs: number) {
    super(`${request} timed out after ${timeoutMs} ms`);
  }
}

/** The caller aborted through its `AbortSignal`. */
export class UserAbortError extends PfcError {
  override name = 'UserAbortError';
  constructor(message = 'aborted by the caller') {
    super(message);
  }
}

/** A job ended FAILED or REJECTED. */
export class JobFailedError extends PfcError {
  override name = 'JobFailedError';
  constructor(
    readonly jobId: string,
    readonly status: 'FAILED' | 'REJECTED',
    readonly statusText: string,
    /** The final job record. */
    readonly job: unknown,
  ) {
    super(`job ${jobId} ${status}${statusText ? `: ${statusText}` : ''}`);
  }
}

/**
 * A streamed input did not have the size it was declared with (its
 * Content-Length): the file changed while it was read. Not retried — the
 * server would otherwise wait for bytes that never come — and nothing was
 * uploaded as complete.
 */
export class InputChangedError extends PfcError {
  override name = 'InputChangedError';
  constructor(readonly declaredBytes: number, readonly readBytes: number) {
    super(
      `the file changed while it was being uploaded: it had ${declaredBytes} bytes when the upload began, ` +
        `${readBytes > declaredBytes ? `more than that` : `only ${readBytes}`} were read; run again to send it as it is now`,
    );
  }
}

/** A 2xx answer whose body is not what the contract says (e.g. `/pfc` without `statusEndpoint`). */
export class ProtocolError extends PfcError {
  override name = 'ProtocolError';
  constructor(message: string, readonly body?: unknown) {
    super(message);
  }
}

/**
 * Pull a human message out of a lenient error body: JSON `error`, `message` or `statusText`; an object
 * store's XML error (`<Error><Code>…</Code><Message>…</Message>`, as S3 answers a pre-signed address) as
 * "Code: Message"; else text.
 */
export function bodyMessage(body: unknown): string | undefined {
  if (typeof body === 'string') return storageErrorMessage(body) ?? (body.trim().slice(0, 500) || undefined);
  if (body && typeof body === 'object') {
    const o = body as Record<string, unknown>;
    for (const k of ['error', 'message', 'statusText', 'detail']) {
      const v = o[k];
      if (typeof v === 'string' && v) return v;
    }
  }
  return undefined;
}

/** "Code: Message" of an object store's XML error body (S3's `Error` document); undefined for any other text. */
function storageErrorMessage(text: string): string | undefined {
  if (!/^\s*(<\?xml[^>]*>\s*)?<Error>/.test(text)) return undefined;
  const field = (name: string): string | undefined => {
    const m = new RegExp(`<${name}>([^<]*)</${name}>`).exec(text);
    return m?.[1] ? decodeXmlText(m[1]).trim() || undefined : undefined;
  };
  const [code, message] = [field('Code'), field('Message')];
  if (!code && !message) return undefined;
  return (code && message ? `${code}: ${message}` : (code ?? message)!).slice(0, 500);
}

/** The five predefined XML entities and numeric references. */
function decodeXmlText(text: string): string {
  const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
  return text.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (whole, ref: string) => {
    if (ref[0] !== '#') return named[ref.toLowerCase()] ?? whole;
    const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
    return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

function causeText(cause: unknown): string {
  if (cause instanceof Error) {
    const inner = (cause as { cause?: unknown }).cause;
    const code = inner && typeof inner === 'object' && 'code' in inner ? ` (${String((inner as { code: unknown }).code)})` : '';
    return `: ${cause.message}${code}`;
  }
  return '';
}

/** `Retry-After` in ms (seconds or HTTP date), or undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const s = Number(value);
  if (Number.isFinite(s) && s >= 0) return s * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * Remove secrets from an error before it reaches the caller: its message, its
 * parsed body (a server may echo a key back) and the message of its cause.
 * Safety net only: no code path in core puts a key into an error on purpose.
 */
export function redactError<E>(err: E, secrets: readonly string[]): E {
  const list = secrets.filter((s) => s.length >= 4);
  if (list.length === 0 || !(err instanceof Error)) return err;
  const scrub = (text: string) => list.reduce((t, s) => t.split(s).join('[redacted]'), text);
  if (list.some((s) => err.message.includes(s))) err.message = scrub(err.message);
  if (err instanceof APIError && err.body !== undefined) {
    const text = typeof err.body === 'string' ? err.body : JSON.stringify(err.body);
    if (text !== undefined && list.some((s) => text.includes(s))) {
      const clean = scrub(text);
      let body: unknown = clean;
      if (typeof err.body !== 'string') {
        try {
          body = JSON.parse(clean) as unknown;
        } catch {
          body = clean;
        }
      }
      Object.defineProperty(err, 'body', { value: body, enumerable: true });
    }
  }
  const cause = (err as { cause?: unknown }).cause;
  if (cause instanceof Error && list.some((s) => cause.message.includes(s))) cause.message = scrub(cause.message);
  return err;
}

/** Whether a failure is worth another attempt: 408, 429, 5xx, connection failures, and a lost job (another attempt at the whole correction). */
export function isRetryable(err: unknown): boolean {
  if (err instanceof JobLostError) return true;
  if (err instanceof APIError) return err.status === 408 || err.status === 429 || err.status >= 500;
  return err instanceof ConnectionError || err instanceof TimeoutError;
}
