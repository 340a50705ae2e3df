/**
 * Planning: walk the inputs, pick what can be corrected by content, and map
 * each file to its output. Everything left out is listed with a reason.
 */
import type { Dirent, Stats } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import { basename, dirname, extname, join, resolve } from 'node:path';
import type { BackendKind, PfcParams } from '@pfc/core';
import { BatchUsageError } from './errors';
import { limitViolation } from './limits';
import { isMirrorOutputFolder } from './manifest';
import {
  BACKUP_DIR, commonAncestor, MANIFEST_FILE, DEFAULT_OUTPUT_DIR, DEFAULT_SUFFIX, disambiguatedName, hasSuffix, isInside, isPartialName,
  type OutputMode, outputName, portableRelative,
} from './paths';
import { type MediaInfo, sniffFile } from './sniff';

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
  const excluded = new Set(mode.kind === 'mirror' ? roots.map((r) => r.outputRoot) : []);
  const suffix = mode.kind === 'suffix' ? (mode.suffix ?? DEFAULT_SUFFIX) : undefined;

  const files: PlannedFile[] = [];
  const skipped: SkippedPath[] = [];
  const seen = new Set<string>();

  const consider = async (path: string, root: Root, probed: Promise<Probe> = probe(path)): Promise<void> => {
    const name = basename(path);
    if (suffix !== undefined && hasSuffix(name, suffix)) {
      return void skipped.push({ path, code: 'suffix-output', reason: `ends with the output suffix "${suffix}" (an earlier result)` });
    }
    const p = await probed;
    if ('error' in p) return void skipped.push({ path, code: 'unreadable', reason: `cannot be read: ${p.error.message}` });
    const { info, media } = p;
    if (!media) return void skipped.push({ path, code: 'unsupported', reason: 'not a JPEG, PNG, MP4 or MOV file (judged by content)' });
    const real = await p.real;
    if (seen.has(real)) return void skipped.push({ path, code: 'duplicate', reason: 'already planned through another input' });
    seen.add(real);
    const violation = limitViolation(media, info.size, params, options.backend ?? 'web');
    if (violation) return void skipped.push({ path, code: 'over-limit', reason: violation });
    const rel = portableRelative(root.base, path);
    const relDir = dirname(rel);
    const outName = outputName(name, media.format, params, suffix ?? '');
    const output = mode.kind === 'in-place' ? path
      : mode.kind === 'suffix' ? join(dirname(path), outName)
      : join(root.outputRoot, relDir, outName);
    const file: PlannedFile = { input: path, output, outputRoot: root.outputRoot, rel, size: info.size, mtimeMs: info.mtimeMs, media };
    if (mode.kind === 'in-place') file.backup = join(root.base, BACKUP_DIR, rel);
    files.push(file);
  };

  const walk = async (dir: string, root: Root): Promise<void> => {
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (err) {
      return void skipped.push({ path: dir, code: 'unreadable', reason: `folder cannot be read: ${(err as Error).message}` });
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    // A plain file's real path is its folder's plus its name: one realpath per folder, not per file.
    const realDir = realpath(dir);
    realDir.catch(() => undefined);
    // The files' reads (stat, header, real path) run a few ahead of the walk, in order:
    // one at a time, a folder of small files spent most of its planning waiting on them.
    const ahead = new Map<string, Promise<Probe>>();
    const candidates = entries
      .filter((e) => e.isFile() && !e.name.startsWith('.') && !isPartialName(e.name) && e.name !== MANIFEST_FILE && !(suffix !== undefined && hasSuffix(e.name, suffix)))
      .map((e) => join(dir, e.name));
    let queued = 0;
    const fill = (): void => {
      while (queued < candidates.length && ahead.size < PROBES_AHEAD) {
        const path = candidates[queued++]!;
        ahead.set(path, probe(path, realDir));
      }
    };
    const probed = (path: string): Promise<Probe> | undefined => {
      fill();
      const p = ahead.get(path);
      ahead.delete(path);
      fill();
      return p;
    };
    for (const e of entries) {
      const path = join(dir, e.name);
      let isDir = e.isDirectory();
      if (e.isSymbolicLink()) {
        const target = await stat(path).catch(() => undefined);
        if (!target) {
          skipped.push({ path, code: 'unreadable', reason: 'broken symbolic link' });
          continue;
        }
        if (target.isDirectory()) {
          // Links to folders are not followed: they can loop or leave the tree.
          skipped.push({ path, code: 'symlink', reason: 'symbolic link to a folder (not followed)' });
          continue;
        }
        isDir = false;
      }
      if (isDir) {
        if (e.name === BACKUP_DIR) skipped.push({ path, code: 'output-folder', reason: 'originals kept by --in-place' });
        else if (e.name.startsWith('.')) skipped.push({ path, code: 'hidden', reason: 'hidden folder' });
        else if (excluded.has(path)) skipped.push({ path, code: 'output-folder', reason: 'output folder of this run' });
        else if (await isMirrorOutputFolder(path)) skipped.push({ path, code: 'output-folder', reason: 'output folder of an earlier run (holds a manifest)' });
        else await walk(path, root);
      } else if (e.isFile() || e.isSymbolicLink()) {
        // Temporary files of an interrupted run (the runner removes them) and our manifests are not inputs.
        if (isPartialName(e.name) || e.name === MANIFEST_FILE) continue;
        if (e.name.startsWith('.')) skipped.push({ path, code: 'hidden', reason: 'hidden file' });
        else await consider(path, root, probed(path));
      }
    }
  };

  for (const root of roots) {
    if (root.file) await consider(root.file, root);
    else if (root.dir) await walk(root.dir, root);
  }

  resolveCollisions(files, params, suffix ?? '');
  const inputs = new Set(files.map((f) => f.input));
  for (const f of files) {
    if (mode.kind !== 'in-place' && inputs.has(f.output)) {
      throw new BatchUsageError(`the output of ${f.input} would overwrite the input ${f.output}; choose another --out folder (or --in-place to replace originals)`, 'bad-output');
    }
  }
  const outputRoots = [...new Set(files.map((f) => f.outputRoot))];
  return { files, skipped, outputRoots, mode, totalBytes: files.reduce((n, f) => n + f.size, 0) };
}

