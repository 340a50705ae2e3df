/**
 * Input helpers shared by the container and BGR clients: turning a `FileInput`
 * into a request body (fresh per attempt when the input is a factory) and
 * working out an image's type from what the caller said or from its bytes.
 */
import type { FileInput } from '../backend';
import { sniffMedia } from '../media/sniff';

type Resolved = Blob | Uint8Array | ReadableStream<Uint8Array>;

/** Call a factory input (once per attempt); other inputs are returned as they are. */
export async function openInput(input: FileInput): Promise<Resolved> {
  return typeof input === 'function' ? await input() : input;
}

/** Whether an input can be sent more than once (so a failed upload may be retried). */
export function isReplayable(input: FileInput): boolean {
  return typeof input === 'function' || !(typeof ReadableStream !== 'undefined' && input instanceof ReadableStream);
}

/** The input as a Blob (multipart uploads need one); streams are read to the end. */
export async function inputToBlob(input: FileInput, type?: string): Promise<Blob> {
  const r = await openInput(input);
  if (r instanceof Blob) return type && r.type !== type ? new Blob([r], { type }) : r;
  if (r instanceof Uint8Array) return new Blob([r as Uint8Array<ArrayBuffer>], type ? { type } : {});
  const blob = await new Response(r).blob();
  return type ? new Blob([blob], { type }) : blob;
}

/** The image type of the first bytes (see `sniffMedia`); undefined for videos and unknown bytes. */
export function sniffImageType(head: Uint8Array): string | undefined {
  const media = sniffMedia(head);
  return media?.kind === 'image' ? media.mimeType : undefined;
}

const BY_EXTENSION: Record<string, string> = {
  jpg: 'image/jpeg', jpeg: 'image/jpeg', jpe: 'image/jpeg', png: 'image/png', webp: 'image/webp',
  gif: 'image/gif', tif: 'image/tiff', tiff: 'image/tiff', mp4: 'video/mp4', mov: 'video/quicktime',
};

/** `image/jpeg` for `image/jpg` and `image/pjpeg`, lower case, parameters dropped. */
export function normaliseContentType(t: string): string {
  const base = t.split(';')[0]!.trim().toLowerCase();
  return base === 'image/jpg' || base === 'image/pjpeg' ? 'image/jpeg' : base;
}

/**
 * The input's image type: its bytes when they can be read without consuming
 * the input (a Blob or byte array), else the caller's `contentType`, a Blob's
 * type, or the file name's extension. Undefined when nothing tells.
 */
export async function detectContentType(input: FileInput, hints: { contentType?: string | undefined; fileName?: string | undefined }): Promise<string | undefined> {
  if (input instanceof Uint8Array) {
    const t = sniffImageType(input.subarray(0, 16));
    if (t) return t;
  } else if (input instanceof Blob) {
    const t = sniffImageType(new Uint8Array(await input.slice(0, 16).arrayBuffer()));
    if (t) return t;
  }
  if (hints.contentType) return normaliseContentType(hints.contentType);
  if (input instanceof Blob && input.type) return normaliseContentType(input.type);
  const ext = hints.fileName?.toLowerCase().match(/\.([a-z0-9]+)$/)?.[1];
  return ext ? BY_EXTENSION[ext] : undefined;
}
