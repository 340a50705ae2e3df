/**
 * Earlier runs' results met as inputs, at the engine's level (the CLI's
 * test/cli/earlier-results.test.ts runs them through the built `pfc`): the
 * cost guard's count (`pendingFiles`, what VS Code asks before a large run)
 * leaves them out, as the run itself refuses them.
 */
import { copyFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pendingFiles, planBatch, runBatch } from '../src/index';
import { FakeBackend, jpegBytes, tempDir, writeTree } from './helpers';

describe('earlier results as inputs', () => {
  it('an output folder given as input: its results are not pending and are refused; a photo added there is corrected', async () => {
    const root = tempDir();
    writeTree(root, { 'photos/a.jpg': jpegBytes(120, 80, { filler: 'a' }), 'photos/trip/b.jpg': jpegBytes(120, 80, { filler: 'b' }) });
    const first = await planBatch({ inputs: [join(root, 'photos')], params: {} });
    expect((await runBatch(first, { backend: new FakeBackend(), retryDelayMs: 1 })).corrected).toBe(2);
    copyFileSync(join(root, 'photos/a.jpg'), join(root, 'photos/corrected/added.jpg'));

    const again = await planBatch({ inputs: [join(root, 'photos/corrected')], params: {}, output: { kind: 'mirror', dir: join(root, 'twice') } });
    expect(again.files.map((f) => f.rel).sort()).toEqual(['a.jpg', 'added.jpg', 'trip/b.jpg']);
    expect((await pendingFiles(again, { backendId: 'fake' })).map((f) => f.rel)).toEqual(['added.jpg']);
    const backend = new FakeBackend();
    const summary = await runBatch(again, { backend, retryDelayMs: 1 });
    expect(summary).toMatchObject({ corrected: 1, failed: 2 });
    expect(summary.results.filter((r) => r.status === 'failed').map((r) => r.errorName)).toEqual(['AlreadyCorrectedError', 'AlreadyCorrectedError']);
    expect(backend.calls).toHaveLength(1);
  });

  /** `photos` corrected once into `photos/corrected`; then a link to a result and a copy of one beside the photos, and a new photo. */
  async function resultsAmongThePhotos(): Promise<string> {
    const root = tempDir();
    writeTree(root, { 'photos/a.jpg': jpegBytes(120, 80, { filler: 'a' }) });
    await runBatch(await planBatch({ inputs: [join(root, 'photos')], params: {} }), { backend: new FakeBackend(), retryDelayMs: 1 });
    symlinkSync('corrected/a.jpg', join(root, 'photos/latest.jpg'));
    copyFileSync(join(root, 'photos/corrected/a.jpg'), join(root, 'photos/copy.jpg'));
    writeTree(root, { 'photos/new.jpg': jpegBytes(120, 80, { filler: 'n' }) });
    return root;
  }

  it('a link to a result among the photos is refused on its own; the rest of the folder is corrected', async () => {
    const root = await resultsAmongThePhotos();
    const plan = await planBatch({ inputs: [join(root, 'photos')], params: {} });
    expect((await pendingFiles(plan, { backendId: 'web' })).map((f) => f.rel)).toEqual(['new.jpg']);
    const backend = new FakeBackend();
    const summary = await runBatch(plan, { backend, retryDelayMs: 1 });
    expect(summary).toMatchObject({ corrected: 1, upToDate: 1, failed: 2 });
    const latest = summary.results.find((r) => r.input.endsWith('latest.jpg'));
    expect(latest).toMatchObject({ status: 'failed', errorName: 'OutputCollisionError' });
    expect(latest?.error).toMatch(/is a link to .*corrected\/a\.jpg, where this run writes the result of .*a\.jpg/);
    expect(backend.calls).toHaveLength(1);
  });

  it('written elsewhere, a link to an earlier output folder\'s result and a copy of one are refused, not sent', async () => {
    const root = await resultsAmongThePhotos();
    const plan = await planBatch({ inputs: [join(root, 'photos')], params: {}, output: { kind: 'mirror', dir: join(root, 'export') } });
    expect(plan.earlierOutputs).toEqual([join(root, 'photos/corrected')]);
    expect((await pendingFiles(plan, { backendId: 'fake' })).map((f) => f.rel).sort()).toEqual(['a.jpg', 'new.jpg']);
    const backend = new FakeBackend();
    const summary = await runBatch(plan, { backend, retryDelayMs: 1 });
    expect(summary).toMatchObject({ corrected: 2, failed: 2 });
    const refused = summary.results.filter((r) => r.status === 'failed');
    expect(refused.map((r) => [r.input.split('/').pop(), r.errorName]).sort()).toEqual([['copy.jpg', 'AlreadyCorrectedError'], ['latest.jpg', 'AlreadyCorrectedError']]);
    expect(refused.find((r) => r.input.endsWith('latest.jpg'))?.error).toMatch(/a link to .*corrected\/a\.jpg/);
    expect(backend.calls).toHaveLength(2);
  });
});
