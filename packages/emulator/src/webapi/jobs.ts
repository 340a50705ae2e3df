/**
 * Job store and worker queue. `workers` jobs are PROCESSING at once, the rest
 * wait PENDING in arrival order; each job spends at least `processingMs` in
 * PROCESSING, its real work included. Injected faults end a job FAILED or REJECTED, or keep it
 * PROCESSING until the job time limit ends it.
 *
 * A job PROCESSING longer than `jobTimeoutMs` ends FAILED and frees its
 * worker, as a hosted service's job time limit does (a stuck job must not
 * hold a worker, or an account's jobs-in-progress allowance, for good). The
 * contract shows neither the limit nor how such a job ends; FAILED is the
 * documented state of a job that did not complete, with the reason in
 * `statusText` (`code` 504: its meaning for non-zero values is not shown).
 */
import { randomUUID } from 'node:crypto';
import { emptyJobUsage, JOB_STATES, type CropBox, type DetectionData, type Dimensions, type JobRecord, type JobState, type JobUsage, type PfcParams } from '@pfc/core';
import type { InjectedJobFault } from '../faults';
import type { UploadedFile } from './uploads';

/** What a job needs to run; kept beside its public record. */
export interface JobSpec {
  /** Effective parameters (see `jobParams`). */
  params: PfcParams;
  /** The parameters as the client sent them (validated, before defaults are applied). */
  requested: PfcParams;
  /** Whether an identical earlier output may be reused (`cache`, default true). */
  useCache: boolean;
  /** Known before processing (from the upload's header), so PENDING records have them. */
  originalDimensions?: Dimensions;
  usageSize: string;
  fault?: InjectedJobFault;
  /** The uploaded input. */
  file: UploadedFile;
  /** File of the custom preset named by `preset`. */
  presetPath?: string;
  /** Background image of the `bgFileKey` mode. */
  backgroundPath?: string;
  /** Style-reference image of `aiArtReferenceFileKey`. */
  referencePath?: string;
  /** Same file content + same effective parameters ⇒ same key. */
  cacheKey: string;
}

export interface Job {
  record: JobRecord;
  spec: JobSpec;
}

/** How a job ended. */
export type Outcome =
  | {
      status: 'COMPLETED';
      correctedFile: string;
      usage: JobUsage;
      aiserver: boolean;
      originalDimensions: Dimensions;
      outputDimensions?: Dimensions;
      autoCrop?: CropBox;
      detectionData?: DetectionData;
      /** Remarks of a completed job (e.g. an unreadable preset file); default empty. */
      statusText?: string;
    }
  | { status: 'FAILED' | 'REJECTED'; statusText: string; code: number };

export interface JobQueueOptions {
  workers: number;
  /** The least time a job holds its worker, its real work included, ms (`job-time.ts`). */
  processingMs: (job: Job) => number;
  now: () => number;
  /** Does the work of one job; a throw means FAILED with the error's message. `signal` aborts when the queue closes or the job times out. */
  work: (job: Job, signal: AbortSignal) => Promise<Outcome>;
  /** Longest time a job may spend PROCESSING, ms; then it ends FAILED (see the file comment). 0 = never. */
  jobTimeoutMs?: number;
}

/** The end of a job over the time limit. */
function timedOut(ms: number): Outcome {
  return { status: 'FAILED', statusText: `job timed out: processing took longer than the service's limit of ${ms / 1000} s`, code: 504 };
}


export class JobQueue {
  private readonly jobs = new Map<string, Job>();
  private readonly waiting: Job[] = [];
  private active = 0;
  private closed = false;
  private readonly running = new Set<Promise<void>>();
  /** Resolves on close: ends extra-time waits and hung jobs, so close never waits on them. */
  private readonly closing: Promise<void>;
  private signalClose!: () => void;
  /** Aborts running work (a long video encode) on close. */
  private readonly abort = new AbortController();

  constructor(private readonly options: JobQueueOptions) {
    this.closing = new Promise((resolve) => (this.signalClose = resolve));
  }

  private iso(): string {
    return new Date(this.options.now()).toISOString();
  }

  /** Creates a PENDING job and queues it. */
  create(spec: JobSpec): Job {
    const at = this.iso();
    const record: JobRecord = {
      _id: randomUUID(),
      status: 'PENDING',
      statusText: '',
      code: 0,
      createdAt: at,
      updatedAt: at,
      usage: emptyJobUsage(spec.usageSize),
      aiserver: false,
      timeTaken: 0,
      ...(spec.originalDimensions ? { originalDimensions: spec.originalDimensions } : {}),
    };
    const job: Job = { record, spec };
    this.jobs.set(record._id, job);
    this.waiting.push(job);
    this.pump();
    return job;
  }

  get(id: string): Job | undefined {
    return this.jobs.get(id);
  }

  /** Every job the queue still knows, in creation order. */
  list(): IterableIterator<Job> {
    return this.jobs.values();
  }

