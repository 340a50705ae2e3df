/**
 * Undoing `--in-place`: put the kept originals (`.pfc-originals/<rel>`) back
 * over the corrected files.
 *
 * Restoring never loses a file: a file is replaced only when it is pfc's own
 * result (the manifest's output hash) or is missing. A file changed since pfc
 * corrected it is left as is and reported skipped, with its original still in
 * the backups. Backups are kept after restoring (a later in-place run finds the
 * same original and does not copy it again). Earlier distinct originals stay in
 * `.pfc-originals/.history/` for restoring by hand.
 */
import { lstat, readdir } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { asDiskRefusal, BatchUsageError, DiskRefusedError } from './errors';
import { copyFileAtomic } from './files';
import { hashFile } from './hash';
import type { HostTerms } from './host-terms';
import { lockFolders } from './lock';
import { Manifest } from './manifest';
import { BACKUP_DIR, BACKUP_HISTORY_DIR, isInside, isPartialName } from './paths';
import { runHome } from './plan-survey';

export interface RestoreRequest {
  /** The folder that was corrected in place. */
  folder: string;
  /** Absolute paths of files under it; default: every file with a backup. */
  paths?: string[];
  /** How the host names its choices in `FolderLockedError`'s advice. Default `CLI_TERMS`. */
  terms?: HostTerms;
}

export interface RestoreOutcome {
  /** Files put back, each with the backup it came `from`. */
  restored: Array<{ path: string; from: string }>;
  /** Files left as they are, and why; `original` when the file already is its original (nothing to do, no fault). */
  skipped: Array<{ path: string; reason: string; original?: true }>;
  /**
   * Why the restore stopped before its last file: a disk that refuses writes (full, over quota,
   * read-only), on which each later file would fail the same way. A second restore once it is
   * fixed finishes the rest (files already back are skipped as `original`).
   */
  stoppedBecause?: string;
}

/** One file and the original kept for it. */
interface Candidate {
  path: string;
  backup: string;
  /** The folder holding the backup folder and the manifest. */
  root: string;
}

/**
 * Put the originals kept by in-place runs in `request.folder` back. Takes the
 * folder's run lock (throws `FolderLockedError` while a run writes there).
 *
 * @example
 * const { restored, skipped } = await restoreOriginals({ folder: '/photos' });
 */
export async function restoreOriginals(request: RestoreRequest, signal?: AbortSignal): Promise<RestoreOutcome> {
  const folder = resolve(request.folder);
  const info = await lstat(folder).catch(() => undefined);
  if (!info?.isDirectory()) throw new BatchUsageError(`no such folder: ${folder}`, 'not-found');
  const outcome: RestoreOutcome = { restored: [], skipped: [] };
  const candidates = await candidatesOf(folder, request.paths, outcome);
  const locks = await lockFolders(new Set(candidates.map((c) => c.root)), { ...(signal ? { signal } : {}), ...(request.terms ? { terms: request.terms } : {}) });
  try {
    const manifests = new Map<string, Manifest>();
    for (const c of candidates) {
      signal?.throwIfAborted();
      let manifest = manifests.get(c.root);
      if (!manifest) manifests.set(c.root, (manifest = await Manifest.load(c.root, 'in-place')));
      let reason: string | undefined;
      try {
        reason = await restoreOne(c, manifest, signal);
      } catch (err) {
        if (!(err instanceof DiskRefusedError)) throw err;
        outcome.stoppedBecause = err.message;
        break;
      }
      if (reason === ALREADY_ORIGINAL) outcome.skipped.push({ path: c.path, reason, original: true });
      else if (reason) outcome.skipped.push({ path: c.path, reason });
      else outcome.restored.push({ path: c.path, from: c.backup });
    }
  } finally {
    await locks.release();
  }
  return outcome;
}

/**
 * How many kept originals `restoreOriginals(request)` would put back or look
 * at, found as it finds them (at or below the folder, or in the earlier
 * in-place run's folder above it): 0 when the folder, or the files named,
 * never were corrected in place. Takes no lock and writes nothing, so a host
 * can say "nothing to restore" before asking to replace anything.
 */
export async function keptOriginals(request: Pick<RestoreRequest, 'folder' | 'paths'>): Promise<number> {
  return (await candidatesOf(resolve(request.folder), request.paths, { restored: [], skipped: [] })).length;
}

