/**
 * A small pool of vision worker threads. The models run on TensorFlow.js'
 * WASM backend, which is single-threaded: without workers, parallel jobs
 * would queue behind one another on the main thread and block its event loop.
 *
 * - Size: `min(2, cores)` by default; workers start on first use and load
 *   their models once (lazily, per model kind).
 * - Idle workers are `unref()`ed, so a process that is otherwise done exits
 *   without calling `close()`; a worker with a task in flight keeps it alive.
 * - A worker that crashes fails its task only; the next task starts a new one.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { EngineError } from '../errors';
import type { Reply, Request, VisionResult, VisionTask, WorkerConfig } from './protocol';

interface Pending {
  id: number;
  task: VisionTask;
  transfer: ArrayBuffer[];
  resolve: (r: VisionResult) => void;
  reject: (e: Error) => void;
}

interface Slot {
  worker: Worker;
  busy?: Pending;
}

export interface PoolOptions {
  /** Absolute path of the worker script. */
  script: string;
  workerData: WorkerConfig;
  /** Number of workers; default `min(2, cores)`. */
  size?: number;
}

export class VisionPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Pending[] = [];
  private readonly size: number;
  private nextId = 1;
  private closed = false;

  constructor(private readonly options: PoolOptions) {
    this.size = Math.max(1, options.size ?? Math.min(2, availableParallelism()));
  }

  /** Runs a task on the next free worker. The buffers in `transfer` are moved to the worker (unusable afterwards). */
  run(task: VisionTask, transfer: ArrayBuffer[]): Promise<VisionResult> {
    if (this.closed) return Promise.reject(new EngineError('processing', 'the vision workers were closed'));
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, task, transfer, resolve, reject });
      this.dispatch();
    });
  }

  /** Stops every worker; tasks in flight or queued fail. */
  async close(): Promise<void> {
    this.closed = true;
    const err = new EngineError('processing', 'the vision workers were closed');
    for (const p of this.queue.splice(0)) p.reject(err);
    const slots = this.slots.splice(0);
    for (const s of slots) s.busy?.reject(err);
    await Promise.all(slots.map((s) => s.worker.terminate()));
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const slot = this.slots.find((s) => !s.busy) ?? (this.slots.length < this.size ? this.spawn() : undefined);
      if (!slot) return;
      const p = this.queue.shift()!;
      slot.busy = p;
      slot.worker.ref();
      slot.worker.postMessage({ id: p.id, task: p.task } satisfies Request, p.transfer);
    }
  }

  private spawn(): Slot {
    // execArgv []: the test runner's or the host's loader flags are not for the worker.
    const worker = new Worker(this.options.script, { workerData: this.options.workerData, execArgv: [] });
    const slot: Slot = { worker };
    worker.unref();
    worker.on('message', (reply: Reply) => {
      const p = slot.busy;
      if (!p || p.id !== reply.id) return;
      slot.busy = undefined;
      worker.unref();
      if (reply.ok) p.resolve(reply.result);
      else p.reject(new EngineError('processing', reply.error));
      this.dispatch();
    });
    const fail = (why: string) => {
      const i = this.slots.indexOf(slot);
      if (i < 0) return; // already removed (close, or error then exit)
      this.slots.splice(i, 1);
      slot.busy?.reject(new EngineError('processing', `vision worker failed: ${why}`));
      slot.busy = undefined;
      void worker.terminate();
      if (!this.closed) this.dispatch();
    };
    worker.on('error', (e) => fail(e.message));
    worker.on('exit', (code) => fail(`exited with code ${code}`));
    this.slots.push(slot);
    return slot;
  }
}
