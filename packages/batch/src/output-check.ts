/**
 * The check made after planning and before the first upload, so a run that
 * cannot write its results costs nothing: every folder results (and in-place
 * backups) go to can be written. Every host runs it (the CLI, VS Code). A file
 * in the way of one folder below an output root refuses only the files going
 * there, one by one, as the run reaches them (`in-the-way.ts`).
 */
import { open, rm } from 'node:fs/promises';
import { dirname, join, sep } from 'node:path';
import { BatchUsageError } from './errors';
import { nearestEntry } from './in-the-way';
import { BACKUP_DIR, isInside, PARTIAL_SUFFIX } from './paths';
import type { BatchPlan, StreamedPlan } from './plan';
import { isStreamed } from './plan-feed';

/**
 * Every folder an output (or an in-place backup) goes to can be written: the
 * nearest existing folder on its path is a folder and takes a new file. Tried
 * for real (create and remove a temporary file) rather than with `access()`,
 * which says yes to root on a read-only file system.
 * @throws BatchUsageError (`bad-output`) naming the folder, as `show` shows paths, and the reason.
 */
export async function checkOutputWritable(plan: BatchPlan | StreamedPlan, show: (path: string) => string = (path) => path): Promise<void> {
  const folders = isStreamed(plan) ? streamedFolders(plan) : fileFolders(plan);
  const probed = new Set<string>();
  const roots = rootsOf(plan);
  for (const [folder, allKnown] of folders) {
    // An earlier run wrote every file of this folder with these settings: it took files then, and a
    // rerun of 100,000 up-to-date files does not create and remove a file in each of its 1,000 folders.
    if (allKnown) continue;
    const existing = writableFolder(folder, roots, show);
    if (probed.has(existing)) continue;
    probed.add(existing);
    await probeWrite(existing, folder, show);
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

/**
 * Where to try a write for `folder`: its nearest existing folder. A file in the way of a folder below an output root
 * (pfc's earlier result `corrected/a.jpg`, or in place the kept original `.pfc-originals/a.jpg`, where the user has
 * since made a folder `a.jpg/`) concerns only the files going there, which the run refuses one by one (`in-the-way.ts`);
 * the folder holding it is tried instead. A file at or above an output root (or in place its `.pfc-originals`) is
 * in the way of every file of the root: the whole run is refused.
 */
function writableFolder(folder: string, roots: readonly string[], show: (path: string) => string): string {
  const nearest = nearestEntry(folder);
  if (nearest.kind === 'folder') return nearest.path;
  const blocker = nearest.path;
  if (roots.some((root) => blocker !== root && isInside(blocker, root))) return dirname(blocker);
  throw new BatchUsageError(`cannot write results to ${show(folder)}: ${show(blocker)} is a file, not a folder`, 'bad-output');
}

/** The folders below which a file in the way concerns some files only: each output root, and in place its kept originals' folder. */
function rootsOf(plan: BatchPlan | StreamedPlan): string[] {
  if (plan.mode.kind !== 'in-place') return plan.outputRoots;
  return plan.outputRoots.map((root) => join(root, BACKUP_DIR));
}

async function probeWrite(existing: string, folder: string, show: (path: string) => string): Promise<void> {
  // A name the run's own clean-up removes should this process die right here.
  const probe = join(existing, `.pfc-write-check.${process.pid}${PARTIAL_SUFFIX}`);
  try {
    const fh = await open(probe, 'wx');
    await fh.close();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    // The folder's own path is near PATH_MAX: what would be written there is refused file by file, with the reason.
    if (code === 'ENAMETOOLONG') return;
    const where = existing === folder ? show(folder) : `${show(folder)} (its nearest existing folder ${show(existing)})`;
    throw new BatchUsageError(`cannot write results to ${where}: ${WRITE_REASONS[code] ?? code}`, 'bad-output');
  } finally {
    // Not there when it could not be made (a path too long to name); else removed, or left for the run's clean-up of partial files.
    await rm(probe, { force: true }).catch(() => undefined);
  }
}

const WRITE_REASONS: Record<string, string> = {
  EACCES: 'permission denied (EACCES)',
  EPERM: 'operation not permitted (EPERM)',
  EROFS: 'read-only file system (EROFS)',
  ENOSPC: 'no space left on the device (ENOSPC)',
  EDQUOT: 'disk quota exceeded (EDQUOT)',
};
