/**
 * Ctrl-C in the moment after a run's summary, while the embedded emulator
 * closes: the run is over and its results are on disk, so `pfc` still ends
 * with the run's own exit code (not 130, which says "rerun to continue").
 * Through the built `pfc` on a real folder.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { SAMPLES, spawnPfc, summaryOf } from '../../../test/cli/helpers';

const made: string[] = [];
afterAll(() => made.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function onePhoto(): string {
  const dir = mkdtempSync(join(tmpdir(), 'pfc-interrupt-finish-'));
  made.push(dir);
  mkdirSync(join(dir, 'in'));
  copyFileSync(join(SAMPLES, 'portraits/astronaut.jpg'), join(dir, 'in/a.jpg'));
  return dir;
}

/** Run `pfc correct in --out out` and send SIGINT as soon as stdout shows `summaryShown`. */
async function interruptAfterSummary(extra: string[], summaryShown: RegExp) {
  const dir = onePhoto();
  const run = spawnPfc(['correct', 'in', '--out', 'out', ...extra], { cwd: dir });
  let sent = false;
  run.child.stdout!.on('data', () => {
    if (sent || !summaryShown.test(run.stdout())) return;
    sent = true;
    run.child.kill('SIGINT');
  });
  const ended = await run.done;
  expect(sent, ended.stderr).toBe(true);
  return { dir, ended };
}

it('Ctrl-C right after the --json summary: exit 0 as the summary says, the result on disk', { timeout: 60_000 }, async () => {
  const { dir, ended } = await interruptAfterSummary(['--json'], /"type":"summary"/);
  expect(ended.code, ended.stderr).toBe(0);
  expect(summaryOf(ended.stdout)).toMatchObject({ corrected: 1, interrupted: false, exitCode: 0 });
  expect(ended.stderr).toMatch(/The run is over; closing the backend/);
  expect(existsSync(join(dir, 'out/a.jpg'))).toBe(true);
});

it('Ctrl-C right after "Done": exit 0, no advice to rerun', { timeout: 60_000 }, async () => {
  const { ended } = await interruptAfterSummary([], /Done in/);
  expect(ended.code, ended.stderr).toBe(0);
  expect(ended.stdout + ended.stderr).not.toMatch(/Run the same command again/);
});
