/**
 * A fleet of self-hosted containers through `openBackend` and `runBatch`, on
 * emulated instances: an instance killed mid-run loses and duplicates no file
 * (checked in the output folder and the instances' correction records), each
 * BGR instance is activated once with the licence key, and against the Web
 * API's account limit the jobs at once drop on 429s and climb back.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createBgrServer, startEmulator } from '@pfc/emulator';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { AUTO_CONTAINER_INSTANCE_JOBS, type BatchEvent, openBackend, planBatch, runBatch } from '../src/index';
import { solidJpegs, tempDir } from './helpers';

async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 3000 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(cond()).toBe(true);
}

describe('fleet of colour containers', () => {
  it('an instance killed mid-run: every file is written once, the run completes on the others, and the failed instance is named', async () => {
    const emu = await startEmulator({ engine: {}, bgr: false, container: { processingMs: 60, workers: 2 }, containerInstances: [{ processingMs: 60 }, { processingMs: 60 }] });
    try {
      const [one, victim, three] = emu.selfHosted.containers;
      const root = tempDir();
      await solidJpegs(join(root, 'in'), 24);
      const events: string[] = [];
      const opened = await openBackend({ containerUrl: [one!.url, victim!.url, three!.url].join(','), healthIntervalMs: 50, onFleetEvent: (e) => events.push(e.type) });
      // Jobs per instance chosen from measured speed: the run offers the most the three may be given.
      expect(opened.defaultConcurrency).toBe(3 * AUTO_CONTAINER_INSTANCE_JOBS);
      const plan = await planBatch({ inputs: [join(root, 'in')], params: {}, backend: opened.id });
      const run = runBatch(plan, { backend: opened.backend, backendId: opened.id, concurrency: opened.defaultConcurrency, retryDelayMs: 10 });
      // Killed while it holds a correction.
      await until(() => victim!.corrections.some((r) => r.status === 'running'));
      await victim!.close();
      const summary = await run;
      expect([summary.corrected, summary.failed]).toEqual([24, 0]);
      const out = readdirSync(join(root, 'in/corrected')).filter((f) => !f.startsWith('.'));
      expect(out.sort()).toEqual(readdirSync(join(root, 'in')).filter((f) => f.endsWith('.jpg')).sort());
      for (const f of out) expect((await sharp(join(root, 'in/corrected', f)).metadata()).width).toBe(96);
      // The instances' own records: no upload corrected twice on any instance, and together they did every file.
      for (const c of [one!, victim!, three!]) expect(new Set(c.corrections.map((r) => r.imageKey)).size).toBe(c.corrections.length);
      const survivors = [one!, three!].flatMap((c) => c.corrections.filter((r) => r.status === 'corrected'));
      expect(survivors.length).toBeGreaterThanOrEqual(24 - victim!.corrections.filter((r) => r.status === 'corrected').length);
      expect(survivors.length).toBeGreaterThan(0);
      const status = opened.instances!();
      expect(status.find((s) => s.name === victim!.url)).toMatchObject({ healthy: false });
      expect(status.find((s) => s.name === victim!.url)!.failed).toBeGreaterThan(0);
      expect(events).toContain('down');
      expect(summary.results.some((r) => r.warnings?.some((w) => w.includes(victim!.url)))).toBe(true);
      await opened.close();
    } finally {
      await emu.close();
    }
  });

  it('an instance down before the run is not used; one per-instance concurrency is kept', async () => {
    const emu = await startEmulator({ engine: {}, bgr: false, container: { processingMs: 20 }, containerInstances: [{ processingMs: 20 }] });
    try {
      const [up, down] = emu.selfHosted.containers;
      await down!.close();
      const root = tempDir();
      await solidJpegs(join(root, 'in'), 6);
      const opened = await openBackend({ containerUrl: [up!.url, down!.url], instanceJobs: 1 });
      const plan = await planBatch({ inputs: [join(root, 'in')], params: {}, backend: opened.id });
      const summary = await runBatch(plan, { backend: opened.backend, backendId: opened.id, concurrency: 4 });
      expect(summary.corrected).toBe(6);
      expect(up!.corrections.filter((r) => r.status === 'corrected')).toHaveLength(6);
      expect(down!.requests['container.upload'] ?? 0).toBe(0);
      // instanceJobs 1: never two corrections at once on the instance.
      const sorted = [...up!.corrections].sort((a, b) => a.startedAt - b.startedAt);
      for (let i = 1; i < sorted.length; i++) expect(sorted[i]!.startedAt).toBeGreaterThanOrEqual(sorted[i - 1]!.endedAt!);
      await opened.close();
    } finally {
      await emu.close();
    }
  });
});

describe('fleet of background-removal containers', () => {
  it('activates the licence once on each instance and uses both', async () => {
    const key = 'fleet-licence-7c1d';
    const servers = await Promise.all([createBgrServer({ licenseKey: key, engine: {} }), createBgrServer({ licenseKey: key, engine: {} })]);
    try {
      const root = tempDir();
      await solidJpegs(join(root, 'in'), 6);
      const opened = await openBackend({ bgrUrl: servers.map((s) => s.url), bgrLicenseKey: key });
      const plan = await planBatch({ inputs: [join(root, 'in')], params: { removeBackground: true }, backend: opened.id });
      const summary = await runBatch(plan, { backend: opened.backend, backendId: opened.id, params: { removeBackground: true }, concurrency: opened.defaultConcurrency });
      expect(summary.corrected).toBe(6);
      for (const s of servers) {
        expect(s.requests['bgr.authorize']).toBe(1);
        expect(s.requests['bgr.submit']).toBeGreaterThan(0);
      }
      await opened.close();
    } finally {
      await Promise.all(servers.map((s) => s.close()));
    }
  });
});

describe('adaptive concurrency against the account limit', () => {
  it('drops the jobs at once on 429s and raises them again, with fewer refusals than a fixed count', async () => {
    // Jobs long beside a file's own work in the client (its upload and download), so that a fixed count keeps the
    // account full, and is refused, on a loaded machine too: with jobs of 120 ms, a client slowed to 150 ms a file
    // (one file at a time) never had more than the two jobs the account holds, and was refused none.
    const emu = await startEmulator({ engine: {}, container: false, bgr: false, processingMs: 400, workers: 8, accountLimits: { jobsInProgress: 2 } });
    try {
      const root = tempDir();
      await solidJpegs(join(root, 'in'), 30);
      const opened = await openBackend({ emulatorUrl: emu.web });
      const plan = await planBatch({ inputs: [join(root, 'in')], params: {}, backend: opened.id });
      const notices: string[] = [];
      const onEvent = (e: BatchEvent) => e.type === 'notice' && notices.push(e.message);
      const adaptive = await runBatch(plan, { backend: opened.backend, backendId: opened.id, concurrency: 8, rateLimited: opened.rateLimited!, onEvent });
      expect(adaptive.corrected).toBe(30);
      const refusedAdaptive = emu.stats().accountLimits.jobs;
      expect(refusedAdaptive).toBeGreaterThan(0);
      const limits = notices.map((n) => Number(n.split(' ')[0]));
      // Down from 8 first, then back up at least once after a drop.
      const path = `limits ${limits.join(' ')}, ${refusedAdaptive} refusals`;
      expect(limits[0], path).toBeLessThan(8);
      expect(limits.some((l, i) => i > 0 && l > limits[i - 1]!), path).toBe(true);
      // The same files again with a fixed 8: the service refuses far more job starts.
      const fixed = await runBatch(plan, { backend: opened.backend, backendId: opened.id, concurrency: 8, force: true });
      expect(fixed.corrected + fixed.failed).toBe(30);
      expect(emu.stats().accountLimits.jobs - refusedAdaptive, path).toBeGreaterThan(refusedAdaptive);
      await opened.close();
    } finally {
      await emu.close();
    }
  }, 120_000);
});
