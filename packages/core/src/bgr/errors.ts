/**
 * Typed errors of the background-removal container: every documented status
 * becomes a `BgrError` with a `code` (400 bad id, 404 not found or invalid file,
 * 422 missing file, 500 processing failed or internal), plus the failures that
 * have no status of their own: licence, job failed, result not ready.
 */
import { APIError, PfcError } from '../errors';
import { BGR_ERRORS, type BgrErrorCode } from '../contract/bgr';

/** The endpoints, for telling the documented meanings of one status apart. */
export type BgrEndpoint = 'authorize' | 'status' | 'submit' | 'check' | 'download' | 'remove';

/** An error answer of the BGR container, with its meaning in `code`. */
export class BgrError extends APIError {
  override name = 'BgrError';
  constructor(
    status: number,
    body: unknown,
    requestId: string | undefined,
    request: string,
    /** What the status means at this endpoint (e.g. `invalidFile` for 404 on SubmitImage). */
    readonly code: BgrErrorCode | undefined,
  ) {
    super(status, body, requestId, request, `${request} answered ${status}${code ? ` (${code})` : ''}${detail(body)}`);
  }
}

/** The container is not licensed and activating it (again) did not help. The key is never in the message. */
export class BgrLicenceError extends PfcError {
  override name = 'BgrLicenceError';
  constructor(message: string, readonly licence?: unknown) {
    super(message);
  }
}

/** `CheckImage` reported `failed`; `reason` is the container's `error` string. */
export class BgrJobFailedError extends PfcError {
  override name = 'BgrJobFailedError';
  constructor(readonly processId: string, readonly reason: string, readonly check: unknown) {
    super(`background removal ${processId} failed${reason ? `: ${reason}` : ''}`);
  }
}

/** The result was asked for before the job completed (the document's HTTP 102, or a 202/other non-200 answer). */
export class BgrNotReadyError extends PfcError {
  override name = 'BgrNotReadyError';
  constructor(readonly processId: string, readonly state: string) {
    super(`background removal ${processId} is not ready (${state}); poll CheckImage until it is completed`);
  }
}

/** The documented meaning of a status at an endpoint. */
export function bgrErrorCode(endpoint: BgrEndpoint, status: number, body: unknown): BgrErrorCode | undefined {
  if (body && typeof body === 'object') {
    const c = (body as Record<string, unknown>).code;
    if (typeof c === 'string' && Object.prototype.hasOwnProperty.call(BGR_ERRORS, c)) return c as BgrErrorCode;
  }
  if (status === 401 || status === 403 || mentionsUnlicensed(body)) return 'unlicensed';
  if (status === 400) return endpoint === 'authorize' ? 'licenceKeyMissing' : endpoint === 'submit' ? undefined : 'invalidProcessId';
  if (status === 404) return endpoint === 'submit' ? 'invalidFile' : 'notFound';
  if (status === 422) return 'missingFile';
  if (status >= 500) return endpoint === 'download' && status === 500 ? 'processingFailed' : 'internalError';
  return undefined;
}

/** Re-type a transport `APIError` as a `BgrError`; anything else passes through. */
export function toBgrError(err: unknown, endpoint: BgrEndpoint): unknown {
  if (err instanceof APIError && !(err instanceof BgrError)) {
    return new BgrError(err.status, err.body, err.requestId, err.request, bgrErrorCode(endpoint, err.status, err.body));
  }
  return err;
}

/** Whether an error says the container is not licensed. */
export function isUnlicensed(err: unknown): boolean {
  return err instanceof BgrError && err.code === 'unlicensed';
}

function mentionsUnlicensed(body: unknown): boolean {
  const text = typeof body === 'string' ? body : body && typeof body === 'object' ? JSON.stringify(body) : '';
  return /\bunlicen[sc]ed\b/i.test(text);
}

function detail(body: unknown): string {
  if (typeof body === 'string' && body.trim()) return `: ${body.trim().slice(0, 300)}`;
  if (body && typeof body === 'object') {
    const d = (body as Record<string, unknown>).detail;
    if (typeof d === 'string' && d) return `: ${d}`;
    if (Array.isArray(d)) {
      const msgs = d.map((x) => (x && typeof x === 'object' ? `${String((x as { loc?: unknown[] }).loc?.slice(-1)[0] ?? '')} ${String((x as { msg?: unknown }).msg ?? '')}`.trim() : '')).filter(Boolean);
      if (msgs.length) return `: ${msgs.join('; ')}`;
    }
    for (const k of ['message', 'error']) {
      const v = (body as Record<string, unknown>)[k];
      if (typeof v === 'string' && v) return `: ${v}`;
    }
  }
  return '';
}
