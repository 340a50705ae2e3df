/** `pfc correct --job-timeout`: a job that never finishes fails its file at the limit; the rest of the batch goes on, and a rerun redoes that file. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copySamples, emulator, jsonLines, runPfc, SAMPLE_PHOTOS, summaryOf } from './helpers';

describe('pfc correct --job-timeout', () => {
  let emu: Awaited<ReturnType<typeof emulator>>;
  beforeAll(async () => {
    // No imaging engine: the other jobs take milliseconds, so only the hung one can reach the limit
    // however loaded the machine is.
    emu = await emulator({ engine: {} });
  });
  afterAll(() => emu.close());

  it('reports the file whose job hangs as failed with its reason, corrects the others, and exits 1; a rerun corrects it', async () => {
    const dir = copySamples();
    emu.setFaults({ jobs: { hangRate: 1, count: 1 } });
    const args = ['correct', 'photos', ...emu.webArgs, '--json', '-p', 'cache=false', '--yes', '--job-timeout', '10'];
    const r = await runPfc(args, { cwd: dir });
    const injected = emu.stats().faults;
    emu.setFaults({});
    expect(injected.jobHang).toBe(1);

    expect(r.code, r.stdout + r.stderr).toBe(1);
    const failed = jsonLines(r.stdout).filter((l) => l.type === 'failed');
    expect(failed).toHaveLength(1);
    const hung = failed[0]!;
    expect(hung.errorName).toBe('JobTimeoutError');
    expect(hung.error).toMatch(/job time limit of 10 s/);
    expect(summaryOf(r.stdout)).toMatchObject({ corrected: SAMPLE_PHOTOS.length - 1, failed: 1, cancelled: 0 });
    // Not retried within the run: another attempt would wait the whole limit again.
    expect(jsonLines(r.stdout).filter((l) => l.type === 'retry')).toHaveLength(0);

    const hungRel = SAMPLE_PHOTOS.find((p) => String(hung.input).endsWith(p));
    expect(hungRel).toBeDefined();
    expect(existsSync(join(dir, 'photos/corrected', hungRel!))).toBe(false);
    for (const rel of SAMPLE_PHOTOS.filter((p) => p !== hungRel)) {
      expect((await sharp(join(dir, 'photos/corrected', rel)).metadata()).width).toBeGreaterThan(0);
    }

    // Without the fault, the next run redoes only the file that timed out.
    const again = await runPfc(args, { cwd: dir });
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(summaryOf(again.stdout)).toMatchObject({ corrected: 1, upToDate: SAMPLE_PHOTOS.length - 1, failed: 0 });
    expect((await sharp(join(dir, 'photos/corrected', hungRel!)).metadata()).width).toBeGreaterThan(0);
  });

  it.each(['0', '-1', 'abc', '86401', ''])('refuses --job-timeout %j with a usage error before any upload', async (value) => {
    const dir = copySamples();
    const before = emu.uploads();
    const r = await runPfc(['correct', 'photos', ...emu.webArgs, '--yes', `--job-timeout=${value}`], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--job-timeout must be a number of seconds above 0 and at most 86400');
    expect(emu.uploads()).toBe(before);
  });

  it('lists --job-timeout in pfc correct --help, in seconds', async () => {
    const r = await runPfc(['correct', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/--job-timeout SECONDS/);
  });
});
