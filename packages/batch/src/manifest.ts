/**
 * The manifest: one per output root, recording for each output the input's
 * content hash and the settings it was made with, so a rerun skips finished
 * work, redoes changed work and resumes after an interruption.
 *
 * It is a JSON-lines file (see `manifest-lines.ts`): a header line, settings
 * lines (each parameter set once), then one `done` line appended per finished
 * output. Appending keeps each update O(1) and survives `kill -9` (a torn last
 * line is ignored on load). When many lines are superseded (redone outputs,
 * `writing` notes of recorded results) or the file is of an older version,
 * `tidy` rewrites it to one line per output (temporary file + rename).
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import { Readable } from 'node:stream';
import type { PfcParams } from '@pfc/core';
import { appendFileDurable, makeFolder, writeStreamAtomic } from '@pfc/node-io';
import { hashValue } from './hash';
import { type FileStat, ManifestIndex, type RecordedStats } from './manifest-index';
import {
  doneLine, type HeaderLine, MANIFEST_VERSION, type ManifestEntry, parseLine, settingsLine, writingLine,
} from './manifest-lines';
import { LOCK_FILE, MANIFEST_FILE, type OutputMode, portableRelative } from './paths';

export { MANIFEST_VERSION, type ManifestEntry } from './manifest-lines';

/** The settings key of a backend and parameter set. */
export function settingsKey(backend: string, effectiveParams: PfcParams): string {
  return hashValue({ backend, params: effectiveParams });
}

/**
 * A file modified this recently may change again within its clock's resolution (two seconds on FAT) and keep its
 * size and time: its stat is not recorded as that of the bytes read (git's "racily clean" entries).
 */
const RACY_MS = 2_000;

/** Superseded lines that make `tidy` rewrite the file: at least this many… */
const TIDY_MIN_SUPERSEDED = 64;
/** …and at least this share of its lines. */
const TIDY_SHARE = 0.25;

/** A settings key known to the manifest; `written` once its line is in the file. */
interface Settings {
  id: number;
  key: string;
  backend: string;
  params: PfcParams;
  written: boolean;
}

export class Manifest {
  /** Absolute path of the manifest file. */
  readonly path: string;
  /** The recorded outputs, by path relative to `dir` (compact: see `ManifestIndex`). */
  private readonly entries = new ManifestIndex();
  /** Hashes of results being renamed into place and not yet recorded, by output: a kill between the rename and `record` leaves pfc's own file. */
  private readonly writing = new Map<string, Set<string>>();
  /** Settings by key; their parameter objects are shared by every entry of the key. */
  private readonly settings = new Map<string, Settings>();
  private queue: Promise<void> = Promise.resolve();
  private exists = false;
  /** Format version of the file on disk (0: no file). */
  private version = 0;
  /** `done` and `writing` lines in the file, superseded ones included. */
  private lines = 0;
  private nextId = 1;
  /** The file as it was when loaded (undefined: there was none), to tell whether another run has written it since. */
  private loaded: { size: number; mtimeMs: number; ino: number } | undefined;
  /** Recent folders' paths relative to `dir` (see `relOf`). */
  private readonly folderRel = new Map<string, string>();
  /** Whether this object has appended to or rewritten the file. */
  private wroteFile = false;
  /** Outputs whose stats `restat` changed that the file does not hold yet (at most: one recorded since counts too). */
  private restated = 0;

  private constructor(
    /** Folder the manifest describes (paths in entries are relative to it). */
    readonly dir: string,
    readonly mode: OutputMode['kind'],
  ) {
    this.path = join(dir, MANIFEST_FILE);
  }

  /** Load the manifest of `dir` (either format version), or start an empty one (nothing is written until the first `record`). */
  static async load(dir: string, mode: OutputMode['kind']): Promise<Manifest> {
    const m = new Manifest(resolve(dir), mode);
    let text: string;
    try {
      const before = await stat(m.path);
      text = await readFile(m.path, 'utf8');
      m.loaded = { size: before.size, mtimeMs: before.mtimeMs, ino: before.ino };
      m.exists = true;
    } catch {
      return m;
    }
    m.read(text);
    return m;
  }

