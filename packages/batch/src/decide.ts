/**
 * Whether a planned file needs work, from its manifest entry: skip what is done
 * with the same input and settings; redo what changed; in in-place mode, redo
 * from the kept original rather than from an earlier result.
 */
import { lstatSync, type Stats } from 'node:fs';
import { join, relative } from 'node:path';
import { effectivePfcParams, type PfcParams } from '@pfc/core';
import type { EarlierResults } from './earlier-results';
import type { CorrectReason } from './events';
import { hashFile } from './hash';
import { folderInTheWayAdvice, type HostTerms, replaceAdvice } from './host-terms';
import { inTheWay } from './in-the-way';
import { type Manifest, type ManifestEntry, settingsKey } from './manifest';
import { unwritableReason } from './path-limits';
import { BACKUP_DIR } from './paths';
import type { PlannedFile } from './plan';

export type Decision =
  | { action: 'skip'; entry: ManifestEntry }
  | {
      action: 'correct';
      reason: CorrectReason;
      /** The file to upload (the input, or in in-place mode possibly the kept original). */
      source: string;
      /**
       * `sha256:<hex>` of `source`; undefined for a file the manifest does not know,
       * whose hash nothing here needs: it is taken from the upload's own read.
       */
      sourceHash: string | undefined;
      /** In-place mode: copy the input to the backup before replacing it. */
      backupFirst: boolean;
    }
  /** Left alone: its output would replace a file pfc did not write, or the output of another input. */
  | { action: 'refuse'; errorName: RefusalName; reason: string };

/**
 * The decisions that leave a file as it is on purpose (its output would replace a file pfc did not write or
 * another input's, its name or path is too long, a file is in the way of its folder, it is pfc's own result): the same again until the user acts
 * on the files, so retrying the file cannot help. A run reports them failed, and counts them (`refused`).
 */
export const REFUSALS = [
  'OutputExistsError', 'OutputCollisionError', 'OutputNameTooLongError', 'OutputPathTooLongError', 'OutputBlockedError', 'AlreadyCorrectedError', 'OriginalMissingError',
] as const;
export type RefusalName = (typeof REFUSALS)[number];

/** Whether a failed file's `errorName` is one of the {@link REFUSALS}. */
export function isRefusal(errorName: string | undefined): boolean {
  return (REFUSALS as readonly string[]).includes(errorName ?? '');
}

/** What is at an output path: nothing, pfc's own result (the manifest's hash), or anything else. */
export type OutputOwner = 'absent' | 'ours' | 'foreign';

/**
 * How to decide: redo up-to-date files (`force`), replace files pfc did not write (`overwrite`); `earlier`:
 * the run's lookup of earlier runs' results, which are never corrected again (mirror and suffix modes;
 * in place, the folder's own manifest tells); `terms`: the host's names in refusals' advice (default `CLI_TERMS`).
 */
export interface DecideOptions {
  force?: boolean;
  overwrite?: boolean;
  signal?: AbortSignal;
  earlier?: EarlierResults;
  terms?: HostTerms;
}

/**
 * Decide for one file. `key` is the file's settings key (see `settingsKey`).
 * Outside in-place mode, an existing output is replaced only when pfc wrote it
 * (the manifest's output hash) or with `overwrite`.
 */
export async function decide(file: PlannedFile, manifest: Manifest, key: string, options: DecideOptions = {}): Promise<Decision> {
  const decision = await decideFile(file, manifest, key, options);
  if (decision.action !== 'correct') return decision;
  // Only a file about to be written is checked: an up-to-date rerun stats nothing more.
  return (await inTheWay(file, decision.backupFirst, manifest, options.terms)) ?? decision;
}

async function decideFile(file: PlannedFile, manifest: Manifest, key: string, options: DecideOptions): Promise<Decision> {
  if (file.refusal) return { action: 'refuse', errorName: 'OutputCollisionError', reason: file.refusal };
  const unwritable = unwritableReason(file, options.terms);
  if (unwritable) return { action: 'refuse', ...unwritable };
  const entry = manifest.get(file.output);
  if (file.backup !== undefined) return decideInPlace(file, file.backup, manifest, entry, key, options);
  const decision = readOnlyKept(file, await besideByBytes(file, manifest, entry, await decideBeside(file, manifest, entry, key, options), options), options);
  if (decision.action !== 'correct' || !options.earlier) return decision;
  const reason = await options.earlier.reasonFor(file.input, file.size, file.mtimeMs, options.signal, decision.sourceHash);
  return reason ? { action: 'refuse', errorName: 'AlreadyCorrectedError', reason } : decision;
}

