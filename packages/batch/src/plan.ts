/**
 * Planning: walk the inputs, pick what can be corrected by content, and map
 * each file to its output. Everything left out is listed with a reason.
 */
import type { Dirent, Stats } from 'node:fs';
import { lstatSync, readdirSync, statSync } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve, sep } from 'node:path';
import type { BackendKind, PfcParams } from '@pfc/core';
import { BatchUsageError } from './errors';
import { limitViolation } from './limits';
import { isMirrorOutputFolder, Manifest } from './manifest';
import { knownMediaLookup, type PlanOutput } from './plan-known';
import { isAnimatedPng } from './animation';
import { settleCollisions } from './collisions';
import {
  BACKUP_DIR, commonAncestor, LOCK_FILE, MANIFEST_FILE, DEFAULT_OUTPUT_DIR, DEFAULT_SUFFIX, hasSuffix, isInside, isPartialName,
  type OutputMode, outputName, portableRelative,
} from './paths';
import { realFilePaths, realPathOf } from './realpaths';
import { type MediaInfo, sniffFileSync } from './sniff';

export interface PlanOptions {
  /** Files and folders to correct; relative paths resolve against `cwd`. */
  inputs: readonly string[];
  /** Where results go. Default `{ kind: 'mirror' }` (`<input>/corrected`). */
  output?: OutputMode;
  /** Parameters of the run: they decide output extensions and parameter-dependent limits. */
  params?: PfcParams;
  /** The backend that will run the jobs (videos need the Web API). Default `web`. */
  backend?: BackendKind | 'emulator';
  /** Base of relative inputs. Default `process.cwd()`. */
  cwd?: string;
  /**
   * The run's `backendId` (see `RunOptions.backendId`). Default `backend`. A file
   * the manifest records as made from its current size and mtime with these
   * settings is planned without reading its headers (a rerun reads no file).
   */
  backendId?: string;
}

/** One file to correct. All paths are absolute. */
export interface PlannedFile {
  input: string;
  output: string;
  /** Folder holding the manifest that records this output. */
  outputRoot: string;
  /** The input's path below the folder it was found in, `/`-separated (for messages and reports). */
  rel: string;
  /** Bytes. */
  size: number;
  mtimeMs: number;
  media: MediaInfo;
  /** In-place mode: where the original is kept. */
  backup?: string;
  /** Why the file is not corrected although planned: its output is another input's (see `settleCollisions`). */
  refusal?: string;
  /**
   * `media` was taken from the manifest (the file is unchanged since it was
   * corrected with these settings), not read from the headers: format by
   * extension, no pixel size. The run sniffs such a file before sending it.
   */
  mediaFromManifest?: true;
}

export type SkipCode = 'hidden' | 'output-folder' | 'unsupported' | 'over-limit' | 'symlink' | 'suffix-output' | 'duplicate' | 'unreadable';

/** A path left out of the plan, and why. */
export interface SkippedPath {
  path: string;
  code: SkipCode;
  reason: string;
}

export interface BatchPlan {
  files: PlannedFile[];
  skipped: SkippedPath[];
  /** Folders holding manifests (mirror: output folders; suffix and in-place: input folders). */
  outputRoots: string[];
  mode: OutputMode;
  /** Sum of the planned files' sizes in bytes. */
  totalBytes: number;
  /** The manifests of `outputRoots` as planning read them; `runBatch` reuses each one still unchanged on disk once it holds the lock. */
  manifests?: ReadonlyMap<string, Manifest>;
}

interface Root {
  /** The folder the input's tree starts at (a file's own folder for a file input). */
  base: string;
  outputRoot: string;
  /** The folder to walk, or a single file given directly. */
  dir?: string;
  file?: string;
}

/** Walk `options.inputs` and plan every correction. Throws `BatchUsageError` for missing inputs or unsafe outputs. */
export async function planBatch(options: PlanOptions): Promise<BatchPlan> {
  const cwd = options.cwd ?? process.cwd();
  const mode: OutputMode = options.output ?? { kind: 'mirror' };
  const params = options.params ?? {};
  const roots = await resolveRoots(options.inputs.map((p) => resolve(cwd, p)), mode, cwd);
  const backend = options.backend ?? 'web';
  const manifests = await loadManifests(roots, mode);
  const walker = new Walker(mode, params, backend, roots, knownMediaLookup(manifests, params, options.backendId ?? backend, mode.kind === 'in-place'));
  for (const root of roots) {
    if (root.file) await walker.consider(root.file, root);
    else if (root.dir) await walker.walk(root.dir, root, realPathOf(root.dir));
  }
  const { files, skipped } = walker;
  if (mode.kind !== 'in-place') {
    settleCollisions(files, params, walker.suffix ?? '');
    refuseOutputsOverInputs(files, walker.planned);
  }
  const outputRoots = [...new Set(files.map((f) => f.outputRoot))];
  return { files, skipped, outputRoots, mode, totalBytes: files.reduce((n, f) => n + f.size, 0), manifests };
}

