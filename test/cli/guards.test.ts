/**
 * Guards found unwatched by hand mutations of packages/batch and packages/cli,
 * checked where the user meets them: the built `pfc`, real folders, and the
 * emulator's own job records (what the service was sent, and would bill).
 */
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copySamples, emulator, jsonLines, runPfc, SAMPLES, summaryOf } from './helpers';

const PHOTO_A = join(SAMPLES, 'objects/coffee.jpg');
const PHOTO_B = join(SAMPLES, 'outdoors/rocket.jpg');
const PHOTO_C = join(SAMPLES, 'portraits/astronaut.jpg');
const SLOW = 120_000;

const sha256 = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');

describe('pfc correct sends nothing it would not keep, and asks before what it bills', () => {
  let emu: Awaited<ReturnType<typeof emulator>>;
  beforeAll(async () => {
    emu = await emulator();
  });
  afterAll(() => emu.close());
  /** The inputs (by content hash) of the jobs the service got after `from` jobs. */
  const jobInputs = (from: number): string[] => emu.jobs().slice(from).map((j) => j.inputSha256).sort();

  it('a result that would replace a user\'s file is refused before its upload: the service has no job for that photo (suffix and mirror)', { timeout: SLOW }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pfc-guards-'));
    mkdirSync(join(dir, 'in'));
    copyFileSync(PHOTO_A, join(dir, 'in/photo.jpg'));
    copyFileSync(PHOTO_B, join(dir, 'in/b.jpg'));
    // The user's own file, named as the suffix result of photo.jpg would be.
    copyFileSync(PHOTO_C, join(dir, 'in/photo_pfc.jpg'));
    const jobsBefore = emu.jobs().length;
    const suffix = await runPfc(['correct', 'in', '--suffix', '_pfc', ...emu.webArgs, '--yes', '--json'], { cwd: dir });
    expect(suffix.code, suffix.stdout + suffix.stderr).toBe(1);
    const failed = jsonLines(suffix.stdout).filter((l) => l.type === 'failed');
    expect(failed).toEqual([expect.objectContaining({ rel: 'photo.jpg', errorName: 'OutputExistsError' })]);
    // Refused before anything was sent: no job id in the failure, and the service never saw the photo.
    expect(failed[0]).not.toHaveProperty('jobId');
    expect(jobInputs(jobsBefore)).toEqual([sha256(join(dir, 'in/b.jpg'))]);
    expect(readFileSync(join(dir, 'in/photo_pfc.jpg')).equals(readFileSync(PHOTO_C))).toBe(true);

    // Mirror: an output folder already holding the user's photo under an input's name.
    mkdirSync(join(dir, 'in2'));
    copyFileSync(PHOTO_A, join(dir, 'in2/a.jpg'));
    copyFileSync(PHOTO_B, join(dir, 'in2/b.jpg'));
    mkdirSync(join(dir, 'out'));
    copyFileSync(PHOTO_C, join(dir, 'out/b.jpg'));
    const jobsMirror = emu.jobs().length;
    const mirror = await runPfc(['correct', 'in2', '-o', 'out', ...emu.webArgs, '--yes', '--json'], { cwd: dir });
    expect(mirror.code, mirror.stdout + mirror.stderr).toBe(1);
    expect(jsonLines(mirror.stdout).filter((l) => l.type === 'failed').map((l) => [l.rel, l.errorName, 'jobId' in l])).toEqual([['b.jpg', 'OutputExistsError', false]]);
    expect(jobInputs(jobsMirror)).toEqual([sha256(PHOTO_A)]);
    expect(readFileSync(join(dir, 'out/b.jpg')).equals(readFileSync(PHOTO_C))).toBe(true);
  });

  it('--force on a paid backend: the files it would redo count for the cost question, so nothing is sent unasked', { timeout: SLOW }, async () => {
    const dir = copySamples();
    const args = ['correct', 'photos/portraits', ...emu.webArgs, '--confirm-above', '1'];
    const first = await runPfc([...args, '--yes', '--json'], { cwd: dir });
    expect(summaryOf(first.stdout)).toMatchObject({ corrected: 2, exitCode: 0 });
    // Up to date: nothing to send, nothing to ask.
    const rerun = await runPfc([...args, '--json'], { cwd: dir });
    expect(summaryOf(rerun.stdout)).toMatchObject({ corrected: 0, upToDate: 2, exitCode: 0 });

    const jobsBefore = emu.jobs().length;
    const forced = await runPfc([...args, '--force'], { cwd: dir });
    expect(forced.code, forced.stdout + forced.stderr).toBe(2);
    expect(forced.stderr).toMatch(/refusing to send 2 files \(.*\) to the Web API at .* without confirmation: pass --yes/);
    expect(emu.jobs().length).toBe(jobsBefore);

    const confirmed = await runPfc([...args, '--force', '--yes', '--json'], { cwd: dir });
    expect(summaryOf(confirmed.stdout)).toMatchObject({ corrected: 2, upToDate: 0, exitCode: 0 });
    expect(emu.jobs().length).toBe(jobsBefore + 2);
  });
});
