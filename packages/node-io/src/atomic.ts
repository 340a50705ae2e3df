/**
 * Durable atomic writes: the bytes go to a temporary file (in the destination's
 * folder, or another folder on the same file system), which is flushed to disk
 * (fsync), renamed over the destination, and the folder is flushed too so the
 * rename itself survives a power cut. A reader sees the old file or the whole
 * new one, never a half-written one; after a crash at any point the old file is
 * intact. Every write the user or a later run relies on goes through
 * {@link writeAtomic}; the buffer, stream and copy variants are thin wrappers.
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { type FileHandle, link, lstat, mkdir, open, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { openInput } from './regular-files';
import { copyExtendedAttributes } from './xattrs';

/** Suffix of temporary files; they are renamed into place when complete. */
export const TEMP_SUFFIX = '.pfc-partial';

/**
 * Bytes of the destination's name kept in a temporary name, so a stray temp
 * file still says what it was for while the whole name stays far below the
 * 255-byte limit of common file systems (ext4, APFS, NTFS) however long the
 * destination's name is.
 */
const TEMP_STEM_BYTES = 64;

export interface AtomicWriteOptions<T = unknown> {
  /** Abort the write; the temporary file is removed and the destination left as it was. */
  signal?: AbortSignal;
  /** File mode of the result (e.g. the original's, in in-place mode); default: the process umask's. */
  mode?: number;
  /**
   * Owner of the result (e.g. the original's, in in-place mode), as far as the
   * process may give it: root any, another user only a group it is in; what
   * it may not is left as created. Default: the process's.
   */
  owner?: { uid: number; gid: number };
  /** Access and modification times of the result (a copy that keeps the original's, as backups and restores do); default: now. */
  times?: { atime: Date; mtime: Date };
  /**
   * A file whose extended attributes (Finder tags, KDE ratings, ACLs…) the
   * result gets: the original it replaces in place, or the one it copies.
   * One the result cannot take fails the write (`ExtendedAttributeError`, see {@link copyExtendedAttributes}).
   */
  extendedAttributesFrom?: string;
  /**
   * Check the complete temporary file before it replaces the destination; throw
   * to refuse it. `produced` is what the write produced (the stream variant's
   * byte count and hash), so a check needs no second read of the file.
   */
  verify?: (tempPath: string, produced: T) => Promise<void>;
  /** Folder for the temporary file (same file system as the destination); default: the destination's folder. */
  tempDir?: string;
  /**
   * Flush file and folder to disk (fsync). Default true. Only scratch files that
   * do not outlive the process (the embedded emulator's own temporary store)
   * turn it off.
   */
  durable?: boolean;
  /**
   * Never replace an existing destination (asked after `verify`, so a check in
   * `verify` can decide it): the result is put in place with a hard link, which
   * the kernel refuses when the name exists, so a file that appears between a
   * caller's check and the write is never replaced; then the temporary name is
   * removed. Throws {@link DestinationExistsError}. On a file system without
   * hard links (FAT, some network mounts) the name is checked just before the
   * rename instead: the best such a file system allows.
   */
  exclusive?: boolean | (() => boolean);
}

/** {@link AtomicWriteOptions.exclusive}: the destination exists; nothing was written there. */
export class DestinationExistsError extends Error {
  override name = 'DestinationExistsError';
  readonly code = 'EEXIST';
  constructor(readonly path: string) {
    super(`${path} already exists; it was left as it is`);
  }
}

/**
 * A fresh temporary path for `dest`: hidden, unique per call, at most ~100
 * bytes long whatever the length of `dest`'s name.
 */
export function tempPathFor(dest: string, dir: string = dirname(dest)): string {
  const stem = truncateUtf8(basename(dest), TEMP_STEM_BYTES);
  const unique = `${process.pid.toString(36)}-${randomBytes(6).toString('hex')}`;
  return join(dir, `.${stem}.${unique}${TEMP_SUFFIX}`);
}

/** Whether a file name is one of the temporary files made by {@link tempPathFor}. */
export function isTempName(fileName: string): boolean {
  return fileName.startsWith('.') && fileName.endsWith(TEMP_SUFFIX);
}

/**
 * The one atomic-write mechanism. `produce` fills the temporary file whose path
 * it is given (with `writeFile`, a stream, a child process…) and returns any
 * value; then the file is flushed, given `mode`, checked by `verify`, renamed
 * over `dest`, and `dest`'s folder is flushed. On any error or abort the
 * temporary file is removed and `dest` is untouched.
 *
 * @example
 * await writeAtomic('out/a.mp4', (tmp) => encodeVideo(input, tmp));
 */
