/**
 * Worker-thread side of the {@link WorkerPool} protocol: answers each
 * `{ id, task }` with the handler's result, or with its error message.
 */
import { parentPort } from 'node:worker_threads';
import type { WorkerReply, WorkerRequest } from './protocol';

/**
 * Serve tasks from the pool on this worker thread. The pool sends one task
 * at a time per worker, so handlers need no queue of their own.
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
