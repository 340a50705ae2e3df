/**
 * The engine's worker pools: node-io's `WorkerPool`, whose failed tasks
 * reject with `EngineError('processing')`.
 */
import { WorkerPool as NodeWorkerPool, type WorkerPoolOptions } from '@pfc/node-io';
import { EngineError } from '../errors';

export class WorkerPool<Task, Result> extends NodeWorkerPool<Task, Result> {
  constructor(options: Omit<WorkerPoolOptions, 'error'>) {
    super({ ...options, error: (message) => new EngineError('processing', message) });
  }
}
