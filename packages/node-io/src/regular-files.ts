/**
 * Inputs are read only when they are regular files. Opening a named pipe
 * waits in the kernel for a writer, where no signal handler of this process
 * runs: the run would hang, deaf to SIGTERM; reading a device may never end.
 * A batch's planning leaves such entries out from their stat, before anything is
 * opened; every open of an input also goes through here, non-blocking and
 * checked on the opened descriptor, because a path can be replaced by a pipe
 * between that stat and the open.
 */
import { closeSync, constants, fstatSync, openSync } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';

/** The file types a stat or a folder entry tells apart (`Stats` and `Dirent` both are one). */
export interface FileType {
  isFile(): boolean;
  isDirectory(): boolean;
  isFIFO(): boolean;
  isSocket(): boolean;
  isCharacterDevice(): boolean;
  isBlockDevice(): boolean;
}

/** Why a path is not read, e.g. `not a regular file (a named pipe)`; undefined for a regular file. */
export function notRegularReason(type: FileType): string | undefined {
  const kind = type.isFile() ? undefined
    : type.isFIFO() ? 'a named pipe'
    : type.isSocket() ? 'a socket'
    : type.isCharacterDevice() ? 'a character device'
    : type.isBlockDevice() ? 'a block device'
    : type.isDirectory() ? 'a folder'
    : 'of an unknown type';
  return kind && `not a regular file (${kind})`;
}

/** An input that is not a regular file: left out (a batch's planning) or failed (a run), never read. Its message is `notRegularReason`'s. */
export class NotRegularFileError extends Error {
  override name = 'NotRegularFileError';
  constructor(
    readonly path: string,
    reason: string,
  ) {
    super(reason);
  }
}

/**
 * Read-only and non-blocking: a pipe opens at once instead of waiting for a
 * writer, and the descriptor's type is then checked. A regular file's reads
 * ignore the flag (Windows has no such flag, and no pipes among files).
 */
const READ_WITHOUT_WAITING = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/** Open `path` for reading; throws `NotRegularFileError` (after closing it) when it is no regular file, else what `openSync` throws. */
export function openInputSync(path: string): number {
  const fd = openSync(path, READ_WITHOUT_WAITING);
  try {
    const reason = notRegularReason(fstatSync(fd));
    if (reason) throw new NotRegularFileError(path, reason);
    return fd;
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}

/** `openInputSync` without blocking the event loop. */
export async function openInput(path: string): Promise<FileHandle> {
  const handle = await open(path, READ_WITHOUT_WAITING);
  try {
    const reason = notRegularReason(await handle.stat());
    if (reason) throw new NotRegularFileError(path, reason);
    return handle;
  } catch (err) {
    await handle.close();
    throw err;
  }
}
