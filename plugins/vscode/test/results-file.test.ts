/**
 * A run's results live in a file in the extension's storage folder, not in
 * memory or workspaceState: driven through the fake VS Code against the
 * engine-less emulator on hundreds of tiny photos, Show Report, Retry Failed
 * and Compare with Original work after the run and after a reload (a new
 * `Commands` on the same workspaceState and storage); the stored value's
 * size does not grow with the files; every failure is retried, beyond the
 * first 1,000 a summary keeps.
 */
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { BACKUP_DIR, MAX_FAILURES_KEPT, type FileResult } from '@pfc/batch';
import { startEmulator, type EmulatorHandle } from '@pfc/emulator';
import { afterAll, afterEach, beforeAll, expect, test } from 'vitest';
import { LAST_RUN_KEY, type LastRun } from '../src/last-run';
import { activateOnFake, resultsIn, tinyPhotoTree } from './helpers';

let emu: EmulatorHandle;
const roots: string[] = [];

beforeAll(async () => {
  // No imaging engine: the tests are about where results go, not pixels.
  emu = await startEmulator({ host: '127.0.0.1', engine: {}, processingMs: 0 });
});
afterAll(async () => {
  await emu?.close();
});
afterEach(() => {
  emu.setFaults({});
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

/** `n` tiny JPEGs in folders of 50, removed after the test. */
async function tinyPhotos(n: number): Promise<string> {
  const dir = await tinyPhotoTree(n, 'pfc-vscode-results-');
  roots.push(dir);
  return dir;
}

const jobs = (): number => emu.stats().jobs.total;
const runsIn = (last: LastRun): string[] => readdirSync(join(last.resultsFile, '..'));

test('in place, 300 files, 20 failed: Show Report, Compare and Retry Failed from the results file, also after a reload', async () => {
  const root = await tinyPhotos(300);
  const settings = { backend: 'emulator', emulatorUrl: emu.web, concurrency: 4, 'output.mode': 'in-place' };
  const one = activateOnFake({ settings });
  emu.setFaults({ jobs: { failRate: 1, count: 20 } });
  const first = (await one.fake.run('pfc.correctFolder', one.fake.uri(root))) as LastRun;
  expect(first.summary).toMatchObject({ corrected: 280, failed: 20 });
  const results = await resultsIn(first);
  expect(results).toHaveLength(300);
  const failed = results.filter((r) => r.status === 'failed').map((r) => r.input).sort();
  expect(failed).toHaveLength(20);
  // workspaceState holds the small record only: no file's path in it.
  const stored = one.fake.workspaceState.store.get(LAST_RUN_KEY)!;
  expect(stored).not.toContain('.jpg');
  expect(JSON.parse(stored)).toEqual(first);

  // Show Report: the failures first, 200 files a page, the next page through its link.
  await one.fake.run('pfc.showReport');
  const html = one.fake.webviews[0]!.html;
  expect([...html.matchAll(/<tr class="(\w[\w-]*)"/g)].map((m) => m[1]).slice(0, 21)).toEqual([...Array<string>(20).fill('failed'), 'corrected']);
  expect(html).toContain('Showing 1–200 of 300 files');

  // Compare, in place: the corrected file with the original kept in .pfc-originals (no layout says so; only the results file).
  const done = results.find((r) => r.status === 'corrected')!;
  const expectDiff = async (fake: typeof one.fake, r: FileResult): Promise<void> => {
    fake.executed.length = 0;
    await fake.run('pfc.compareWithOriginal', fake.uri(r.input));
    const diff = fake.executed.find((e) => e.command === 'vscode.diff');
    expect((diff?.args as { fsPath: string }[] | undefined)?.slice(0, 2).map((u) => u.fsPath)).toEqual([r.backup, r.input]);
    expect(r.backup).toContain(`/${BACKUP_DIR}/`);
  };
  await expectDiff(one.fake, done);

  // Reload: a new extension instance on the same workspaceState and storage folders.
  const two = activateOnFake({ settings, workspaceState: one.fake.workspaceState, storage: one.fake.storage });
  await two.fake.run('pfc.showReport', 1);
  expect(two.fake.webviews[0]!.html).toContain('Showing 201–300 of 300 files');
  await expectDiff(two.fake, results.filter((r) => r.status === 'corrected').at(-1)!);
  const before = jobs();
  const retry = (await two.fake.run('pfc.retryFailed')) as LastRun;
  expect(retry.summary).toMatchObject({ corrected: 20, failed: 0 });
  expect(jobs() - before).toBe(20);
  expect((await resultsIn(retry)).map((r) => r.input).sort()).toEqual(failed);
  // The retry is now the last run; the first run's results file is removed.
  expect(two.fake.workspaceState.get<LastRun>(LAST_RUN_KEY)!.resultsFile).toBe(retry.resultsFile);
  expect(runsIn(retry)).toEqual([retry.resultsFile.split('/').pop()]);
}, 180_000);

test("workspaceState's value is the same size for 50 and 500 files (numbers aside)", async () => {
  const sizes: number[] = [];
  for (const n of [50, 500]) {
    const root = await tinyPhotos(n);
    const { fake } = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: emu.web, concurrency: 4 } });
    emu.setFaults({ jobs: { failRate: 1, count: n / 10 } });
    const last = (await fake.run('pfc.correctFolder', fake.uri(root))) as LastRun;
    expect(last.summary).toMatchObject({ corrected: n - n / 10, failed: n / 10 });
    expect(await resultsIn(last)).toHaveLength(n);
    // The folder picked and the results file's name are the same length in both runs; counts and times are numbers, set to 0.
    sizes.push(JSON.stringify(JSON.parse(fake.workspaceState.store.get(LAST_RUN_KEY)!), (_k, v: unknown) => (typeof v === 'number' ? 0 : v)).length);
  }
  expect(sizes[1]).toBe(sizes[0]);
}, 180_000);

test(`Retry Failed retries every failure, beyond the ${MAX_FAILURES_KEPT} a summary keeps`, async () => {
  const n = MAX_FAILURES_KEPT + 60;
  const root = await tinyPhotos(n);
  const { fake } = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: emu.web, concurrency: 8 } });
  emu.setFaults({ jobs: { failRate: 1, count: n } });
  const first = (await fake.run('pfc.correctFolder', fake.uri(root))) as LastRun;
  expect(first.summary.failed).toBe(n);
  emu.setFaults({});
  const before = jobs();
  const retry = (await fake.run('pfc.retryFailed')) as LastRun;
  expect(retry.summary).toMatchObject({ corrected: n, failed: 0 });
  expect(jobs() - before).toBe(n);
  expect(new Set((await resultsIn(retry)).map((r) => r.rel)).size).toBe(n);
}, 300_000);
