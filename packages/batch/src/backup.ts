/**
 * In-place mode keeps every distinct original it replaces: the latest one at
 * `.pfc-originals/<rel>`, each earlier one under `.pfc-originals/.history/<rel>/`
 * named by its content hash. A new photo put under a corrected file's name,
 * corrected again, never costs the first original.
 */
import { lstat, rename } from 'node:fs/promises';
import { dirname } from 'node:path';
import { makeFolder, syncFolder } from '@pfc/node-io';
import { copyFileAtomic } from './files';
import { hashFile } from './hash';
import { backupHistoryPath } from './paths';

/**
 * Keep `input` (whose hash is `inputHash`, when known) as the original at
 * `backup`. A different original already there is moved into the history
 * first; the same original is not copied again.
 */
export async function keepOriginal(input: string, backup: string, rel: string, inputHash: string | undefined, signal?: AbortSignal): Promise<void> {
  const kept = await lstat(backup).catch(() => undefined);
  if (kept) {
    const keptHash = await hashFile(backup, signal);
    const hash = inputHash ?? (await hashFile(input, signal));
    if (keptHash === hash) return;
    const history = backupHistoryPath(backup, rel, keptHash);
    await makeFolder(dirname(history));
    // Named by content: a file already there holds these very bytes.
    await rename(backup, history);
    // On disk before the new original takes the backup's name: else a power cut could keep that and lose this one.
    await syncFolder(dirname(history));
    await syncFolder(dirname(backup));
  }
  await copyFileAtomic(input, backup, { signal });
}
