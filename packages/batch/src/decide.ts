/**
 * Whether a planned file needs work, from its manifest entry: skip what is done
 * with the same input and settings; redo what changed; in in-place mode, redo
 * from the kept original rather than from an earlier result.
 */
import { stat } from 'node:fs/promises';
import type { PfcParams } from '@pfc/core';
import type { CorrectReason } from './events';
import { hashFile } from './hash';
import type { Manifest, ManifestEntry } from './manifest';
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
    };

/** Decide for one file. `key` is the file's settings key (see `settingsKey`). */
export async function decide(file: PlannedFile, manifest: Manifest, key: string, force: boolean, signal?: AbortSignal): Promise<Decision> {
  const entry = manifest.get(file.output);
  return file.backup !== undefined ? decideInPlace(file, file.backup, entry, key, force, signal) : decideBeside(file, entry, key, force, signal);
}

async function decideBeside(file: PlannedFile, entry: ManifestEntry | undefined, key: string, force: boolean, signal?: AbortSignal): Promise<Decision> {
  if (!entry) return { action: 'correct', reason: 'new', source: file.input, sourceHash: undefined, backupFirst: false };
  const sameStat = entry.inputSize === file.size && entry.inputMtimeMs === file.mtimeMs;
  // An unchanged size and mtime trust the recorded hash (as git's index does): no re-read of large files.
  const sourceHash = sameStat ? entry.inputHash : await hashFile(file.input, signal);
  const correct = (reason: CorrectReason): Decision => ({ action: 'correct', reason, source: file.input, sourceHash, backupFirst: false });
  if (sourceHash !== entry.inputHash) return correct('input-changed');
  if (entry.settingsKey !== key) return correct('settings-changed');
  const out = await stat(file.output).catch(() => undefined);
  if (!out) return correct('output-missing');
  if (out.size !== entry.outputSize) return correct('output-changed');
  if (force) return correct('forced');
  return { action: 'skip', entry };
}

async function decideInPlace(file: PlannedFile, backup: string, entry: ManifestEntry | undefined, key: string, force: boolean, signal?: AbortSignal): Promise<Decision> {
  const sameStat = entry !== undefined && entry.outputSize === file.size && entry.outputMtimeMs === file.mtimeMs;
  const currentHash = sameStat ? entry.outputHash : await hashFile(file.input, signal);
  if (!entry || currentHash !== entry.outputHash) {
    // The file is not our result: it is a new original. Keep it before replacing it.
    return { action: 'correct', reason: entry ? 'input-changed' : 'new', source: file.input, sourceHash: currentHash, backupFirst: true };
  }
  if (entry.settingsKey === key && !force) return { action: 'skip', entry };
  const reason: CorrectReason = entry.settingsKey === key ? 'forced' : 'settings-changed';
  // Redo from the kept original, never from the earlier result.
  const backupHash = await hashFile(backup, signal).catch(() => undefined);
  if (backupHash === entry.inputHash) return { action: 'correct', reason, source: backup, sourceHash: backupHash, backupFirst: false };
  // The original is gone from the backup folder: the current file is all there is.
  return { action: 'correct', reason, source: file.input, sourceHash: currentHash, backupFirst: true };
}

/** The parameters of one file: the run's, with its `fileType`. */
export function fileParams(file: PlannedFile, params: PfcParams): PfcParams {
  return file.media.fileType === 'video' ? { ...params, fileType: 'video' } : params;
}
