/**
 * Checks made after planning and before the first upload, so a run that
 * cannot succeed costs nothing: every folder results go to can be written,
 * and a `--preset` name exists (built in, or a custom preset of the account).
 */
import { type Stats, statSync } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { dirname, join, sep } from 'node:path';
import { type BatchPlan, type OpenedBackend, PARTIAL_SUFFIX, type StreamedPlan } from '@pfc/batch';
import { BUILT_IN_PRESETS } from '@pfc/core';
import { UsageError } from './io';
import { shown } from './render';

/**
 * Every folder an output (or an in-place backup) goes to can be written: the
 * nearest existing folder on its path is a folder and takes a new file. Tried
 * for real (create and remove a temporary file) rather than with `access()`,
 * which says yes to root on a read-only file system.
 * @throws UsageError naming the folder and the reason.
 */
export async function checkOutputWritable(plan: BatchPlan | StreamedPlan, cwd: string): Promise<void> {
  const folders = Array.isArray(plan.files) ? fileFolders(plan as BatchPlan) : streamedFolders(plan as StreamedPlan);
  const probed = new Set<string>();
  for (const [folder, allKnown] of folders) {
    // An earlier run wrote every file of this folder with these settings: it took files then, and a
    // rerun of 100,000 up-to-date files does not create and remove a file in each of its 1,000 folders.
    if (allKnown) continue;
    const existing = nearestExisting(folder, cwd);
    if (probed.has(existing)) continue;
    probed.add(existing);
    await probeWrite(existing, folder, cwd);
  }
}

/** Per folder of a whole plan: whether every file going there was planned from its manifest (a rerun's up-to-date files). */
function fileFolders(plan: BatchPlan): Map<string, boolean> {
  const folders = new Map<string, boolean>();
  const note = (folder: string, known: boolean): void => {
    folders.set(folder, (folders.get(folder) ?? true) && known);
  };
  for (const f of plan.files) {
    const known = f.mediaFromManifest === true;
    note(dirname(f.output), known);
    if (f.backup) note(dirname(f.backup), known);
  }
  return folders;
}

/**
 * The output folders of a streamed plan (from its names-only pass, no file read yet): a folder where
 * its manifest already records an output counts as known (an earlier run wrote there), as above.
 */
function streamedFolders(plan: StreamedPlan): Map<string, boolean> {
  const folders = new Map<string, boolean>();
  for (const folder of plan.outputFolders()) {
    if (folders.has(folder)) continue;
    const root = plan.outputRoots.find((r) => folder === r || folder.startsWith(`${r}${sep}`));
    folders.set(folder, root !== undefined && (plan.manifests?.get(root)?.recordsIn(folder) ?? false));
  }
  return folders;
}

/** The folder itself, or its nearest existing ancestor (where the run would create it). Synchronous: asked once per output folder. */
function nearestExisting(folder: string, cwd: string): string {
  for (let dir = folder; ; dir = dirname(dir)) {
    let info: Stats | undefined;
    try {
      info = statSync(dir, { throwIfNoEntry: false });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOTDIR') throw err;
    }
    if (info?.isDirectory()) return dir;
    if (info) throw new UsageError(`cannot write results to ${shown(cwd, folder)}: ${shown(cwd, dir)} is a file, not a folder`);
    if (dirname(dir) === dir) return dir;
  }
}

async function probeWrite(existing: string, folder: string, cwd: string): Promise<void> {
  // A name the run's own clean-up removes should this process die right here.
  const probe = join(existing, `.pfc-write-check.${process.pid}${PARTIAL_SUFFIX}`);
  try {
    const fh = await open(probe, 'wx');
    await fh.close();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    const where = existing === folder ? shown(cwd, folder) : `${shown(cwd, folder)} (its nearest existing folder ${shown(cwd, existing)})`;
    throw new UsageError(`cannot write results to ${where}: ${WRITE_REASONS[code] ?? code}; choose another --out`);
  } finally {
    await rm(probe, { force: true });
  }
}

const WRITE_REASONS: Record<string, string> = {
  EACCES: 'permission denied (EACCES)',
  EPERM: 'operation not permitted (EPERM)',
  EROFS: 'read-only file system (EROFS)',
  ENOSPC: 'no space left on the device (ENOSPC)',
  EDQUOT: 'disk quota exceeded (EDQUOT)',
};

/**
 * `--preset NAME` names a built-in preset group, `none`, or a custom preset of
 * the account (Web API and emulator; a container's presets are files it alone
 * can see, so there the container itself answers). Names compare exactly, as
 * the service does; a case-only difference is suggested.
 * @throws UsageError listing what exists.
 */
export async function checkPresetExists(preset: string | undefined, opened: OpenedBackend): Promise<void> {
  if (preset === undefined || preset === 'none' || (BUILT_IN_PRESETS as readonly string[]).includes(preset) || !opened.web) return;
  const custom: string[] = [];
  for await (const p of opened.web.presets.list()) {
    if (p.name === preset) return;
    custom.push(p.name);
  }
  const near = [...BUILT_IN_PRESETS, 'none', ...custom].find((n) => n.toLowerCase() === preset.toLowerCase());
  const known = [...BUILT_IN_PRESETS.map((n) => JSON.stringify(n)), '"none"', ...(custom.length ? [`custom: ${custom.map((n) => JSON.stringify(n)).join(', ')}`] : ['no custom presets'])];
  throw new UsageError(`--preset ${JSON.stringify(preset)} is neither a built-in preset nor a custom preset of this account${near ? ` (did you mean ${JSON.stringify(near)}?)` : ''}; presets: ${known.join(', ')} (see: pfc presets list)`);
}
