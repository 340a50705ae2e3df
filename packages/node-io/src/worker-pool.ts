/**
 * A small pool of worker threads speaking the `{ id, task }` → `{ id, ok,
 * result | error }` protocol (see `serveTasks`), for work that would hold the
 * caller's event loop: the engine's models (TensorFlow.js' WASM backend is
 * single-threaded) and its full-size passes, batch's JPEG rewrites (pure
 * JavaScript, a second or more for a 24 MP photo).
 *
 * - Size: `min(2, cores)` by default; workers start on first use, so a
 *   worker loads its models once and keeps them.
 * - Tasks go to the first free worker, so a burst (the tiles of one image)
 *   spreads over every worker.
 * - Idle workers are `unref()`ed, so a process that is otherwise done exits
 *   without calling `close()`; a worker with a task in flight keeps it alive.
 * - With `idleMs`, a worker idle that long is stopped (the next task starts
 *   one): for a long-lived host (VS Code's extension host) whose workers have
 *   nothing to keep between runs.
 * - A worker that crashes fails its task only; the next task starts a new one.
 * - A task given an `AbortSignal` is dropped from the queue when it aborts, or
 *   its worker is stopped mid-task (a synchronous rewrite cannot be stopped
 *   from within), so a cancelled run does not wait for work it will throw away.
 */
import { availableParallelism } from 'node:os';
import { parentPort, Worker } from 'node:worker_threads';

/** What the main thread posts: a task with its request id. */
export interface WorkerRequest<Task> {
  id: number;
  task: Task;
}

/** What a worker posts back for a request. */
export type WorkerReply<Result> = { id: number; ok: true; result: Result } | { id: number; ok: false; error: string };

interface Pending<Task, Result> {
  id: number;
  task: Task;
  transfer: ArrayBuffer[];
  resolve: (r: Result) => void;
  reject: (e: Error) => void;
}

interface Slot<Task, Result> {
  worker: Worker;
  busy?: Pending<Task, Result>;
  /** Stops the worker once it has been idle `idleMs`. */
  idle?: NodeJS.Timeout;
}

/** Options of a {@link WorkerPool}. */
export interface WorkerPoolOptions {
  /** Absolute path of the worker script (it calls `serveTasks`). */
  script: string;
  /** Structured-clone data every worker starts with (e.g. its models folder). */
  workerData?: unknown;
  /** Number of workers; default `min(2, cores)`. */
  size?: number;
  /** What the workers do, for error messages: "vision" gives "vision worker failed: …". */
  name: string;
  /** The error a failed task rejects with, from its message. Default `Error`. */
  error?: (message: string) => Error;
  /** Stop a worker idle this long (ms). Default: kept while the process lives (a worker that loaded models keeps them). */
  idleMs?: number;
}

/** Worker threads running `Task`s to `Result`s; see the module comment for its behaviour. */
export class WorkerPool<Task, Result> {
  private readonly slots: Slot<Task, Result>[] = [];
  private readonly queue: Pending<Task, Result>[] = [];
  private readonly size: number;
  private nextId = 1;
  private closed = false;

  constructor(private readonly options: WorkerPoolOptions) {
    this.size = Math.max(1, options.size ?? Math.min(2, availableParallelism()));
  }

