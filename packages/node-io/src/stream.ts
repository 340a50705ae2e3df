/**
 * The streaming variant of the atomic write, and the one SHA-256 pass-through
 * used both for uploads read from disk and for results written to disk.
 */
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeWebStream } from 'node:stream/web';
import { writeAtomic, type AtomicWriteOptions } from './atomic';

/** A pass-through that counts and SHA-256-hashes the bytes flowing through it. */
export class HashTap extends Transform {
  readonly #hash = createHash('sha256');
  /** Bytes that went through so far. */
  bytes = 0;

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.#hash.update(chunk);
    this.bytes += chunk.length;
    done(null, chunk);
  }

  /** `sha256:<hex>` of everything that went through; once, after the end. */
  digest(): string {
    return `sha256:${this.#hash.digest('hex')}`;
  }
}

/** What a streamed write put on disk. */
export interface WrittenFile {
  /** Bytes written. */
  bytes: number;
  /** `sha256:<hex>` of the bytes. */
  hash: string;
}

/**
 * Stream `body` (a web or Node stream) into `dest` atomically and durably,
 * hashing the bytes on the way (no second pass over the file).
 *
 * @example
 * const { bytes, hash } = await writeStreamAtomic('out/a.jpg', response.body, { signal });
 */
export async function writeStreamAtomic(dest: string, body: ReadableStream<Uint8Array> | NodeJS.ReadableStream, options: AtomicWriteOptions<WrittenFile> = {}): Promise<WrittenFile> {
  return writeAtomic(dest, (tmp) => streamIntoNewFile(body, tmp, options.signal), options);
}

/**
 * Stream `body` (a web or Node stream) into the new file `path` (which must
 * not exist), hashing the bytes on the way: the produce step of
 * {@link writeStreamAtomic}, for callers that build a temporary file in
 * steps of their own inside `writeAtomic`.
 */
export async function streamIntoNewFile(body: ReadableStream<Uint8Array> | NodeJS.ReadableStream, path: string, signal?: AbortSignal): Promise<WrittenFile> {
  const source = body instanceof Readable || !('getReader' in body) ? (body as NodeJS.ReadableStream) : Readable.fromWeb(body as unknown as NodeWebStream<Uint8Array>);
  const tap = new HashTap();
  await pipeline(source, tap, createWriteStream(path, { flags: 'wx' }), { signal });
  return { bytes: tap.bytes, hash: tap.digest() };
}
