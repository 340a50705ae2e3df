/**
 * Per-instance jobs chosen from measured speed (no `instanceJobs`): a fast
 * and a slow emulated colour container with two workers each, and the run
 * ends with more files at once on the fast one. Read from each instance's
 * own records: the requests for a correction it held at once (waiting for a
 * worker or being corrected).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startEmulator } from '@pfc/emulator';
import { describe, expect, it } from 'vitest';
import { AUTO_CONTAINER_INSTANCE_JOBS, DEFAULT_CONTAINER_INSTANCE_JOBS, openBackend, planBatch, runBatch } from '../src/index';
import { peakConcurrency, solidJpegs, tempDir } from './helpers';

describe('per-instance jobs from measured speed', () => {
  it('without instanceJobs, the instance that returns files faster ends with more of them at once', async () => {
    const emu = await startEmulator({ engine: {}, bgr: false, container: { processingMs: 30, workers: 2 }, containerInstances: [{ processingMs: 600, workers: 2 }] });
    try {
      const [fast, slow] = emu.selfHosted.containers;
      const root = tempDir();
      const names = await solidJpegs(join(root, 'in'), 120, { prefix: 'a' });
      const opened = await openBackend({ containerUrl: [fast!.url, slow!.url] });
      // The run offers the most both may be given, so the fleet can widen either.
      expect(opened.defaultConcurrency).toBe(2 * AUTO_CONTAINER_INSTANCE_JOBS);
      expect(opened.instances!().map((s) => s.concurrency)).toEqual([DEFAULT_CONTAINER_INSTANCE_JOBS, DEFAULT_CONTAINER_INSTANCE_JOBS]);
      const plan = await planBatch({ inputs: [join(root, 'in')], params: {}, backend: opened.id });
      const summary = await runBatch(plan, { backend: opened.backend, backendId: opened.id, concurrency: opened.defaultConcurrency });
      const widths = opened.instances!().map((s) => s.concurrency);
      await opened.close();

      expect([summary.corrected, summary.failed]).toEqual([120, 0]);
      for (const name of names) expect(existsSync(join(root, 'in', 'corrected', name)), name).toBe(true);
      const held = [fast!, slow!].map((s) => peakConcurrency(s.corrections.map((r) => ({ startedAt: r.requestedAt, endedAt: r.endedAt }))));
      // Both workers of each were used; the fast instance was given more than its start, and more than the slow one.
      expect([fast!, slow!].map((s) => peakConcurrency(s.corrections))).toEqual([2, 2]);
      expect(held[0], `held at once: fast ${held[0]}, slow ${held[1]}`).toBeGreaterThan(DEFAULT_CONTAINER_INSTANCE_JOBS);
      expect(held[0]).toBeGreaterThan(held[1]!);
      expect(widths[0], `widths at the end: ${widths.join(', ')}`).toBeGreaterThan(widths[1]!);
    } finally {
      await emu.close();
    }
  }, 60_000);
});