/** The manifest of each root's output folder, read once (a folder without one gives an empty manifest; an unreadable one none). */
async function loadManifests(roots: readonly Root[], mode: OutputMode): Promise<Map<string, Manifest>> {
  const manifests = new Map<string, Manifest>();
  for (const { outputRoot } of roots) {
    if (manifests.has(outputRoot)) continue;
    const m = await Manifest.load(outputRoot, mode.kind).catch(() => undefined);
    if (m) manifests.set(outputRoot, m);
  }
  return manifests;
}

/** Walks input folders, judging each path: planned (`files`) or left out with a reason (`skipped`). */
class Walker {
  readonly files: PlannedFile[] = [];
  readonly skipped: SkippedPath[] = [];
  readonly suffix: string | undefined;
  /**
   * Real paths of the files judged: one file reached through two paths is planned once.
   * A file's real path is mostly its path: then the planned file's own string is the key (no copy, no hash).
   */
  private readonly seen = new Set<string>();
  /** The planned inputs, by their real path. */
  readonly planned = new Map<string, string>();
  /** This run's output folders, by path as given and by real path (a link to one is the same folder). */
  private readonly excluded: Set<string>;
  private readonly excludedReal: Promise<Set<string>>;
  /** Files judged since the event loop last had a turn. */
  private sinceYield = 0;

  constructor(
    private readonly mode: OutputMode,
    private readonly params: PfcParams,
    private readonly backend: BackendKind | 'emulator',
    roots: readonly Root[],
    /** The media of a file its manifest shows unchanged since it was corrected with these settings. */
    private readonly known: (path: string, info: Stats, plan: PlanOutput<PlannedFile>) => PlannedFile | undefined,
  ) {
    this.suffix = mode.kind === 'suffix' ? (mode.suffix ?? DEFAULT_SUFFIX) : undefined;
    const outs = mode.kind === 'mirror' ? roots.map((r) => r.outputRoot) : [];
    this.excluded = new Set(outs);
    this.excludedReal = Promise.all(outs.map((o) => realPathOf(o))).then((r) => new Set(r));
  }

  private skip(path: string, code: SkipCode, reason: string): void {
    this.skipped.push({ path, code, reason });
  }

  /** Judge one file and plan it, or say why it is left out. */
  async consider(path: string, root: Root, probed: Promise<Probe> = probe(path, undefined, this.knownIn(root))): Promise<void> {
    const name = basename(path);
    const { suffix, mode } = this;
    if (suffix !== undefined && hasSuffix(name, suffix)) return this.skip(path, 'suffix-output', `ends with the output suffix "${suffix}" (looks like a result of suffix mode: not corrected)`);
    const p = await probed;
    if ('error' in p) return this.skip(path, 'unreadable', `cannot be read: ${p.error.message}`);
    const { info, media } = p;
    if (!media) return this.skip(path, 'unsupported', 'not a JPEG, PNG, MP4 or MOV file (judged by content)');
    if (mode.kind === 'in-place' && p.link) {
      return this.skip(path, 'symlink', 'symbolic link: --in-place never replaces a link with a file; correct the file it points to, or use --out or --suffix');
    }
    // A file known from the manifest passed these checks when it was corrected with these settings.
    if (!p.known && media.format === 'png' && (await isAnimatedPng(path))) {
      return this.skip(path, 'unsupported', 'animated PNG: the service would keep only its first frame');
    }
    const resolved = await p.real;
    const real = resolved === path ? path : resolved;
    if (this.seen.has(real)) return this.skip(path, 'duplicate', 'already planned through another input');
    this.seen.add(real);
    const violation = p.known ? undefined : limitViolation(media, info.size, this.params, this.backend);
    if (violation) return this.skip(path, 'over-limit', violation);
    this.planned.set(real, path);
    // A file known from the manifest was planned by the lookup that found it (not built twice).
    const file = p.known ?? plannedFile(path, root, mode, suffix, info, media, this.params);
    if (p.known) file.mediaFromManifest = true;
    this.files.push(file);
  }

