import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FolderLockedError, LOCK_FILE, lockFolders, planBatch } from '../src/index';
import { hasAnimationChunk } from '../src/animation';
import { jpegBytes, tempDir, writeTree } from './helpers';

/** Resolves once `cond()` holds, looking every few milliseconds. */
async function until(cond: () => boolean): Promise<void> {
  while (!cond()) await new Promise((r) => setTimeout(r, 5));
}

/** A pid that was alive a moment ago and is gone now. */
function deadPid(): number {
  return spawnSync(process.execPath, ['-e', '0']).pid!;
}

describe('lockFolders', () => {
  it('refuses a folder a live run holds, naming the process; releases only its own lock', async () => {
    const dir = tempDir();
    const held = await lockFolders([dir]);
    const holder = JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8'));
    expect(holder).toMatchObject({ pid: process.pid, host: hostname() });
    const err = await lockFolders([dir]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FolderLockedError);
    expect((err as Error).message).toMatch(new RegExp(`process ${process.pid} on `));
    await held.release();
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
  });

  it('takes over a stale lock (its process is gone), once when two runs try at the same time', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: deadPid(), host: hostname(), startedAt: new Date(0).toISOString() }));
    const tries = await Promise.allSettled([lockFolders([dir]), lockFolders([dir])]);
    expect(tries.filter((t) => t.status === 'fulfilled')).toHaveLength(1);
    expect(tries.find((t) => t.status === 'rejected')?.reason).toBeInstanceOf(FolderLockedError);
  });

  it('never takes over the lock of another host', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: deadPid(), host: `not-${hostname()}`, startedAt: new Date(0).toISOString() }));
    await expect(lockFolders([dir])).rejects.toBeInstanceOf(FolderLockedError);
  });

  it('waits for the holder with `wait`, and says so once', async () => {
    const dir = tempDir();
    const held = await lockFolders([dir]);
    const waits: string[] = [];
    const waiting = lockFolders([dir], { wait: true, pollMs: 10, onWait: (path) => waits.push(path) });
    // Released once the waiting run has found the lock held, however long its first try took on a loaded
    // machine (a release before it made it take a free lock, saying nothing), then after a few more of its polls.
    await until(() => waits.length > 0);
    await new Promise((r) => setTimeout(r, 50));
    await held.release();
    const second = await waiting;
    expect(waits).toEqual([join(dir, LOCK_FILE)]);
    await second.release();
  });

  it('removes on release the folders it made that are left empty, never one that was there or holds a file', async () => {
    const root = tempDir();
    mkdirSync(join(root, 'there'));
    const made = join(root, 'new/deep');
    const kept = join(root, 'new/kept');
    const held = await lockFolders([made, kept, join(root, 'there')]);
    writeFileSync(join(kept, 'a.jpg'), 'a result');
    await held.release();
    expect(readdirSync(root).sort()).toEqual(['new', 'there']);
    expect(readdirSync(join(root, 'new'))).toEqual(['kept']);
    expect(readdirSync(kept)).toEqual(['a.jpg']);
  });

  it('a waiting run whose holder removed the folder it made makes it again and takes the lock', async () => {
    const root = tempDir();
    const dir = join(root, 'new');
    const held = await lockFolders([dir]);
    // Its next try comes well after the release has removed both the lock and the folder: a try between the two
    // (a loaded machine) would find the folder still there, take the lock in it, and rightly not own its removal.
    // Released once its first try has found the lock held (not after a fixed time: a first try slower than that
    // found no lock and took it, or came between the release's removal of the lock and of the folder).
    let waited = false;
    const waiting = lockFolders([dir], { wait: true, pollMs: 1000, onWait: () => (waited = true) });
    await until(() => waited);
    await held.release();
    expect(readdirSync(root)).toEqual([]);
    const second = await waiting;
    expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8'))).toMatchObject({ pid: process.pid });
    await second.release();
    expect(readdirSync(root)).toEqual([]);
  });
});

describe('hasAnimationChunk', () => {
  const chunk = (type: string, length = 0) => {
    const b = Buffer.alloc(12 + length);
    b.writeUInt32BE(length, 0);
    b.write(type, 4, 'latin1');
    return b;
  };
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  it('finds acTL before the image data (APNG), not in a still PNG', () => {
    expect(hasAnimationChunk(Buffer.concat([signature, chunk('IHDR', 13), chunk('acTL', 8), chunk('IDAT', 4)]))).toBe(true);
    expect(hasAnimationChunk(Buffer.concat([signature, chunk('IHDR', 13), chunk('IDAT', 4), chunk('IEND')]))).toBe(false);
  });
});

describe('a mirror run that has not written its manifest yet', () => {
  it('marks its output folder by its lock: planning the parent folder leaves it out', async () => {
    const root = tempDir();
    writeTree(root, { 'a.jpg': jpegBytes(64, 48), 'results/b.jpg': jpegBytes(64, 48), 'inbox/c.jpg': jpegBytes(64, 48) });
    // Another run mirroring into `results` holds its lock; its first result is there, its manifest not yet.
    const mirror = await lockFolders([join(root, 'results')], { mode: 'mirror' });
    // A suffix run's lock is on an input folder: that folder stays input.
    const suffix = await lockFolders([join(root, 'inbox')], { mode: 'suffix' });
    try {
      const plan = await planBatch({ inputs: [root], output: { kind: 'suffix' } });
      expect(plan.files.map((f) => f.rel).sort()).toEqual(['a.jpg', 'inbox/c.jpg']);
      expect(plan.leftOut.kept).toContainEqual(expect.objectContaining({ path: join(root, 'results'), code: 'output-folder' }));
    } finally {
      await mirror.release();
      await suffix.release();
    }
  });
});
