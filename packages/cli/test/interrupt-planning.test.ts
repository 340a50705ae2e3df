/**
 * Ctrl-C while a run still plans its tree (the files are planned as the first
 * ones are corrected): the planning stops with the jobs, through the built
 * `pfc` on a real folder (the embedded emulator does the work).
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { SAMPLES, spawnPfc, summaryOf } from '../../../test/cli/helpers';

const NOT_PHOTOS = 20_000;
const made: string[] = [];
afterAll(() => made.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** `in/a/` with a few photos, then `in/b/` with `NOT_PHOTOS` files that planning reads and leaves out (not an image). */
function photosThenNotPhotos(): string {
  const dir = mkdtempSync(join(tmpdir(), 'pfc-interrupt-plan-'));
  made.push(dir);
  mkdirSync(join(dir, 'in/a'), { recursive: true });
  for (let i = 0; i < 4; i++) copyFileSync(join(SAMPLES, 'portraits/astronaut.jpg'), join(dir, `in/a/p${i}.jpg`));
  mkdirSync(join(dir, 'in/b'));
  for (let i = 0; i < NOT_PHOTOS; i++) writeFileSync(join(dir, `in/b/n${String(i).padStart(5, '0')}.dat`), 'not an image');
  return dir;
}

it('Ctrl-C while the run plans a folder of 20,000 files stops planning it: those not reached count as cancelled (exit 130)', { timeout: 120_000 }, async () => {
  const dir = photosThenNotPhotos();
  const run = spawnPfc(['correct', 'in', '--out', 'out', '--json', '--concurrency', '1'], { cwd: dir });
  // At the first file's start the planner is past in/a, reading in/b (the jobs wait for its turns of the event loop).
  let interrupted = false;
  run.child.stdout!.on('data', () => {
    if (interrupted || !run.stdout().includes('"type":"start"')) return;
    interrupted = true;
    run.child.kill('SIGINT');
  });
  const ended = await run.done;
  expect(ended.code, ended.stderr).toBe(130);
  expect(ended.stderr).toMatch(/Stopping: no new files/);
  const summary = summaryOf(ended.stdout);
  expect(summary.interrupted).toBe(true);
  // Planning went on reading in/b after Ctrl-C, it would list every file of it as left out (not an image).
  expect(summary.excluded).toBeLessThan(NOT_PHOTOS / 2);
  expect(summary.cancelled).toBeGreaterThan(NOT_PHOTOS / 2);
});