  /** Walk a folder (`real`: its real path), in name order. */
  async walk(dir: string, root: Root, real: Promise<string>): Promise<void> {
    let entries: Dirent[];
    try {
      // Synchronous, as the stats: a folder listing from the page cache takes microseconds, and each
      // asynchronous one waited its turn in libuv's threads (at 100,000 files in 1,000 folders, a second idle).
      entries = readdirSync(dir, { withFileTypes: true });
    } catch (err) {
      return this.skip(dir, 'unreadable', `folder cannot be read: ${(err as Error).message}`);
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    real.catch(() => undefined);
    const probed = this.probeAhead(dir, entries, real, this.knownIn(root));
    for (const e of entries) {
      const path = childPath(dir, e.name);
      const kind = await this.kindOf(e, path);
      if (kind === 'dir') await this.enterFolder(path, e.name, root, real);
      else if (kind === 'file') {
        // Temporary files of an interrupted run (the runner removes them), manifests and locks are not inputs.
        if (isPartialName(e.name) || e.name === MANIFEST_FILE || e.name.startsWith(LOCK_FILE)) continue;
        if (e.name.startsWith('.')) this.skip(path, 'hidden', 'hidden file');
        else await this.consider(path, root, probed(path));
        await this.giveTurn();
      }
    }
  }

  /**
   * The reads are synchronous, so a large folder would hold the event loop for
   * its whole planning: VS Code's extension host (progress, Cancel) and the
   * embedded emulator get a turn every {@link FILES_PER_TURN} files.
   */
  private async giveTurn(): Promise<void> {
    if (++this.sinceYield < FILES_PER_TURN) return;
    this.sinceYield = 0;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }

  /** The manifest lookup for files of `root`. */
  private knownIn(root: Root): KnownMedia {
    const { mode, suffix, params } = this;
    const plan: PlanOutput<PlannedFile> = (path, info, media) => plannedFile(path, root, mode, suffix, info, media, params);
    return (path, info) => this.known(path, info, plan);
  }

  /** A folder entry, following links to files (not to folders: they can loop or leave the tree). */
  private async kindOf(e: Dirent, path: string): Promise<'dir' | 'file' | 'other'> {
    if (!e.isSymbolicLink()) return e.isDirectory() ? 'dir' : e.isFile() ? 'file' : 'other';
    const target = await stat(path).catch(() => undefined);
    if (!target) return void this.skip(path, 'unreadable', 'broken symbolic link'), 'other';
    if (target.isDirectory()) return void this.skip(path, 'symlink', 'symbolic link to a folder (not followed)'), 'other';
    return 'file';
  }

  private async enterFolder(path: string, name: string, root: Root, parentReal: Promise<string>): Promise<void> {
    // A folder that is no link: its real path is its parent's plus its name.
    const real = parentReal.then((r) => join(r, name));
    if (name === BACKUP_DIR) this.skip(path, 'output-folder', 'originals kept by --in-place');
    else if (name.startsWith('.')) this.skip(path, 'hidden', 'hidden folder');
    else if (this.excluded.has(path) || (await this.excludedReal).has(await real.catch(() => path))) this.skip(path, 'output-folder', 'output folder of this run');
    else if (await isMirrorOutputFolder(path)) this.skip(path, 'output-folder', 'output folder of an earlier run (holds a manifest)');
    else await this.walk(path, root, real);
  }

  /**
   * The files' reads (stat, header, real path) run a few ahead of the walk, in order:
   * one at a time, a folder of small files spent most of its planning waiting on them.
   */
  private probeAhead(dir: string, entries: Dirent[], realDir: Promise<string>, known: KnownMedia): (path: string) => Promise<Probe> | undefined {
    const suffix = this.suffix;
    const ahead = new Map<string, Promise<Probe>>();
    const candidates = entries
      .filter((e) => e.isFile() && !e.name.startsWith('.') && !isPartialName(e.name) && e.name !== MANIFEST_FILE && !(suffix !== undefined && hasSuffix(e.name, suffix)))
      .map((e) => childPath(dir, e.name));
    let queued = 0;
    const fill = (): void => {
      while (queued < candidates.length && ahead.size < PROBES_AHEAD) {
        const path = candidates[queued++]!;
        ahead.set(path, probe(path, realDir, known));
      }
    };
    return (path) => {
      fill();
      const p = ahead.get(path);
      ahead.delete(path);
      fill();
      return p;
    };
  }
}

/** Where one input's result goes, in each mode. */
function plannedFile(path: string, root: Root, mode: OutputMode, suffix: string | undefined, info: Stats, media: MediaInfo, params: PfcParams): PlannedFile {
  const rel = portableRelative(root.base, path);
  const outName = outputName(basename(path), media.format, params, suffix ?? '');
  const output = mode.kind === 'in-place' ? path
    : mode.kind === 'suffix' ? join(dirname(path), outName)
    : join(root.outputRoot, dirname(rel), outName);
  const file: PlannedFile = { input: path, output, outputRoot: root.outputRoot, rel, size: info.size, mtimeMs: info.mtimeMs, media };
  if (mode.kind === 'in-place') file.backup = join(root.base, BACKUP_DIR, rel);
  return file;
}

/**
 * No output may land on an input, judged by real paths (a link in the output tree can lead back to the inputs).
 * `inputs`: the planned inputs by their real path (the walker resolved each once).
 */
function refuseOutputsOverInputs(files: PlannedFile[], inputs: ReadonlyMap<string, string>): void {
  const realOf = realFilePaths(false);
  for (const f of files) {
    const hit = inputs.get(realOf(f.output));
    if (hit) {
      throw new BatchUsageError(`the output of ${f.input} would overwrite the input ${hit}; choose another --out folder (or --in-place to replace originals)`, 'bad-output');
    }
  }
}

/** `dir`'s entry `name` (a folder entry's name holds no separator): `join` without its normalising pass, asked for every file. */
function childPath(dir: string, name: string): string {
  return dir.endsWith(sep) ? `${dir}${name}` : `${dir}${sep}${name}`;
}

/** How many files' reads planning runs ahead of the walk. */
const PROBES_AHEAD = 16;
/** Files planned between two turns of the event loop: a few milliseconds of synchronous reads. */
const FILES_PER_TURN = 256;

/** What planning reads of a file; an unreadable file is an `error`. `known`: the file as planned from the manifest (`media` came from it). */
type Probe = { info: Stats; media: MediaInfo | undefined; real: Promise<string>; link: boolean; known: PlannedFile | undefined } | { error: Error };

/** The file, planned, when its manifest records it as unchanged (see `knownMediaLookup`); else undefined. */
type KnownMedia = (path: string, info: Stats) => PlannedFile | undefined;

/** `realDir`: the real path of the file's folder, for a file that is not a symbolic link. */
async function probe(path: string, realDir: Promise<string> | undefined, known: KnownMedia): Promise<Probe> {
  try {
    // One call for a plain file (its own stat is the target's); a link's target needs a second.
    // Synchronous, as the sniff: a stat and a header read from the page cache take microseconds,
    // each asynchronous call a turn in libuv's four threads (most of a rerun's planning).
    const own = lstatSync(path);
    const link = own.isSymbolicLink();
    const info = link ? statSync(path) : own;
    // A link's manifest entry names the link, whose target may have been swapped: always sniffed.
    const remembered = link ? undefined : known(path, info);
    const media = remembered?.media ?? sniffFileSync(path);
    const real = realDir && !link ? realDir.then((d) => childPath(d, basename(path))) : realpath(path);
    // Awaited where it is needed (a failure there fails the plan, as before); never unhandled meanwhile.
    real.catch(() => undefined);
    return { info, media, real, link, known: remembered };
  } catch (err) {
    return { error: err as Error };
  }
}

async function resolveRoots(paths: string[], mode: OutputMode, cwd: string): Promise<Root[]> {
  if (paths.length === 0) throw new BatchUsageError('no input paths given', 'not-found');
  const stats = await Promise.all(paths.map((p) => stat(p).catch(() => undefined)));
  const missing = paths.filter((_, i) => !stats[i]);
  if (missing.length > 0) throw new BatchUsageError(`no such file or folder: ${missing.join(', ')}`, 'not-found');
  const bases = paths.map((p, i) => (stats[i]!.isDirectory() ? p : dirname(p)));
  const fixedOut = mode.kind === 'mirror' && mode.dir !== undefined ? resolve(cwd, mode.dir) : undefined;
  // With one --out folder for several inputs, the tree is mirrored from their common folder.
  const sharedBase = fixedOut ? commonAncestor(bases) : undefined;
  const roots: Root[] = [];
  for (const [i, p] of paths.entries()) {
    const base = sharedBase ?? bases[i]!;
    const outputRoot = mode.kind !== 'mirror' ? bases[i]! : fixedOut ?? join(bases[i]!, DEFAULT_OUTPUT_DIR);
    if (mode.kind === 'mirror') await refuseUnsafeOutputFolder(p, bases[i]!, stats[i]!.isDirectory(), outputRoot);
    roots.push(stats[i]!.isDirectory() ? { base, outputRoot, dir: p } : { base, outputRoot, file: p });
  }
  return roots;
}

/**
 * A mirror's output folder must not be the input folder nor hold the input,
 * judged on the paths as given and on their real paths: a link to the input
 * folder is the input folder.
 */
async function refuseUnsafeOutputFolder(input: string, base: string, isDir: boolean, outputRoot: string): Promise<void> {
  const [realBase, realOut, realInput] = await Promise.all([realPathOf(base), realPathOf(outputRoot), realPathOf(input)]);
  if (outputRoot === base || realOut === realBase) {
    const via = outputRoot === base ? '' : ` (${outputRoot} and ${base} are the same folder through a symbolic link)`;
    throw new BatchUsageError(`the output folder ${outputRoot} is the input folder${via}; choose another --out folder (or --in-place to replace originals)`, 'bad-output');
  }
  if (isDir && ((isInside(input, outputRoot) && input !== outputRoot) || isInside(realInput, realOut))) {
    throw new BatchUsageError(`the input ${input} is inside the output folder ${outputRoot}`, 'bad-output');
  }
}