  /**
   * Whether the file is still as this object read it and this object has written
   * nothing (so it can serve a run that took the lock after it was loaded). A
   * file changed since (another run finished meanwhile) must be loaded again.
   */
  async unchangedOnDisk(): Promise<boolean> {
    if (this.wroteFile) return false;
    const now = await stat(this.path).catch(() => undefined);
    if (!now || !this.loaded) return !now && !this.loaded;
    return now.size === this.loaded.size && now.mtimeMs === this.loaded.mtimeMs && now.ino === this.loaded.ino;
  }

  private read(text: string): void {
    const byId = new Map<number, Settings>();
    // Room for about as many entries as the file has lines (~290 bytes each), so the index grows once.
    this.entries.reserve(Math.ceil(text.length / 280));
    for (let at = 0; at < text.length;) {
      const nl = text.indexOf('\n', at);
      const end = nl < 0 ? text.length : nl;
      const rec = parseLine(text.slice(at, end));
      at = end + 1;
      if (!rec) continue;
      if ('type' in rec) {
        this.version = rec.version;
      } else if ('t' in rec) {
        byId.set(rec.s, this.intern(rec.key, rec.backend, rec.params, rec.s, true));
      } else if (rec.kind === 'done') {
        const settings = byId.get(rec.line.s);
        this.lines++;
        if (settings) this.entries.setLine(rec.line, settings);
      } else if (rec.kind === 'done-v1') {
        const { entry } = rec;
        this.lines++;
        const settings = this.intern(entry.settingsKey, entry.backend, entry.params, undefined, false);
        this.entries.set({ ...entry, params: settings.params }, settings);
      } else {
        this.lines++;
        this.addWriting(rec.output, rec.outputHash);
      }
    }
    // Entries recorded after a writing note of the same result supersede it.
    for (const rel of [...this.writing.keys()]) {
      const hash = this.entries.outputHashOf(rel);
      if (hash !== undefined) this.dropWriting(rel, hash);
    }
  }

  /** The settings of `key`, created on first use (`id` as read from the file, or the next free one). */
  private intern(key: string, backend: string, params: PfcParams, id: number | undefined, written: boolean): Settings {
    const known = this.settings.get(key);
    if (known) return known;
    const s: Settings = { id: id ?? this.nextId, key, backend, params, written };
    this.nextId = Math.max(this.nextId, s.id + 1);
    this.settings.set(key, s);
    return s;
  }

  /**
   * `path` (absolute) relative to the manifest's folder, `/`-separated. The
   * folder part is worked out once per folder (`path.relative` for every
   * planned file was a tenth of a rerun's time).
   */
  relOf(path: string): string {
    const cut = path.lastIndexOf(sep);
    if (cut <= 0) return portableRelative(this.dir, path);
    const folder = path.slice(0, cut);
    let rel = this.folderRel.get(folder);
    if (rel === undefined) {
      if (this.folderRel.size >= 64) this.folderRel.clear();
      rel = portableRelative(this.dir, folder);
      this.folderRel.set(folder, rel);
    }
    const name = path.slice(cut + 1);
    return rel ? `${rel}/${name}` : name;
  }

  /** Folders (relative, `/`-separated; '' for the manifest's own) holding recorded outputs; built on first use. */
  private outputFolders: Set<string> | undefined;

  /** Whether an output is recorded in `folder` (absolute): an earlier run wrote there. */
  recordsIn(folder: string): boolean {
    if (!this.outputFolders) {
      this.outputFolders = new Set();
      // The index's folders end at a path's last `/` or `\`: its `/`-folder is in that part.
      for (const f of this.entries.outputFolders()) this.outputFolders.add(f.slice(0, Math.max(0, f.lastIndexOf('/'))));
    }
    const rel = portableRelative(this.dir, folder);
    return this.outputFolders.has(rel === '.' ? '' : rel);
  }

  /** Number of outputs recorded. */
  get size(): number {
    return this.entries.size;
  }

  /** The entry for an output path (absolute). */
  get(output: string): ManifestEntry | undefined {
    return this.entries.get(this.relOf(output));
  }

  /** Whether `hash` is a result pfc wrote (or was renaming into place) at `output` (absolute). */
  wrote(output: string, hash: string): boolean {
    const rel = this.relOf(output);
    return this.entries.outputHashOf(rel) === hash || (this.writing.get(rel)?.has(hash) ?? false);
  }

