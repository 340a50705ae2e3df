/**
 * What a person reading `pfc correct` (no --json) sees when the run is stopped
 * by Ctrl-C or SIGTERM: the summary says it was interrupted, not done, and
 * tells them to run the same command again; that rerun continues.
 */
import { describe, expect, it } from 'vitest';
import { manyPhotos, runPfc, spawnPfc, until } from './helpers';

describe('pfc correct stopped by a signal, read by a person', () => {
  it.each([['SIGINT'], ['SIGTERM']] as const)('after %s: "Interrupted in …", the rerun hint, exit 130; the rerun finishes the rest', async (signal) => {
    const dir = manyPhotos(12);
    const args = ['correct', 'photos/many', '--concurrency', '1'];
    const run = spawnPfc(args, { cwd: dir });
    await until(() => run.stdout().includes('✓'), 'a corrected file');
    run.child.kill(signal);
    const stopped = await run.done;
    expect(stopped.code, stopped.stderr).toBe(130);
    expect(stopped.stderr).toMatch(/Stopping: no new files; files in flight are cancelled\. Press Ctrl-C again to quit at once\./);
    expect(stopped.stdout).toMatch(/^Interrupted in .*: \d+ corrected, 0 up to date, 0 failed/m);
    expect(stopped.stdout).not.toMatch(/^Done in /m);
    expect(stopped.stdout).toMatch(/^Run the same command again to continue where it stopped\.$/m);
    const corrected = Number(/^Interrupted in .*: (\d+) corrected/m.exec(stopped.stdout)![1]);
    expect(corrected).toBeGreaterThan(0);
    expect(corrected).toBeLessThan(12);

    const rerun = await runPfc(args, { cwd: dir });
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(rerun.stdout).toMatch(new RegExp(`^Done in .*: ${12 - corrected} corrected, ${corrected} up to date, 0 failed`, 'm'));
    expect(rerun.stdout).not.toMatch(/Run the same command again/);
  });
});