/**
 * Whether the file at `output` is one pfc wrote there: the manifest entry's
 * result (size and mtime first, then the hash), or a result it was renaming
 * into place when it was killed (see `Manifest.intend`). `byBytes`: the hash
 * only, for a file about to be replaced (an edit can keep size and mtime).
 */
export async function outputOwner(output: string, manifest: Manifest, signal?: AbortSignal, entry?: ManifestEntry, byBytes = false): Promise<OutputOwner> {
  // Synchronous: a stat of the page cache is microseconds; an asynchronous one waits for libuv's four threads (most of a rerun's decisions).
  const info = lstatOrUndefined(output);
  if (!info) return 'absent';
  // A link, folder or device is never a result of pfc, which writes regular files only.
  if (!info.isFile()) return 'foreign';
  // `entry`: the caller's lookup of the same output (a rerun looked every file up twice).
  entry ??= manifest.get(output);
  if (!byBytes && entry && statAsWritten(info, entry)) return 'ours';
  const hash = await hashFile(output, signal);
  if (!manifest.wrote(output, hash)) return 'foreign';
  // The recorded result with new times (copied with its folder, touched): known by its stat from the next run on.
  if (entry?.outputHash === hash) manifest.restat(output, { output: info });
  return 'ours';
}

/**
 * Whether the file of `info` (its own stat) has the size and mtime pfc's result of `entry` had when written: then it
 * is that result, unread (as git's index trusts them). A link, folder or device never is: pfc writes regular files.
 */
export function statAsWritten(info: Pick<Stats, 'isFile' | 'size' | 'mtimeMs'>, entry: Pick<ManifestEntry, 'outputSize' | 'outputMtimeMs'>): boolean {
  return info.isFile() && info.size === entry.outputSize && info.mtimeMs === entry.outputMtimeMs;
}

/**
 * A correction that replaces pfc's result known by its size and mtime (`outputOwner`'s shortcut) goes ahead only
 * while the file has the bytes pfc wrote: an edit that keeps both (a tag written in place with `exiftool -P`,
 * `touch -r`) made it the user's file. Read only then: an up-to-date rerun still reads no output.
 */
async function besideByBytes(file: PlannedFile, manifest: Manifest, entry: ManifestEntry | undefined, decision: Decision, options: DecideOptions): Promise<Decision> {
  if (decision.action !== 'correct' || !entry) return decision;
  const info = lstatOrUndefined(file.output);
  if (!info || !statAsWritten(info, entry)) return decision;
  if (manifest.wrote(file.output, await hashFile(file.output, options.signal))) return decision;
  if (!options.overwrite) return foreignRefusal(file.output, options.terms);
  return { ...decision, reason: 'output-changed' };
}

/**
 * A result the user made read-only (`chmod a-w`, Windows' read-only attribute) is one they protected: it is
 * replaced, though pfc wrote it, only with `overwrite`, as `cp` and `mv` ask before replacing such a file.
 */
function readOnlyKept(file: PlannedFile, decision: Decision, options: DecideOptions): Decision {
  if (decision.action !== 'correct' || options.overwrite) return decision;
  const info = lstatOrUndefined(file.output);
  if (!info?.isFile() || (info.mode & 0o200) !== 0) return decision;
  return { action: 'refuse', errorName: 'OutputExistsError', reason: `would replace a result made read-only since: ${file.output}; make it writable, or ${replaceAdvice(options.terms)}` };
}

function foreignRefusal(output: string, terms: HostTerms | undefined): Decision {
  return { action: 'refuse', errorName: 'OutputExistsError', reason: `would overwrite a file pfc did not write: ${output}; ${replaceAdvice(terms)}` };
}

async function decideBeside(file: PlannedFile, manifest: Manifest, entry: ManifestEntry | undefined, key: string, options: DecideOptions): Promise<Decision> {
  const { signal } = options;
  const owner = await outputOwner(file.output, manifest, signal, entry);
  // Said before any advice to overwrite, which would refuse it too.
  if (owner === 'foreign' && lstatOrUndefined(file.output)?.isDirectory()) {
    return {
      action: 'refuse',
      errorName: 'OutputExistsError',
      reason: `a folder is where the result would go: ${file.output}; ${folderInTheWayAdvice(options.terms)}`,
    };
  }
  if (owner === 'foreign' && !options.overwrite) return foreignRefusal(file.output, options.terms);
  if (!entry) return { action: 'correct', reason: owner === 'absent' ? 'new' : 'output-changed', source: file.input, sourceHash: undefined, backupFirst: false };
  const sameStat = entry.inputSize === file.size && entry.inputMtimeMs === file.mtimeMs;
  // An unchanged size and mtime trust the recorded hash (as git's index does): no re-read of large files.
  const sourceHash = sameStat ? entry.inputHash : await hashFile(file.input, signal);
  // The photo with new times (copied with its folder, touched): known by its stat from the next run on.
  if (!sameStat && sourceHash === entry.inputHash) manifest.restat(file.output, { input: file });
  const correct = (reason: CorrectReason): Decision => ({ action: 'correct', reason, source: file.input, sourceHash, backupFirst: false });
  if (sourceHash !== entry.inputHash) return correct('input-changed');
  if (entry.settingsKey !== key) return correct('settings-changed');
  if (owner === 'absent') return correct('output-missing');
  if (owner === 'foreign') return correct('output-changed');
  if (options.force) return correct('forced');
  return { action: 'skip', entry };
}

