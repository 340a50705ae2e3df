import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ConnectionError } from '@pfc/core';
import { describe, expect, it } from 'vitest';
import { type BatchEvent, planBatch, runBatch } from '../src/index';
import { FakeBackend, jpegBytes, tempDir, writeTree } from './helpers';

describe('inputs that go away or cannot be read', () => {
  it('a file deleted during its upload fails at once with its own reason, not as a retried connection error', async () => {
    const root = tempDir();
    writeTree(root, { 'a.jpg': jpegBytes(100, 80, { filler: 'a' }), 'b.jpg': jpegBytes(100, 80, { filler: 'b' }) });
    const backend = new FakeBackend({
      fault: (name) => {
        if (name !== 'a.jpg') return;
        // The upload stream breaks because the file vanished; the transport reports a connection error.
        rmSync(join(root, 'a.jpg'));
        throw new ConnectionError('socket hang up');
      },
    });
    const events: BatchEvent[] = [];
    const plan = await planBatch({ inputs: [root] });
    const summary = await runBatch(plan, { backend, retryDelayMs: 1, attempts: 3, onEvent: (e) => events.push(e) });
    const a = summary.results.find((r) => r.rel === 'a.jpg')!;
    expect(a.status).toBe('failed');
    expect(a.error).toMatch(/deleted or moved during the run \(ENOENT\)/);
    expect(a.errorName).toBe('InputUnreadableError');
    expect(events.filter((e) => e.type === 'retry')).toEqual([]);
    expect(backend.calls.filter((c) => c.fileName === 'a.jpg')).toHaveLength(1);
    expect(summary.corrected).toBe(1);
    expect(existsSync(join(root, 'corrected/b.jpg'))).toBe(true);
  });

  it.runIf(process.platform === 'linux')('a file that cannot be read while planning counts as failed, not as left out', async () => {
    const root = tempDir();
    writeTree(root, { 'a.jpg': jpegBytes(100, 80) });
    // Readable by nobody, not even root: reading a process's own memory at offset 0 fails with EIO.
    const plan = await planBatch({ inputs: [root, '/proc/self/mem'], output: { kind: 'mirror', dir: join(root, 'out') } });
    expect(plan.skipped.map((s) => s.code)).toEqual(['unreadable']);
    const summary = await runBatch(plan, { backend: new FakeBackend() });
    expect(summary).toMatchObject({ corrected: 1, failed: 1, excluded: 0 });
  });
});
