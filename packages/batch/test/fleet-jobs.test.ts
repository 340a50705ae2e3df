/**
 * Per-instance jobs of a fleet (`instanceJobs: "3,1,2"`): each emulated
 * instance runs at most, and under load exactly, its own number of
 * corrections at once (read from the instance's own correction records), and a
 * list that does not match the URLs, or a value out of range, is refused
 * naming `--instance-jobs` before anything is sent.
 */
import { join } from 'node:path';
import { startEmulator } from '@pfc/emulator';
import { describe, expect, it } from 'vitest';
import { BatchUsageError, instanceJobsFor, openBackend, planBatch, runBatch } from '../src/index';
import { peakConcurrency as peak, solidJpegs, tempDir } from './helpers';

describe('per-instance jobs of a fleet', () => {
  it('"3,1,2": each instance runs its own number of corrections at once, and -j defaults to their sum', async () => {
    // No worker limit on the instances: only the client's per-instance count holds them back.
    const emu = await startEmulator({ engine: {}, bgr: false, container: { processingMs: 120 }, containerInstances: [{ processingMs: 120 }, { processingMs: 120 }] });
    try {
      const servers = emu.selfHosted.containers;
      const root = tempDir();
      await solidJpegs(join(root, 'in'), 30, { prefix: 'q' });
      const opened = await openBackend({ containerUrl: servers.map((s) => s.url), instanceJobs: '3,1,2' });
      expect(opened.defaultConcurrency).toBe(6);
      expect(opened.instances!().map((s) => s.concurrency)).toEqual([3, 1, 2]);
      const plan = await planBatch({ inputs: [join(root, 'in')], params: {}, backend: opened.id });
      const summary = await runBatch(plan, { backend: opened.backend, backendId: opened.id, concurrency: opened.defaultConcurrency });
      expect([summary.corrected, summary.failed]).toEqual([30, 0]);
      expect(servers.map((s) => peak(s.corrections))).toEqual([3, 1, 2]);
      await opened.close();
    } finally {
      await emu.close();
    }
  });

  it('a list for colour and BGR URLs, in that order; one number for all', () => {
    expect(instanceJobsFor('4, 2 ,2', { colour: 3, bgr: 0 })).toEqual({ colour: [4, 2, 2], bgr: [] });
    expect(instanceJobsFor([3, 2, 1], { colour: 2, bgr: 1 })).toEqual({ colour: [3, 2], bgr: [1] });
    expect(instanceJobsFor('5', { colour: 2, bgr: 2 })).toEqual({ colour: [5, 5], bgr: [5, 5] });
    expect(instanceJobsFor(undefined, { colour: 2, bgr: 1 })).toEqual({ colour: ['auto', 'auto'], bgr: ['auto'] });
    expect(instanceJobsFor('4,auto', { colour: 2, bgr: 0 })).toEqual({ colour: [4, 'auto'], bgr: [] });
  });

  it('a count that does not match the URLs, or a value out of range, is a usage error naming --instance-jobs before anything is sent', async () => {
    const emu = await startEmulator({ engine: {}, bgr: false, container: {}, containerInstances: [{}, {}] });
    try {
      const urls = emu.selfHosted.containers.map((s) => s.url);
      const refused = async (instanceJobs: string, pattern: RegExp) => {
        const err = await openBackend({ containerUrl: urls, instanceJobs }).then(() => undefined, (e: unknown) => e);
        expect(err, instanceJobs).toBeInstanceOf(BatchUsageError);
        expect((err as Error).message).toMatch(pattern);
      };
      await refused('2,2', /--instance-jobs has 2 values for 3 instance\(s\) \(3 --container-url\)/);
      await refused('1,2,3,4', /--instance-jobs has 4 values for 3 instance/);
      await refused('0', /--instance-jobs values must be integers from 1 to 64.*"0"/);
      await refused('2,65,2', /from 1 to 64.*"65"/);
      await refused('2,x,2', /from 1 to 64.*"x"/);
      await refused('2,,2', /from 1 to 64.*""/);
      for (const s of emu.selfHosted.containers) expect(s.requests['container.upload'] ?? 0).toBe(0);
    } finally {
      await emu.close();
    }
  });
});