  /**
   * The output (absolute) whose recorded result is `hash`, or undefined: a file
   * with these bytes under another name is a copy of pfc's result (renamed or
   * copied since), not a new original.
   */
  outputWithResult(hash: string): string | undefined {
    const rel = this.entries.outputWithResult(hash);
    return rel === undefined ? undefined : resolve(this.dir, rel);
  }

  /** Whether a result of `size` bytes is recorded here (a file of another size is no copy of one). */
  hasResultOfSize(size: number): boolean {
    return this.entries.hasResultOfSize(size);
  }

  /** Note, before it is renamed into place, the hash of a result about to be at `output` (absolute). Appends one line. */
  intend(output: string, outputHash: string): Promise<void> {
    const rel = this.relOf(output);
    this.addWriting(rel, outputHash);
    return this.enqueue(async () => {
      await this.ensureFile();
      await appendFileDurable(this.path, `${writingLine(rel, outputHash)}\n`);
      this.lines++;
    });
  }

  private addWriting(rel: string, hash: string): void {
    const set = this.writing.get(rel) ?? new Set<string>();
    set.add(hash);
    this.writing.set(rel, set);
  }

  private dropWriting(rel: string, hash: string): void {
    const set = this.writing.get(rel);
    if (!set?.delete(hash)) return;
    if (set.size === 0) this.writing.delete(rel);
  }

  /** Creates the file, or brings one of an older format version to today's before anything is appended to it. */
  private async ensureFile(): Promise<void> {
    if (this.exists && this.version === MANIFEST_VERSION) return;
    if (this.exists) return this.rewrite();
    await makeFolder(this.dir);
    await appendFileDurable(this.path, `${JSON.stringify(this.header())}\n`);
    this.exists = true;
    this.version = MANIFEST_VERSION;
  }

  /** Every entry, in recording order. */
  all(): ManifestEntry[] {
    return [...this.entries.values()];
  }

  /** Record a finished output (absolute `output` and `input` paths). Appends one line (two for a new settings key). */
  record(entry: Omit<ManifestEntry, 'output' | 'input'> & { output: string; input: string }): Promise<void> {
    const settings = this.intern(entry.settingsKey, entry.backend, entry.params, undefined, false);
    const { completedAt: _dropped, ...rest } = entry;
    const e: ManifestEntry = { ...rest, params: settings.params, output: this.relOf(entry.output), input: this.relOf(entry.input) };
    this.entries.set(e, settings);
    this.dropWriting(e.output, e.outputHash);
    return this.enqueue(async () => {
      await this.ensureFile();
      const head = settings.written ? '' : `${settingsLine(settings.id, settings.key, settings.backend, settings.params)}\n`;
      // Flushed: the output it records is already on disk, and a later run trusts this line.
      await appendFileDurable(this.path, `${head}${doneLine(e, settings.id)}\n`);
      settings.written = true;
      this.lines++;
    });
  }

  /**
   * New stats of a recorded output's input or result (absolute `output`), whose bytes the caller has just read and
   * found to be the recorded ones: a folder copied without its times (`cp -r`, an unzip, a restore from backup) had
   * every photo and result hashed again on every rerun, as their stats never matched again; from the next run they
   * do, as git refreshes its index. Kept in memory until `tidy`, at the end of the run (a stat lost to a kill costs
   * one more read). A file modified within {@link RACY_MS} is not restated.
   */
  restat(output: string, stats: RecordedStats): void {
    const settled = (f: FileStat | undefined): boolean => f === undefined || f.mtimeMs < Date.now() - RACY_MS;
    if (!settled(stats.input) || !settled(stats.output)) return;
    const rel = this.relOf(output);
    if (this.entries.setStats(rel, stats)) this.restated++;
  }

  /**
   * Write what `restat` changed, and rewrite the file with one line per output when many of its lines are superseded,
   * or it is of an older format version.
   */
  tidy(): Promise<void> {
    return this.enqueue(async () => {
      if (!this.exists) return;
      const restated = this.restated;
      this.restated = 0;
      const superseded = this.lines + restated - this.liveLines();
      const worth = superseded >= TIDY_MIN_SUPERSEDED && superseded >= TIDY_SHARE * (this.lines + restated);
      if (worth || this.version !== MANIFEST_VERSION) return this.rewrite();
      if (restated > 0) await this.appendRestated();
    });
  }

