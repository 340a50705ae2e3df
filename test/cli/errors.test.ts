/** Exit codes and refusals: usage errors are caught before anything is uploaded. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { copySamples, emulator, filesBelow, runPfc, summaryOf, TEST_KEY } from './helpers';

describe('pfc exit codes and refusals', () => {
  let emu: Awaited<ReturnType<typeof emulator>>;
  const dir = copySamples();
  beforeAll(async () => {
    emu = await emulator({ control: true });
  });
  afterAll(() => emu.close());
  beforeEach(async () => {
    const res = await fetch(new URL('/_emulator/stats', emu.web), { method: 'DELETE', headers: { 'X-API-KEY': TEST_KEY } });
    expect(res.ok).toBe(true);
    await res.body?.cancel();
  });

  it.each([
    [['correct', 'photos', '--colour', 'blue'], /Unknown option '--colour'/],
    [['correct', 'photos', '--concurrency', 'lots'], /--concurrency must be an integer from 1 to 64/],
    [['correct', 'photos', '--out', 'x', '--in-place'], /--out and --in-place cannot be combined/],
    [['correct', 'photos', '--backend', 'cloud'], /--backend must be one of auto, web, container, bgr, emulator/],
    [['correct'], /no input paths/],
    [['correct', 'photos', 'no-such-folder'], /no such file or folder: .*no-such-folder/],
    [['correct', 'photos', '-p', 'fileKey=abc'], /fileKey is set per file by pfc/],
    [['frobnicate'], /unknown command "frobnicate"/],
    [['correct', 'photos', '--backend', 'emulator', '--instance-jobs', '4'], /--instance-jobs sets the files at once of each self-hosted container .*; the emulator backend has none: use -j/],
  ])('exits 2 on %j', async (args, message) => {
    const r = await runPfc([...args, '--base-url', emu.web], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(existsSync(join(dir, 'photos/corrected'))).toBe(false);
  });

  it('--backend emulator with --base-url corrects on that running emulator, not the embedded one', async () => {
    const running = await emulator({ apiKeys: [] });
    try {
      const r = await runPfc(['correct', 'photos/outdoors', '--backend', 'emulator', '--base-url', running.web, '--json'], { cwd: dir });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.stderr).toContain(`Using the emulator at ${running.web}`);
      expect(running.uploads()).toBe(2);
    } finally {
      await running.close();
    }
  });

  it.each([
    [['correct', '', '--in-place']],
    [['correct', '', '--suffix', '_pfc']],
    [['correct', 'photos', '-o', '']],
    [['correct', 'photos', '--report', '']],
    [['restore', '']],
  ])('refuses an empty path (an unset shell variable) in %j, not taking it for the current folder', async (args) => {
    // Run from inside the photos, where an empty path resolves to them.
    const cwd = join(dir, 'photos');
    const before = filesBelow(cwd).map((f) => [f, readFileSync(join(cwd, f))] as const);
    const r = await runPfc(args[0] === 'correct' ? [...args, ...emu.webArgs] : args, { cwd });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/is empty \(an unset shell variable\?\); nothing was done/);
    expect(filesBelow(cwd)).toEqual(before.map(([f]) => f));
    for (const [f, bytes] of before) expect(readFileSync(join(cwd, f)).equals(bytes), f).toBe(true);
    expect(emu.uploads()).toBe(0);
  });

  it.each([
    ['width=5', /width must be an integer from 32 to 10000 \(got "5"\)/],
    ['outputQuality=101', /outputQuality must be an integer from 40 to 100/],
    ['aiArt=picasso', /aiArt must be one of pencilBw, oilPainting/],
    ['autocropDetectOnly=true', /autocropDetectOnly requires autocrop=true/],
    ['colour=red', /unknown parameter "colour"/],
  ])('refuses the invalid parameter %s before any upload, naming it and its range', async (param, message) => {
    const r = await runPfc(['correct', 'photos', ...emu.webArgs, '-p', param, '--yes'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(emu.uploads()).toBe(0);
    expect(emu.stats().requests).toEqual({});
  });

  it('asks before a large run on a paid backend, and refuses without a terminal unless --yes', async () => {
    const refused = await runPfc(['correct', 'photos', ...emu.webArgs, '--confirm-above', '2'], { cwd: dir });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/refusing to send 5 files \(597 kB\) to the Web API at .* without confirmation: pass --yes/);
    expect(emu.uploads()).toBe(0);
    const ok = await runPfc(['correct', 'photos', ...emu.webArgs, '--confirm-above', '2', '--yes', '--json'], { cwd: dir });
    expect(ok.code).toBe(0);
    expect(summaryOf(ok.stdout)).toMatchObject({ corrected: 5 });
    expect(emu.uploads()).toBe(10);
    // Up-to-date files cost nothing, so they do not count towards the question.
    const rerun = await runPfc(['correct', 'photos', ...emu.webArgs, '--confirm-above', '2', '--json'], { cwd: dir });
    expect(summaryOf(rerun.stdout)).toMatchObject({ corrected: 0, upToDate: 5 });
  });

  it('exits 1 when a file fails, listing it with the service reason', async () => {
    emu.setFaults({ jobs: { failRate: 1, count: 1 } });
    try {
      const r = await runPfc(['correct', 'photos/portraits', ...emu.webArgs, '--out', join(dir, 'fail-out'), '--concurrency', '1'], { cwd: dir });
      expect(r.code).toBe(1);
      expect(r.stdout).toMatch(/^Failed \(1\):\n {2}astronaut\.jpg: job \S+ FAILED/m);
      expect(r.stdout).toMatch(/1 corrected, 0 up to date, 1 failed/);
    } finally {
      emu.setFaults({});
    }
  });
});
