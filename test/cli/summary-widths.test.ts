/**
 * The end-of-run summary shows the widths a run settled on: each fleet
 * instance's files at once (automatic or fixed), and the Web API's adaptive
 * jobs at once after the account refused work.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copySamples, emulator, manyPhotos, runPfc, SAMPLE_PHOTOS, summaryOf } from './helpers';

describe('the summary shows the automatic widths', () => {
  let emu: Awaited<ReturnType<typeof emulator>>;
  beforeAll(async () => {
    emu = await emulator({ bgr: false, container: { processingMs: 60 }, containerInstances: [{ processingMs: 60 }], processingMs: 80, workers: 4, accountLimits: { jobsInProgress: 1 } });
  });
  afterAll(() => emu.close());

  it('each fleet instance: the files it did and the files at once it ended with, as the instances saw them', async () => {
    const [a, b] = emu.selfHosted.containers;
    const instances = [a!, b!];
    const auto = await runPfc(['correct', 'photos', '--container-url', a!.url, '--container-url', b!.url], { cwd: copySamples() });
    expect(auto.code, auto.stdout + auto.stderr).toBe(0);
    const first = instances.map((c) => instanceLine(auto.stdout, c.url, true));
    instances.forEach((c, i) => {
      // Its files: what that instance corrected; at once: a width its round-by-round rule (±1 a round,
      // wider only when the client kept it full) can have reached from what the instance saw at once.
      expect(first[i]!.files).toBe(corrected(c.corrections));
      expect(first[i]!.atOnce).toBeLessThanOrEqual(Math.min(8, peakAtOnce(c.corrections) + 1));
    });
    expect(first[0]!.files + first[1]!.files).toBe(SAMPLE_PHOTOS.length);

    const before = instances.map((c) => c.corrections.length);
    const mixed = await runPfc(['correct', 'photos', '--container-url', a!.url, '--container-url', b!.url, '--instance-jobs', '3,auto', '--force'], { cwd: copySamples() });
    expect(mixed.code, mixed.stdout + mixed.stderr).toBe(0);
    const [fixed, automatic] = [instanceLine(mixed.stdout, a!.url, false), instanceLine(mixed.stdout, b!.url, true)];
    const [runA, runB] = instances.map((c, i) => c.corrections.slice(before[i]));
    expect([fixed.files, automatic.files]).toEqual([corrected(runA!), corrected(runB!)]);
    expect(fixed.files + automatic.files).toBe(SAMPLE_PHOTOS.length);
    // Fixed at 3: the line says 3, and the instance never had more than 3 of the run's files at once.
    expect(fixed.atOnce).toBe(3);
    expect(peakAtOnce(runA!)).toBeLessThanOrEqual(3);
    expect(automatic.atOnce).toBeLessThanOrEqual(Math.min(8, peakAtOnce(runB!) + 1));
  });

  it('the Web API: where the adaptive jobs at once went after the account refused work, in the summary line and --json', async () => {
    const dir = manyPhotos(6);
    const r = await runPfc(['correct', 'photos', ...emu.webArgs, '-j', '3', '--yes'], { cwd: dir });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    // The account holds one job at once: the run started at 3 and went down to 1.
    const refusals = emu.stats().accountLimits.jobs;
    expect(refusals).toBeGreaterThan(0);
    const line = /^Jobs at once: (\d+) at the end \(adaptive: started at (\d+), lowest (\d+), (\d+) changes?\)$/m.exec(r.stdout);
    expect(line, r.stdout).not.toBeNull();
    const [ended, started, lowest, changes] = line!.slice(1).map(Number);
    // Started at -j; down to the one job the account holds (at least one change down); back up one a change.
    expect([started, lowest]).toEqual([3, 1]);
    expect(changes).toBeGreaterThanOrEqual(1 + (ended! - lowest!));
    expect(ended).toBeGreaterThanOrEqual(lowest!);
    expect(ended).toBeLessThanOrEqual(started!);

    const json = await runPfc(['correct', 'photos', ...emu.webArgs, '-j', '3', '--yes', '--force', '--json'], { cwd: dir });
    const summary = summaryOf(json.stdout) as { jobsAtOnce?: { started: number; ended: number; lowest: number; changes: number } };
    expect(summary.jobsAtOnce).toMatchObject({ started: 3, lowest: 1 });
    expect(summary.jobsAtOnce!.changes).toBeGreaterThan(0);

    // Without refusals the line says the jobs stayed where they started.
    const calm = await runPfc(['correct', 'photos/portraits', ...emu.webArgs, '-j', '1', '--yes', '--force'], { cwd: dir });
    expect(calm.code, calm.stdout + calm.stderr).toBe(0);
    expect(calm.stdout).toMatch(/^Jobs at once: 1 throughout \(adaptive; the service refused none\)$/m);
  });
});

/** What the container emulator records of each correction (`ContainerCorrectionRecord`). */
type ContainerCorrectionRecord = { requestedAt: number; endedAt?: number; status: string };

/** An instance's line of the summary: `  URL: N file(s), M at once[ (automatic, up to 8)], ok`. */
function instanceLine(stdout: string, url: string, automatic: boolean): { files: number; atOnce: number } {
  const escaped = url.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const m = new RegExp(`^  ${escaped}: (\\d+) file\\(s\\), (\\d+) at once${automatic ? ' \\(automatic, up to 8\\)' : ''}, ok$`, 'm').exec(stdout);
  expect(m, stdout).not.toBeNull();
  return { files: Number(m![1]), atOnce: Number(m![2]) };
}

function corrected(records: readonly ContainerCorrectionRecord[]): number {
  return records.filter((r) => r.status === 'corrected').length;
}

/** The most of `records` in the instance at once (from arrival, before waiting for a worker, to the end). */
function peakAtOnce(records: readonly ContainerCorrectionRecord[]): number {
  const edges = records.flatMap((r) => [
    [r.requestedAt, 1],
    [r.endedAt ?? Infinity, -1],
  ]);
  edges.sort((x, y) => x[0]! - y[0]! || x[1]! - y[1]!);
  let now = 0;
  let peak = 0;
  for (const [, d] of edges) peak = Math.max(peak, (now += d!));
  return peak;
}
