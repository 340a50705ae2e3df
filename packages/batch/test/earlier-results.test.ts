/**
 * Earlier runs' results met as inputs, at the engine's level (the CLI's
 * test/cli/earlier-results.test.ts runs them through the built `pfc`): the
 * cost guard's count (`pendingFiles`, what VS Code asks before a large run)
 * leaves them out, as the run itself refuses them.
 */
import { copyFileSync } from 'node:fs';
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
});