  /**
   * Runs a task on the next free worker (queued while all are busy). The
   * buffers in `transfer` are moved to the worker (unusable afterwards).
   * Rejects with the `error` option's error carrying the worker's error, or
   * when the worker died or the pool was closed; with `signal`'s reason when
   * it aborts first (the worker running it is stopped).
   */
  run(task: Task, transfer: ArrayBuffer[] = [], signal?: AbortSignal): Promise<Result> {
    if (this.closed) return Promise.reject(this.closedError());
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    return new Promise((resolve, reject) => {
      const onAbort = (): void => this.abandon(pending, abortReason(signal!));
      const settled = (): void => signal?.removeEventListener('abort', onAbort);
      const pending: Pending<Task, Result> = {
        id: this.nextId++,
        task,
        transfer,
        resolve: (r) => (settled(), resolve(r)),
        reject: (e) => (settled(), reject(e)),
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(pending);
      this.dispatch();
    });
  }

  /** An aborted task: out of the queue, or its worker stopped (the next task starts another). */
  private abandon(p: Pending<Task, Result>, reason: Error): void {
    const queued = this.queue.indexOf(p);
    if (queued >= 0) this.queue.splice(queued, 1);
    const slot = this.slots.find((s) => s.busy === p);
    if (slot) {
      this.slots.splice(this.slots.indexOf(slot), 1);
      slot.busy = undefined;
      clearTimeout(slot.idle);
      void slot.worker.terminate();
    }
    p.reject(reason);
    if (slot && !this.closed) this.dispatch();
  }

  /** Workers running now (busy or idle). */
  get workers(): number {
    return this.slots.length;
  }

  /** Stops every worker; tasks in flight or queued fail. The pool takes no further tasks. */
  async close(): Promise<void> {
    this.closed = true;
    const err = this.closedError();
    for (const p of this.queue.splice(0)) p.reject(err);
    const slots = this.slots.splice(0);
    for (const s of slots) {
      clearTimeout(s.idle);
      s.busy?.reject(err);
    }
    await Promise.all(slots.map((s) => s.worker.terminate()));
  }

  private closedError(): Error {
    return this.failure(`the ${this.options.name} workers were closed`);
  }

  private failure(message: string): Error {
    return this.options.error?.(message) ?? new Error(message);
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const slot = this.slots.find((s) => !s.busy) ?? (this.slots.length < this.size ? this.spawn() : undefined);
      if (!slot) return;
      const p = this.queue.shift()!;
      try {
        // Node drops a message whose transfer list holds a detached buffer, silently: the task would wait for
        // ever. Empty buffers (a detached one is empty) are copied instead, so a detached one fails to clone here.
        slot.worker.postMessage({ id: p.id, task: p.task } satisfies WorkerRequest<Task>, p.transfer.filter((b) => b.byteLength > 0));
      } catch (err) {
        // A task that cannot be sent (a buffer already moved elsewhere) fails alone; the worker stays free.
        p.reject(err instanceof Error ? err : new Error(String(err)));
        continue;
      }
      clearTimeout(slot.idle);
      slot.idle = undefined;
      slot.busy = p;
      slot.worker.ref();
    }
    for (const slot of this.slots) if (!slot.busy) this.stopWhenIdle(slot);
  }

  private stopWhenIdle(slot: Slot<Task, Result>): void {
    if (this.options.idleMs === undefined || slot.idle) return;
    slot.idle = setTimeout(() => {
      slot.idle = undefined;
      const i = this.slots.indexOf(slot);
      if (slot.busy || i < 0) return;
      this.slots.splice(i, 1);
      void slot.worker.terminate();
    }, this.options.idleMs);
    slot.idle.unref();
  }

  private spawn(): Slot<Task, Result> {
    // execArgv []: the test runner's or the host's loader flags are not for the worker.
    const worker = new Worker(this.options.script, { workerData: this.options.workerData, execArgv: [] });
    const slot: Slot<Task, Result> = { worker };
    worker.unref();
    worker.on('message', (reply: WorkerReply<Result>) => {
      const p = slot.busy;
      if (!p || p.id !== reply.id) return;
      slot.busy = undefined;
      worker.unref();
      if (reply.ok) p.resolve(reply.result);
      else p.reject(this.failure(reply.error));
      this.dispatch();
    });
    const fail = (why: string) => {
      const i = this.slots.indexOf(slot);
      if (i < 0) return; // already removed (close, or error then exit)
      this.slots.splice(i, 1);
      slot.busy?.reject(this.failure(`${this.options.name} worker failed: ${why}`));
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

/** The reason a signal aborted with, as an Error (`abort()` without one gives a DOMException `AbortError`). */
function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason ?? 'aborted'));
}

/**
 * Serve tasks from the pool on this worker thread: answers each `{ id, task }`
 * with the handler's result, or with its error message. The pool sends one
 * task at a time per worker, so handlers need no queue of their own.
 *
 * @param handle does the work; a thrown error becomes the task's rejection (its message only).
 * @param transferOf the buffers of a result to move (not copy) to the main thread.
 */
export function serveTasks<Task, Result>(handle: (task: Task) => Promise<Result>, transferOf: (result: Result) => ArrayBuffer[] = () => []): void {
  const port = parentPort;
  if (!port) throw new Error('serveTasks runs in a worker thread only');
  port.on('message', (req: WorkerRequest<Task>) => {
    handle(req.task).then(
      (result) => port.postMessage({ id: req.id, ok: true, result } satisfies WorkerReply<Result>, transferOf(result)),
      (err: unknown) => port.postMessage({ id: req.id, ok: false, error: err instanceof Error ? err.message : String(err) } satisfies WorkerReply<Result>),
    );
  });
}
