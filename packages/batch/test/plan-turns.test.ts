/**
 * Planning reads each file's stat and header synchronously (fast from the
 * page cache); a large folder must still not hold the event loop for its whole
 * walk, or VS Code's extension host (progress, Cancel) freezes meanwhile.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { planBatch } from '../src/index';
import { jpegBytes, tempDir } from './helpers';

const reads = vi.hoisted(() => ({ sinceTurn: 0, most: 0 }));

vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const counted = ((...args: Parameters<typeof fs.lstatSync>) => {
    reads.most = Math.max(reads.most, ++reads.sinceTurn);
    return fs.lstatSync(...args);
  }) as typeof fs.lstatSync;
  return { ...fs, default: { ...fs, lstatSync: counted }, lstatSync: counted };
});

describe('planning a large folder', () => {
  it('gives the event loop a turn every few hundred files', async () => {
    const root = tempDir();
    const jpeg = jpegBytes(64, 48);
    for (let i = 0; i < 3_000; i++) writeFileSync(join(root, `p${String(i).padStart(5, '0')}.jpg`), jpeg);
    let running = true;
    const turn = (): void => {
      reads.sinceTurn = 0;
      if (running) setImmediate(turn);
    };
    setImmediate(turn);
    const plan = await planBatch({ inputs: [root] });
    running = false;
    expect(plan.files).toHaveLength(3_000);
    expect(reads.most).toBeGreaterThan(0);
    // 256 files a turn, plus the few read ahead.
    expect(reads.most).toBeLessThanOrEqual(256 + 16);
  });
});
