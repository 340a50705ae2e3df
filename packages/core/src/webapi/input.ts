/**
 * What can be said about a `FileInput` before sending it: its MIME type and
 * size when known, and the headers of the pre-signed PUT. Nothing here reads a
 * stream or calls a factory, so a multi-GB input is never pulled into memory.
 */
import type { FileInput } from '../backend';
import { sniffMedia } from '../media/sniff';
import type { BodySource } from '../transport';

export interface InputHints {
  /** MIME type, when the caller knows it. */
  contentType?: string | undefined;
  /** Size in bytes, when the caller knows it (needed as Content-Length for streams). */
  size?: number | undefined;
}

/** MIME type and size of an input, from the caller's hints, a Blob's own fields, or the first bytes. */
export function inputFacts(input: FileInput, hints: InputHints = {}): { contentType?: string; size?: number } {
  let contentType = hints.contentType;
  let size = hints.size;
  if (typeof Blob !== 'undefined' && input instanceof Blob) {
    contentType ??= input.type || undefined;
    size ??= input.size;
  } else if (input instanceof Uint8Array) {
    contentType ??= sniffType(input);
    size ??= input.byteLength;
  }
  return { ...(contentType ? { contentType } : {}), ...(size !== undefined ? { size } : {}) };
}

/** MIME type from the first bytes (see `sniffMedia`), undefined when they are not a known image or video. */
export function sniffType(bytes: Uint8Array): string | undefined {
  return sniffMedia(bytes)?.mimeType;
}

/**
 * Headers of the pre-signed PUT: what the vendor's own clients send — no
 * `Content-Type` (`curl --upload-file` sends none; their axios client deletes
 * it), since storage that signs the content type refuses any it was not signed
 * for with 403 — and `Content-Length` for a stream of known size.
 */
export function uploadHeaders(input: FileInput, facts: { size?: number }): Record<string, string> {
  const headers: Record<string, string> = {};
  // fetch sets Content-Length itself for a Blob or bytes. A stream is sent
  // chunked unless told its length, and pre-signed storage refuses chunked
  // uploads (501), so a caller streaming a file should pass `size`.
  const opaque = (typeof Blob !== 'undefined' && input instanceof Blob) || input instanceof Uint8Array;
  if (!opaque && facts.size !== undefined) headers['content-length'] = String(facts.size);
  return headers;
}

/**
 * The input as a transport body: a factory stays a factory (called once per
 * attempt). A typed Blob is sent as an untyped view of the same bytes: fetch
 * would otherwise add its type as `Content-Type`, which the storage was not
 * signed for.
 */
export function toBodySource(input: FileInput): BodySource {
  if (typeof Blob !== 'undefined' && input instanceof Blob && input.type !== '') return input.slice(0, input.size, '') as BodySource;
  return input as BodySource;
}
