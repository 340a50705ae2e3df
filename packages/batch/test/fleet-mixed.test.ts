/**
 * Colour and background-removal fleets in one run: `removeBackground=true`
 * chains each file through one of several colour-correction containers, then
 * one of several BGR containers. Checked on every instance (its own correction
 * records and request counts, the licence activated once on each BGR
 * instance, per-instance jobs for both kinds) and in the outputs' pixels.
 */
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createBgrServer, startEmulator } from '@pfc/emulator';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { openBackend, planBatch, runBatch } from '../src/index';
import { peakConcurrency as peak, tempDir } from './helpers';

/** `n` JPEGs: a plain background with a differently coloured block in the middle (the subject the mask keeps). */
async function portraits(dir: string, n: number): Promise<string[]> {
  mkdirSync(dir, { recursive: true });
  const names = Array.from({ length: n }, (_, i) => `s${String(i).padStart(2, '0')}.jpg`);
  const subject = await sharp({ create: { width: 32, height: 32, channels: 3, background: { r: 200, g: 40, b: 40 } } }).png().toBuffer();
  await Promise.all(names.map((name, i) =>
    sharp({ create: { width: 96, height: 64, channels: 3, background: { r: 30 + i, g: 160, b: 220 } } }).composite([{ input: subject, left: 32, top: 16 }]).jpeg({ quality: 95 }).toFile(join(dir, name))));
  return names;
}

describe('colour and background-removal fleets in one run', () => {
  it('every file goes through one colour instance then one BGR instance; each BGR instance activated once; outputs cut out', async () => {
    const key = 'mixed-fleet-licence-19ab';
    const emu = await startEmulator({ engine: {}, bgr: false, container: { processingMs: 60 }, containerInstances: [{ processingMs: 60 }] });
    const bgrs = await Promise.all([0, 1, 2].map(() => createBgrServer({ licenseKey: key, engine: {} })));
    try {
      const colours = emu.selfHosted.containers;
      const root = tempDir();
      const names = await portraits(join(root, 'in'), 12);
      // Colour containers first, then the BGR containers, in the order of the URLs.
      const opened = await openBackend({ containerUrl: colours.map((c) => c.url), bgrUrl: bgrs.map((b) => b.url), bgrLicenseKey: key, instanceJobs: '2,1,1,1,1' });
      expect(opened.id).toBe('container+bgr');
      expect(opened.instances!().map((s) => [s.name, s.concurrency])).toEqual([[colours[0]!.url, 2], [colours[1]!.url, 1], ...bgrs.map((b) => [b.url, 1])]);
      const params = { removeBackground: true } as const;
      const plan = await planBatch({ inputs: [join(root, 'in')], params, backend: opened.id });
      const summary = await runBatch(plan, { backend: opened.backend, backendId: opened.id, params, concurrency: 5 });
      expect([summary.corrected, summary.failed], JSON.stringify(summary.results.filter((r) => r.status === 'failed').map((r) => r.error))).toEqual([12, 0]);

      // Colour stage: each file corrected once, on one instance; both used; the second never above its one job.
      const colourDone = colours.map((c) => c.corrections.filter((r) => r.status === 'corrected').length);
      expect(colourDone.reduce((a, b) => a + b)).toBe(12);
      for (const c of colours) expect(new Set(c.corrections.map((r) => r.imageKey)).size).toBe(c.corrections.length);
      expect(colourDone.every((n) => n > 0), `colour split ${colourDone.join('/')}`).toBe(true);
      expect(peak(colours[1]!.corrections)).toBe(1);

      // BGR stage: each instance activated exactly once with the key, and every file submitted once in all.
      const submits = bgrs.map((b) => b.requests['bgr.submit'] ?? 0);
      expect(submits.reduce((a, b) => a + b)).toBe(12);
      expect(submits.every((n) => n > 0), `bgr split ${submits.join('/')}`).toBe(true);
      for (const b of bgrs) {
        expect(b.requests['bgr.authorize']).toBe(1);
        expect(b.licensed).toBe(true);
      }

      // Outputs: a PNG per input with an alpha channel: the background cut away, the subject kept.
      const outDir = join(root, 'in/corrected');
      const outputs = readdirSync(outDir).filter((f) => !f.startsWith('.')).sort();
      expect(outputs).toEqual(names.map((n) => n.replace(/\.jpg$/, '.png')));
      for (const f of outputs) {
        const { data, info } = await sharp(join(outDir, f)).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
        expect([info.width, info.height, info.channels], f).toEqual([96, 64, 4]);
        const alpha = (x: number, y: number) => data[(y * info.width + x) * 4 + 3];
        expect(alpha(2, 2), `${f} corner`).toBe(0);
        expect(alpha(48, 32), `${f} subject`).toBe(255);
      }
      await opened.close();
    } finally {
      await Promise.all(bgrs.map((b) => b.close()));
      await emu.close();
    }
  });

  it('a BGR instance that rejects the licence key is taken out: its files move to the others, and it is named', async () => {
    const key = 'mixed-fleet-licence-19ab';
    const emu = await startEmulator({ engine: {}, bgr: false, container: {}, containerInstances: [] });
    // The second instance holds another licence: activating it with our key leaves it Unlicensed.
    const bgrs = await Promise.all([key, 'another-studio-licence', key].map((k) => createBgrServer({ licenseKey: k, engine: {} })));
    try {
      const root = tempDir();
      await portraits(join(root, 'in'), 6);
      const opened = await openBackend({ containerUrl: emu.selfHosted.containers[0]!.url, bgrUrl: bgrs.map((b) => b.url), bgrLicenseKey: key });
      const params = { removeBackground: true } as const;
      const plan = await planBatch({ inputs: [join(root, 'in')], params, backend: opened.id });
      const summary = await runBatch(plan, { backend: opened.backend, backendId: opened.id, params, concurrency: 3 });
      expect([summary.corrected, summary.failed], JSON.stringify(summary.results.map((r) => r.error ?? ''))).toEqual([6, 0]);
      expect([bgrs[0]!.licensed, bgrs[1]!.licensed, bgrs[2]!.licensed]).toEqual([true, false, true]);
      expect((bgrs[0]!.requests['bgr.submit'] ?? 0) + (bgrs[2]!.requests['bgr.submit'] ?? 0)).toBe(6);
      expect(bgrs[1]!.requests['bgr.submit'] ?? 0).toBe(0);
      const refused = opened.instances!().find((s) => s.name === bgrs[1]!.url)!;
      expect(refused.failed).toBeGreaterThan(0);
      expect(refused.lastError).toMatch(/Unlicensed/);
      expect(summary.results.some((r) => r.warnings.some((w) => w.includes(`instance ${bgrs[1]!.url} failed`)))).toBe(true);
      await opened.close();
    } finally {
      await Promise.all(bgrs.map((b) => b.close()));
      await emu.close();
    }
  });
});
