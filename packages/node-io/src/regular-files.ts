/**
 * Inputs are read only when they are regular files. Opening a named pipe
 * waits in the kernel for a writer, where no signal handler of this process
 * runs: the run would hang, deaf to SIGTERM; reading a device may never end.
 * A batch's planning leaves such entries out from their stat, before anything is
 * opened; every open of an input also goes through here, non-blocking and
 * checked on the opened descriptor, because a path can be replaced by a pipe
 * between that stat and the open.
 */
import { closeSync, constants, fstatSync, openSync, statSync, type Stats } from 'node:fs';
import { type FileHandle, open, stat } from 'node:fs/promises';

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
  let fd: number;
  try {
    fd = openSync(path, READ_WITHOUT_WAITING);
  } catch (err) {
    throw refusedOpen(path, err, () => statSync(path, { throwIfNoEntry: false }));
  }
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
  let handle: FileHandle;
  try {
    handle = await open(path, READ_WITHOUT_WAITING);
  } catch (err) {
    const stats = isNoDevice(err) ? await stat(path).catch(() => undefined) : undefined;
    throw refusedOpen(path, err, () => stats);
  }
  try {
    const reason = notRegularReason(await handle.stat());
    if (reason) throw new NotRegularFileError(path, reason);
    return handle;
  } catch (err) {
    await handle.close();
    throw err;
  }
}

/**
 * open(2) refuses a socket with ENXIO (as it does a device whose driver is
 * missing), so there is no descriptor to check: the path's stat tells what it
 * is, and such a path is refused as no regular file, like a pipe or device.
 * Any other error is returned as it is.
 */
function refusedOpen(path: string, err: unknown, statOf: () => Stats | undefined): unknown {
  if (!isNoDevice(err)) return err;
  let reason: string | undefined;
  try {
    const stats = statOf();
    reason = stats && notRegularReason(stats);
  } catch {
    // Gone or unreadable meanwhile: the open's own error says enough.
  }
  return reason ? new NotRegularFileError(path, reason) : err;
}

function isNoDevice(err: unknown): boolean {
  return (err as NodeJS.ErrnoException | undefined)?.code === 'ENXIO';
}
