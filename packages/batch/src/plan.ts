/**
 * Planning: walk the inputs, pick what can be corrected by content, and map
 * each file to its output. Everything left out is listed with a reason. The
 * names-only first pass is `plan-survey.ts`; here the files are judged, unit by
 * unit, as a run takes them (`planStream`) or all at once (`planBatch`).
 */
import type { Dirent, Stats } from 'node:fs';
import { lstatSync, readdirSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import type { BackendKind, PfcParams } from '@pfc/core';
import { NotRegularFileError } from '@pfc/node-io';
import { BatchUsageError, throwIfCancelled } from './errors';
import { CLI_TERMS, type HostTerms, outputOverInputAdvice } from './host-terms';
import { limitViolation } from './limits';
import { livePhotoReason, livePhotoStills } from './live-photos';
import { Manifest, type ManifestEntry } from './manifest';
import { type LeftOutRecord, type SkipCode } from './left-out';
import { knownMediaLookup, type PlanOutput } from './plan-known';
import { isAnimatedPng } from './animation';
import { settleCollisions } from './collisions';
import { lstatOrUndefined, outputOwner, statAsWritten } from './decide';
import { BACKUP_DIR, DEFAULT_SUFFIX, formatChange, hasSuffix, type OutputMode, outputName, portableRelative, unreadableReason } from './paths';
import { isOwnFile, kindOf, type LeaveOut, outputFolderOf, type PlanTask, resolveRoots, type Root, type Survey, surveyInputs } from './plan-survey';
import { PathTable } from './path-table';
import { childPath, type KnownMedia, probe, probeAhead, type Probe } from './plan-probe';
import { realFilePaths, realPathOfSync } from './realpaths';
import { type MediaInfo, NOT_SUPPORTED, REPORT_PAGE } from './sniff';

export type { LeaveOut } from './plan-survey';

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
  /**
   * Why the host leaves a folder or file below an input folder out (e.g. VS
   * Code's `files.exclude`), or undefined to keep it. Asked by name before
   * anything is read; such a path is listed as skipped (code `hidden`, this
   * reason) and not counted in `StreamedPlan.expectedFiles`.
   */
  leaveOut?: LeaveOut;
  /**
   * Stops planning: the names-only pass between two folders, the planning of
   * the files (as `files` is iterated) between two files. `planStream`, or the
   * iteration, then rejects with `UserAbortError` (from `@pfc/core`), as
   * `runBatch` does when cancelled while it waits for a lock. A streamed plan
   * given to `runBatch` should get the run's signal too: a cancelled run then
   * stops planning at once (and counts the files not planned as cancelled),
   * rather than at the next file planned. Default: planning is not stopped.
   */
  signal?: AbortSignal;
  /** How the host names its choices (output folder, modes) in reasons and errors. Default `CLI_TERMS`, the CLI's flags. */
  terms?: HostTerms;
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

export type { SkipCode, SkippedPath } from './left-out';

export interface BatchPlan {
  files: PlannedFile[];
  /**
   * Every path left out, counted, the first ones kept (see `LeftOutRecord`). A whole plan also holds the
   * paths until a run reports them (`runBatch`'s `skipped` events), as it holds every file.
   */
  leftOut: LeftOutRecord;
  /** Folders holding manifests (mirror: output folders; suffix and in-place: input folders). */
  outputRoots: string[];
  mode: OutputMode;
  /** Sum of the planned files' sizes in bytes. */
  totalBytes: number;
  /** The manifests of `outputRoots` as planning read them; `runBatch` reuses each one still unchanged on disk once it holds the lock. */
  manifests?: ReadonlyMap<string, Manifest>;
  /** Earlier mirror runs' output folders found below the inputs and left out: a photo with the bytes of one of their results is not corrected again. */
  earlierOutputs?: readonly string[];
}

/**
 * A plan handed on as it is made (see `planStream`): the names-only first pass
 * is done (totals, output roots, folder rules); the files come unit by unit.
 */
export interface StreamedPlan {
  mode: OutputMode;
  /** Files the planner will judge, counted by name before any is read: the planned files are at most this many. */
  expectedFiles: number;
  /** Folders holding manifests of the inputs that have files to judge. */
  outputRoots: string[];
  /** Files counted in `expectedFiles` and left out so far (not an image, over a limit…). */
  progress: { leftOut: number };
  /**
   * Paths left out so far, counted, the first ones kept (see `LeftOutRecord`); complete once `files` is
   * exhausted. Each path is handed to the run as it is found (`runBatch`'s `skipped` events), not held.
   */
  leftOut: LeftOutRecord;
  /** The planned files, unit by unit (each unit settled for collisions before its files come). Iterate once. */
  files: AsyncIterable<PlannedFile>;
  /** Folders that outputs (and in-place backups) go to, from the first pass. */
  outputFolders: () => Iterable<string>;
  /** As `BatchPlan.manifests`. */
  manifests?: ReadonlyMap<string, Manifest>;
  /** As `BatchPlan.earlierOutputs`. */
  earlierOutputs?: readonly string[];
}

/**
 * Walk `options.inputs` and plan every correction. Throws `BatchUsageError` for missing inputs or unsafe outputs,
 * `UserAbortError` once `options.signal` aborts.
 */
export async function planBatch(options: PlanOptions): Promise<BatchPlan> {
  return collectPlan(await planStream(options), options);
}

/**
 * The whole plan of a streamed one (every file in memory): for hosts that must see every file before running.
 * `signal` stops the collection between two files handed on (rejecting with `UserAbortError`); a stream made
 * with the same signal (`PlanOptions.signal`) also stops planning within a folder.
 */
export async function collectPlan(stream: StreamedPlan, options: Pick<PlanOptions, 'signal'> = {}): Promise<BatchPlan> {
  const files: PlannedFile[] = [];
  throwIfCancelled(options.signal);
  for await (const f of stream.files) {
    throwIfCancelled(options.signal);
    files.push(f);
  }
  const outputRoots = [...new Set(files.map((f) => f.outputRoot))];
  const { leftOut, mode, manifests, earlierOutputs } = stream;
  return { files, leftOut, outputRoots, mode, totalBytes: files.reduce((n, f) => n + f.size, 0), ...(manifests ? { manifests } : {}), ...(earlierOutputs ? { earlierOutputs } : {}) };
}

/**
 * Plan as a stream: the names-only first pass runs now (throws `BatchUsageError`
 * for missing inputs or unsafe output folders, before anything is read), and
 * the files are planned as they are taken, one unit of folders at a time, so
 * a run starts its first job long before a large tree is planned.
 */
export async function planStream(options: PlanOptions): Promise<StreamedPlan> {
  const cwd = options.cwd ?? process.cwd();
  const mode: OutputMode = options.output ?? { kind: 'mirror' };
  const params = options.params ?? {};
  const { signal, terms = CLI_TERMS } = options;
  const roots = await resolveRoots(options.inputs.map((p) => resolve(cwd, p)), mode, cwd, terms);
  const backend = options.backend ?? 'web';
  const survey = await surveyInputs(roots, mode, options.leaveOut, signal, terms);
  if (mode.kind === 'mirror') refuseOutputFoldersOverInputs(survey, mode, terms);
  const manifests = await loadManifests(survey, mode);
  throwIfCancelled(signal);
  const progress = { leftOut: 0 };
  const walker = new Walker(mode, params, backend, knownMediaLookup(manifests, params, options.backendId ?? backend, mode.kind === 'in-place'), manifests, survey.leftOut, progress, options.leaveOut, signal, terms);
  return {
    mode, expectedFiles: survey.names, outputRoots: survey.outputRoots, leftOut: survey.leftOut, manifests, progress, earlierOutputs: survey.earlierOutputs,
    files: unitByUnit(survey, walker, mode, params, terms),
    outputFolders: () => outputFoldersOf(survey, mode),
  };
}

/** The planned files of each unit, settled (collisions, outputs over inputs) once its last folder is planned. */
async function* unitByUnit(survey: Survey, walker: Walker, mode: OutputMode, params: PfcParams, terms: HostTerms): AsyncGenerator<PlannedFile> {
  const open = new Map<number, Unit>();
  for (const task of survey.tasks) {
    let unit = open.get(task.unit);
    if (!unit) open.set(task.unit, (unit = { files: [], inputs: new Map() }));
    await walker.plan(task, unit);
    if (!task.last) continue;
    open.delete(task.unit);
    if (mode.kind !== 'in-place') {
      settleCollisions(unit.files, params, walker.suffix ?? '');
      refuseOutputsOverInputs(unit.files, unit.inputs, terms);
    }
    yield* unit.files;
  }
}

/** The files of one unit while it is planned, and its inputs by real path. */
interface Unit {
  files: PlannedFile[];
  inputs: Map<string, string>;
}

/**
 * Mirror mode: no folder's outputs may go to a folder that is an input folder
 * (through a link in the output tree). Refused before anything is planned, so
 * a streamed run never stops half-way for it.
 */
function refuseOutputFoldersOverInputs(survey: Survey, mode: OutputMode, terms: HostTerms): void {
  const inputs = new Map(survey.tasks.map((t) => [t.real, t.dir]));
  for (const t of survey.tasks) {
    const out = outputFolderOf(t.dir, t.root, mode);
    const hit = inputs.get(realPathOfSync(out));
    if (hit) throw new BatchUsageError(`the outputs of ${t.dir} would go to the input folder ${hit} (${out} leads there); ${outputOverInputAdvice(terms)}`, 'bad-output');
  }
}

/** Folders outputs and backups go to, one at a time. */
function* outputFoldersOf(survey: Survey, mode: OutputMode): Generator<string> {
  yield* survey.outputRoots;
  for (const t of survey.tasks) {
    yield outputFolderOf(t.dir, t.root, mode);
    if (mode.kind === 'in-place') yield join(t.root.base, BACKUP_DIR, relative(t.root.base, t.dir));
  }
}

/**
 * The manifest of each root's output folder, read once (a folder without one gives an empty manifest; an unreadable
 * one none): the inputs' roots and those the survey found below them (a subfolder an earlier run was asked about).
 */
async function loadManifests(survey: Survey, mode: OutputMode): Promise<Map<string, Manifest>> {
  const manifests = new Map<string, Manifest>();
  for (const { root: { outputRoot } } of survey.tasks) {
    if (manifests.has(outputRoot)) continue;
    const m = await Manifest.load(outputRoot, mode.kind).catch(() => undefined);
    if (m) manifests.set(outputRoot, m);
  }
  return manifests;
}

/** Plans the files of each task (a folder's own files, or a file given), judging each: planned, or left out with a reason. */
class Walker {
  readonly suffix: string | undefined;
  /**
   * Real paths of the files judged: one file reached through two paths is planned once.
   * Compact and exact (see `PathTable`): a `Set` of the paths grew the heap by ~100 bytes a file.
   */
  private readonly seen = new PathTable();
  /** Files judged since the event loop last had a turn. */
  private sinceYield = 0;

  constructor(
    private readonly mode: OutputMode,
    private readonly params: PfcParams,
    private readonly backend: BackendKind | 'emulator',
    /** The media of a file its manifest shows unchanged since it was corrected with these settings. */
    private readonly known: (path: string, info: Stats, plan: PlanOutput<PlannedFile>) => PlannedFile | undefined,
    /** The manifests by output root, as planning read them: they tell a suffix run's own results (see `suffixNamed`). */
    private readonly manifests: ReadonlyMap<string, Manifest>,
    /** Where paths left out go (the plan's record, which the names-only pass began). */
    private readonly record: LeftOutRecord,
    private readonly progress: StreamedPlan['progress'],
    /** The host's own exclusions (see `PlanOptions.leaveOut`). */
    private readonly leaveOut: LeaveOut | undefined,
    /** Stops planning between two files (see `PlanOptions.signal`). */
    private readonly signal: AbortSignal | undefined,
    private readonly terms: HostTerms,
  ) {
    this.suffix = mode.kind === 'suffix' ? (mode.suffix ?? DEFAULT_SUFFIX) : undefined;
  }

  private skip(path: string, code: SkipCode, reason: string): void {
    this.record.add(path, code, reason);
  }

  /** A file counted by the names-only pass that is pfc's own (a report page): not planned, and not listed as left out. */
  private ownFile(): void {
    this.progress.leftOut++;
  }

  /** A file counted by the names-only pass, judged and left out. */
  private leftOut(path: string, code: SkipCode, reason: string): void {
    this.skip(path, code, reason);
    this.progress.leftOut++;
  }

  /** Plan one task's files into `unit`. */
  async plan(task: PlanTask, unit: Unit): Promise<void> {
    throwIfCancelled(this.signal);
    const real = Promise.resolve(task.real);
    if (task.file) return this.consider(task.file, task.root, unit);
    let entries: Dirent[];
    try {
      // Synchronous, as the stats: a folder listing from the page cache takes microseconds, and each
      // asynchronous one waited its turn in libuv's threads (at 100,000 files in 1,000 folders, a second idle).
      entries = readdirSync(task.dir, { withFileTypes: true });
    } catch (err) {
      return this.skip(task.dir, 'unreadable', `folder cannot be read: ${unreadableReason(task.dir, err as Error)}`);
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    // Folders, and links the first pass reported, are not files of this task. Links to files come after the files:
    // a link beside its target ("latest.jpg" → "IMG_1234.jpg") leaves the file corrected under its own name.
    const files = linksLast(entries.filter((e) => !isOwnFile(e.name) && kindOf(e, childPath(task.dir, e.name)) === 'file'));
    // Not counted by the first pass, and never read.
    const hostLeftOut = (path: string): string | undefined => this.leaveOut?.(path, false);
    const probed = probeAhead(task.dir, this.leaveOut ? files.filter((e) => !hostLeftOut(childPath(task.dir, e.name))) : files, real, this.knownIn(task.root), this.suffix);
    const stills = livePhotoStills(files.map((e) => e.name));
    for (const e of files) {
      // Before the next file's reads are started (they run a few ahead, see `probeAhead`).
      throwIfCancelled(this.signal);
      const path = childPath(task.dir, e.name);
      const why = e.name.startsWith('.') ? 'hidden file' : hostLeftOut(path);
      if (why) this.skip(path, 'hidden', why);
      else await this.consider(path, task.root, unit, probed(path), stills.get(e.name));
      await this.giveTurn();
    }
  }

  /**
   * Judge one file and plan it into `unit`, or say why it is left out. `probed`: its reads, started ahead (else read
   * here, after the name's checks: a suffix result is never read). `still`: the photo whose Live Photo clip it may be.
   */
  private async consider(path: string, root: Root, unit: Unit, probed?: Promise<Probe>, still?: string): Promise<void> {
    const name = basename(path);
    const { suffix, mode } = this;
    if (suffix !== undefined && hasSuffix(name, suffix)) return this.suffixNamed(path, root, suffix);
    const p = await (probed ?? probe(path, undefined, this.knownIn(root)));
    if ('error' in p) return this.unreadable(path, p.error);
    const { info, media } = p;
    // A report page given as an input itself is listed: the user asked for it.
    if (!media) return p.unsupported === REPORT_PAGE && root.file !== path ? this.ownFile() : this.leftOut(path, 'unsupported', p.unsupported ?? NOT_SUPPORTED);
    if (still !== undefined && media.fileType === 'video') return this.leftOut(path, 'live-photo', livePhotoReason(still));
    if (mode.kind === 'in-place' && p.link) {
      return this.leftOut(path, 'symlink', `symbolic link: ${this.terms.inPlace} never replaces a link with a file; correct the file it points to, or use ${this.terms.renamingModes}`);
    }
    const changed = mode.kind === 'in-place' ? formatChange(name, media.format, this.params, this.terms) : undefined;
    if (changed) return this.leftOut(path, 'format-change', changed);
    // A file known from the manifest passed these checks when it was corrected with these settings.
    if (!p.known && media.format === 'png' && (await isAnimatedPng(path))) {
      return this.leftOut(path, 'unsupported', 'animated PNG: the service would keep only its first frame');
    }
    const resolved = await p.real;
    const real = resolved === path ? path : resolved;
    const before = this.seen.size;
    if (this.seen.add(real) < before) return this.leftOut(path, 'duplicate', p.link ? `symbolic link to ${real}, which is already planned` : 'already planned through another input');
    const violation = p.known ? undefined : limitViolation(media, info.size, this.params, this.backend);
    if (violation) return this.leftOut(path, 'over-limit', violation);
    unit.inputs.set(real, path);
    // A file known from the manifest was planned by the lookup that found it (not built twice).
    const file = p.known ?? plannedFile(path, root, mode, suffix, info, media, this.params);
    if (p.known) file.mediaFromManifest = true;
    unit.files.push(file);
  }

  /**
   * A file named as a suffix result is never corrected (its photo's result replaces it only when pfc wrote it, or
   * with `overwrite`: see decide.ts). pfc's own result, which the run's manifest records at this path with the size and mtime it was
   * written with, beside its photo, is not listed: that photo's "up to date" already tells of it, and a rerun of 1,000
   * corrected photos said "1000 left out" when nothing was. Stats first (as the decision trusts them): a rerun reads
   * no result but one of the recorded size with another time (copied with its folder, touched), whose bytes decide,
   * once (see `Manifest.restat`). Any other file so named is listed, with why: the user's own, a result changed
   * since, one whose photo is gone (then nothing else in the summary would tell of it), or one given as an input itself.
   */
  private async suffixNamed(path: string, root: Root, suffix: string): Promise<void> {
    const manifest = this.manifests.get(root.outputRoot);
    const entry = manifest?.get(path);
    if (!manifest || !entry) {
      // Not said to be the user's: it may be pfc's, recorded by a manifest this run does not plan with (another suffix's, a moved folder's).
      return this.skip(path, 'suffix-output', `ends with the output suffix "${suffix}" as pfc's results do, but this run's manifest does not record it: not corrected; if it is a photo of yours, rename it to have it corrected`);
    }
    const info = lstatOrUndefined(path);
    const changed = !info || (!statAsWritten(info, entry) && !(await this.writtenAsRecorded(path, info, entry, manifest)));
    const photoThere = lstatOrUndefined(resolve(manifest.dir, entry.input)) !== undefined;
    if (!changed && photoThere && root.file !== path) return;
    this.skip(path, 'suffix-output', changed
      ? `ends with the output suffix "${suffix}": pfc's result for ${entry.input}, but its size or date changed since pfc wrote it (recorded in ${manifest.path}); not corrected`
      : `ends with the output suffix "${suffix}": pfc's result for ${entry.input}${photoThere ? '' : ', which is no longer there (moved or deleted)'}; left as is, not corrected twice`);
  }

  /** Whether the file at `path`, of the recorded result's size but another time, has its bytes (`outputOwner` then restates it). */
  private async writtenAsRecorded(path: string, info: Stats, entry: ManifestEntry, manifest: Manifest): Promise<boolean> {
    if (info.size !== entry.outputSize) return false;
    return (await outputOwner(path, manifest, this.signal, entry).catch(() => 'foreign')) === 'ours';
  }

  /** A file that could not be judged: a pipe or device is not a photo (left out as any other non-photo), any other error a failure to read. */
  private unreadable(path: string, error: Error): void {
    if (error instanceof NotRegularFileError) this.leftOut(path, 'unsupported', error.message);
    else this.leftOut(path, 'unreadable', `cannot be read: ${unreadableReason(path, error)}`);
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
function refuseOutputsOverInputs(files: PlannedFile[], inputs: ReadonlyMap<string, string>, terms: HostTerms): void {
  const realOf = realFilePaths(false);
  for (const f of files) {
    const hit = inputs.get(realOf(f.output));
    if (!hit) continue;
    // A link among the photos to where a result goes (`latest.jpg` → `corrected/a.jpg`) is no photo of the
    // user's: it alone is left as is; the photo whose result it shows is corrected as any other.
    const link = isSymbolicLink(hit) ? files.find((g) => g.input === hit) : undefined;
    if (!link) throw new BatchUsageError(`the output of ${f.input} would overwrite the input ${hit}; ${outputOverInputAdvice(terms)}`, 'bad-output');
    link.refusal ??= `is a link to ${f.output}, where this run writes the result of ${f.input}; left as is: correcting it would correct that result again`;
  }
}

function isSymbolicLink(path: string): boolean {
  return lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink() ?? false;
}

/** Files planned between two turns of the event loop: a few milliseconds of synchronous reads. */
const FILES_PER_TURN = 256;

/** `entries` with the symbolic links after the rest, each part in its order. */
function linksLast(entries: Dirent[]): Dirent[] {
  return [...entries.filter((e) => !e.isSymbolicLink()), ...entries.filter((e) => e.isSymbolicLink())];
}
