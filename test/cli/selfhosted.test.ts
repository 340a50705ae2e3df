/** pfc correct on the self-hosted backends: the colour container, the BGR container, and both (the emulator's container emulations). */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copySamples, emulator, jsonLines, runPfc, SAMPLE_PHOTOS, summaryOf } from './helpers';

const LICENCE = 'bgr-licence-7c1d-never-print-me';

describe('pfc correct on self-hosted containers', () => {
  let emu: Awaited<ReturnType<typeof emulator>>;
  beforeAll(async () => {
    emu = await emulator({ bgr: { licenseKey: LICENCE } });
  });
  afterAll(() => emu.close());

  it('corrects with the colour container (chosen by --container-url), leaving videos out with a reason', async () => {
    const dir = copySamples();
    writeFileSync(join(dir, 'photos/clip.mp4'), Buffer.concat([Buffer.from([0, 0, 0, 24]), Buffer.from('ftypisom\0\0\0\0isommp42', 'latin1'), Buffer.alloc(1000)]));
    const r = await runPfc(['correct', 'photos', '--container-url', emu.urls.container!, '--json'], { cwd: dir });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stderr).toContain(`Using the colour-correction container at ${emu.urls.container}.`);
    const lines = jsonLines(r.stdout);
    // Counted by name at first (LICENSES.md and clip.mp4 too); then the files planned.
    expect(lines[0]).toMatchObject({ type: 'plan', backend: 'container', files: 7 });
    expect(lines.find((l) => l.type === 'planned')).toMatchObject({ files: 5 });
    expect(lines.find((l) => l.type === 'skipped' && String(l.input).endsWith('clip.mp4'))?.reason).toMatch(/videos are corrected by the hosted Web API only/);
    for (const rel of SAMPLE_PHOTOS) {
      const [a, b] = await Promise.all([sharp(join(dir, 'photos', rel)).metadata(), sharp(join(dir, 'photos/corrected', rel)).metadata()]);
      expect([b.format, b.width, b.height]).toEqual([a.format, a.width, a.height]);
    }
    const again = await runPfc(['correct', 'photos', '--container-url', emu.urls.container!, '--json'], { cwd: dir });
    expect(summaryOf(again.stdout)).toMatchObject({ corrected: 0, upToDate: 5 });
  });

  it('removes backgrounds with the BGR container alone: PNG results with transparency, licence never shown', async () => {
    const dir = copySamples();
    const r = await runPfc(['correct', 'photos/portraits', '--backend', 'bgr', '--bgr-url', emu.urls.bgr!, '--bgr-license-key', LICENCE, '--json'], { cwd: dir });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(summaryOf(r.stdout)).toMatchObject({ corrected: 2 });
    for (const name of ['astronaut.png', 'grace_hopper.png']) {
      const meta = await sharp(join(dir, 'photos/portraits/corrected', name)).metadata();
      expect([meta.format, meta.hasAlpha]).toEqual(['png', true]);
    }
    expect(r.stdout + r.stderr + readFileSync(join(dir, 'photos/portraits/corrected/.pfc-manifest.jsonl'), 'utf8')).not.toContain(LICENCE);
  });

  it('runs colour correction then background removal with both containers', async () => {
    const dir = copySamples();
    const args = ['correct', 'photos/outdoors', '--container-url', emu.urls.container!, '--bgr-url', emu.urls.bgr!, '--bgr-license-key', LICENCE, '-p', 'removeBackground=true', '--json'];
    const r = await runPfc(args, { cwd: dir });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(jsonLines(r.stdout)[0]).toMatchObject({ backend: 'container+bgr' });
    const meta = await sharp(join(dir, 'photos/outdoors/corrected/rocket.png')).metadata();
    expect([meta.format, meta.hasAlpha, meta.width]).toEqual(['png', true, 640]);
  });

  it('refuses parameters a container cannot honour before any upload', async () => {
    const dir = copySamples();
    const r = await runPfc(['correct', 'photos', '--container-url', emu.urls.container!, '-p', 'aiArt=cartoon'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/invalid parameters for the container backend:\n {2}aiArt/);
  });
});