export async function writeAtomic<T>(dest: string, produce: (tempPath: string) => Promise<T>, options: AtomicWriteOptions<T> = {}): Promise<T> {
  const durable = options.durable ?? true;
  await makeFolder(dirname(dest), { durable });
  const tmp = tempPathFor(dest, options.tempDir);
  try {
    options.signal?.throwIfAborted();
    const result = await produce(tmp);
    await settleFile(tmp, options, durable);
    await options.verify?.(tmp, result);
    options.signal?.throwIfAborted();
    const exclusive = typeof options.exclusive === 'function' ? options.exclusive() : options.exclusive === true;
    await (exclusive ? placeExclusive(tmp, dest) : rename(tmp, dest));
    if (durable) await syncFolder(dirname(dest));
    return result;
  } catch (err) {
    await rm(tmp, { force: true }).catch(() => undefined);
    throw err;
  }
}

/**
 * Write `data` to `dest` atomically and durably (reports, manifests, preset files, stored uploads).
 *
 * @example
 * await writeFileAtomic('out/report.html', html);
 */
export function writeFileAtomic(dest: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): Promise<void> {
  return writeAtomic(dest, (tmp) => writeFile(tmp, data, { flag: 'wx', signal: options.signal }), options);
}

/** Read size of {@link copyFileAtomic}: a 1 MP photo in two reads rather than five of 64 KiB, memory still flat. */
const COPY_CHUNK = 256 * 1024;

/**
 * Copy the regular file at `src` to `dest` atomically and durably, with
 * `src`'s permissions, times, extended attributes (or those of
 * `extendedAttributesFrom`) and (as far as this process may give it) owner:
 * an in-place backup keeps them, so a restore gives the original back as it
 * was, not only its bytes. `src` is read through {@link openInput}, not
 * `copyFile`, whose open of a path swapped for a named pipe would wait for
 * ever; a source that is no regular file throws `NotRegularFileError`.
 *
 * @example
 * await copyFileAtomic('photo.jpg', '.pfc-originals/photo.jpg');
 */
export async function copyFileAtomic(src: string, dest: string, options: Pick<AtomicWriteOptions, 'signal' | 'tempDir' | 'durable' | 'exclusive' | 'extendedAttributesFrom'> = {}): Promise<void> {
  const handle = await openInput(src);
  try {
    const { mode, uid, gid, atime, mtime } = await handle.stat();
    const copy = (tmp: string): Promise<void> =>
      pipeline(handle.createReadStream({ autoClose: false, highWaterMark: COPY_CHUNK }), createWriteStream(tmp, { flags: 'wx' }), { signal: options.signal });
    await writeAtomic(dest, copy, { ...options, mode: mode & 0o7777, owner: { uid, gid }, times: { atime, mtime }, extendedAttributesFrom: options.extendedAttributesFrom ?? src });
  } finally {
    await handle.close();
  }
}

/**
 * Move a complete file that this process wrote elsewhere on the same file
 * system (e.g. an engine's scratch output) to `dest`: flushed, renamed, folder
 * flushed. `src` is gone afterwards, also on failure.
 */
export async function moveFileAtomic(src: string, dest: string, options: Pick<AtomicWriteOptions, 'durable' | 'mode'> = {}): Promise<void> {
  const durable = options.durable ?? true;
  try {
    await settleFile(src, options, durable);
    await rename(src, dest);
    if (durable) await syncFolder(dirname(dest));
  } catch (err) {
    await rm(src, { force: true }).catch(() => undefined);
    throw err;
  }
}

/**
 * Append `data` to a journal file (created when missing) and flush it to disk,
 * and the folder too when the file is new, so a line a later run relies on
 * (a manifest record) survives a power cut once this resolves.
 */
export async function appendFileDurable(path: string, data: string | Uint8Array): Promise<void> {
  const fh = await open(path, 'a');
  let created = false;
  try {
    created = (await fh.stat()).size === 0;
    await fh.appendFile(data);
    await fh.sync();
  } finally {
    await fh.close();
  }
  if (created) await syncFolder(dirname(path));
}

