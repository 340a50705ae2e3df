/**
 * A file sitting where a folder is now needed: the user turned a photo into a
 * folder of the same name (`a.jpg/` holding photos), and pfc's earlier result
 * `corrected/a.jpg`, or in place the kept original `.pfc-originals/a.jpg`, is
 * where that folder's results or originals would go. Only the files below it
 * are refused, each saying what the file in the way is and what the user can
 * do; the file itself is never moved or deleted (a kept original may be the
 * only copy of a photo).
 */
import { type Stats, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import type { Decision } from './decide';
import { hashFile } from './hash';
import { CLI_TERMS, type HostTerms } from './host-terms';
import type { Manifest } from './manifest';
import { BACKUP_DIR, isInside } from './paths';
import type { PlannedFile } from './plan';

/** The nearest existing entry on a folder's path: the folder itself or an ancestor, and whether it is a folder. */
export type NearestEntry = { kind: 'folder'; path: string } | { kind: 'file'; path: string };

/**
 * The folder itself, or its nearest existing ancestor (where a run would create
 * it), or the file on its path that keeps it from being made. Synchronous: asked
 * once per output folder, and per file only for those about to be written.
 */
export function nearestEntry(folder: string): NearestEntry {
  for (let dir = folder; ; dir = dirname(dir)) {
    let info: Stats | undefined;
    try {
      info = statSync(dir, { throwIfNoEntry: false });
    } catch (err) {
      // Too long a path (over PATH_MAX) is not there to write to: its files are refused one by one, with the reason.
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOTDIR' && code !== 'ENAMETOOLONG') throw err;
    }
    if (info?.isDirectory()) return { kind: 'folder', path: dir };
    if (info) return { kind: 'file', path: dir };
    if (dirname(dir) === dir) return { kind: 'folder', path: dir };
  }
}

type Refusal = Extract<Decision, { action: 'refuse' }>;

/**
 * Why a file about to be corrected cannot be, or undefined: a file is in the way
 * of the folder its result goes to, or (when its original is kept first) of the
 * folder its kept original goes to. Checked before anything is sent, so the job
 * is never billed for a result that cannot be written. `terms`: the host's names in the advice.
 */
export async function inTheWay(file: Pick<PlannedFile, 'output' | 'backup'>, keepsOriginal: boolean, manifest: Manifest, terms: HostTerms = CLI_TERMS): Promise<Refusal | undefined> {
  const targets = keepsOriginal && file.backup ? [file.output, file.backup] : [file.output];
  for (const target of targets) {
    const nearest = nearestEntry(dirname(target));
    if (nearest.kind === 'file') return await refusalFor(nearest.path, target === file.backup ? 'original' : 'result', manifest, terms);
  }
  return undefined;
}

async function refusalFor(blocker: string, what: 'result' | 'original', manifest: Manifest, terms: HostTerms): Promise<Refusal> {
  const cannot = what === 'original' ? 'its original cannot be kept' : 'its result cannot be written';
  const where = `${blocker} is a file where a folder is needed`;
  const backups = join(manifest.dir, BACKUP_DIR);
  if (isInside(blocker, backups) && blocker !== backups) {
    const rel = relative(backups, blocker);
    const folder = join(manifest.dir, rel);
    return {
      action: 'refuse',
      errorName: 'OutputBlockedError',
      reason: `${cannot}: ${where}, and it is the kept original of an earlier ${rel} (now the folder ${folder}), which pfc never moves or deletes; move that original out of ${BACKUP_DIR} to keep it elsewhere (or rename the folder ${folder}), then run again`,
    };
  }
  const entry = manifest.get(blocker);
  // By its bytes, as the manifest recorded them: a file merely at that name may be the user's.
  if (entry && manifest.wrote(blocker, await hashFile(blocker).catch(() => ''))) {
    return {
      action: 'refuse',
      errorName: 'OutputBlockedError',
      reason: `${cannot}: ${where}, and it is pfc's result of an earlier run (from ${resolve(manifest.dir, entry.input)}), which pfc does not delete; move or delete it if it is no longer wanted (or choose ${terms.anotherOutputFolder}), then run again`,
    };
  }
  return {
    action: 'refuse',
    errorName: 'OutputBlockedError',
    reason: `${cannot}: ${where} (a file pfc did not write); move or rename it (or choose ${terms.anotherOutputFolder}), then run again`,
  };
}
