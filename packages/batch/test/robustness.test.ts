import { execFileSync } from 'node:child_process';
import { closeSync, constants, existsSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConnectionError } from '@pfc/core';
import { describe, expect, it } from 'vitest';
import { type BatchEvent, planBatch, runBatch } from '../src/index';
import { CORRECTED_MARK, FakeBackend, jpegBytes, tempDir, writeTree } from './helpers';

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

  it.runIf(process.platform !== 'win32')('a file replaced by a named pipe after planning fails with that reason, unopened, and the run finishes (mirror and in place)', async () => {
    for (const kind of ['mirror', 'in-place'] as const) {
      const root = tempDir();
      writeTree(root, { 'a.jpg': jpegBytes(100, 80, { filler: 'a' }), 'b.jpg': jpegBytes(100, 80, { filler: 'b' }) });
      const plan = await planBatch({ inputs: [root], output: { kind } });
      const pipe = join(root, 'a.jpg');
      rmSync(pipe);
      execFileSync('mkfifo', [pipe]);
      try {
        const summary = await settledWithin(runBatch(plan, { backend: new FakeBackend(), retryDelayMs: 1 }), 10_000);
        expect(summary.results.find((r) => r.rel === 'a.jpg'), kind).toMatchObject({ status: 'failed', error: 'not a regular file (a named pipe)', errorName: 'NotRegularFileError' });
        expect(summary.corrected, kind).toBe(1);
      } finally {
        await releaseReaders(pipe);
      }
    }
  });

  it.runIf(process.platform === 'linux')('a file that cannot be read while planning counts as failed, not as left out', async () => {
    const root = tempDir();
    writeTree(root, { 'a.jpg': jpegBytes(100, 80) });
    // Readable by nobody, not even root: reading a process's own memory at offset 0 fails with EIO.
    const plan = await planBatch({ inputs: [root, '/proc/self/mem'], output: { kind: 'mirror', dir: join(root, 'out') } });
    expect(plan.leftOut.kept.map((s) => s.code)).toEqual(['unreadable']);
    const summary = await runBatch(plan, { backend: new FakeBackend() });
    expect(summary).toMatchObject({ corrected: 1, failed: 1, excluded: 0 });
  });
});

describe('inputs that change after planning', () => {
  it('a photo rewritten to another size between planning and its upload (while the cost question waits, or by a sync tool) is sent whole, as it is then (mirror and in place)', async () => {
    for (const output of [{ kind: 'mirror' }, { kind: 'in-place' }] as const) {
      const root = tempDir();
      writeTree(root, { 'a.jpg': jpegBytes(120, 80, { filler: 'as planned' }) });
      const plan = await planBatch({ inputs: [root], output });
      const now = jpegBytes(120, 80, { filler: 'rewritten since, with its metadata added' });
      writeFileSync(join(root, 'a.jpg'), now);
      const backend = new FakeBackend();
      const summary = await runBatch(plan, { backend, retryDelayMs: 1 });
      expect(summary.results.map((r) => [r.status, r.error]), output.kind).toEqual([['corrected', undefined]]);
      expect(Buffer.from(backend.calls[0]!.input), output.kind).toEqual(now);
      const result = readFileSync(join(root, output.kind === 'mirror' ? 'corrected/a.jpg' : 'a.jpg'));
      expect(result, output.kind).toEqual(Buffer.concat([now, CORRECTED_MARK]));
      // Recorded as it was sent: the next run finds it up to date.
      expect((await runBatch(await planBatch({ inputs: [root], output }), { backend: new FakeBackend() })).upToDate, output.kind).toBe(1);
    }
  });
});

/** `promise`, or a rejection once `ms` have passed: a read blocked opening a pipe never settles. */
function settledWithin<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`not settled within ${ms} ms (blocked opening a pipe?)`)), ms)));
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}

/**
 * Free any thread blocked opening `pipe` for reading, so a failed test leaves no
 * worker stuck: a writer's open wakes every waiting reader, who then reads the end.
 */
async function releaseReaders(pipe: string): Promise<void> {
  for (let i = 0; i < 50; i++) {
    try {
      closeSync(openSync(pipe, constants.O_WRONLY | constants.O_NONBLOCK));
    } catch {
      return; // ENXIO: no reader has it open or waits
    }
    // The readers close it on their next turn (a retry may open it again).
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
