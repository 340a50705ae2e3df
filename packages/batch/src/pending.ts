/** How many planned files a run would actually send (for the cost guard), without sending anything. */
import { type PfcParams, UserAbortError } from '@pfc/core';
import { decide, fileSettings } from './decide';
import { EarlierResults } from './earlier-results';
import { throwIfCancelled } from './errors';
import { Manifest } from './manifest';
import type { BatchPlan, PlannedFile } from './plan';

export interface PendingOptions {
  /** As `RunOptions.backendId`. */
  backendId: string;
  params?: PfcParams;
  force?: boolean;
  /** As `RunOptions.overwrite`: files pfc did not write count as pending only with it. */
  overwrite?: boolean;
  signal?: AbortSignal;
}

/** The planned files that are not up to date and not refused (hashes inputs whose size or mtime changed). */
export async function pendingFiles(plan: BatchPlan, options: PendingOptions): Promise<PlannedFile[]> {
  const manifests = new Map<string, Manifest>();
  // A preview (no lock): the manifests planning read serve as they are.
  for (const root of plan.outputRoots) manifests.set(root, plan.manifests?.get(root) ?? (await Manifest.load(root, plan.mode.kind)));
  const pending: PlannedFile[] = [];
  const settingsOf = fileSettings(options.params ?? {}, options.backendId);
  const { signal } = options;
  const earlier = new EarlierResults(manifests.values(), plan.earlierOutputs);
  let sinceTurn = 0;
  for (const file of plan.files) {
    // Most decisions are synchronous stats: without a turn of the event loop now and then, a host's Cancel
    // (and its progress) would wait for the whole plan.
    if (++sinceTurn >= FILES_PER_TURN) {
      sinceTurn = 0;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    throwIfCancelled(signal);
    const d = await decide(file, manifests.get(file.outputRoot)!, settingsOf(file).key, { ...options, earlier }).catch((err: unknown) => {
      // A hash cut short by the signal is the same cancel as one between files.
      throw signal?.aborted ? new UserAbortError() : err;
    });
    if (d.action === 'correct') pending.push(file);
  }
  return pending;
}

/** Files decided between two turns of the event loop. */
const FILES_PER_TURN = 256;
