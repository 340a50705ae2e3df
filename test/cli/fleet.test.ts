/** pfc correct on several colour containers: repeated --container-url, a comma-separated PFC_CONTAINER_URL, and the per-instance summary. */
import sharp from 'sharp';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copySamples, emulator, runPfc, SAMPLE_PHOTOS } from './helpers';

describe('pfc correct on a fleet of colour containers', () => {
  let emu: Awaited<ReturnType<typeof emulator>>;
  beforeAll(async () => {
    emu = await emulator({ bgr: false, container: { processingMs: 100 }, containerInstances: [{ processingMs: 100 }] });
  });
  afterAll(() => emu.close());

  it('repeated --container-url: files spread over both instances, one line per instance at the end', async () => {
    const dir = copySamples();
    const [a, b] = emu.selfHosted.containers;
    const r = await runPfc(['correct', 'photos', '--container-url', a!.url, '--container-url', b!.url, '--instance-jobs', '1'], { cwd: dir });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stderr).toContain(`Using the colour-correction containers at 2 instances (${a!.url}, ${b!.url}).`);
    for (const rel of SAMPLE_PHOTOS) expect((await sharp(join(dir, 'photos/corrected', rel)).metadata()).format).toBeDefined();
    const done = [a!, b!].map((c) => c.corrections.filter((x) => x.status === 'corrected').length);
    expect(done[0]! + done[1]!).toBe(SAMPLE_PHOTOS.length);
    expect(done.every((n) => n > 0)).toBe(true);
    expect(r.stdout).toContain('Instances:');
    expect(r.stdout).toContain(`${a!.url}: ${done[0]} file(s), 1 at once, ok`);
    expect(r.stdout).toContain(`${b!.url}: ${done[1]} file(s), 1 at once, ok`);
  });

  it('a comma-separated PFC_CONTAINER_URL is a fleet too; a bad address or the same one twice is a usage error before anything is sent', async () => {
    const dir = copySamples();
    const [a, b] = emu.selfHosted.containers;
    const ok = await runPfc(['correct', 'photos/portraits'], { cwd: dir, env: { PFC_CONTAINER_URL: `${a!.url}, ${b!.url}` } });
    expect(ok.code, ok.stdout + ok.stderr).toBe(0);
    expect(ok.stdout).toContain('Instances:');
    const before = a!.requests['container.upload'] ?? 0;
    const twice = await runPfc(['correct', 'photos', '--container-url', a!.url, '--container-url', `${a!.url}/`, '--force'], { cwd: dir });
    expect(twice.code).toBe(2);
    expect(twice.stderr).toMatch(/--container-url .* is given twice/);
    const bad = await runPfc(['correct', 'photos', '--container-url', 'not a url', '--force'], { cwd: dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--container-url "not a url" is not a URL/);
    expect(a!.requests['container.upload'] ?? 0).toBe(before);
  });

  it('--instance-jobs takes one number per instance (or PFC_INSTANCE_JOBS); a list that does not match the URLs is a usage error before any upload', async () => {
    const dir = copySamples();
    const [a, b] = emu.selfHosted.containers;
    const before = [a!, b!].map((c) => c.requests['container.upload'] ?? 0);
    const wrong = await runPfc(['correct', 'photos', '--container-url', a!.url, '--container-url', b!.url, '--instance-jobs', '2,1,1'], { cwd: dir });
    expect(wrong.code, wrong.stderr).toBe(2);
    expect(wrong.stderr).toContain('--instance-jobs has 3 values for 2 instance(s) (2 --container-url)');
    const range = await runPfc(['correct', 'photos', '--container-url', a!.url, '--container-url', b!.url], { cwd: dir, env: { PFC_INSTANCE_JOBS: '2,0' } });
    expect(range.code, range.stderr).toBe(2);
    expect(range.stderr).toMatch(/--instance-jobs values must be integers from 1 to 64.*"0"/);
    expect([a!, b!].map((c) => c.requests['container.upload'] ?? 0)).toEqual(before);
    const ok = await runPfc(['correct', 'photos', '--container-url', a!.url, '--container-url', b!.url, '--force'], { cwd: dir, env: { PFC_INSTANCE_JOBS: '2,1' } });
    expect(ok.code, ok.stdout + ok.stderr).toBe(0);
    expect(ok.stdout).toContain(`${a!.url}: `);
    expect([a!, b!].map((c) => c.requests['container.upload'] ?? 0).reduce((x, y) => x + y) - before.reduce((x, y) => x + y)).toBe(SAMPLE_PHOTOS.length);
  });
});
