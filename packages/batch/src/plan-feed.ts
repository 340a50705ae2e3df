/**
 * The files of a plan as a run's workers take them, in plan order, each with
 * its position. A whole plan (`BatchPlan`) is read from its array; a streamed
 * one (`StreamedPlan`) is planned ahead of the workers by at most `bound`
 * files, so planning and the jobs overlap and memory does not grow with the tree.
 */
import { dirname } from 'node:path';
import { UserAbortError } from '@pfc/core';
import type { BatchPlan, PlannedFile, StreamedPlan } from './plan';

/** A planned file and its position in the plan (jobs start in this order). */
export interface Fed {
  file: PlannedFile;
  index: number;
}

/** Files a streamed plan is planned ahead of the workers (each is a few hundred bytes). */
export const PLAN_AHEAD = 256;

export function isStreamed(plan: BatchPlan | StreamedPlan): plan is StreamedPlan {
  return !Array.isArray(plan.files);
}

/** Hands a plan's files to the workers. */
export interface PlanFeed {
  next(): Promise<Fed | undefined>;
  /** Files taken so far. */
  readonly taken: number;
  /** Files planned and not taken (after the run stopped), then files not planned at all (a streamed plan cut short). */
  leftOver(): { planned: PlannedFile[]; unplanned: number };
  /** Stops planning (a streamed plan) and waits for the planner to stop; rethrows the planner's error (e.g. `BatchUsageError`). */
  close(): Promise<void>;
}

/** `onPlanned`: called once a streamed plan has planned its last file, with the files planned and their bytes. */
export function planFeed(plan: BatchPlan | StreamedPlan, signal: AbortSignal, onPlanned?: (files: number, bytes: number) => void, bound = PLAN_AHEAD): PlanFeed {
  return isStreamed(plan) ? new StreamFeed(plan, signal, bound, onPlanned) : new ArrayFeed(plan.files);
}

class ArrayFeed implements PlanFeed {
  taken = 0;
  constructor(private readonly files: readonly PlannedFile[]) {}

  next(): Promise<Fed | undefined> {
    const file = this.files[this.taken];
    if (!file) return Promise.resolve(undefined);
    return Promise.resolve({ file, index: this.taken++ });
  }

  leftOver(): { planned: PlannedFile[]; unplanned: number } {
    return { planned: this.files.slice(this.taken), unplanned: 0 };
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

class StreamFeed implements PlanFeed {
  taken = 0;
  /** Most files held at once (tests read it: never above the bound). */
  peak = 0;
  private readonly queue: PlannedFile[] = [];
  private done = false;
  private error: unknown;
  private readonly waiters: (() => void)[] = [];
  private space: (() => void) | undefined;
  private readonly pump: Promise<void>;
  private planned = 0;
  /** Whether planning was stopped before its end (the run was cancelled or stopped). */
  private cut = false;

  private plannedBytes = 0;

  constructor(private readonly plan: StreamedPlan, private readonly signal: AbortSignal, private readonly bound: number, private readonly onPlanned?: (files: number, bytes: number) => void) {
    const wakeAll = (): void => this.wake();
    signal.addEventListener('abort', wakeAll, { once: true });
    this.pump = this.run().finally(() => signal.removeEventListener('abort', wakeAll));
  }

  private async run(): Promise<void> {
    try {
      for await (const file of this.plan.files) {
        this.planned++;
        this.plannedBytes += file.size;
        this.queue.push(file);
        this.peak = Math.max(this.peak, this.queue.length);
        this.wakeTakers();
        while (this.queue.length >= this.bound && !this.signal.aborted) await new Promise<void>((r) => (this.space = r));
        // Leaving the loop ends the planner (the generator's `return`).
        if (this.signal.aborted) {
          this.cut = true;
          break;
        }
      }
      if (!this.cut) this.onPlanned?.(this.planned, this.plannedBytes);
    } catch (err) {
      // A plan given the run's signal (`PlanOptions.signal`) stops with the run: cut short, as a break above.
      if (err instanceof UserAbortError && this.signal.aborted) this.cut = true;
      else this.error = err;
    } finally {
      this.done = true;
      this.wakeTakers();
    }
  }

  private wake(): void {
    this.space?.();
    this.space = undefined;
    this.wakeTakers();
  }

  private wakeTakers(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  async next(): Promise<Fed | undefined> {
    for (;;) {
      // A planner's error stops the run: no further file is handed on.
      if (this.error !== undefined || this.signal.aborted) return undefined;
      const file = this.queue.shift();
      if (file) {
        this.space?.();
        this.space = undefined;
        return { file, index: this.taken++ };
      }
      if (this.done) return undefined;
      await new Promise<void>((r) => this.waiters.push(r));
    }
  }

  leftOver(): { planned: PlannedFile[]; unplanned: number } {
    const planned = this.queue.splice(0);
    const unplanned = this.done && this.error === undefined && !this.cut ? 0 : Math.max(0, this.plan.expectedFiles - this.planned - this.plan.progress.leftOut);
    return { planned, unplanned };
  }

  async close(): Promise<void> {
    this.wake();
    await this.pump;
    if (this.error !== undefined) throw this.error;
  }
}

/** The folders a run writes to, each file's one at a time (no array of every file's folder). */
export function* foldersOf(plan: BatchPlan | StreamedPlan): Generator<string> {
  if (isStreamed(plan)) return yield* plan.outputFolders();
  yield* plan.outputRoots;
  for (const f of plan.files) yield dirname(f.output);
  for (const f of plan.files) if (f.backup) yield dirname(f.backup);
}
