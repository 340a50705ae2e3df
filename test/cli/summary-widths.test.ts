/**
 * The end-of-run summary shows the widths a run settled on: each fleet
 * instance's files at once (automatic or fixed), and the Web API's adaptive
 * jobs at once after the account refused work.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copySamples, emulator, manyPhotos, runPfc, summaryOf } from './helpers';

describe('the summary shows the automatic widths', () => {
  let emu: Awaited<ReturnType<typeof emulator>>;
  beforeAll(async () => {
    emu = await emulator({ bgr: false, container: { processingMs: 60 }, containerInstances: [{ processingMs: 60 }], processingMs: 80, workers: 4, accountLimits: { jobsInProgress: 1 } });
  });
  afterAll(() => emu.close());

  it('each fleet instance: the files at once it ended with, automatic up to its ceiling unless --instance-jobs fixed it', async () => {
    const [a, b] = emu.selfHosted.containers;
    const auto = await runPfc(['correct', 'photos', '--container-url', a!.url, '--container-url', b!.url], { cwd: copySamples() });
    expect(auto.code, auto.stdout + auto.stderr).toBe(0);
    for (const c of [a!, b!]) {
      const done = c.corrections.filter((x) => x.status === 'corrected').length;
      const line = new RegExp(`^  ${c.url.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: ${done} file\\(s\\), ([1-8]) at once \\(automatic, up to 8\\), ok$`, 'm');
      expect(auto.stdout).toMatch(line);
    }

    const mixed = await runPfc(['correct', 'photos', '--container-url', a!.url, '--container-url', b!.url, '--instance-jobs', '3,auto', '--force'], { cwd: copySamples() });
    expect(mixed.code, mixed.stdout + mixed.stderr).toBe(0);
    expect(mixed.stdout).toMatch(new RegExp(`^  ${a!.url.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: \\d+ file\\(s\\), 3 at once, ok$`, 'm'));
    expect(mixed.stdout).toMatch(new RegExp(`^  ${b!.url.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: \\d+ file\\(s\\), [1-8] at once \\(automatic, up to 8\\), ok$`, 'm'));
  });

  it('the Web API: where the adaptive jobs at once went after the account refused work, in the summary line and --json', async () => {
    const dir = manyPhotos(6);
    const r = await runPfc(['correct', 'photos', ...emu.webArgs, '-j', '3', '--yes'], { cwd: dir });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    // The account holds one job at once: the run started at 3 and went down to 1.
    const refusals = emu.stats().accountLimits.jobs;
    expect(refusals).toBeGreaterThan(0);
    expect(r.stdout).toMatch(/^Jobs at once: [1-3] at the end \(adaptive: started at 3, lowest 1, \d+ changes?\)$/m);

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
