/**
 * The upscale worker threads of the process (a {@link WorkerPool}:
 * `min(2, cores)`, started on first use, models loaded once per worker).
 * Tiles of one image are spread over the workers, so an upscale uses every
 * core and parallel jobs do not queue behind one WASM thread.
 */
import { join } from 'node:path';
import { modelsDir, workerScript } from '../workers/paths';
import { WorkerPool } from '../workers/pool';
import type { UpscaleResult, UpscaleTask, UpscaleWorkerConfig } from './protocol';

let pool: WorkerPool<UpscaleTask, UpscaleResult> | undefined;

function upscalePool(): WorkerPool<UpscaleTask, UpscaleResult> {
  pool ??= new WorkerPool({
    name: 'upscale',
    script: workerScript('upscale-worker'),
    workerData: { modelsDir: join(modelsDir(), 'esrgan-slim') } satisfies UpscaleWorkerConfig,
  });
  return pool;
}

/** Upscale one RGB tile by 2 or 4 on a worker thread; `task.data` is transferred (unusable afterwards). */
export async function upscaleTile(task: UpscaleTask): Promise<{ data: Uint8Array; width: number; height: number }> {
  const r = await upscalePool().run(task, [task.data]);
  return { data: new Uint8Array(r.data), width: r.width, height: r.height };
}

/**
 * Stops the upscale workers (optional: idle workers do not keep a process
 * alive). Tiles in flight fail; the next upscale starts new workers.
 */
export async function closeUpscaleWorkers(): Promise<void> {
  const p = pool;
  pool = undefined;
  await p?.close();
}