  /** The current lines of the outputs `restat` changed, appended in one durable write. */
  private async appendRestated(): Promise<void> {
    const lines: string[] = [];
    for (const rel of this.entries.takeRestated()) {
      const e = this.entries.get(rel)!;
      lines.push(doneLine(e, this.settings.get(e.settingsKey)!.id));
    }
    if (lines.length === 0) return;
    await appendFileDurable(this.path, `${lines.join('\n')}\n`);
    this.lines += lines.length;
  }

  /** Rewrite the file with one line per output (temporary file + rename), whatever its state. */
  compact(): Promise<void> {
    return this.enqueue(async () => {
      if (this.exists) await this.rewrite();
    });
  }

  private liveLines(): number {
    let n = this.entries.size;
    for (const hashes of this.writing.values()) n += hashes.size;
    return n;
  }

  /** Today's format, streamed to a temporary file and renamed over the manifest. */
  private async rewrite(): Promise<void> {
    const used = new Set<string>();
    for (const e of this.entries.values()) used.add(e.settingsKey);
    for (const s of this.settings.values()) s.written = used.has(s.key);
    await writeStreamAtomic(this.path, Readable.from(this.linesOfFile()));
    this.entries.clearRestated();
    this.version = MANIFEST_VERSION;
    this.lines = this.liveLines();
  }

  private *linesOfFile(): Generator<Buffer> {
    const chunk: string[] = [JSON.stringify(this.header())];
    const flush = (): Buffer => Buffer.from(`${chunk.splice(0).join('\n')}\n`);
    for (const s of this.settings.values()) if (s.written) chunk.push(settingsLine(s.id, s.key, s.backend, s.params));
    for (const e of this.entries.values()) {
      chunk.push(doneLine(e, this.settings.get(e.settingsKey)!.id));
      if (chunk.length >= 512) yield flush();
    }
    // Results renamed into place but never recorded (the run was killed between the two) stay known as pfc's.
    for (const [output, hashes] of this.writing) for (const h of hashes) chunk.push(writingLine(output, h));
    if (chunk.length > 0) yield flush();
  }

  /** Wait for pending writes. */
  flush(): Promise<void> {
    return this.enqueue(async () => undefined);
  }

  private header(): HeaderLine {
    return { type: 'header', format: 'pfc-manifest', version: MANIFEST_VERSION, mode: this.mode };
  }

  private enqueue(task: () => Promise<void>): Promise<void> {
    const next = this.queue.then(() => {
      this.wroteFile = true;
      return task();
    });
    this.queue = next.catch(() => undefined);
    return next;
  }
}

/**
 * Whether `dir` is the output folder of a mirror run (so not input): it holds
 * a mirror run's manifest, or the lock of a mirror run that has not written
 * its manifest yet (a first run still at its first files).
 * Synchronous inside: planning asks it of every folder, and a missing file is
 * answered in microseconds, where an asynchronous open waited its turn in libuv's threads.
 */
export async function isMirrorOutputFolder(dir: string): Promise<boolean> {
  const manifest = firstLine(join(dir, MANIFEST_FILE));
  if (manifest !== undefined) return modeOfHeader(manifest) === 'mirror';
  const lock = firstLine(join(dir, LOCK_FILE));
  if (lock === undefined) return false;
  try {
    return (JSON.parse(lock) as { mode?: unknown }).mode === 'mirror';
  } catch {
    return false;
  }
}

/** The mode of the run that wrote the manifest in `dir` (its header line); undefined where there is none, or it has no header. */
export function manifestModeOf(dir: string): OutputMode['kind'] | undefined {
  const line = firstLine(join(dir, MANIFEST_FILE));
  return line === undefined ? undefined : modeOfHeader(line);
}

function modeOfHeader(line: string): OutputMode['kind'] | undefined {
  const first = parseLine(line);
  return first !== undefined && 'type' in first ? first.mode : undefined;
}

/** The first line of a file (of its first 512 bytes), or undefined when it cannot be read. */
function firstLine(path: string): string | undefined {
  try {
    const fd = openSync(path, 'r');
    try {
      const buf = Buffer.alloc(512);
      return buf.subarray(0, readSync(fd, buf, 0, buf.length, 0)).toString('utf8').split('\n')[0] ?? '';
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
}