/** The files of `folder` (or the `paths` given) with a kept original; the paths without one go to `outcome.skipped`. */
async function candidatesOf(folder: string, paths: string[] | undefined, outcome: RestoreOutcome): Promise<Candidate[]> {
  // A folder below an earlier in-place run's keeps its originals in that run's folder (as `correct` does).
  const home = runHome(folder, 'in-place') ?? folder;
  return paths ? candidatesFor(folder, home, paths, outcome) : (await everyBackup(home)).filter((c) => isInside(c.path, folder));
}

const ALREADY_ORIGINAL = 'is already the original';

/** Restore one file; returns why not, or undefined when restored. */
async function restoreOne(c: Candidate, manifest: Manifest, signal?: AbortSignal): Promise<string | undefined> {
  const current = await lstat(c.path).catch(() => undefined);
  if (current?.isSymbolicLink()) return 'is a symbolic link; left as is';
  if (current && !current.isFile()) return 'is not a file; left as is';
  if (current) {
    const [now, original] = await Promise.all([hashFile(c.path, signal), hashFile(c.backup, signal)]);
    if (now === original) return ALREADY_ORIGINAL;
    // By its bytes (hashed just above), not its size and mtime: an edit that keeps both (a tag written in
    // place with `exiftool -P`, then `touch -r`) is the user's file, which the original must not replace.
    if (!manifest.wrote(c.path, now)) {
      return `changed since pfc corrected it; left as is (the original stays in ${c.backup})`;
    }
  }
  // The file's own tags, ratings and comments as they are now (the user may have changed them since the correction);
  // the kept original's where the file is gone. A full or read-only disk is said of the folder, not as the bare
  // ENOSPC; a rerun skips what is already back.
  await copyFileAtomic(c.backup, c.path, { signal, extendedAttributesFrom: current ? c.path : c.backup }).catch((err: unknown) => {
    throw asDiskRefusal(err, dirname(c.path));
  });
  return undefined;
}

/**
 * Every original kept by in-place runs on `folder` or on a folder below it
 * (each run keeps them in its own folder's `.pfc-originals/`), not the
 * history of earlier ones. A file with originals in two of them gets the
 * nearest one's, as a restore of that file by name does.
 */
async function everyBackup(folder: string): Promise<Candidate[]> {
  const byPath = new Map<string, Candidate>();
  for (const root of await inPlaceRoots(folder)) {
    for (const c of await backupsOf(root)) byPath.set(c.path, c);
  }
  return [...byPath.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** `folder` and the folders below it that hold a `.pfc-originals/` of their own, outermost first. */
async function inPlaceRoots(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true }).catch(() => []);
  const below = entries
    .filter((e) => e.name === BACKUP_DIR && e.isDirectory() && !e.parentPath.split(sep).includes(BACKUP_DIR))
    .map((e) => e.parentPath);
  return [folder, ...below.filter((d) => d !== folder).sort((a, b) => a.split(sep).length - b.split(sep).length)];
}

/** The originals kept in `root/.pfc-originals/`. */
async function backupsOf(root: string): Promise<Candidate[]> {
  const backupRoot = join(root, BACKUP_DIR);
  const entries = await readdir(backupRoot, { recursive: true, withFileTypes: true }).catch(() => []);
  const history = join(backupRoot, BACKUP_HISTORY_DIR);
  return entries
    .filter((e) => e.isFile() && !isPartialName(e.name))
    .map((e) => join(e.parentPath, e.name))
    .filter((backup) => !isInside(backup, history))
    .map((backup) => ({ backup, path: join(root, relative(backupRoot, backup)), root }));
}

/** The backups of given paths under `folder`: each looked up in the nearest `.pfc-originals/` from its folder up to `home`. */
async function candidatesFor(folder: string, home: string, paths: string[], outcome: RestoreOutcome): Promise<Candidate[]> {
  const found: Candidate[] = [];
  for (const given of paths) {
    const path = resolve(folder, given);
    if (!isInside(path, folder) || path === folder) {
      outcome.skipped.push({ path, reason: `not inside ${folder}` });
      continue;
    }
    const hit = await nearestBackup(home, path);
    if (hit) found.push({ path, ...hit });
    else outcome.skipped.push({ path, reason: `no original kept for it under ${join(home, BACKUP_DIR)}` });
  }
  return found;
}

async function nearestBackup(folder: string, path: string): Promise<{ backup: string; root: string } | undefined> {
  for (let root = dirname(path); isInside(root, folder); root = dirname(root)) {
    const backup = join(root, BACKUP_DIR, relative(root, path));
    const info = await lstat(backup).catch(() => undefined);
    if (info?.isFile()) return { backup, root };
    if (root === folder || root.split(sep).length <= 1) break;
  }
  return undefined;
}
