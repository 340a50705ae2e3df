/**
 * node-io's WorkerPool (the engine's model and band workers, batch's
 * greyscale rewrites): results and failures per task, a task that cannot be
 * sent failing alone, and idle workers stopped after `idleMs`.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { WorkerPool } from '../src/index';

const dir = mkdtempSync(join(tmpdir(), 'pfc-worker-pool-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A worker doubling numbers and refusing negative ones, served by the built package's `serveTasks`. */
const script = join(dir, 'double.mjs');
writeFileSync(script, `import { serveTasks } from ${JSON.stringify(pathToFileURL(join(import.meta.dirname, '..', 'dist', 'index.js')).href)};
serveTasks(async (n) => { if (n < 0) throw new Error('negative: ' + n); return n * 2; });\n`);

/** A worker that holds its thread for `ms` (a synchronous rewrite cannot be interrupted from within), then answers `ms`; each task it starts is logged. */
const busyScript = join(dir, 'busy.mjs');
const busyLog = join(dir, 'busy.log');
writeFileSync(busyScript, `import { appendFileSync } from 'node:fs';
import { serveTasks } from ${JSON.stringify(pathToFileURL(join(import.meta.dirname, '..', 'dist', 'index.js')).href)};
serveTasks(async (ms) => { appendFileSync(${JSON.stringify(busyLog)}, ms + '\\n'); const end = Date.now() + ms; while (Date.now() < end); return ms; });\n`);

/** Waits until `check` holds (polled every 20 ms), failing after `ms`. */
async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('WorkerPool', () => {
  it('runs tasks on its workers; a failure is the task\'s alone, with the pool\'s error type', async () => {
    class PoolError extends Error {}
    const pool = new WorkerPool<number, number>({ script, name: 'double', size: 2, error: (m) => new PoolError(m) });
    try {
      const results = await Promise.allSettled([pool.run(1), pool.run(-1), pool.run(3)]);
      expect(results[0]).toEqual({ status: 'fulfilled', value: 2 });
      expect(results[1]).toMatchObject({ status: 'rejected', reason: expect.any(PoolError) });
      expect((results[1] as PromiseRejectedResult).reason.message).toBe('negative: -1');
      expect(results[2]).toEqual({ status: 'fulfilled', value: 6 });
      expect(pool.workers).toBe(2);
    } finally {
      await pool.close();
    }
  });

  it('a task that cannot be sent (its buffer already moved) fails alone, and the worker takes the next', async () => {
    const pool = new WorkerPool<unknown, number>({ script, name: 'double', size: 1 });
    try {
      const bytes = new Uint8Array(8);
      structuredClone(bytes.buffer, { transfer: [bytes.buffer] });
      await expect(pool.run(bytes, [bytes.buffer])).rejects.toThrow(/detached/);
      await expect(pool.run(21)).resolves.toBe(42);
    } finally {
      await pool.close();
    }
  });

  it('with idleMs, an idle worker is stopped, and the next task starts another', async () => {
    const pool = new WorkerPool<number, number>({ script, name: 'double', size: 1, idleMs: 100 });
    try {
      expect(await pool.run(2)).toBe(4);
      expect(pool.workers).toBe(1);
      await until(() => pool.workers === 0);
      expect(await pool.run(5)).toBe(10);
      expect(pool.workers).toBe(1);
    } finally {
      await pool.close();
    }
  });

  it('an aborted task: its worker is stopped mid-task, a queued one never starts, and the pool goes on with a new worker', async () => {
    writeFileSync(busyLog, '');
    const pool = new WorkerPool<number, number>({ script: busyScript, name: 'busy', size: 1 });
    try {
      const stop = new AbortController();
      // A minute's work on the one worker, and a task queued behind it.
      const running = pool.run(60_000, [], stop.signal);
      const queued = pool.run(60_001, [], stop.signal);
      await until(() => readFileSync(busyLog, 'utf8').includes('60000'));
      stop.abort(new Error('cancelled by the user'));
      await expect(running).rejects.toThrow('cancelled by the user');
      await expect(queued).rejects.toThrow('cancelled by the user');
      // The worker was stopped, not waited for (the minute's work would outlast the test's time limit).
      expect(pool.workers).toBe(0);
      expect(await pool.run(1)).toBe(1);
      expect(readFileSync(busyLog, 'utf8').split('\n').filter(Boolean)).toEqual(['60000', '1']);
      // Aborted before it is given: never sent.
      await expect(pool.run(2, [], AbortSignal.abort(new Error('too late')))).rejects.toThrow('too late');
    } finally {
      await pool.close();
    }
  });

  it('without idleMs, a worker is kept between tasks', async () => {
    const pool = new WorkerPool<number, number>({ script, name: 'double', size: 1 });
    try {
      await pool.run(1);
      await new Promise((r) => setTimeout(r, 300));
      expect(pool.workers).toBe(1);
    } finally {
      await pool.close();
    }
  });
});
