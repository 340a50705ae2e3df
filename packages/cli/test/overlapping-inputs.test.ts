/**
 * Inputs that overlap — a folder and a subfolder of it given as well — through
 * the built `pfc`: the subfolder's files are corrected once, through the first
 * input that reaches them, and the summary lists as output folders only the
 * folders the run's results (and in place, its originals) went to.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { copySamples, runPfc, summaryOf } from '../../../test/cli/helpers';

const TEST_TIMEOUT_MS = 60_000;

/** The paths of the summary's `<label>: <path>` lines. */
function listed(stdout: string, label: string): string[] {
  return [...stdout.matchAll(new RegExp(`^${label}: (.*)$`, 'gm'))].map((m) => m[1]!);
}

describe('pfc correct with a subfolder given again after its folder', () => {
  it('lists only the folder its results went to as the output, not the subfolder\'s (mirror)', { timeout: TEST_TIMEOUT_MS }, async () => {
    const dir = copySamples();
    const run = await runPfc(['correct', 'photos', 'photos/objects'], { cwd: dir });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^ {2}photos\/objects\/coffee\.jpg: already planned through another input$/m);
    expect(listed(run.stdout, 'Output')).toEqual(['photos/corrected']);
    expect(readdirSync(join(dir, 'photos/corrected/objects')).sort()).toEqual(['chelsea.png', 'coffee.jpg']);

    const json = summaryOf((await runPfc(['correct', 'photos', 'photos/objects', '--json'], { cwd: dir })).stdout);
    expect(json.outputRoots).toEqual([join(dir, 'photos/corrected')]);
  });

  it('lists only the originals folder it kept originals in (--in-place)', { timeout: TEST_TIMEOUT_MS }, async () => {
    const dir = copySamples();
    const run = await runPfc(['correct', 'photos', 'photos/objects', '--in-place'], { cwd: dir });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(listed(run.stdout, 'Output')).toEqual(['photos']);
    expect(listed(run.stdout, 'Originals kept in')).toEqual(['photos/.pfc-originals']);
    expect(existsSync(join(dir, 'photos/objects/.pfc-originals'))).toBe(false);
  });

  it('lists both output folders when the subfolder comes first (each input has results of its own)', { timeout: TEST_TIMEOUT_MS }, async () => {
    const dir = copySamples();
    const run = await runPfc(['correct', 'photos/objects', 'photos'], { cwd: dir });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(listed(run.stdout, 'Output')).toEqual(['photos/objects/corrected', 'photos/corrected']);
    expect(readdirSync(join(dir, 'photos/objects/corrected')).filter((f) => !f.startsWith('.')).sort()).toEqual(['chelsea.png', 'coffee.jpg']);
  });
});
