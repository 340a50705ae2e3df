/**
 * A batch against the emulator's account limit of 2 jobs in progress with
 * `-j 8`: every file corrected and uploaded once (a refused start is made
 * again with the same upload, not failed and retried), and the jobs at once
 * settle at the account's 2 with only occasional probes above it.
 */
import { join } from 'node:path';
import { startEmulator } from '@pfc/emulator';
import type { CorrectionBackend } from '@pfc/core';
import { describe, expect, it } from 'vitest';
import { type BatchEvent, openBackend, planBatch, runBatch } from '../src/index';
import { solidJpegs, tempDir } from './helpers';

describe('account limit of jobs in progress', () => {
  it('no file fails or is uploaded twice, and the jobs at once settle at the limit', async () => {
    const files = 60;
    const emu = await startEmulator({ engine: {}, container: false, bgr: false, processingMs: 60, workers: 8, accountLimits: { jobsInProgress: 2 } });
    try {
      const root = tempDir();
      await solidJpegs(join(root, 'in'), files, { prefix: 'a', width: 64, height: 48 });
      const opened = await openBackend({ emulatorUrl: emu.web });
      const plan = await planBatch({ inputs: [join(root, 'in')], params: {}, backend: opened.id });
      const limits: number[] = [];
      const onEvent = (e: BatchEvent) => {
        if (e.type === 'notice' && /job\(s\) at once/.test(e.message)) limits.push(Number(e.message.split(' ')[0]));
      };
      // Files wait for the 2 slots all along: the client is told so, to poll the running jobs' ends closely.
      let wanted = 0;
      const inner = opened.backend;
      const backend: CorrectionBackend = {
        kind: inner.kind,
        usesJobSlot: inner.usesJobSlot,
        validate: (p) => inner.validate(p),
        correct: (input, params, o = {}) => inner.correct(input, params, { ...o, slotWanted: () => (o.slotWanted?.() ? ++wanted > 0 : false) }),
      };
      const summary = await runBatch(plan, { backend, backendId: opened.id, concurrency: 8, attempts: 1, rateLimited: opened.rateLimited!, onEvent });
      expect(wanted).toBeGreaterThan(0);
      await opened.close();
      const stats = emu.stats();
      const path = `limits ${limits.join(' ')}; ${stats.accountLimits.jobs} refusals`;
      // One attempt per file, yet none failed: refusals cost no attempt.
      expect(summary.corrected, path).toBe(files);
      expect(summary.failed, path).toBe(0);
      expect(stats.requests['upload.put'], path).toBe(files);
      // The first wave finds 2 at once; after that only probes of 3 are refused, ever more rarely.
      const settled = limits.indexOf(2);
      expect(settled, path).toBeGreaterThanOrEqual(0);
      expect(limits.slice(settled).every((l) => l === 2 || l === 3), path).toBe(true);
      const probes = limits.slice(settled).filter((l) => l === 3).length;
      expect(probes, path).toBeLessThanOrEqual(5);
      // 6 refused in the first wave (8 asked, 2 taken), then at most a few per probe.
      expect(stats.accountLimits.jobs, path).toBeLessThanOrEqual(6 + 3 * probes + 2);
    } finally {
      await emu.close();
    }
  }, 120_000);
});