/** How many files' reads planning runs ahead of the walk. */
const PROBES_AHEAD = 16;

/** What planning reads of a file; an unreadable file is an `error`. */
type Probe = { info: Stats; media: MediaInfo | undefined; real: Promise<string> } | { error: Error };

/** `realDir`: the real path of the file's folder, for a file that is not a symbolic link. */
async function probe(path: string, realDir?: Promise<string>): Promise<Probe> {
  try {
    const info = await stat(path);
    const media = await sniffFile(path);
    const real = realDir ? realDir.then((d) => join(d, basename(path))) : realpath(path);
    // Awaited where it is needed (a failure there fails the plan, as before); never unhandled meanwhile.
    real.catch(() => undefined);
    return { info, media, real };
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
  return paths.map((p, i): Root => {
    const base = sharedBase ?? bases[i]!;
    const outputRoot = mode.kind !== 'mirror' ? bases[i]! : fixedOut ?? join(bases[i]!, DEFAULT_OUTPUT_DIR);
    if (mode.kind === 'mirror' && outputRoot === bases[i]) {
      throw new BatchUsageError(`the output folder ${outputRoot} is the input folder; choose another --out folder (or --in-place to replace originals)`, 'bad-output');
    }
    if (mode.kind === 'mirror' && stats[i]!.isDirectory() && isInside(p, outputRoot) && p !== outputRoot) {
      throw new BatchUsageError(`the input ${p} is inside the output folder ${outputRoot}`, 'bad-output');
    }
    return stats[i]!.isDirectory() ? { base, outputRoot, dir: p } : { base, outputRoot, file: p };
  });
}

/** Inputs whose outputs would land on the same path (`a.png` and `a.jpg` with outputType=jpg) keep their extension in the name. */
function resolveCollisions(files: PlannedFile[], params: PfcParams, suffix: string): void {
  const byOutput = new Map<string, PlannedFile[]>();
  for (const f of files) byOutput.set(f.output, [...(byOutput.get(f.output) ?? []), f]);
  for (const group of byOutput.values()) {
    if (group.length < 2) continue;
    // The input whose extension already matches keeps the plain name; the others show where they came from.
    const keeper = group.find((f) => extname(f.input).toLowerCase() === extname(f.output).toLowerCase());
    for (const f of group) {
      if (f === keeper || f.output === f.input) continue;
      f.output = join(dirname(f.output), disambiguatedName(basename(f.input), f.media.format, params, suffix));
    }
  }
}