/** Put `tmp` in place as `dest` only if `dest` does not exist (see {@link AtomicWriteOptions.exclusive}). */
async function placeExclusive(tmp: string, dest: string): Promise<void> {
  try {
    await link(tmp, dest);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw new DestinationExistsError(dest);
    if (!isUnsupported(err) && code !== 'EMLINK' && code !== 'ENOSYS') throw err;
    if (await lstat(dest).then(() => true, () => false)) throw new DestinationExistsError(dest);
    await rename(tmp, dest);
    return;
  }
  await rm(tmp, { force: true });
}

/** Give the complete temporary file its extended attributes, owner, mode and times, and flush it to disk. */
async function settleFile(path: string, options: Pick<AtomicWriteOptions, 'mode' | 'owner' | 'times' | 'extendedAttributesFrom'>, durable: boolean): Promise<void> {
  const { mode, owner, times, extendedAttributesFrom } = options;
  // First: a `user.*` attribute needs write permission, which `mode` may take away.
  if (extendedAttributesFrom !== undefined) await copyExtendedAttributes(extendedAttributesFrom, path);
  if (mode === undefined && owner === undefined && times === undefined && !durable) return;
  // Through one handle: fchmod works even when `mode` makes the file read-only.
  const fh = await open(path, 'r+');
  try {
    // Before the mode: a change of owner clears set-user-ID bits.
    if (owner) await giveOwner(fh, owner);
    if (mode !== undefined) await fh.chmod(mode);
    // Last: nothing written after it changes the modification time.
    if (times) await fh.utimes(times.atime, times.mtime);
    if (durable) await fh.sync();
  } finally {
    await fh.close();
  }
}

/** The owner and group, else the group alone, else nothing: what the process may give (EPERM otherwise). */
async function giveOwner(fh: FileHandle, owner: { uid: number; gid: number }): Promise<void> {
  const now = await fh.stat();
  if (now.uid === owner.uid && now.gid === owner.gid) return;
  try {
    await fh.chown(owner.uid, owner.gid);
  } catch (err) {
    if (!isRefused(err)) throw err;
    if (now.gid !== owner.gid) await fh.chown(now.uid, owner.gid).catch((e: unknown) => {
      if (!isRefused(e)) throw e;
    });
  }
}

function isRefused(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === 'EPERM' || code === 'EINVAL' || code === 'ENOTSUP' || code === 'ENOSYS';
}

/**
 * Make `dir` and the folders above it that are missing, as `mkdir -p` does, and
 * (`durable`, the default) flush the entry of each one made into the folder
 * holding it: a file flushed with its own folder is not on disk after a power
 * cut if that folder's own entry never was (fsync(2): "an explicit fsync() on
 * a file descriptor for the directory is also needed"; ext4 happens to journal
 * it, other file systems need not). Returns the first folder made, as `mkdir`
 * does, or undefined when `dir` was there.
 */
export async function makeFolder(dir: string, options: { durable?: boolean } = {}): Promise<string | undefined> {
  const first = await mkdir(dir, { recursive: true });
  if (first === undefined || options.durable === false) return first;
  const top = resolve(first);
  // From the deepest new folder up to the one holding the first: each holds the entry of the one made inside it.
  for (let made = resolve(dir); ; made = dirname(made)) {
    await syncFolder(dirname(made));
    if (made === top || dirname(made) === made) break;
  }
  return first;
}

/**
 * Flush a folder's entries (the rename) to disk. Windows cannot open a folder
 * for flushing and commits renames itself (NTFS journals metadata), so there
 * the error is ignored.
 */
export async function syncFolder(dir: string): Promise<void> {
  let fh;
  try {
    fh = await open(dir, 'r');
  } catch (err) {
    if (process.platform === 'win32') return;
    throw err;
  }
  try {
    await fh.sync();
  } catch (err) {
    // Some file systems (certain network and FUSE mounts) refuse fsync on folders; the rename is done either way.
    if (!isUnsupported(err)) throw err;
  } finally {
    await fh.close();
  }
}

function isUnsupported(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === 'EINVAL' || code === 'ENOTSUP' || code === 'EISDIR' || code === 'EPERM' || code === 'EBADF';
}

/** The longest prefix of `text` whose UTF-8 encoding fits in `maxBytes`, never splitting a character. */
export function truncateUtf8(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text) <= maxBytes) return text;
  let out = '';
  let bytes = 0;
  for (const ch of text) {
    const size = Buffer.byteLength(ch);
    if (bytes + size > maxBytes) break;
    out += ch;
    bytes += size;
  }
  return out;
}
