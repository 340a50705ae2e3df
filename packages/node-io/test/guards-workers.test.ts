/**
 * Guards found by a mutation audit of node-io's WorkerPool: a crashed worker
 * fails its task and is replaced, closing or cancelling never leaves a task
 * waiting for ever, nothing is kept per finished task, and the pool neither
 * lets the process exit mid-task nor keeps it alive when idle.
 */
import { spawnSync } from 'node:child_process';
import { getEventListeners, once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { WorkerPool } from '../src/index';

const dir = mkdtempSync(join(tmpdir(), 'node-io-guards-workers-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The built package, as the existing worker-pool tests use it (a worker runs plain JavaScript). */
const dist = pathToFileURL(join(import.meta.dirname, '..', 'dist', 'index.js')).href;

/**
 * A worker doubling numbers; 'crash' ends its thread (an uncaught error outside
 * the task's promise, as a native module's abort would), 'hang' never answers,
 * 'spin' holds the thread until the file `release` exists (a synchronous
 * rewrite, which only terminate() stops), 'later' answers after a moment
 * spent waiting (I/O), 'log:<text>' appends its text to `log`.
 */
const release = join(dir, 'release');
/** Where 'log:<text>' tasks write their text (work that a cancelled task must never do). */
const log = join(dir, 'tasks.log');
const script = join(dir, 'tasks.mjs');
writeFileSync(script, `import { appendFileSync, existsSync } from 'node:fs';
import { serveTasks } from ${JSON.stringify(dist)};
serveTasks(async (task) => {
  if (task === 'crash') { setImmediate(() => { throw new Error('native abort'); }); return new Promise(() => {}); }
  if (task === 'exit') process.exit(3);
  if (task === 'hang') return new Promise(() => {});
  if (task === 'later') return new Promise((resolve) => setTimeout(() => resolve('later'), 100));
  if (task === 'spin') { while (!existsSync(${JSON.stringify(release)})); return 'released'; }
  if (typeof task === 'string' && task.startsWith('log:')) { appendFileSync(${JSON.stringify(log)}, task.slice(4) + '\\n'); return 'logged'; }
  return task * 2;
});\n`);

type Pool = WorkerPool<unknown, unknown>;
const pool = (size = 1): Pool => new WorkerPool<unknown, unknown>({ script, name: 'test', size });

describe('WorkerPool guards', () => {
  it('a worker that crashes fails its task only; the tasks queued behind it run on a new worker', async () => {
    const p = pool(1);
    try {
      const [crashed, exited, next] = await Promise.allSettled([p.run('crash'), p.run('exit'), p.run(21)]);
      expect(crashed).toMatchObject({ status: 'rejected', reason: { message: expect.stringMatching(/^test worker failed: .*native abort/) } });
      expect(exited).toMatchObject({ status: 'rejected', reason: { message: 'test worker failed: exited with code 3' } });
      expect(next).toEqual({ status: 'fulfilled', value: 42 });
      // And later tasks too: the dead workers are gone.
      await expect(p.run(5)).resolves.toBe(10);
      expect(p.workers).toBe(1);
    } finally {
      await p.close();
    }
  });

  it('close fails the task in flight and the ones queued, and refuses new ones', async () => {
    const p = pool(1);
    const outcomes = Promise.allSettled([p.run('hang'), p.run(1)]);
    await p.close();
    const [running, queued] = await outcomes;
    expect(running).toMatchObject({ status: 'rejected', reason: { message: 'the test workers were closed' } });
    expect(queued).toMatchObject({ status: 'rejected', reason: { message: 'the test workers were closed' } });
    await expect(p.run(2)).rejects.toThrow('the test workers were closed');
    expect(p.workers).toBe(0);
  });

  it('a cancelled task\'s worker is really stopped, and the tasks queued behind it go on', async () => {
    rmSync(release, { force: true });
    const p = pool(1);
    try {
      const stop = new AbortController();
      const spinning = p.run('spin', [], stop.signal);
      const next = p.run(21);
      const worker = (p as unknown as { slots: { worker: Worker }[] }).slots[0]!.worker;
      const exited = once(worker, 'exit');
      stop.abort(new Error('cancelled'));
      await expect(spinning).rejects.toThrow('cancelled');
      await expect(next).resolves.toBe(42);
      // The spinning thread ends only if terminated (nothing releases it).
      await exited;
      expect(existsSync(release)).toBe(false);
    } finally {
      writeFileSync(release, '');
      await p.close();
    }
  });

  it('a queued task cancelled while the worker is busy is never run', async () => {
    rmSync(release, { force: true });
    writeFileSync(log, '');
    const p = pool(1);
    try {
      const stop = new AbortController();
      const running = p.run('spin');
      const cancelled = p.run('log:cancelled', [], stop.signal);
      stop.abort(new Error('cancelled'));
      await expect(cancelled).rejects.toThrow('cancelled');
      writeFileSync(release, '');
      await expect(running).resolves.toBe('released');
      await expect(p.run('log:after')).resolves.toBe('logged');
      expect(readFileSync(log, 'utf8')).toBe('after\n');
    } finally {
      writeFileSync(release, '');
      await p.close();
    }
  });

  it('a task that cannot be sent does not hold up the tasks queued behind it', async () => {
    const p = pool(1);
    try {
      const moved = new Uint8Array(8);
      structuredClone(moved.buffer, { transfer: [moved.buffer] });
      // One worker: the second and third wait until the first is answered.
      const [first, unsendable, last] = await Promise.allSettled([p.run(1), p.run(moved, [moved.buffer]), p.run(2)]);
      expect(first).toEqual({ status: 'fulfilled', value: 2 });
      expect(unsendable).toMatchObject({ status: 'rejected', reason: { message: expect.stringMatching(/detached/) } });
      expect(last).toEqual({ status: 'fulfilled', value: 4 });
    } finally {
      await p.close();
    }
  });

  it('keeps no abort listener of a finished task (a run-wide signal over thousands of files)', async () => {
    const p = pool(2);
    try {
      const run = new AbortController();
      for (let i = 0; i < 5; i++) await p.run(i, [], run.signal);
      await expect(p.run(-0.5, [], run.signal)).resolves.toBe(-1);
      expect(getEventListeners(run.signal, 'abort')).toHaveLength(0);
    } finally {
      await p.close();
    }
  });

  it('a process keeps running while a task is in flight, and exits by itself once the pool is idle (no close())', () => {
    const main = join(dir, 'main.mjs');
    writeFileSync(main, `import { WorkerPool } from ${JSON.stringify(dist)};
const pool = new WorkerPool({ script: ${JSON.stringify(script)}, name: 'test', size: 1 });
console.log('first', await pool.run(5));
// Now an idle worker that was started: the task in flight alone must keep the process alive.
pool.run('later').then((r) => console.log('result', r));\n`);
    // The timeout only ends a process that would otherwise never exit (the failure being tested).
    const child = spawnSync(process.execPath, [main], { encoding: 'utf8', timeout: 25_000 });
    expect(child.signal).toBeNull();
    expect(child.status).toBe(0);
    expect(child.stdout).toBe('first 10\nresult later\n');
  });
});
