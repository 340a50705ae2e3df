/** Interruptions: kill -9 mid-batch and Ctrl-C both leave no partial file, and a rerun continues where it stopped. */
import { cpSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulator, filesBelow, jsonLines, runPfc, SAMPLES, SAMPLE_PHOTOS, snapshot, spawnPfc, summaryOf, until } from './helpers';

/** Ten photos in two nested copies of the sample tree. */
function tenPhotos(): { dir: string; inputs: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'pfc-resume-'));
  cpSync(SAMPLES, join(dir, 'photos/a'), { recursive: true });
  cpSync(SAMPLES, join(dir, 'photos/b'), { recursive: true });
  return { dir, inputs: ['a', 'b'].flatMap((s) => SAMPLE_PHOTOS.map((p) => `${s}/${p}`)) };
}

/** Wait (bounded) until `check` holds. */
const count = (stdout: string, type: string) => stdout.split('\n').filter((l) => l.includes(`"type":"${type}"`)).length;

async function expectCompleteOutputs(out: string, inputs: string[]): Promise<void> {
  const files = filesBelow(out);
  expect(files.filter((f) => f.endsWith('.pfc-partial'))).toEqual([]);
  for (const rel of inputs) {
    expect(files).toContain(rel);
    const meta = await sharp(join(out, rel)).metadata();
    expect(meta.width, rel).toBeGreaterThan(0);
  }
}

describe('pfc correct after interruptions', () => {
  let emu: Awaited<ReturnType<typeof emulator>>;
  beforeAll(async () => {
    // Slow jobs, so the kill lands mid-batch with work in flight.
    emu = await emulator({ processingMs: 600 });
  });
  afterAll(() => emu.close());

  it('resumes after kill -9: finished files are kept, nothing half-written is visible, the rest is done', async () => {
    const { dir, inputs } = tenPhotos();
    const originals = snapshot(join(dir, 'photos'));
    const args = ['correct', 'photos', ...emu.webArgs, '--json', '--concurrency', '2', '-p', 'cache=false', '--yes'];
    const run = spawnPfc(args, { cwd: dir });
    await until(() => count(run.stdout(), 'corrected') >= 3 && count(run.stdout(), 'start') >= 5, 'three corrected files');
    run.child.kill('SIGKILL');
    const killed = await run.done;
    expect(killed.signal).toBe('SIGKILL');
    const out = join(dir, 'photos/corrected');
    // Every output visible after the kill is a complete image.
    for (const rel of filesBelow(out).filter((f) => !f.startsWith('.') && !f.includes('/.'))) {
      expect((await sharp(join(out, rel)).metadata()).width, rel).toBeGreaterThan(0);
    }
    const doneBefore = jsonLines(killed.stdout.slice(0, killed.stdout.lastIndexOf('\n'))).filter((l) => l.type === 'corrected').length;

    const resumed = await runPfc(args, { cwd: dir });
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    const s = summaryOf(resumed.stdout);
    expect(s.upToDate).toBeGreaterThanOrEqual(doneBefore);
    expect(Number(s.corrected) + Number(s.upToDate)).toBe(10);
    expect(s.corrected).toBeGreaterThan(0);
    await expectCompleteOutputs(out, inputs);
    for (const [rel, bytes] of originals) expect(readFileSync(join(dir, 'photos', rel)).equals(bytes), rel).toBe(true);
    const third = await runPfc(args, { cwd: dir });
    expect(summaryOf(third.stdout)).toMatchObject({ corrected: 0, upToDate: 10 });
  });

  it('stops cleanly on Ctrl-C (exit 130, files in flight cancelled, no partial file) and continues on the next run', async () => {
    const { dir, inputs } = tenPhotos();
    const args = ['correct', 'photos', ...emu.webArgs, '--json', '--concurrency', '2', '-p', 'cache=false', '--yes'];
    const run = spawnPfc(args, { cwd: dir });
    await until(() => count(run.stdout(), 'corrected') >= 1 && count(run.stdout(), 'start') >= 3, 'one corrected file');
    run.child.kill('SIGINT');
    const stopped = await run.done;
    expect(stopped.code).toBe(130);
    expect(stopped.stderr).toMatch(/Stopping: no new files/);
    const s = summaryOf(stopped.stdout);
    expect(s).toMatchObject({ interrupted: true, failed: 0, exitCode: 130 });
    expect(s.cancelled).toBeGreaterThan(0);
    const out = join(dir, 'photos/corrected');
    expect(filesBelow(out).filter((f) => f.endsWith('.pfc-partial'))).toEqual([]);

    const resumed = await runPfc(args, { cwd: dir });
    expect(resumed.code).toBe(0);
    expect(summaryOf(resumed.stdout)).toMatchObject({ upToDate: s.corrected, corrected: 10 - Number(s.corrected) });
    await expectCompleteOutputs(out, inputs);
  });
});