  /** Number of jobs in each state. */
  countByState(): Record<JobState, number> {
    const counts = Object.fromEntries(JOB_STATES.map((s) => [s, 0])) as Record<JobState, number>;
    for (const j of this.jobs.values()) counts[j.record.status]++;
    return counts;
  }

  /** Forgets finished jobs last updated before `cutoff` (ms since epoch). */
  prune(cutoff: number): void {
    for (const [id, j] of this.jobs) {
      if (['COMPLETED', 'FAILED', 'REJECTED'].includes(j.record.status) && Date.parse(j.record.updatedAt) < cutoff) this.jobs.delete(id);
    }
  }

  /** Stops starting jobs, cancels waits, and waits for the pipelines already running. */
  async close(): Promise<void> {
    this.closed = true;
    this.signalClose();
    this.abort.abort(new Error('the emulator is closing'));
    await Promise.allSettled([...this.running]);
  }

  private pump(): void {
    while (!this.closed && this.active < this.options.workers && this.waiting.length > 0) {
      const job = this.waiting.shift()!;
      this.active++;
      const p = this.run(job).finally(() => {
        this.running.delete(p);
        this.active--;
        this.pump();
      });
      this.running.add(p);
    }
  }

  private async run(job: Job): Promise<void> {
    const r = job.record;
    const started = this.options.now();
    r.status = 'PROCESSING';
    r.updatedAt = this.iso();
    const limitMs = this.options.jobTimeoutMs ?? 0;
    // This job's work stops on close or at the time limit.
    const stop = new AbortController();
    const onClose = (): void => stop.abort(this.abort.signal.reason);
    this.abort.signal.addEventListener('abort', onClose, { once: true });
    let timer: NodeJS.Timeout | undefined;
    const over = timedOut(limitMs);
    const limit = limitMs > 0 ? new Promise<Outcome>((resolve) => (timer = setTimeout(() => resolve(over), limitMs))) : undefined;
    const processing = this.process(job, stop.signal);
    let outcome: Outcome | undefined;
    try {
      outcome = await (limit ? Promise.race([processing, limit]) : processing);
      // Closed while it ran: the record stays as it was.
      if (outcome === undefined || this.closed) return;
      r.status = outcome.status;
      r.timeTaken = Math.round(this.options.now() - started) / 1000;
      r.updatedAt = this.iso();
      if (outcome.status === 'COMPLETED') {
        const { status: _s, ...fields } = outcome;
        Object.assign(r, fields, { statusText: fields.statusText ?? '', code: 0 });
      } else {
        r.statusText = outcome.statusText;
        r.code = outcome.code;
      }
    } finally {
      clearTimeout(timer);
      stop.abort(new Error('the job ended'));
      this.abort.signal.removeEventListener('abort', onClose);
      // Over the limit the work is told to stop and the worker is free; close() still waits for the work to let go of its files.
      if (outcome === over) {
        const leftover = processing.then(() => undefined);
        this.running.add(leftover);
        void leftover.finally(() => this.running.delete(leftover));
      }
    }
  }

  /**
   * What a job's processing comes to, undefined when the queue closed first
   * (a hanging job: only then, or at the time limit, in `run`).
   */
  private async process(job: Job, signal: AbortSignal): Promise<Outcome | undefined> {
    const holdMs = this.options.processingMs(job);
    // Real elapsed time for the processing floor (`now` may be a test's clock that jumps).
    const workStarted = performance.now();
    if (job.spec.fault === 'hang') {
      // Never finishes: holds its worker slot, as a stuck job would.
      await this.closing;
      return undefined;
    }
    let outcome: Outcome;
    if (job.spec.fault === 'fail') outcome = { status: 'FAILED', statusText: 'processing failed (injected fault)', code: 500 };
    else if (job.spec.fault === 'reject') outcome = { status: 'REJECTED', statusText: 'job rejected (injected fault)', code: 400 };
    else {
      try {
        outcome = await this.options.work(job, signal);
      } catch (err) {
        outcome = { status: 'FAILED', statusText: err instanceof Error ? err.message : 'processing failed', code: 500 };
      }
    }
    // `processingMs` is the whole time a job holds its worker, not an extra on top of the
    // real decode/encode: wait only for the remainder, so W workers finish at most
    // W ÷ processingMs jobs per second, as a real service of that speed would, and a job
    // slower than that takes its own time. A remainder after the work (rather than a timer
    // running beside it) gives the same max(work, processingMs) with one timer and no race;
    // injected FAILED/REJECTED jobs, which do no work, wait the whole time.
    const remainingMs = holdMs - (performance.now() - workStarted);
    if (remainingMs > 0) await this.wait(remainingMs);
    return this.closed ? undefined : outcome;
  }

  private async wait(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([new Promise<void>((resolve) => (timer = setTimeout(resolve, ms))), this.closing]);
    clearTimeout(timer);
  }
}
