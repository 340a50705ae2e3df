/**
 * The message protocol between a {@link WorkerPool} and its worker threads:
 * the pool posts `{ id, task }`, the worker answers `{ id, ok, result | error }`
 * for that id. Pixel buffers travel as transferred `ArrayBuffer`s, everything
 * else as structured-clone data.
 */

/** What the main thread posts: a task with its request id. */
export interface WorkerRequest<Task> {
  id: number;
  task: Task;
}

/** What a worker posts back for a request. */
export type WorkerReply<Result> = { id: number; ok: true; result: Result } | { id: number; ok: false; error: string };
