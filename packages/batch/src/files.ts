/**
 * Disk I/O of the engine: streaming inputs, atomic outputs (temporary file +
 * rename, so no half-written file is ever visible under its final name), and
 * removal of temporary files left by an interrupted run.
 */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { chmod, copyFile, mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pipeline as chain, Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeWebStream } from 'node:stream/web';
import type { FileInput } from '@pfc/core';
import { isPartialName, partialPath } from './paths';

/** Read size of input streams: a 1 MP photo in two reads rather than five of 64 KiB, memory still flat. */
const READ_CHUNK = 256 * 1024;

/**
 * A `FileInput` that opens a fresh stream from disk for every attempt, so an
 * upload can be retried and memory does not grow with the file's size.
 * `onRead` gets `sha256:<hex>` of each stream read to its end — the bytes
 * actually sent, without a second pass over the file.
 */
export function fileInputFromPath(path: string, onRead?: (hash: string) => void): FileInput {
  return () => {
    const file = createReadStream(path, { highWaterMark: READ_CHUNK });
    if (!onRead) return Readable.toWeb(file) as unknown as ReadableStream<Uint8Array>;
    const tap = new HashTap();
    // 'finish': the whole file went through (not after an error or a cancel).
    tap.once('finish', () => onRead(tap.digest()));
    // Errors reach the reader through `tap`; cancelling the reader destroys both.
    return Readable.toWeb(chain(file, tap, () => undefined)) as unknown as ReadableStream<Uint8Array>;
  };
}

/** A pass-through that counts and SHA-256-hashes the bytes flowing through it. */
class HashTap extends Transform {
  readonly #hash = createHash('sha256');
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

export interface WrittenFile {
  /** Bytes written. */
  bytes: number;
  /** `sha256:<hex>` of the bytes. */
  hash: string;
}

export interface AtomicWriteOptions {
  signal?: AbortSignal;
  /** File mode of the result (e.g. the original's, in in-place mode). */
  mode?: number;
  /** Check the complete temporary file before it is renamed into place; throw to refuse it. */
  verify?: (tempPath: string) => Promise<void>;
}

/** Stream `body` into `dest` through a temporary file in the same folder, then rename. */
export async function writeStreamAtomic(dest: string, body: ReadableStream<Uint8Array>, options: AtomicWriteOptions = {}): Promise<WrittenFile> {
  await mkdir(dirname(dest), { recursive: true });
  const tmp = partialPath(dest);
  const tap = new HashTap();
  try {
    const source = Readable.fromWeb(body as unknown as NodeWebStream<Uint8Array>);
    await pipeline(source, tap, createWriteStream(tmp), { signal: options.signal });
    if (options.mode !== undefined) await chmod(tmp, options.mode);
    await options.verify?.(tmp);
    await rename(tmp, dest);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
  return { bytes: tap.bytes, hash: tap.digest() };
}

/** Write `data` to `dest` through a temporary file in the same folder (reports, manifests, preset files). */
export async function writeFileAtomic(dest: string, data: string | Uint8Array): Promise<void> {
  await mkdir(dirname(dest), { recursive: true });
  const tmp = partialPath(dest);
  try {
    await writeFile(tmp, data);
    await rename(tmp, dest);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}

/** Copy `src` to `dest` through a temporary file (for in-place backups). */
export async function copyFileAtomic(src: string, dest: string): Promise<void> {
  await mkdir(dirname(dest), { recursive: true });
  const tmp = partialPath(dest);
  try {
    await copyFile(src, tmp);
    await rename(tmp, dest);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}

/** Remove temporary files that an interrupted run left in these folders. Returns the paths removed. */
export async function removePartials(dirs: Iterable<string>): Promise<string[]> {
  const removed: string[] = [];
  for (const dir of new Set(dirs)) {
    const names = await readdir(dir).catch(() => [] as string[]);
    for (const name of names) {
      if (!isPartialName(name)) continue;
      const p = join(dir, name);
      await rm(p, { force: true });
      removed.push(p);
    }
  }
  return removed;
}
