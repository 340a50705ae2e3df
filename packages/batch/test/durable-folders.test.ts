/**
 * What a power cut must not undo: a folder's entry is on disk only once the
 * folder holding it is flushed (fsync(2)), so each folder a run makes (its
 * output folder, the history of kept originals) is flushed into its parent,
 * and an earlier original moved into the history is on disk before the new
 * original takes its name. Checked on the fsyncs made, by the path each was
 * made on (`/proc/self/fd`), in order.
 */
import { mkdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { lockFolders } from '../src/index';
import { keepOriginal } from '../src/backup';
import { hashFile } from '../src/hash';
import { backupHistoryPath } from '../src/paths';
import { tempDir } from './helpers';

afterEach(() => {
  vi.restoreAllMocks();
});

/** Every fsync made through a FileHandle from now on, by the path it was opened on (files and folders). */
async function recordSyncs(scratch: string): Promise<string[]> {
  const probe = await open(join(scratch, '.probe'), 'w');
  const proto = Object.getPrototypeOf(probe) as { sync: () => Promise<void> };
  await probe.close();
  const synced: string[] = [];
  const sync = proto.sync;
  vi.spyOn(proto, 'sync').mockImplementation(async function (this: { fd: number }) {
    synced.push(readlinkSync(`/proc/self/fd/${this.fd}`));
    return sync.call(this);
  });
  return synced;
}

describe('folders a run makes are on disk with what is in them', () => {
  it('a new output folder, and each folder made above it, is flushed into the folder holding it', async () => {
    const root = tempDir();
    const synced = await recordSyncs(root);
    const locks = await lockFolders([join(root, 'out', 'corrected')]);
    try {
      expect(synced.filter((p) => !p.endsWith('.pfc-lock'))).toEqual([join(root, 'out'), root]);
    } finally {
      await locks.release();
    }
  });

  it('an earlier original moved into the history is flushed there, and out of its old folder, before the new original is copied', async () => {
    const root = tempDir();
    const rel = join('trip', 'a.jpg');
    const input = join(root, rel);
    const backup = join(root, '.pfc-originals', rel);
    mkdirSync(dirname(input), { recursive: true });
    mkdirSync(dirname(backup), { recursive: true });
    writeFileSync(backup, 'first original');
    writeFileSync(join(root, 'first.copy'), 'first original');
    writeFileSync(input, 'second original');
    const synced = await recordSyncs(root);

    await keepOriginal(input, backup, rel, undefined);

    const history = backupHistoryPath(backup, rel, await hashFile(join(root, 'first.copy')));
    expect(readFileSync(history, 'utf8')).toBe('first original');
    expect(readFileSync(backup, 'utf8')).toBe('second original');
    const copyStarts = synced.findIndex((p) => p.startsWith(dirname(backup)) && p !== dirname(backup));
    expect(synced.slice(0, copyStarts)).toEqual([
      // The history folders made (…/.history/trip, …/.history), then the folder the move went to and the one it left.
      join(root, '.pfc-originals', '.history', 'trip'), join(root, '.pfc-originals', '.history'), join(root, '.pfc-originals'),
      dirname(history), dirname(backup),
    ]);
  });
});
