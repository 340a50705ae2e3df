import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BatchUsageError, planBatch } from '../src/index';
import { jpegBytes, pngBytes, tempDir, writeTree } from './helpers';

describe('planBatch keeps outputs off the inputs and apart', () => {
  it('refuses an output folder that is the input through a link, either way round', async () => {
    const root = tempDir();
    writeTree(root, { 'in/a.jpg': jpegBytes(100, 100) });
    symlinkSync('in', join(root, 'inlink'));
    for (const [input, out] of [['in', 'inlink'], ['inlink', 'in']]) {
      const err = await planBatch({ inputs: [input!], output: { kind: 'mirror', dir: out! }, cwd: root }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BatchUsageError);
      expect((err as Error).message).toMatch(/is the input folder/);
    }
  });

  it('skips the output folder of this run when reached through a link, without listing it as left out', async () => {
    const root = tempDir();
    writeTree(root, { 'in/a.jpg': jpegBytes(100, 100), 'in/2024/b.jpg': jpegBytes(100, 100) });
    symlinkSync('in/2024', join(root, 'outlink'));
    const plan = await planBatch({ inputs: ['in'], output: { kind: 'mirror', dir: 'outlink' }, cwd: root });
    expect(plan.files.map((f) => f.rel)).toEqual(['a.jpg']);
    expect(plan.leftOut.counts.total).toBe(0);
  });

  it('settles collisions case-insensitively, and refuses what cannot be settled naming both inputs', async () => {
    const root = tempDir();
    writeTree(root, { 'a.jpg': jpegBytes(100, 100), 'a.png': pngBytes(100, 100), 'a.png.jpg': jpegBytes(100, 100), 'B.jpg': jpegBytes(100, 100), 'b.jpg': jpegBytes(100, 100) });
    const plan = await planBatch({ inputs: [root], output: { kind: 'mirror', dir: join(root, 'out') }, params: { outputType: 'jpg' } });
    const outputs = Object.fromEntries(plan.files.map((f) => [f.rel, [f.output.slice(root.length + 5), f.refusal ?? '']]));
    expect(outputs).toEqual({
      'B.jpg': ['B.jpg', ''],
      'a.jpg': ['a.jpg', ''],
      'a.png': ['a.png.jpg', expect.stringMatching(/would also be the output of .*a\.png\.jpg/)],
      'a.png.jpg': ['a.png.jpg', ''],
      'b.jpg': ['b.jpg.jpg', ''],
    });
  });

  it('in place, leaves links to files out rather than replace them', async () => {
    const root = tempDir();
    writeTree(root, { 'a.jpg': jpegBytes(100, 100) });
    mkdirSync(join(root, 'sub'));
    symlinkSync('../a.jpg', join(root, 'sub/link.jpg'));
    const plan = await planBatch({ inputs: [join(root, 'sub')], output: { kind: 'in-place' } });
    expect(plan.files).toEqual([]);
    expect(plan.leftOut.kept).toEqual([expect.objectContaining({ code: 'symlink', reason: expect.stringMatching(/never replaces a link/) })]);
  });
});
