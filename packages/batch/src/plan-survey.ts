/**
 * Planning's first pass: names only. It walks the input folders without
 * reading any file, applies the folder rules (output folders, hidden folders,
 * links to folders), counts the files a run will look at (a true total for
 * progress before any header is read), and groups the folders into units:
 * folders whose outputs can meet (one real output folder, case-folded, or an
 * output folder that is another's input folder) are settled together, every
 * other folder on its own. The second pass (`plan.ts`) then plans one unit at
 * a time, so the first job can start long before a large tree is planned.
 */
import type { Dirent, Stats } from 'node:fs';
import { lstatSync, readdirSync, readlinkSync, statSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { dirname, extname, join, relative, resolve } from 'node:path';
import { appFolderReason } from './app-folders';
import { BatchUsageError, throwIfCancelled } from './errors';
import { CLI_TERMS, type HostTerms, outputOverInputAdvice } from './host-terms';
import { isMirrorOutputFolder, manifestModeOf } from './manifest';
import {
  BACKUP_DIR, commonAncestor, DEFAULT_OUTPUT_DIR, DEFAULT_SUFFIX, FORMAT_OF_EXTENSION, hasSuffix, isInside, isPartialName, LOCK_FILE, MANIFEST_FILE, type OutputMode, unreadableReason,
} from './paths';
import { LeftOutRecord, type SkipCode } from './left-out';
import { REPORT_FILES_MARKER } from './report-store';
import { realPathOf, realPathOfSync } from './realpaths';
import { notRegularReason } from '@pfc/node-io';

/** One input as given: a folder's tree or a single file, and where its outputs go. */
export interface Root {
  /** The folder the input's tree starts at (a file's own folder for a file input). */
  base: string;
  outputRoot: string;
  /** The folder to walk, or a single file given directly. */
  dir?: string;
  file?: string;
}

/** One step of the second pass: a folder's own files (not its subfolders), or a single file given as input. */
export interface PlanTask {
  root: Root;
  /** The folder listed, or the given file's folder. */
  dir: string;
  /** The file given directly, when the task is one file. */
  file?: string;
  /** Real path of `dir`. */
  real: string;
  /** The unit the task belongs to: files of one unit are settled together. */
  unit: number;
  /** Whether this is the unit's last task (its files are settled and handed on after it). */
  last: boolean;
}

/** What the names-only pass found. */
export interface Survey {
  tasks: PlanTask[];
  /**
   * Folders left out (and links to folders, broken links, pipes and devices named like photos), with their
   * reasons: the plan's record, which the planning of the files goes on with.
   */
  leftOut: LeftOutRecord;
  /** Files the second pass will judge (found by name: some may then be left out, e.g. not an image). */
  names: number;
  /** Output roots of the inputs that have files to judge. */
  outputRoots: string[];
  /** Output folders of earlier mirror runs found below the inputs (left out), the first {@link EARLIER_OUTPUTS_KEPT}. */
  earlierOutputs: string[];
}

/**
 * Earlier output folders a survey names for the run to ask whether a photo is a copy of their results: a tree
 * holds one per folder once corrected, rarely more than a few; each is a manifest read when a file is judged.
 */
export const EARLIER_OUTPUTS_KEPT = 100;

/**
 * Why the host leaves a path below an input folder out (e.g. VS Code's
 * `files.exclude`), or undefined. Asked by name, before anything is read.
 */
export type LeaveOut = (path: string, isFolder: boolean) => string | undefined;

/**
 * Resolve the inputs to roots; throws `BatchUsageError` for inputs that cannot be reached and unsafe output folders
 * (its advice in the host's `terms`).
 */
export async function resolveRoots(paths: string[], mode: OutputMode, cwd: string, terms: HostTerms = CLI_TERMS): Promise<Root[]> {
  if (paths.length === 0) throw new BatchUsageError('no input paths given', 'not-found');
  const stats = reachedInputs(paths, await Promise.all(paths.map((p) => stat(p).catch((err: NodeJS.ErrnoException) => err))));
  const bases = paths.map((p, i) => (stats[i]!.isDirectory() ? p : dirname(p)));
  const fixedOut = mode.kind === 'mirror' && mode.dir !== undefined ? resolve(cwd, mode.dir) : undefined;
  // With one --out folder for several inputs, the tree is mirrored from their common folder.
  const sharedBase = fixedOut ? commonAncestor(bases) : undefined;
  const roots: Root[] = [];
  for (const [i, p] of paths.entries()) {
    // In place or with a suffix, a folder below an earlier run's is that run's: its records know the results there.
    const home = runHome(bases[i]!, mode.kind);
    // In place, the originals are kept by their path below the home; a suffix run's results stand beside their
    // photos, which are named (in what the run prints) from the input as given.
    const base = (mode.kind === 'in-place' ? home : undefined) ?? sharedBase ?? bases[i]!;
    const outputRoot = home ?? (mode.kind !== 'mirror' ? bases[i]! : fixedOut ?? join(bases[i]!, DEFAULT_OUTPUT_DIR));
    if (mode.kind === 'mirror') await refuseUnsafeOutputFolder(p, bases[i]!, stats[i]!.isDirectory(), outputRoot, terms);
    roots.push(stats[i]!.isDirectory() ? { base, outputRoot, dir: p } : { base, outputRoot, file: p });
  }
  return roots;
}

/**
 * The inputs' stats, or a `BatchUsageError` naming every input that cannot be
 * reached: the ones that do not exist together, the others each with its
 * reason (a link that loops or leads nowhere, as a folder's own links are
 * reported, or a folder on the way that may not be entered).
 */
function reachedInputs(paths: readonly string[], stats: readonly (Stats | NodeJS.ErrnoException)[]): Stats[] {
  const missing: string[] = [];
  const unreachable: string[] = [];
  for (const [i, path] of paths.entries()) {
    const err = stats[i]!;
    if (!(err instanceof Error)) continue;
    if (err.code === 'ELOOP' || isSymbolicLink(path)) unreachable.push(`${path}: ${unfollowedLinkReason(path, err)}`);
    else if (err.code === 'ENOENT' || err.code === 'ENOTDIR') missing.push(path);
    else unreachable.push(`${path}: cannot be read: ${unreadableReason(path, err)}`);
  }
  const problems = [...(missing.length > 0 ? [`no such file or folder: ${missing.join(', ')}`] : []), ...unreachable];
  if (problems.length > 0) throw new BatchUsageError(problems.join('; '), 'not-found');
  return stats.filter((s): s is Stats => !(s instanceof Error));
}

function isSymbolicLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * The nearest folder, `dir` itself or one above it, that an earlier run of this
 * mode was asked about (see {@link isRunHome}); undefined when none, and always
 * in mirror mode (its records are in its output folder, not above the inputs).
 * A run on a subfolder of it takes it as the root: its manifest knows the
 * results there (in place, they are not new originals to correct again; with a
 * suffix, the results beside the photos are pfc's, not the user's files to
 * refuse), and in place the originals stay where `pfc restore` of it, or of
 * the subfolder, finds them.
 */
export function runHome(dir: string, kind: OutputMode['kind']): string | undefined {
  if (kind === 'mirror') return undefined;
  for (let d = resolve(dir); ; d = dirname(d)) {
    if (isRunHome(d, kind)) return d;
    if (dirname(d) === d) return undefined;
  }
}

/**
 * Whether an earlier run of this mode was asked about `dir` and keeps its records of the results below it
 * there: in place, the originals it kept (`.pfc-originals/`, beside its manifest); with a suffix, its manifest
 * (a suffix run's manifest is in the folder it was asked about, and nowhere else). A run on a folder above or
 * below it then plans that folder's files with those records: one manifest of record for each result.
 */
function isRunHome(dir: string, kind: OutputMode['kind']): boolean {
  if (kind === 'in-place') return statSync(join(dir, BACKUP_DIR), { throwIfNoEntry: false })?.isDirectory() === true;
  return kind === 'suffix' && manifestModeOf(dir) === 'suffix';
}

/**
 * A mirror's output folder must not be the input folder nor hold the input,
 * judged on the paths as given and on their real paths: a link to the input
 * folder is the input folder.
 */
async function refuseUnsafeOutputFolder(input: string, base: string, isDir: boolean, outputRoot: string, terms: HostTerms): Promise<void> {
  const [realBase, realOut, realInput] = await Promise.all([realPathOf(base), realPathOf(outputRoot), realPathOf(input)]);
  if (outputRoot === base || realOut === realBase) {
    const via = outputRoot === base ? '' : ` (${outputRoot} and ${base} are the same folder through a symbolic link)`;
    throw new BatchUsageError(`the output folder ${outputRoot} is the input folder${via}; ${outputOverInputAdvice(terms)}`, 'bad-output');
  }
  if (isDir && ((isInside(input, outputRoot) && input !== outputRoot) || isInside(realInput, realOut))) {
    throw new BatchUsageError(`the input ${input} is inside the output folder ${outputRoot}`, 'bad-output');
  }
}

/** Where the outputs of the files in `dir` go (their folder), in each mode. */
export function outputFolderOf(dir: string, root: Root, mode: OutputMode): string {
  return mode.kind === 'mirror' ? join(root.outputRoot, relative(root.base, dir)) : dir;
}

/**
 * Walk the inputs' folders by name (no file is opened) and cut the work into units.
 * Throws `UserAbortError` once `signal` aborts, between two folders. `terms`: the host's names in reasons.
 */
export async function surveyInputs(roots: readonly Root[], mode: OutputMode, leaveOut?: LeaveOut, signal?: AbortSignal, terms: HostTerms = CLI_TERMS): Promise<Survey> {
  const survey = new Surveyor(mode, roots, leaveOut, signal, terms);
  for (const root of roots) {
    if (root.file) survey.addFile(root);
    else if (root.dir) await survey.walk(root.dir, root, realPathOfSync(root.dir));
  }
  return survey.finish();
}

/**
 * A folder of this run's own: its output folder (a mirror's, met below the input), or the originals an
 * in-place run keeps. Never walked as input, and not listed as left out either: the user did not ask to
 * correct it, so counting it among the paths left out (a rerun's "1 left out: corrected") only says
 * something is amiss when nothing is. Another run's output folder or kept originals is still listed.
 */
const OWN_FOLDER = Symbol('own folder');

class Surveyor {
  private readonly tasks: Omit<PlanTask, 'unit' | 'last'>[] = [];
  private readonly leftOut = new LeftOutRecord();
  private readonly earlierOutputs: string[] = [];
  private names = 0;
  private readonly rootsWithNames = new Set<string>();
  private readonly suffix: string | undefined;
  /** This run's output folders, by path as given and by real path (a link to one is the same folder). */
  private readonly excluded: Set<string>;
  private readonly excludedReal: Set<string>;
  private sinceTurn = 0;

  constructor(
    private readonly mode: OutputMode,
    roots: readonly Root[],
    private readonly leaveOut: LeaveOut | undefined,
    private readonly signal: AbortSignal | undefined,
    private readonly terms: HostTerms,
  ) {
    this.suffix = mode.kind === 'suffix' ? (mode.suffix ?? DEFAULT_SUFFIX) : undefined;
    const outs = mode.kind === 'mirror' ? roots.map((r) => r.outputRoot) : [];
    this.excluded = new Set(outs);
    this.excludedReal = new Set(outs.map((o) => realPathOfSync(o)));
  }

  private skip(path: string, code: SkipCode, reason: string): void {
    this.leftOut.add(path, code, reason);
  }

  addFile(root: Root): void {
    const file = root.file!;
    const dir = dirname(file);
    this.tasks.push({ root, dir, file, real: realPathOfSync(dir) });
    this.count(root);
  }

  private count(root: Root): void {
    this.names++;
    this.rootsWithNames.add(root.outputRoot);
  }

  /** List `dir` (real path `real`): count its files, record it as a task, then walk its subfolders in name order. `top`: an input folder itself. */
  async walk(dir: string, root: Root, real: string, top = true): Promise<void> {
    throwIfCancelled(this.signal);
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch (err) {
      return this.skip(dir, 'unreadable', `folder cannot be read: ${unreadableReason(dir, err as Error)}`);
    }
    // A report's companion folder (`--report` inside an input folder) holds pfc's thumbnails and data only: its own,
    // neither walked nor listed (a rerun listed 200 thumbnails, "WebP image: save it as JPEG or PNG to correct it").
    if (!top && entries.some((e) => e.name === REPORT_FILES_MARKER && e.isFile())) return;
    // Judged from the listing: only a folder holding a manifest or a lock is opened to see whose it is.
    if (!top && entries.some((e) => e.name === MANIFEST_FILE || e.name === LOCK_FILE) && (await isMirrorOutputFolder(dir))) {
      if (this.earlierOutputs.length < EARLIER_OUTPUTS_KEPT) this.earlierOutputs.push(dir);
      return this.skip(dir, 'output-folder', 'output folder of an earlier run (holds a manifest)');
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    // Its files keep their names from the input as given (what the run prints), save in place: originals are kept by their path below their home.
    if (!top && this.isHomeBelow(dir, entries)) root = { base: this.mode.kind === 'in-place' ? dir : root.base, outputRoot: dir, dir };
    this.tasks.push({ root, dir, real });
    const folders: string[] = [];
    for (const e of entries) {
      const kind = kindOf(e, join(dir, e.name), (code, reason) => this.skip(join(dir, e.name), code, reason));
      if (kind === 'dir') folders.push(e.name);
      // A file the host leaves out is not counted here; the second pass lists it as left out.
      else if (kind === 'file' && isJudged(e.name, this.suffix) && !this.leaveOut?.(join(dir, e.name), false)) this.count(root);
    }
    // Synchronous listings: the event loop (VS Code's progress and Cancel, a host's abort) gets a turn every few folders.
    if (++this.sinceTurn >= FOLDERS_PER_TURN) {
      this.sinceTurn = 0;
      await new Promise<void>((r) => setImmediate(r));
    }
    for (const name of folders) {
      const path = join(dir, name);
      // A folder that is no link: its real path is its parent's plus its name.
      const why = this.folderLeftOut(path, name, join(real, name));
      if (why === OWN_FOLDER) continue;
      if (why) this.skip(path, why[0], why[1]);
      else await this.walk(path, root, join(real, name), false);
    }
  }

  /**
   * Whether a folder below the input was the input of an earlier run of this mode on that folder alone (see
   * {@link isRunHome}): the folder is then a root of its own, its manifest knowing its results (in place, they
   * are not new originals to correct again; with a suffix, they are pfc's to redo or find up to date, not the
   * user's files to refuse), and in place its originals stay where `pfc restore` of it, or of any folder
   * above, finds them. Judged from the listing: only a folder holding what such a run leaves is asked.
   */
  private isHomeBelow(dir: string, entries: Dirent[]): boolean {
    const mark = this.mode.kind === 'in-place' ? BACKUP_DIR : this.mode.kind === 'suffix' ? MANIFEST_FILE : undefined;
    return mark !== undefined && entries.some((e) => e.name === mark) && isRunHome(dir, this.mode.kind);
  }

  /**
   * Why a subfolder is not walked: a code and reason to list it as left out, {@link OWN_FOLDER} for this
   * run's own, or undefined to walk it.
   */
  private folderLeftOut(path: string, name: string, real: string): [SkipCode, string] | typeof OWN_FOLDER | undefined {
    if (name === BACKUP_DIR) return this.mode.kind === 'in-place' ? OWN_FOLDER : ['output-folder', `originals kept by ${this.terms.inPlace}`];
    if (name.startsWith('.')) return ['hidden', 'hidden folder'];
    const app = appFolderReason(name, path);
    if (app) return ['app-folder', app];
    if (this.excluded.has(path) || this.excludedReal.has(real)) return OWN_FOLDER;
    const why = this.leaveOut?.(path, true);
    return why ? ['hidden', why] : undefined;
  }

  /**
   * Units: folders joined when one's real output folder (case-folded) is another's,
   * or is another's input folder (an output could then land on an input).
   */
  finish(): Survey {
    const { mode } = this;
    const parent = new Map<string, string>();
    const find = (k: string): string => {
      let r = k;
      while (parent.has(r) && parent.get(r) !== r) r = parent.get(r)!;
      parent.set(k, r);
      return r;
    };
    const union = (a: string, b: string): void => {
      const ra = find(a);
      const rb = find(b);
      if (ra !== rb) parent.set(ra, rb);
    };
    const fold = (p: string): string => p.normalize('NFC').toLowerCase();
    const outKeys = this.tasks.map((t) => {
      if (mode.kind === 'in-place') return `${t.dir}\0task`;
      const keyIn = fold(t.real);
      const keyOut = mode.kind === 'mirror' ? fold(realPathOfSync(outputFolderOf(t.dir, t.root, mode))) : keyIn;
      union(keyOut, keyIn);
      return keyOut;
    });
    const unitOf = new Map<string, number>();
    const units = outKeys.map((k, i) => {
      // In place, outputs are the inputs themselves: nothing to settle, each task its own unit.
      const root = mode.kind === 'in-place' ? `${i}` : find(k);
      let u = unitOf.get(root);
      if (u === undefined) unitOf.set(root, (u = unitOf.size));
      return u;
    });
    const lastOf = new Map<number, number>();
    units.forEach((u, i) => lastOf.set(u, i));
    const tasks = this.tasks.map((t, i) => ({ ...t, unit: units[i]!, last: lastOf.get(units[i]!) === i }));
    return { tasks, leftOut: this.leftOut, names: this.names, outputRoots: [...this.rootsWithNames], earlierOutputs: this.earlierOutputs };
  }
}

/**
 * A folder entry, following links to files (not to folders: they can loop or leave the tree). A link left
 * out is reported, and so is a pipe, socket or device (or a link to one) named like a photo or video:
 * such an entry is never opened (see `@pfc/node-io`'s `openInput`), and other names are no one's photos.
 */
export function kindOf(e: Dirent, path: string, leftOut?: (code: SkipCode, reason: string) => void): 'dir' | 'file' | 'other' {
  if (!e.isSymbolicLink()) return e.isDirectory() ? 'dir' : e.isFile() ? 'file' : notRegular(e, e.name, leftOut);
  let target;
  try {
    target = statSync(path);
  } catch (err) {
    leftOut?.('unreadable', unfollowedLinkReason(path, err as NodeJS.ErrnoException));
    return 'other';
  }
  if (target.isDirectory()) {
    leftOut?.('symlink', 'symbolic link to a folder (not followed)');
    return 'other';
  }
  return target.isFile() ? 'file' : notRegular(target, e.name, leftOut);
}

/** A pipe, socket or device: reported when its name makes it look like a photo or video that was missed. */
function notRegular(type: Dirent | Stats, name: string, leftOut: ((code: SkipCode, reason: string) => void) | undefined): 'other' {
  const reason = notRegularReason(type);
  if (reason && !name.startsWith('.') && FORMAT_OF_EXTENSION.has(extname(name).toLowerCase())) leftOut?.('unsupported', reason);
  return 'other';
}

/** Why a symbolic link's target cannot be reached (`statSync`'s error). */
function unfollowedLinkReason(path: string, err: NodeJS.ErrnoException): string {
  if (err.code === 'ELOOP') return 'symbolic link loop';
  if (err.code === 'EACCES') return 'symbolic link to a place that cannot be reached: permission denied';
  if (err.code !== 'ENOENT' && err.code !== 'ENOTDIR') return `symbolic link cannot be followed: ${unreadableReason(path, err)}`;
  // A link whose own name is not valid UTF-8 cannot be read either: that reason says what to do.
  const target = readlinkOrUndefined(path);
  return target === undefined ? unreadableReason(path, err) : `broken symbolic link (its target ${target} does not exist)`;
}

function readlinkOrUndefined(path: string): string | undefined {
  try {
    return readlinkSync(path);
  } catch {
    return undefined;
  }
}

/**
 * Whether a file of this name is judged by the second pass (and counts in the total): not one of our own
 * files (temporary results, manifests, locks), not hidden, not a suffix-mode result.
 */
export function isJudged(name: string, suffix: string | undefined): boolean {
  return !isOwnFile(name) && !name.startsWith('.') && !(suffix !== undefined && hasSuffix(name, suffix));
}

/** Temporary files of an interrupted run (the runner removes them), manifests and locks: never inputs, never listed. */
export function isOwnFile(name: string): boolean {
  return isPartialName(name) || name === MANIFEST_FILE || name.startsWith(LOCK_FILE);
}

/** Folders listed between two turns of the event loop. */
const FOLDERS_PER_TURN = 64;
