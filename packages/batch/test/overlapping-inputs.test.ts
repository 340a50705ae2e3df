/**
 * Inputs that overlap — a folder and a subfolder of it given again — run as
 * the CLI runs them (a streamed plan): the subfolder's files go through the
 * first input, and its own output folder, locked before planning knew it would
 * get nothing, is not left behind empty. A folder that was there before stays.
 */
import { existsSync, mkdirSync, readdirSync, realpathSync, symlinkSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type BatchSummary, DEFAULT_OUTPUT_DIR, planStream, runBatch } from '../src/index';
import { FakeBackend, jpegBytes, tempDir, writeTree } from './helpers';

/** `photos/a.jpg` and `photos/sub/b.jpg` in a new folder; its path. */
function photos(): string {
  const dir = tempDir();
  writeTree(dir, { 'photos/a.jpg': jpegBytes(64, 48, { filler: 'a' }), 'photos/sub/b.jpg': jpegBytes(64, 48, { filler: 'b' }) });
  return dir;
}

async function correct(dir: string, inputs: string[]): Promise<BatchSummary> {
  const plan = await planStream({ inputs, cwd: dir, backend: 'web' });
  return runBatch(plan, { backend: new FakeBackend(), retryDelayMs: 1 });
}

describe('a subfolder given again after its folder (mirror)', () => {
  it('corrects its files once, through the folder, and leaves no empty output folder in the subfolder', async () => {
    const dir = photos();
    const summary = await correct(dir, ['photos', 'photos/sub']);
    expect(summary).toMatchObject({ corrected: 2, failed: 0 });
    expect(readdirSync(join(dir, 'photos', DEFAULT_OUTPUT_DIR, 'sub'))).toEqual(['b.jpg']);
    expect(existsSync(join(dir, 'photos/sub', DEFAULT_OUTPUT_DIR))).toBe(false);
    expect(readdirSync(join(dir, 'photos/sub'))).toEqual(['b.jpg']);
  });

  it('keeps an empty output folder that was there before the run', async () => {
    const dir = photos();
    mkdirSync(join(dir, 'photos/sub', DEFAULT_OUTPUT_DIR));
    expect((await correct(dir, ['photos', 'photos/sub'])).corrected).toBe(2);
    expect(readdirSync(join(dir, 'photos/sub', DEFAULT_OUTPUT_DIR))).toEqual([]);
  });
});

describe('a symbolic link beside the file it points to', () => {
  it('the file is corrected under its own name, whichever name sorts first; the link is left out, naming its target', async () => {
    const dir = tempDir();
    writeTree(dir, { 'photos/IMG_1234.jpg': jpegBytes(64, 48, { filler: 'the photo' }) });
    // One link's name sorts before the file's, one after: neither order makes the link the photo.
    symlinkSync('IMG_1234.jpg', join(dir, 'photos/A-latest.jpg'));
    symlinkSync('IMG_1234.jpg', join(dir, 'photos/latest.jpg'));

    const plan = await planStream({ inputs: ['photos'], cwd: dir, backend: 'web' });
    const summary = await runBatch(plan, { backend: new FakeBackend(), retryDelayMs: 1 });

    expect(summary.results.map((r) => [r.rel, r.status])).toEqual([['IMG_1234.jpg', 'corrected']]);
    expect(readdirSync(join(dir, 'photos', DEFAULT_OUTPUT_DIR)).filter((n) => !n.startsWith('.'))).toEqual(['IMG_1234.jpg']);
    const real = realpathSync(join(dir, 'photos/IMG_1234.jpg'));
    expect(plan.leftOut.kept.filter((s) => s.code === 'duplicate').map((s) => [basename(s.path), s.reason])).toEqual([
      ['A-latest.jpg', `symbolic link to ${real}, which is already planned`],
      ['latest.jpg', `symbolic link to ${real}, which is already planned`],
    ]);
  });
});
