/**
 * How the pre-signed storage behind `uploadUrl` and `correctedFile` answers.
 * The hosted service hands out object-storage addresses (its vendor's own
 * clients PUT with `curl --upload-file`, and an axios client deletes the
 * `Content-Type` header before its PUT), and object storage is strict where the
 * API is lenient. Modelled on Amazon S3's documented answers
 * (https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html):
 *
 * - `Transfer-Encoding: chunked` without `Content-Length` → 501 `NotImplemented`
 *   ("A header you provided implies functionality that is not implemented").
 * - No `Content-Length` at all → 411 `MissingContentLength`.
 * - A `Content-Type` other than the one the address was signed for (none, by
 *   default; a sent one where none was signed counts) → 403 `SignatureDoesNotMatch`;
 *   a bad signature likewise; an expired address → 403 `AccessDenied`.
 * - A body shorter than its `Content-Length` → 400 `IncompleteBody`; a body
 *   that stalls → 400 `RequestTimeout`.
 * - Errors are XML `<Error><Code/><Message/><RequestId/></Error>`; success is
 *   200 with an `ETag` and no body.
 *
 * `lenientStorage` keeps the emulator's older answers (any headers, JSON bodies).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpError } from '../http/respond';
import type { SignatureVerdict } from './signing';

/** An error answered as object storage does: XML with a `Code`. */
export class StorageError extends HttpError {
  constructor(
    status: number,
    readonly code: string,
    message: string,
    headers: Record<string, string> = {},
  ) {
    super(status, message, {}, headers);
    this.name = 'StorageError';
  }

  /** The XML error document. */
  xml(requestId: string): string {
    return (
      '<?xml version="1.0" encoding="UTF-8"?>\n' +
      `<Error><Code>${escapeXml(this.code)}</Code><Message>${escapeXml(this.message)}</Message><RequestId>${escapeXml(requestId)}</RequestId></Error>`
    );
  }

  override send(res: ServerResponse): void {
    if (res.headersSent) {
      res.end();
      return;
    }
    const xml = this.xml(String(res.getHeader('X-Request-Id') ?? ''));
    res.writeHead(this.status, { ...this.headers, 'Content-Type': 'application/xml', 'Content-Length': Buffer.byteLength(xml), 'Cache-Control': 'no-store' });
    res.end(xml);
  }
}

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** How strictly the storage answers. */
export interface StorageMode {
  /** Object-storage rules and XML errors; false keeps the emulator's lenient answers. */
  strict: boolean;
}

/** An error in the storage's format: XML when strict, the API's JSON otherwise. */
export function storageError(mode: StorageMode, status: number, code: string, message: string, headers: Record<string, string> = {}): HttpError {
  return mode.strict ? new StorageError(status, code, message, headers) : new HttpError(status, message, {}, headers);
}

const CODE_OF_STATUS: Record<number, string> = { 400: 'BadRequest', 403: 'AccessDenied', 404: 'NoSuchKey', 405: 'MethodNotAllowed', 410: 'Gone', 413: 'EntityTooLarge' };

/** A strict storage answers every error (unknown paths, wrong methods, injected answers aside) in its XML. */
export function shapeStorageError(mode: StorageMode, err: HttpError): HttpError {
  if (!mode.strict || err instanceof StorageError) return err;
  return new StorageError(err.status, CODE_OF_STATUS[err.status] ?? 'InternalError', err.message, err.headers);
}

/** The XML 400 for a body the client ended before its Content-Length (answered by the HTTP parser, not a route). */
export function storageClientError(mode: StorageMode): (kind: 'incompleteBody' | 'malformed') => { contentType: string; body: string } | undefined {
  return (kind) => {
    if (!mode.strict) return undefined;
    const err =
      kind === 'incompleteBody'
        ? new StorageError(400, 'IncompleteBody', 'You did not provide the number of bytes specified by the Content-Length HTTP header.')
        : new StorageError(400, 'BadRequest', 'The request could not be parsed.');
    return { contentType: 'application/xml', body: err.xml('') };
  };
}

/** The `Content-Type` a request carries, exactly as sent; '' when absent. */
export function sentContentType(req: IncomingMessage): string {
  return req.headers['content-type'] ?? '';
}

/** Checks the framing of a strict PUT before its signature: a length is required, chunked is not implemented. */
export function checkPutFraming(mode: StorageMode, req: IncomingMessage): void {
  if (!mode.strict) return;
  if (req.headers['content-length'] !== undefined) return;
  if (req.headers['transfer-encoding'] !== undefined) {
    throw new StorageError(501, 'NotImplemented', 'A header you provided implies functionality that is not implemented: Transfer-Encoding (send the file with a Content-Length)');
  }
  throw new StorageError(411, 'MissingContentLength', 'You must provide the Content-Length HTTP header.');
}

/** Throws the storage's 403 for a signature that did not verify. */
export function checkSignature(mode: StorageMode, verdict: SignatureVerdict): void {
  if (verdict === 'mismatch') {
    throw storageError(
      mode,
      403,
      'SignatureDoesNotMatch',
      mode.strict
        ? 'The request signature we calculated does not match the signature you provided. The address is signed for its method, path, expiry and Content-Type: send no Content-Type unless the address was issued for one.'
        : 'the upload address is not validly signed; request a new one',
    );
  }
  if (verdict === 'expired') throw storageError(mode, 403, 'AccessDenied', mode.strict ? 'Request has expired' : 'the upload address has expired; request a new one');
}

/** The storage's answer for a failed body read (`DataStore.receive`'s 400 and 413). */
export function receiveFailure(mode: StorageMode, req: IncomingMessage, err: unknown): unknown {
  if (!mode.strict || !(err instanceof HttpError) || err instanceof StorageError) return err;
  if (err.status === 413) return new StorageError(413, 'EntityTooLarge', `Your proposed upload exceeds the maximum allowed size: ${err.message}`);
  if (err.status === 400) {
    const declared = Number(req.headers['content-length']);
    return req.readableAborted || !req.complete
      ? new StorageError(400, 'IncompleteBody', `You did not provide the number of bytes specified by the Content-Length HTTP header (${Number.isFinite(declared) ? declared : '?'}).`)
      : new StorageError(400, 'BadRequest', err.message);
  }
  return err;
}

/**
 * CORS of the storage origin, as a bucket configured for browser uploads
 * answers: any origin (a Figma UI iframe calls from `Origin: null`), GET, HEAD
 * and PUT, and `Content-Type` as the only request header — not `X-API-KEY`: a
 * browser client that tried to send its key to storage fails its preflight.
 */
export function applyStorageCors(_req: IncomingMessage, res: ServerResponse): void {
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('Access-Control-Allow-Methods', 'GET, HEAD, PUT');
  res.setHeader('Access-Control-Allow-Headers', 'Content-Type');
  res.setHeader('Access-Control-Expose-Headers', 'ETag, Content-Length, X-Request-Id');
  res.setHeader('Access-Control-Max-Age', '600');
}
