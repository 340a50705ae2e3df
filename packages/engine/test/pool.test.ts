/**
 * The worker pool shared by vision and upscaling: failures stay with their
 * task, a burst spreads over the workers, close() rejects what is queued,
 * and idle workers do not keep a process alive.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { WorkerPool } from '../src/workers/pool';
import type { FacesTask, VisionResult } from '../src/vision/protocol';

const dir = mkdtempSync(join(tmpdir(), 'pfc-pool-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// A stand-in worker: width 13 crashes the thread, width 7 answers an error, width 9 is never
// answered, anything else answers no faces; every answer says which thread gave it.
const script = join(dir, 'worker.mjs');
writeFileSync(
  script,
  `import { parentPort, threadId } from 'node:worker_threads';
parentPort.on('message', ({ id, task }) => {
  if (task.image.width === 13) process.exit(3);
  if (task.image.width === 9) return;
  if (task.image.width === 7) parentPort.postMessage({ id, ok: false, error: 'bad seven' });
  else parentPort.postMessage({ id, ok: true, result: { kind: 'faces', faces: [], threadId } });
});
`,
);

const task = (width: number): FacesTask => ({ kind: 'faces', image: { data: new ArrayBuffer(width * 3), width, height: 1, channels: 3 }, scale: 1, width, height: 1 });

const newPool = (size: number) => new WorkerPool<FacesTask, VisionResult & { threadId?: number }>({ name: 'vision', script, workerData: { modelsDir: dir }, size });

describe('WorkerPool', () => {
  it('fails only the task whose worker crashed or answered an error, and goes on', async () => {
    const pool = newPool(1);
    const results = await Promise.allSettled([pool.run(task(5), []), pool.run(task(13), []), pool.run(task(7), []), pool.run(task(5), [])]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect(String((results[1] as PromiseRejectedResult).reason)).toMatch(/vision worker failed: exited with code 3/);
    expect(String((results[2] as PromiseRejectedResult).reason)).toMatch(/bad seven/);
    await pool.close();
    await expect(pool.run(task(5), [])).rejects.toThrow(/the vision workers were closed/);
  });

  it('spreads a burst of tasks (the tiles of one image) over every worker', async () => {
    const pool = newPool(2);
    try {
      const results = await Promise.all([1, 2, 3, 4, 5, 6].map(() => pool.run(task(5))));
      expect(new Set(results.map((r) => r.threadId)).size).toBe(2);
    } finally {
      await pool.close();
    }
  });

  it('close() fails the task in flight and the queued ones, naming the pool', async () => {
    const pool = newPool(1);
    // Width 9 never answers: it occupies the only worker, so the next two wait in the queue.
    const all = Promise.allSettled([pool.run(task(9)), pool.run(task(5)), pool.run(task(5))]);
    await pool.close();
    const results = await all;
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    for (const r of results) expect(String((r as PromiseRejectedResult).reason)).toMatch(/the vision workers were closed/);
  });

  it('lets a process that used the real engine (vision and upscale workers) exit without closing it', async () => {
    const dist = fileURLToPath(new URL('../dist/index.js', import.meta.url));
    const sample = fileURLToPath(new URL('../../../samples/portraits/astronaut.jpg', import.meta.url));
    const code = `
      const { createRequire } = await import('node:module');
      const sharp = createRequire(${JSON.stringify(dist)})('sharp');
      const { detectFaces, segmentPerson, upscaleRaster } = await import(${JSON.stringify(dist)});
      const { data, info } = await sharp(${JSON.stringify(sample)}).raw().toBuffer({ resolveWithObject: true });
      const img = { data, width: info.width, height: info.height, channels: info.channels };
      const small = { data: new Uint8Array(64 * 64 * 3).fill(128), width: 64, height: 64, channels: 3 };
      const [faces, mask, up] = await Promise.all([detectFaces(img), segmentPerson(img), upscaleRaster(small, { width: 128, height: 128 })]);
      console.log(faces.length, mask.width, up.method);`;
    // Bounded: if idle workers held the process, it would hit the timeout and fail.
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', code], { timeout: 60_000 });
    expect(stdout.trim()).toBe('1 512 esrgan-x2');
  });
});
