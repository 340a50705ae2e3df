/**
 * One run per output folder at a time: a lock file in each folder a run writes
 * its manifest to. Two runs on one folder would upload and correct every file
 * twice (billed twice on a paid account), remove each other's temporary files
 * and lose entries from the manifest, each keeping only its own.
 *
 * The lock is a file created with `O_EXCL` holding the owner's pid, host and
 * start time. A lock whose process is gone (same host, pid not alive) or whose
 * file is torn and old is stale: it is taken over by renaming it away first, so
 * of two runs taking over the same stale lock only one gets it.
 *
 * A folder the lock created (a run's new output folder) is removed again on
 * release when it is left empty: a run whose files all went elsewhere (a
 * subfolder given again below another input) leaves no empty folder behind.
 */
import { hostname } from 'node:os';
import { link, open, readFile, rename, rm, rmdir, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { defaultSleep } from '@pfc/core';
import { makeFolder, processAlive } from '@pfc/node-io';
import { asDiskRefusal, BatchUsageError, DiskRefusedError } from './errors';
import { type HostTerms, lockedAdvice } from './host-terms';
import { isInside, LOCK_FILE, type OutputMode } from './paths';

/** Who holds a lock (the lock file's content). */
export interface LockHolder {
  pid: number;
  host: string;
  /** ISO 8601 time the holder took the lock. */
  startedAt: string;
  /** The holder's output mode: `mirror` marks the folder as an output folder before its manifest exists. */
  mode?: OutputMode['kind'];
}

/** Another live run holds the lock of an output folder. */
export class FolderLockedError extends BatchUsageError {
  constructor(
    readonly lockPath: string,
    readonly holder: LockHolder | undefined,
    terms?: HostTerms,
  ) {
    super(`another pfc run is writing to ${join(lockPath, '..')}: ${describeHolder(holder)} (lock file ${lockPath}); ${lockedAdvice(terms)}`, 'locked');
    this.name = 'FolderLockedError';
  }
}

export interface LockOptions {
  /** Wait for the holder to finish instead of failing with `FolderLockedError`. Default false. */
  wait?: boolean;
  /** Called once per held lock when `wait` starts waiting. */
  onWait?: (lockPath: string, holder: LockHolder | undefined) => void;
  /** Poll interval while waiting, ms. Default 500. */
  pollMs?: number;
  /** The run's output mode, written into the lock (see `LockHolder.mode`). */
  mode?: OutputMode['kind'];
  signal?: AbortSignal;
  /** How the host names its choices in `FolderLockedError`'s advice. Default `CLI_TERMS`. */
  terms?: HostTerms;
}

/** Locks held by this process; `release` removes each lock file only while it is still this run's. */
export interface HeldLocks {
  readonly paths: readonly string[];
  release(): Promise<void>;
}

/** A lock file torn mid-write (no valid content) older than this is stale, in ms. */
const TORN_LOCK_STALE_MS = 10_000;

/** One folder's lock while it is taken and held. */
interface Lock {
  dir: string;
  path: string;
  /** The lock file's content once taken. */
  text?: string;
  /** The topmost folder this lock made (`dir` or a folder above it); undefined when `dir` was there. */
  created?: string;
}

/**
 * Take the lock of every folder (sorted, so two waiting runs cannot deadlock). Creates the folders;
 * `release` removes again the ones it created that are left empty.
 */
export async function lockFolders(dirs: Iterable<string>, options: LockOptions = {}): Promise<HeldLocks> {
  const held: Lock[] = [];
  const release = async (): Promise<void> => {
    for (const lock of held.splice(0).reverse()) {
      if (lock.text !== undefined) await releaseOne(lock.path, lock.text);
      await removeIfLeftEmpty(lock);
    }
  };
  let dir: string | undefined;
  try {
    for (dir of [...new Set(dirs)].sort()) {
      const lock: Lock = { dir, path: join(dir, LOCK_FILE) };
      held.push(lock);
      lock.text = await acquire(lock, options);
    }
  } catch (err) {
    await release();
    throw refusedByDisk(err, dir);
  }
  return { paths: held.map((l) => l.path), release };
}

/**
 * Remove the folders the lock created, from its own up, each only while it is
 * empty (`rmdir` refuses a folder with anything in it, so a file that arrives
 * meanwhile, or another run's lock, keeps it). A folder that was there stays.
 */
async function removeIfLeftEmpty({ dir, created }: Lock): Promise<void> {
  if (created === undefined) return;
  for (let folder = dir; isInside(folder, created); folder = dirname(folder)) {
    if (!(await rmdir(folder).then(() => true, () => false))) return;
  }
}

/** A folder whose disk is full or read-only cannot take its lock: said as the output check says it, before anything is done. */
function refusedByDisk(err: unknown, dir: string | undefined): unknown {
  const refusal = dir === undefined ? err : asDiskRefusal(err, dir);
  return refusal instanceof DiskRefusedError ? new BatchUsageError(`${refusal.message}; nothing was done`, 'bad-output') : err;
}

async function acquire(lock: Lock, options: LockOptions): Promise<string> {
  const { path } = lock;
  const holder: LockHolder = { pid: process.pid, host: hostname(), startedAt: new Date().toISOString(), ...(options.mode ? { mode: options.mode } : {}) };
  const text = `${JSON.stringify(holder)}\n`;
  let told = false;
  for (;;) {
    // Each try: the run waited for may have removed the folder, left empty; this run then makes it (and owns its removal).
    // Made durably: the results written into a new output folder survive a power cut only if its own entry does.
    lock.created ??= await makeFolder(lock.dir);
    if (await createExclusive(path, text)) return text;
    const current = await readHolder(path);
    if (current === 'gone') continue;
    if (await isStale(path, current.holder)) {
      await takeOver(path, current.raw);
      continue;
    }
    if (!options.wait) throw new FolderLockedError(path, current.holder, options.terms);
    if (!told) options.onWait?.(path, current.holder);
    told = true;
    await defaultSleep(options.pollMs ?? 500, options.signal);
  }
}

async function createExclusive(path: string, text: string): Promise<boolean> {
  try {
    const fh = await open(path, 'wx');
    try {
      await fh.writeFile(text);
      await fh.sync();
    } catch (err) {
      // Not left behind empty (a full disk): the next run would take it for a torn lock and wait it out.
      await rm(path, { force: true }).catch(() => undefined);
      throw err;
    } finally {
      await fh.close();
    }
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // ENOENT: the run that held the lock removed its folder, left empty, meanwhile; it is made again on the next try.
    if (code === 'EEXIST' || code === 'ENOENT') return false;
    throw err;
  }
}

async function readHolder(path: string): Promise<{ raw: string; holder: LockHolder | undefined } | 'gone'> {
  let raw: string;
  try {
    raw = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'gone';
    throw err;
  }
  return { raw, holder: parseHolder(raw) };
}

function parseHolder(raw: string): LockHolder | undefined {
  try {
    const v = JSON.parse(raw) as Partial<LockHolder>;
    if (typeof v.pid === 'number' && typeof v.host === 'string' && typeof v.startedAt === 'string') return v as LockHolder;
  } catch {
    // torn or foreign content: judged by age below
  }
  return undefined;
}

/** A holder on this host whose process is gone; a lock of another host is never judged stale here. */
async function isStale(path: string, holder: LockHolder | undefined): Promise<boolean> {
  if (!holder) {
    const info = await stat(path).catch(() => undefined);
    return info !== undefined && Date.now() - info.mtimeMs > TORN_LOCK_STALE_MS;
  }
  if (holder.host !== hostname()) return false;
  if (holder.pid === process.pid) return false;
  return !processAlive(holder.pid);
}

/**
 * Move the stale lock away under a name of our own, then check that what we
 * moved is the stale lock we judged; if another run took it over meanwhile,
 * put its live lock back.
 */
async function takeOver(path: string, staleRaw: string): Promise<void> {
  const aside = `${path}.${process.pid}-${Math.random().toString(36).slice(2, 8)}.stale`;
  try {
    await rename(path, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  const moved = await readFile(aside, 'utf8').catch(() => staleRaw);
  if (moved !== staleRaw) await link(aside, path).catch(() => undefined);
  await rm(aside, { force: true });
}

async function releaseOne(path: string, text: string): Promise<void> {
  const now = await readFile(path, 'utf8').catch(() => undefined);
  if (now === text) await rm(path, { force: true });
}

function describeHolder(holder: LockHolder | undefined): string {
  if (!holder) return 'holder unknown (the lock file cannot be read)';
  return `process ${holder.pid} on ${holder.host}, started ${holder.startedAt}`;
}
