/**
 * Disk I/O of the engine: streaming inputs, and removal of temporary files left
 * by an interrupted run. Outputs, backups, manifests and reports are written
 * with `@pfc/node-io`'s durable atomic writes (re-exported here for hosts).
 */
import { createReadStream, readdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline as chain, Readable } from 'node:stream';
import type { FileInput } from '@pfc/core';
import { HashTap, NotRegularFileError, openInput } from '@pfc/node-io';
import { isPartialName } from './paths';

export { copyFileAtomic, DestinationExistsError, extendedAttributesAvailable, writeFileAtomic, writeStreamAtomic, type AtomicWriteOptions, type WrittenFile } from '@pfc/node-io';

/** Read size of input streams: a 1 MP photo in two reads rather than five of 64 KiB, memory still flat. */
const READ_CHUNK = 256 * 1024;

/**
 * A `FileInput` that opens a fresh stream from disk for every attempt, so an
 * upload can be retried and memory does not grow with the file's size.
 * `onRead` gets `sha256:<hex>` of each stream read to its end — the bytes
 * actually sent, without a second pass over the file. A path that is no
 * longer a regular file fails the attempt with `NotRegularFileError`.
 */
export function fileInputFromPath(path: string, onRead?: (hash: string) => void): FileInput {
  return async () => Readable.toWeb(await readFileStream(path, onRead)) as unknown as ReadableStream<Uint8Array>;
}

/** One read of the file at `path`, as `fileInputFromPath` streams it (`onRead` as there). */
export async function readFileStream(path: string, onRead?: (hash: string) => void): Promise<Readable> {
  const file = createReadStream(path, { fd: await openInput(path), highWaterMark: READ_CHUNK });
  if (!onRead) return file;
  const tap = new HashTap();
  // 'finish': the whole file went through (not after an error or a cancel).
  tap.once('finish', () => onRead(tap.digest()));
  // Errors reach the reader through `tap`; cancelling the reader destroys both.
  return chain(file, tap, () => undefined);
}

/** Remove temporary files that an interrupted run left in these folders. Returns the paths removed. */
export async function removePartials(dirs: Iterable<string>): Promise<string[]> {
  const removed: string[] = [];
  let listed = 0;
  for (const dir of new Set(dirs)) {
    // Listed synchronously (microseconds from the page cache; an asynchronous listing waited its turn in
    // libuv's threads, a second idle at 1,000 folders), with a turn of the event loop every few folders.
    if (++listed % FOLDERS_PER_TURN === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      if (!isPartialName(name)) continue;
      const p = join(dir, name);
      await rm(p, { force: true });
      removed.push(p);
    }
  }
  return removed;
}

/** Folders `removePartials` lists between two turns of the event loop. */
const FOLDERS_PER_TURN = 64;

/** The input file vanished or became unreadable during the run: final for this file, never retried as a connection error. */
export class InputUnreadableError extends Error {
  override name = 'InputUnreadableError';
  constructor(
    readonly path: string,
    /** The system's error code (ENOENT, EACCES…); `worthAnotherAttempt` treats it as a local error. */
    readonly code: string,
  ) {
    super(code === 'ENOENT' ? `the file was deleted or moved during the run (${code})` : `the file can no longer be read (${code})`);
  }
}

/**
 * Whether `path` can still be opened for reading. A failed upload checks this
 * before another attempt: a file deleted, locked or replaced by a pipe mid-run
 * surfaces in the upload as a broken stream, which would otherwise be retried
 * as a connection error.
 */
export async function unreadableInput(path: string): Promise<InputUnreadableError | NotRegularFileError | undefined> {
  try {
    const fh = await openInput(path);
    await fh.close();
    return undefined;
  } catch (err) {
    if (err instanceof NotRegularFileError) return err;
    return new InputUnreadableError(path, (err as NodeJS.ErrnoException).code ?? 'EIO');
  }
}
