/**
 * `exclusive` on a file system without hard links (FAT/exFAT cards and USB
 * sticks, some network mounts), where link(2) fails with EPERM: the name is
 * checked before the rename, so an existing file is still never replaced.
 * link is made to fail as such a file system does; everything else is real.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DestinationExistsError, writeFileAtomic } from '../src/index';

vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>();
  return {
    ...real,
    link: async () => {
      throw Object.assign(new Error('EPERM: operation not permitted, link'), { code: 'EPERM' });
    },
  };
});

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'node-io-nolink-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('exclusive without hard links', () => {
  it('never replaces an existing file, and leaves no temporary file', async () => {
    const dest = join(dir, 'photo.jpg');
    writeFileSync(dest, 'the user\'s');
    await expect(writeFileAtomic(dest, 'result', { exclusive: true })).rejects.toBeInstanceOf(DestinationExistsError);
    expect(readFileSync(dest, 'utf8')).toBe('the user\'s');
    expect(readdirSync(dir)).toEqual(['photo.jpg']);
  });

  it('puts the result in place when the name is free', async () => {
    const dest = join(dir, 'fresh.jpg');
    await writeFileAtomic(dest, 'result', { exclusive: true });
    expect(readFileSync(dest, 'utf8')).toBe('result');
    expect(readdirSync(dir)).toEqual(['fresh.jpg']);
  });
});
