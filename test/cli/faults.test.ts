/** A flaky service: 503s and dropped connections are retried until every file is done; FAILED and REJECTED jobs are reported. */
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulator, jsonLines, runPfc, SAMPLES, summaryOf } from './helpers';

describe('pfc correct on a faulty service', () => {
  let emu: Awaited<ReturnType<typeof emulator>>;
  beforeAll(async () => {
    emu = await emulator();
  });
  afterAll(() => emu.close());

  it('corrects every retryable file and reports the failed and rejected jobs with their reason', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pfc-faults-'));
    cpSync(SAMPLES, join(dir, 'photos/a'), { recursive: true });
    cpSync(SAMPLES, join(dir, 'photos/b'), { recursive: true });
    emu.setFaults({
      seed: 5,
      routes: { '*': { rate503: 0.2, dropRate: 0.1, retryAfterSeconds: 0 } },
      jobs: { failRate: 0.5, rejectRate: 0.5, count: 2 },
    });
    const r = await runPfc(['correct', 'photos', ...emu.webArgs, '--json', '-p', 'cache=false', '--yes'], { cwd: dir });
    const injected = emu.stats().faults;
    emu.setFaults({});
    expect((injected['503'] ?? 0) + (injected.drop ?? 0)).toBeGreaterThan(3);
    expect((injected.jobFail ?? 0) + (injected.jobReject ?? 0)).toBe(2);

    expect(r.code, r.stdout + r.stderr).toBe(1);
    const s = summaryOf(r.stdout);
    // Two jobs end FAILED/REJECTED. Usually both reach the user; but when a
    // file's status polling gives up on dropped connections, the runner redoes
    // the file with a new job, and an injected failure may land on the job it
    // abandoned — then only one file fails. Either way nothing is lost.
    const failed = jsonLines(r.stdout).filter((l) => l.type === 'failed');
    expect(failed.length).toBeGreaterThanOrEqual(1);
    expect(failed.length).toBeLessThanOrEqual(2);
    expect(s).toMatchObject({ corrected: 10 - failed.length, failed: failed.length, cancelled: 0 });
    for (const l of failed) expect(l.errorName).toBe('JobFailedError');
    for (const l of failed) expect(l.error).toMatch(/^job \S+ (FAILED|REJECTED)/);

    const corrected = jsonLines(r.stdout).filter((l) => l.type === 'corrected');
    for (const l of corrected) expect((await sharp(String(l.output)).metadata()).width).toBeGreaterThan(0);

    // Without faults, the next run redoes only the two failed files.
    const again = await runPfc(['correct', 'photos', ...emu.webArgs, '--json', '-p', 'cache=false', '--yes'], { cwd: dir });
    expect(again.code).toBe(0);
    expect(summaryOf(again.stdout)).toMatchObject({ corrected: failed.length, upToDate: 10 - failed.length });
  });
});
