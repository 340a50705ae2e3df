/**
 * A service that loses every job it holds when one photo crashes it (the
 * embedded emulator, restarted after a native crash): the photo fails after
 * its attempts, the files lost beside it are tried again alone and corrected.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type CorrectionResult, type CorrectOptions, type FileInput, JobLostError, type PfcParams } from '@pfc/core';
import { describe, expect, it } from 'vitest';
import { type BatchEvent, planBatch, runBatch } from '../src/index';
import { FakeBackend, jpegBytes, tempDir, writeTree } from './helpers';

/**
 * A backend whose service crashes whenever it is given one of `poisoned` (`'all'`: any file), losing every job in
 * flight then. The first crash of a poisoned photo waits (in the service) until a job of another photo is in it, so
 * that one at least is lost beside it whatever the machine's speed: with fixed job times alone, a loaded machine
 * sent the others only after the crash, or asked for their results before it, and lost none.
 */
class CrashingService extends FakeBackend {
  private crashes = 0;
  /** The files whose jobs the service holds (from the call to its answer). */
  private readonly held = new Set<string>();
  constructor(private readonly poisoned: readonly string[] | 'all') {
    super({ delayMs: 15 });
  }

  private isPoisoned(name: string): boolean {
    return this.poisoned === 'all' || this.poisoned.includes(name);
  }

  override async correct(input: FileInput, params: PfcParams, options: CorrectOptions = {}): Promise<CorrectionResult> {
    const name = options.fileName ?? '?';
    const lost = () => new JobLostError(404, 'no job with this id', undefined, `GET /v2/status/${name}`);
    const crashesAtStart = this.crashes;
    this.held.add(name);
    try {
      const result = await super.correct(input, params, options);
      if (this.isPoisoned(name)) {
        while (this.poisoned !== 'all' && this.crashes === 0 && ![...this.held].some((held) => held !== name && !this.isPoisoned(held))) await new Promise<void>((r) => setImmediate(r));
        this.crashes++;
        throw lost();
      }
      if (this.crashes !== crashesAtStart) throw lost();
      return result;
    } finally {
      this.held.delete(name);
    }
  }
}

function crashingService(poisoned: readonly string[] | 'all'): FakeBackend {
  return new CrashingService(poisoned);
}

describe('a photo that crashes the service, losing the jobs beside it', () => {
  it('fails alone after its attempts: every file lost with it is tried again alone and corrected', async () => {
    const root = tempDir();
    const names = Array.from({ length: 16 }, (_, i) => `p${String(i).padStart(2, '0')}.jpg`);
    const poisoned = ['p03.jpg', 'p09.jpg'];
    writeTree(root, Object.fromEntries(names.map((n) => [n, jpegBytes(64, 48, { filler: n })])));
    const backend = crashingService(poisoned);
    const events: BatchEvent[] = [];
    const summary = await runBatch(await planBatch({ inputs: [root] }), { backend, concurrency: 3, retryDelayMs: 1, attempts: 3, onEvent: (e) => events.push(e) });
    expect(summary.results.filter((r) => r.status === 'failed').map((r) => r.rel).sort()).toEqual(poisoned);
    expect(summary.corrected).toBe(names.length - poisoned.length);
    for (const name of names) expect(existsSync(join(root, 'corrected', name)), name).toBe(!poisoned.includes(name));
    // Each poisoned photo was tried 3 times; files were lost beside them and tried again.
    for (const name of poisoned) expect(backend.calls.filter((c) => c.fileName === name)).toHaveLength(3);
    const retriedInnocents = new Set(events.flatMap((e) => (e.type === 'retry' && !poisoned.includes(e.rel) ? [e.rel] : [])));
    expect(retriedInnocents.size).toBeGreaterThan(0);
  });

  it('a service that loses every job stops the run after 10 files in a row, saying so', async () => {
    const root = tempDir();
    const names = Array.from({ length: 30 }, (_, i) => `p${String(i).padStart(2, '0')}.jpg`);
    writeTree(root, Object.fromEntries(names.map((n) => [n, jpegBytes(64, 48, { filler: n })])));
    const summary = await runBatch(await planBatch({ inputs: [root] }), { backend: crashingService('all'), concurrency: 2, retryDelayMs: 1, attempts: 3 });
    expect(summary.stoppedBecause).toMatch(/^the service lost the jobs of 10 files in a row, on each of their attempts \(it forgets what it was given: it keeps crashing or restarting\): GET \/v2\/status\//);
    expect(summary.corrected).toBe(0);
    expect(summary.failed).toBeGreaterThanOrEqual(10);
    expect(summary.failed).toBeLessThan(names.length);
  });

  it('a file whose job was lost once is tried again alone soon, not after the rest of the run', async () => {
    const root = tempDir();
    const names = Array.from({ length: 40 }, (_, i) => `p${String(i).padStart(2, '0')}.jpg`);
    writeTree(root, Object.fromEntries(names.map((n) => [n, jpegBytes(64, 48, { filler: n })])));
    const lostOnce = new JobLostError(404, 'no such result', undefined, 'GET corrected file');
    const backend = new FakeBackend({ delayMs: 10, fault: (name, n) => {
      if (name === 'p05.jpg' && n === 1) throw lostOnce;
    } });
    // Four files in hand: their attempts overlap, so a moment with none in flight comes only if the run waits for it.
    const summary = await runBatch(await planBatch({ inputs: [root] }), { backend, concurrency: 4, retryDelayMs: 1, attempts: 3 });
    expect(summary.corrected).toBe(names.length);
    const second = backend.calls.map((c) => c.fileName).lastIndexOf('p05.jpg');
    // The run took no new file while it waited: it came back within the files in hand then, not after the other 34.
    expect(second).toBeLessThan(20);
  });
});