async function decideInPlace(file: PlannedFile, backup: string, manifest: Manifest, entry: ManifestEntry | undefined, key: string, options: DecideOptions): Promise<Decision> {
  const { signal } = options;
  const force = options.force ?? false;
  const sameStat = entry !== undefined && entry.outputSize === file.size && entry.outputMtimeMs === file.mtimeMs;
  // Size and mtime as recorded trust the recorded hash for a skip only: a file about to be replaced is read, as an
  // edit that keeps both (a tag written in place with `exiftool -P`, `touch -r`) is the user's file, a new original.
  const trusted = sameStat && entry.settingsKey === key && !force;
  const currentHash = trusted ? entry.outputHash : await hashFile(file.input, signal);
  const recorded = entry !== undefined && currentHash === entry.outputHash;
  if (recorded && !sameStat) manifest.restat(file.output, { output: file });
  // pfc's own result, renamed into place by a run killed before recording it.
  const unrecorded = !recorded && manifest.wrote(file.output, currentHash);
  if (!recorded && !unrecorded) {
    const copied = copyOfResult(file, manifest, currentHash);
    if (copied) return copied;
    // The file is not our result: it is a new original. Keep it before replacing it.
    return { action: 'correct', reason: entry ? 'input-changed' : 'new', source: file.input, sourceHash: currentHash, backupFirst: true };
  }
  if (recorded && entry.settingsKey === key && !force) return { action: 'skip', entry };
  const reason: CorrectReason = unrecorded ? 'output-changed' : entry!.settingsKey === key ? 'forced' : 'settings-changed';
  // Redo from the kept original, never from the earlier result, which is never kept as an original.
  const backupHash = await hashFile(backup, signal).catch(() => undefined);
  if (backupHash) return { action: 'correct', reason, source: backup, sourceHash: backupHash, backupFirst: false };
  return {
    action: 'refuse',
    errorName: 'OriginalMissingError',
    reason: `is pfc's result and its original is no longer in ${backup}; left as is, not corrected twice (put the original back in its place to correct it again)`,
  };
}

/**
 * In place, a file whose bytes are pfc's result for another name (the user
 * renamed or copied a corrected photo; on macOS and Windows also a change of
 * case only) is refused: corrected again it would be corrected twice, and its
 * copy kept as the "original" (or, where names fold, over the true one).
 */
function copyOfResult(file: PlannedFile, manifest: Manifest, currentHash: string): Decision | undefined {
  const other = manifest.outputWithResult(currentHash);
  if (other === undefined || other === file.output) return undefined;
  const original = join(manifest.dir, BACKUP_DIR, relative(manifest.dir, other));
  return {
    action: 'refuse',
    errorName: 'AlreadyCorrectedError',
    reason: `is already corrected: it is pfc's result for ${other} (renamed or copied since); left as is, not corrected twice. Its original is kept in ${original}`,
  };
}

/** The parameters of one file: the run's, with its `fileType`. */
export function fileParams(file: Pick<PlannedFile, 'media'>, params: PfcParams): PfcParams {
  return file.media.fileType === 'video' ? { ...params, fileType: 'video' } : params;
}

/** A file's parameters as sent, as in effect, and their settings key. */
export interface FileSettings {
  params: PfcParams;
  effective: PfcParams;
  key: string;
}

/**
 * The settings of each file of a run, worked out once per kind of file (image,
 * video) and shared: a run of 100,000 files holds two parameter objects, not
 * 100,000, and hashes the settings key twice.
 */
export function fileSettings(params: PfcParams, backendId: string): (file: Pick<PlannedFile, 'media'>) => FileSettings {
  const byType = new Map<string, FileSettings>();
  return (file) => {
    const type = file.media.fileType;
    let s = byType.get(type);
    if (!s) {
      const own = fileParams(file, params);
      const effective = effectivePfcParams(own);
      s = { params: own, effective, key: settingsKey(backendId, effective) };
      byType.set(type, s);
    }
    return s;
  };
}

/** A path's own stat, or undefined when there is none or it cannot be read (then it is treated as absent, as before). */
export function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}
