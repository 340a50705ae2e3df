/**
 * The vision worker pool: failures stay with their task, close() stops it,
 * and idle workers do not keep a process alive.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { VisionPool } from '../src/vision/pool';
import type { FacesTask } from '../src/vision/protocol';

const dir = mkdtempSync(join(tmpdir(), 'pfc-pool-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// A stand-in worker: width 13 crashes the thread, width 7 answers an error, anything else answers no faces.
const script = join(dir, 'worker.mjs');
writeFileSync(
  script,
  `import { parentPort } from 'node:worker_threads';
parentPort.on('message', ({ id, task }) => {
  if (task.image.width === 13) process.exit(3);
  if (task.image.width === 7) parentPort.postMessage({ id, ok: false, error: 'bad seven' });
  else parentPort.postMessage({ id, ok: true, result: { kind: 'faces', faces: [] } });
});
`,
);

const task = (width: number): FacesTask => ({ kind: 'faces', image: { data: new ArrayBuffer(width * 3), width, height: 1, channels: 3 }, scale: 1, width, height: 1 });

describe('VisionPool', () => {
  it('fails only the task whose worker crashed or answered an error, and goes on', async () => {
    const pool = new VisionPool({ script, workerData: { modelsDir: dir }, size: 1 });
    const results = await Promise.allSettled([pool.run(task(5), []), pool.run(task(13), []), pool.run(task(7), []), pool.run(task(5), [])]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect(String((results[1] as PromiseRejectedResult).reason)).toMatch(/vision worker failed: exited with code 3/);
    expect(String((results[2] as PromiseRejectedResult).reason)).toMatch(/bad seven/);
    await pool.close();
    await expect(pool.run(task(5), [])).rejects.toThrow(/closed/);
  });

  it('lets a process that used the real engine exit without closing it', async () => {
    const dist = fileURLToPath(new URL('../dist/index.js', import.meta.url));
    const sample = fileURLToPath(new URL('../../../samples/portraits/astronaut.jpg', import.meta.url));
    const code = `
      const { createRequire } = await import('node:module');
      const sharp = createRequire(${JSON.stringify(dist)})('sharp');
      const { detectFaces, segmentPerson } = await import(${JSON.stringify(dist)});
      const { data, info } = await sharp(${JSON.stringify(sample)}).raw().toBuffer({ resolveWithObject: true });
      const img = { data, width: info.width, height: info.height, channels: info.channels };
      const [faces, mask] = await Promise.all([detectFaces(img), segmentPerson(img)]);
      console.log(faces.length, mask.width);`;
    // Bounded: if idle workers held the process, it would hit the timeout and fail.
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', code], { timeout: 60_000 });
    expect(stdout.trim()).toBe('1 512');
  });
});
