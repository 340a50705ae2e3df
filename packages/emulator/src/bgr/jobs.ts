/**
 * Jobs of the BGR emulation: one at a time (a GPU container works through its
 * queue), states queued → processing → completed | failed, files in the work
 * folder named by the server-made process id only, removal in any state.
 */
import { randomUUID } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { isProcessId, type BgrJobState, type BgrMode } from '@pfc/core';
import { writeFileAtomic } from '@pfc/node-io';
import type { ImagingEngine } from '../engine';
import { withDecoderReason } from '../decoder-reason';
import { cutOut } from './mask';

export interface BgrJob {
  id: string;
  state: BgrJobState;
  originalName: string;
  mode: BgrMode;
  preprocessing: boolean;
  postprocessing: boolean;
  /** Seconds; when completed. */
  processingTime?: number;
  /** When failed. */
  error?: string;
  /** Resolves when the job leaves queued/processing (completed, failed or removed). */
  settled: Promise<void>;
}

interface Internal extends BgrJob {
  settle: () => void;
  removed: boolean;
}

export interface JobsOptions {
  engine?: ImagingEngine | undefined;
  /** Whether the container is licensed at the moment a job starts. */
  licensed: () => boolean;
}

export class BgrJobs {
  private readonly jobs = new Map<string, Internal>();
  private chain: Promise<void> = Promise.resolve();
  private gate: { promise: Promise<void>; open: () => void } | undefined;

  constructor(
    private readonly dir: string,
    private readonly options: JobsOptions,
  ) {}

  private inputPath(id: string): string {
    if (!isProcessId(id)) throw new Error('refusing a path not built from a process id');
    return join(this.dir, `${id}.input`);
  }

  private outputPath(id: string): string {
    if (!isProcessId(id)) throw new Error('refusing a path not built from a process id');
    return join(this.dir, `${id}.png`);
  }

  /** Store the input and queue the job. */
  async submit(bytes: Buffer, originalName: string, o: { mode: BgrMode; preprocessing: boolean; postprocessing: boolean }): Promise<BgrJob> {
    const id = randomUUID();
    await writeFileAtomic(this.inputPath(id), bytes);
    let settle!: () => void;
    const settled = new Promise<void>((r) => (settle = r));
    const job: Internal = { id, state: 'queued', originalName, ...o, settled, settle, removed: false };
    this.jobs.set(id, job);
    this.chain = this.chain.then(() => this.run(job));
    return job;
  }

  get(id: string): BgrJob | undefined {
    return this.jobs.get(id);
  }

  /** Path of a completed job's PNG. */
  resultPath(job: BgrJob): string {
    return this.outputPath(job.id);
  }

  /** Delete a job's files in any state; a job still running finishes into nothing. */
  async remove(id: string): Promise<{ previous: BgrJobState; filesDeleted: number } | undefined> {
    const job = this.jobs.get(id);
    if (!job) return undefined;
    this.jobs.delete(id);
    job.removed = true;
    let filesDeleted = 0;
    for (const path of [this.inputPath(id), this.outputPath(id)]) {
      if (await rm(path).then(() => true, () => false)) filesDeleted++;
    }
    job.settle();
    return { previous: job.state, filesDeleted };
  }

  /** Keep jobs waiting in `processing` until `release()` (test seam: observe the state without timing). */
  hold(): void {
    if (this.gate) return;
    let open!: () => void;
    this.gate = { promise: new Promise<void>((r) => (open = r)), open };
  }

  release(): void {
    this.gate?.open();
    this.gate = undefined;
  }

  /** Wait for the queue to drain (after `release()` when held). */
  async idle(): Promise<void> {
    await this.chain;
  }

  private async run(job: Internal): Promise<void> {
    if (job.removed) return;
    job.state = 'processing';
    const started = performance.now();
    let input: Buffer | undefined;
    try {
      while (this.gate) await this.gate.promise;
      if (!this.options.licensed()) throw new Error('Unlicensed: activate the container with GET /Authorize/{license_key}');
      if (job.removed) return;
      input = await readFile(this.inputPath(job.id));
      const out = await cutOut(input, { mode: job.mode, preprocessing: job.preprocessing, postprocessing: job.postprocessing, engine: this.options.engine });
      if (job.removed) return;
      await writeFileAtomic(this.outputPath(job.id), out.png);
      if (job.removed) {
        await rm(this.outputPath(job.id), { force: true });
        return;
      }
      job.processingTime = Math.round(performance.now() - started) / 1000;
      job.state = 'completed';
    } catch (err) {
      job.state = 'failed';
      const reason = input ? await withDecoderReason(err, input) : err;
      job.error = `processing failed: ${reason instanceof Error ? reason.message : String(reason)}`;
    } finally {
      job.settle();
    }
  }
}
