/**
 * Typed errors of the colour-correction container: every id of the document's
 * error table becomes a `ContainerError` whose `code` is that id.
 */
import { APIError } from '../errors';
import { CONTAINER_ERROR_IDS, type ContainerErrorId } from '../contract/container';

/** An error answer of the colour-correction container, with its documented id in `code`. */
export class ContainerError extends APIError {
  override name = 'ContainerError';
  constructor(
    status: number,
    body: unknown,
    requestId: string | undefined,
    request: string,
    /** The id of the document's error table (e.g. `unknownPresetMessage`), when the answer named one. */
    readonly code: ContainerErrorId | undefined,
  ) {
    super(status, body, requestId, request, `${request} answered ${status}${code ? ` ${code}` : ''}${detail(body, code)}`);
  }
}

/**
 * Find the error id in an answer body. The emulator sends `{"error": id,
 * "message": …}`; the real container's body shape is not documented, so any
 * JSON field or text that names a known id is accepted.
 */
export function containerErrorId(body: unknown): ContainerErrorId | undefined {
  if (body && typeof body === 'object') {
    const o = body as Record<string, unknown>;
    for (const k of ['error', 'code', 'id', 'messageId', 'message']) {
      const v = o[k];
      if (typeof v === 'string' && (CONTAINER_ERROR_IDS as string[]).includes(v)) return v as ContainerErrorId;
    }
    return containerErrorId(JSON.stringify(body));
  }
  if (typeof body === 'string') {
    // Longest first: no id is a prefix of another today, but be safe.
    const ids = [...CONTAINER_ERROR_IDS].sort((a, b) => b.length - a.length);
    return ids.find((id) => body.includes(id));
  }
  return undefined;
}

/** Re-type a transport `APIError` as a `ContainerError`; anything else passes through. */
export function toContainerError(err: unknown): unknown {
  if (err instanceof APIError && !(err instanceof ContainerError)) {
    const e = new ContainerError(err.status, err.body, err.requestId, err.request, containerErrorId(err.body));
    return e;
  }
  return err;
}

function detail(body: unknown, code: string | undefined): string {
  if (body && typeof body === 'object') {
    const m = (body as Record<string, unknown>).message;
    if (typeof m === 'string' && m && m !== code) return `: ${m}`;
  }
  if (typeof body === 'string' && body.trim() && body.trim() !== code) return `: ${body.trim().slice(0, 300)}`;
  return '';
}
