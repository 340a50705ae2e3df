/**
 * The upscale worker threads of the process: `min(2, cores)`, started on
 * first use, models loaded once per worker. Tiles of one image are spread
 * over the workers, so an upscale uses every core and parallel jobs do not
 * queue behind one WASM thread. Idle workers do not keep the process alive;
 * a crashed worker fails its tile only.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { EngineError } from '../errors';
import { modelsDir, packageRoot } from '../vision/paths';
import type { UpscaleReply, UpscaleRequest } from './protocol';

interface Job {
  req: Omit<UpscaleRequest, 'id'>;
  resolve: (r: { data: Uint8Array; width: number; height: number }) => void;
  reject: (e: Error) => void;
}

interface Slot {
  worker: Worker;
  job?: Job & { id: number };
}

const slots: Slot[] = [];
const queue: Job[] = [];
let nextId = 1;

/** Upscale one RGB tile by 2 or 4 on a worker thread. */
export function upscaleTile(req: Omit<UpscaleRequest, 'id'>): Promise<{ data: Uint8Array; width: number; height: number }> {
  return new Promise((resolve, reject) => {
    queue.push({ req, resolve, reject });
    dispatch();
  });
}

/** Stops the upscale workers (optional; idle workers do not keep a process alive). */
export async function closeUpscaleWorkers(): Promise<void> {
  const all = slots.splice(0);
  for (const s of all) s.job?.reject(new EngineError('processing', 'the upscale workers were closed'));
  await Promise.all(all.map((s) => s.worker.terminate()));
}

function dispatch(): void {
  while (queue.length > 0) {
    let slot = slots.find((s) => !s.job);
    if (!slot && slots.length < Math.min(2, availableParallelism())) slot = start();
    if (!slot) return;
    const job = queue.shift()!;
    const id = nextId++;
    slot.job = { ...job, id };
    slot.worker.ref();
    slot.worker.postMessage({ ...job.req, id } satisfies UpscaleRequest, [job.req.data]);
  }
}

function start(): Slot {
  const script = join(packageRoot(), 'dist', 'upscale-worker.js');
  if (!existsSync(script)) throw new EngineError('missing-resource', `@pfc/engine: ${script} is missing; build the package (npm run build -w @pfc/engine)`);
  const worker = new Worker(script, { workerData: { modelsDir: join(modelsDir(), 'esrgan-slim') } });
  const slot: Slot = { worker };
  worker.unref();
  worker.on('message', (reply: UpscaleReply) => {
    const job = slot.job;
    if (!job || job.id !== reply.id) return;
    slot.job = undefined;
    worker.unref();
    if (reply.ok) job.resolve({ data: new Uint8Array(reply.data), width: reply.width, height: reply.height });
    else job.reject(new EngineError('processing', `upscaling failed: ${reply.error}`));
    dispatch();
  });
  const fail = (err: Error) => {
    const i = slots.indexOf(slot);
    if (i >= 0) slots.splice(i, 1);
    slot.job?.reject(new EngineError('processing', `upscale worker stopped: ${err.message}`));
    slot.job = undefined;
    dispatch();
  };
  worker.on('error', fail);
  worker.on('exit', (code) => {
    if (slots.includes(slot)) fail(new Error(`exit code ${code}`));
  });
  slots.push(slot);
  return slot;
}
