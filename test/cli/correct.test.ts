/** `pfc correct` end to end: the built binary on a copy of the sample tree, against the real emulator. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copySamples, emulator, filesBelow, jsonLines, runPfc, SAMPLE_PHOTOS, snapshot, summaryOf, TEST_KEY } from './helpers';

describe('pfc correct (embedded emulator)', () => {
  const dir = copySamples();
  const photos = join(dir, 'photos');
  const out = join(photos, 'corrected');
  const originals = snapshot(photos);

  it('mirrors the nested tree under <folder>/corrected with real corrected images, and says which backend in one line', async () => {
    const r = await runPfc(['correct', 'photos'], { cwd: dir });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const notices = r.stderr.split('\n').filter((l) => /emulator/i.test(l));
    expect(notices).toEqual([expect.stringMatching(/^Using the embedded emulator on http:\/\/127\.0\.0\.1:\d+\/v2 \(no API key or container URL configured\)\.$/)]);
    expect(filesBelow(out)).toEqual(['.pfc-manifest.jsonl', ...SAMPLE_PHOTOS].sort());
    for (const rel of SAMPLE_PHOTOS) {
      const [a, b] = await Promise.all([sharp(join(photos, rel)).metadata(), sharp(join(out, rel)).metadata()]);
      expect([b.format, b.width, b.height]).toEqual([a.format, a.width, a.height]);
      expect(readFileSync(join(out, rel)).equals(readFileSync(join(photos, rel)))).toBe(false);
    }
    expect(r.stdout).toMatch(/Done in .*: 5 corrected, 0 up to date, 0 failed, 1 left out/);
    expect(r.stdout).toContain('photos/LICENSES.md: not a JPEG, PNG, MP4 or MOV file');
    expect(r.stdout).toMatch(/^Output: photos\/corrected$/m);
  });

  it('skips everything on a second run, and leaves the originals byte-identical', async () => {
    const r = await runPfc(['correct', 'photos', '--json'], { cwd: dir });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(summaryOf(r.stdout)).toMatchObject({ corrected: 0, upToDate: 5, failed: 0, excluded: 1, skipped: 6, exitCode: 0 });
    const now = snapshot(photos);
    for (const [rel, bytes] of originals) expect(now.get(rel)?.equals(bytes), rel).toBe(true);
  });

  it('a rerun does not count or list its own output folder as left out: only what the user asked for and was not corrected', async () => {
    const r = await runPfc(['correct', 'photos'], { cwd: dir });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Done in .*: 0 corrected, 5 up to date, 0 failed, 1 left out/);
    expect(r.stdout).toMatch(/^Left out \(1\):\n {2}photos\/LICENSES\.md: /m);
    expect(r.stdout).not.toContain('corrected: output folder');
  });

  it('redoes every file when a parameter changes, and changes extensions with outputType', async () => {
    const r = await runPfc(['correct', 'photos', '--json', '-p', 'outputType=jpg', '--param', 'long=200'], { cwd: dir });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(summaryOf(r.stdout)).toMatchObject({ corrected: 5, upToDate: 0 });
    const meta = await sharp(join(out, 'objects/chelsea.jpg')).metadata();
    expect([meta.format, Math.max(meta.width!, meta.height!)]).toEqual(['jpeg', 200]);
    const again = await runPfc(['correct', 'photos', '--json', '-p', 'outputType=jpg', '--param', 'long=200'], { cwd: dir });
    expect(summaryOf(again.stdout)).toMatchObject({ corrected: 0, upToDate: 5 });
  });

  it('writes one JSON object per line: plan, per-file events, and a final summary', async () => {
    const r = await runPfc(['correct', 'photos', '--json', '--force', '--report', join(dir, 'report.html')], { cwd: dir });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const lines = jsonLines(r.stdout);
    // The plan is streamed: its first line counts the files to judge by name (LICENSES.md too), `planned` what was planned.
    expect(lines[0]).toMatchObject({ type: 'plan', files: 6, backend: 'emulator' });
    expect(lines.find((l) => l.type === 'planned')).toMatchObject({ files: 5 });
    expect(lines.filter((l) => l.type === 'skipped').map((l) => [l.input, l.code])).toEqual([[join(photos, 'LICENSES.md'), 'unsupported']]);
    const corrected = lines.filter((l) => l.type === 'corrected');
    expect(corrected.map((l) => l.rel).sort()).toEqual(SAMPLE_PHOTOS);
    for (const l of corrected) {
      expect(l).toMatchObject({ input: expect.stringContaining(photos), output: expect.stringContaining(out), jobId: expect.any(String) });
      expect(l.bytesOut).toBeGreaterThan(0);
    }
    // The outputType=jpg run remade the .jpg outputs with other settings; chelsea.png (it wrote chelsea.jpg) is as the first run left it.
    expect(lines.filter((l) => l.type === 'start').map((l) => `${String(l.rel)}:${String(l.reason)}`).sort()).toEqual(
      SAMPLE_PHOTOS.map((p) => `${p}:${p.endsWith('.png') ? 'forced' : 'settings-changed'}`),
    );
    expect(lines.at(-1)).toMatchObject({ type: 'summary', corrected: 5, skipped: 1, failed: 0, report: join(dir, 'report.html'), exitCode: 0 });
    expect(existsSync(join(dir, 'report.html'))).toBe(true);
    // Its "Left out" table lists LICENSES.md, not the run's own output folder.
    expect(readFileSync(join(dir, 'report.html'), 'utf8')).not.toContain('output folder of this run');
  });
});

describe('pfc correct --backend web (an emulator with a key)', () => {
  let emu: Awaited<ReturnType<typeof emulator>>;
  beforeAll(async () => {
    emu = await emulator();
  });
  afterAll(() => emu.close());

  it('never shows the API key: not in output, manifest, report or errors', async () => {
    const dir = copySamples();
    const report = join(dir, 'report.html');
    const ok = await runPfc(['correct', 'photos', ...emu.webArgs, '--report', report, '--yes'], { cwd: dir });
    expect(ok.code).toBe(0);
    expect(ok.stderr).toContain(`Using the Web API at ${emu.web}.`);
    const wrongKey = `${TEST_KEY}-wrong`;
    const refused = await runPfc(['correct', 'photos', '--backend', 'web', '--base-url', emu.web, '--api-key', wrongKey, '--force', '--yes'], { cwd: dir });
    expect(refused.code).toBe(1);
    expect(refused.stdout + refused.stderr).toMatch(/401/);
    const texts = [ok.stdout, ok.stderr, refused.stdout, refused.stderr, readFileSync(report, 'utf8'), readFileSync(join(dir, 'photos/corrected/.pfc-manifest.jsonl'), 'utf8')];
    for (const t of texts) {
      expect(t).not.toContain(TEST_KEY);
      expect(t).not.toContain(wrongKey);
    }
  });

  it('takes the key from PFC_API_KEY', async () => {
    const dir = copySamples();
    const r = await runPfc(['correct', 'photos/outdoors', '--base-url', emu.web, '--json'], { cwd: dir, env: { ...process.env, PFC_API_KEY: TEST_KEY, NO_COLOR: '1' } as Record<string, string> });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(summaryOf(r.stdout)).toMatchObject({ corrected: 1 });
    expect(jsonLines(r.stdout)[0]).toMatchObject({ backend: 'web' });
  });
});
