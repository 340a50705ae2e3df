/**
 * The extension in a real VS Code (code-server 4.100.3), driven through its UI
 * with Playwright and Debian's Chromium, against the emulator doing real image
 * work. Checks the files on disk, not just the UI.
 */
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EmulatorHandle } from '@pfc/emulator';
import type { Page } from 'playwright-core';
import { afterAll, describe, expect, test } from 'vitest';
import { expectCorrectedImage, expectNoPartials, expectOriginalsUntouched, filesBelow } from './e2e/checks';
import { waitFor } from './e2e/code-server';
import { expectProducedByService, serviceJobs, type ServiceJob } from './e2e/service';
import { PLUGIN_DIR, REPO_DIR, SAMPLE_FILES, sessionForTests, VSIX } from './e2e/session';
import {
  answerInput, clearSeenToasts, contextMenu, expand, explorerRow, pickQuick, quickInput, runCommand, seenToasts, selectRows, toast, waitForToastText,
} from './e2e/ui';
import { emulatorForTests } from './helpers';

const bench: Record<string, unknown> = {};

/** The emulator's origin (its control routes are not under /v2). */
const origin = (emu: EmulatorHandle): string => new URL(emu.web).origin;

/** The modal cost prompt names the number of files to send; answer "Correct". */
async function confirmCost(page: Page, files: number): Promise<void> {
  const dialog = page.locator('.monaco-dialog-box', { hasText: `Correct ${files} files on the hosted Web API` });
  await dialog.waitFor({ state: 'visible', timeout: 60_000 });
  await dialog.getByRole('button', { name: 'Correct' }).click();
  await dialog.waitFor({ state: 'hidden', timeout: 30_000 });
}

/** A screenshot for the README (media/screenshots is refreshed from these by hand). */
async function shoot(page: Page, name: string): Promise<void> {
  mkdirSync(join(REPO_DIR, 'test-results'), { recursive: true });
  await page.screenshot({ path: join(REPO_DIR, 'test-results', `vscode-readme-${name}.png`) }).catch(() => undefined);
}

afterAll(() => {
  mkdirSync(join(REPO_DIR, 'bench-results'), { recursive: true });
  const out = {
    ...bench,
    vsixBytes: statSync(VSIX).size,
    bundleBytes: statSync(join(PLUGIN_DIR, 'dist', 'extension.js')).size,
    measuredAt: new Date().toISOString(),
  };
  writeFileSync(join(REPO_DIR, 'bench-results', 'vscode-extension.json'), `${JSON.stringify(out, null, 2)}\n`);
  console.log(`vscode extension: ${JSON.stringify(out)}`);
});

describe('right-click correction in a real VS Code (local emulator backend)', () => {
  // Control routes on: the tests read the service's own job records.
  const emu = emulatorForTests({ control: true });
  const session = sessionForTests(() => ({ settings: { 'pfc.backend': 'emulator', 'pfc.emulatorUrl': emu().web }, folders: ['photos', 'picks', 'retry', 'waits'] }));

  test('a nested folder: Explorer menu → preset → progress → mirrored, decodable outputs → summary', async () => {
    const s = session();
    const { page, workspace } = s;
    const photos = join(workspace, 'photos');
    const clicked = await contextMenu(page, explorerRow(page, 'photos'), 'Perfectly Clear: Correct Images in Folder…', 20, () => shoot(page, 'context-menu'));
    await quickInput(page).waitFor({ state: 'visible', timeout: 60_000 });
    // First command of the session: includes activating the extension.
    bench.firstCommandToPickerMs = Date.now() - clicked;
    await pickQuick(page, 'Pro');

    await waitForToastText(page, /Corrected 5 files/, 120_000);
    // The progress notification was shown while the files were being corrected.
    expect((await seenToasts(page)).some((t) => /Perfectly Clear: \d\/5/.test(t))).toBe(true);

    const out = join(photos, 'corrected');
    expect(filesBelow(out).filter((f) => !f.startsWith('.'))).toEqual([...SAMPLE_FILES].sort());
    for (const rel of SAMPLE_FILES) await expectCorrectedImage(join(photos, rel), join(out, rel));
    expectOriginalsUntouched(photos, SAMPLE_FILES);
    expectNoPartials(photos);

    const log = s.server.outputChannel();
    const activated = /activated in ([\d.]+) ms \(bundle evaluated to activate\(\) called: ([\d.]+) ms, activate\(\): ([\d.]+) ms\)/.exec(log);
    expect(activated).not.toBeNull();
    bench.activationMs = Number(activated![1]);
    bench.loadToActivateMs = Number(activated![2]);
    bench.activateCallMs = Number(activated![3]);
    // The service received the picked (non-default) preset for every file, and each output is what it produced.
    const jobs = await serviceJobs(origin(emu()));
    expect(jobs).toHaveLength(5);
    await expectProducedByService(jobs, SAMPLE_FILES, photos, out, 'Pro');

    // "Show Report" opens the before/after webview (from the summary, or the palette if the summary already hid itself).
    const showReport = toast(page, /Corrected 5 files/).getByRole('button', { name: 'Show Report' });
    if (await showReport.isVisible()) await showReport.click();
    else await runCommand(page, 'Perfectly Clear: Show Last Report');
    await page.locator('.tab', { hasText: 'Perfectly Clear Report' }).waitFor({ state: 'visible', timeout: 60_000 });
    // Its before/after images load from disk through the webview's resource URIs.
    const report = page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
    await expect.poll(() => report.locator('img').count(), { timeout: 60_000 }).toBe(10);
    await expect
      .poll(() => report.locator('img').evaluateAll((imgs) => imgs.filter((i) => (i as HTMLImageElement).complete && (i as HTMLImageElement).naturalWidth > 0).length), { timeout: 60_000 })
      .toBe(10);
    expect(await report.locator('#summary').textContent()).toMatch(/^5 corrected, 0 up to date, 0 failed/);
    await shoot(page, 'report');

    // "Compare with original" in the report opens VS Code's diff editor on the pair.
    await report.locator('a.compare').first().click();
    await page.locator('.tab', { hasText: '(Original ↔ Perfectly Clear)' }).waitFor({ state: 'visible', timeout: 60_000 });
  });

  test('Compare with Original from the Command Palette compares the image open in the editor', async () => {
    const s = session();
    const { page } = s;
    // The folder was corrected by the first test; open one of its results by name (Quick Open), as a user would.
    await runCommand(page, 'View: Close All Editors');
    await page.keyboard.press('Control+P');
    await quickInput(page).locator('input').fill('photos/corrected/portraits/astronaut.jpg');
    await quickInput(page).locator('.monaco-list-row', { hasText: 'astronaut.jpg' }).first().waitFor({ state: 'visible', timeout: 30_000 });
    await page.keyboard.press('Enter');
    await page.locator('.tab', { hasText: 'astronaut.jpg' }).first().waitFor({ state: 'visible', timeout: 60_000 });

    await runCommand(page, 'Perfectly Clear: Compare with Original');
    await page.locator('.tab', { hasText: '(Original ↔ Perfectly Clear)' }).waitFor({ state: 'visible', timeout: 60_000 });
    expect(await toast(page, /right-click a corrected image/).count()).toBe(0);
  });

  test('two selected images: only those are corrected', async () => {
    const s = session();
    const { page, workspace } = s;
    const picks = join(workspace, 'picks');
    await expand(page, 'picks');
    await expand(page, 'portraits');
    await selectRows(page, ['astronaut.jpg', 'grace_hopper.jpg']);
    await contextMenu(page, explorerRow(page, 'grace_hopper.jpg'), 'Perfectly Clear: Correct Selected Images');
    await pickQuick(page, 'Universal');
    await waitForToastText(page, /Corrected 2 files/, 120_000);

    const outputs = filesBelow(picks).filter((f) => !SAMPLE_FILES.includes(f) && !f.split('/').pop()!.startsWith('.'));
    expect(outputs).toEqual(['portraits/corrected/astronaut.jpg', 'portraits/corrected/grace_hopper.jpg']);
    for (const name of ['astronaut.jpg', 'grace_hopper.jpg']) {
      await expectCorrectedImage(join(picks, 'portraits', name), join(picks, 'portraits', 'corrected', name));
    }
    expectOriginalsUntouched(picks, SAMPLE_FILES);
  });

  test('Retry Failed redoes exactly the files the service failed', async () => {
    const s = session();
    const { page, workspace } = s;
    const dir = join(workspace, 'retry');
    await runCommand(page, 'Notifications: Clear All Notifications');
    await clearSeenToasts(page);
    const known = new Set((await serviceJobs(origin(emu()))).map((j) => j.jobId));
    const newJobs = async (): Promise<ServiceJob[]> => (await serviceJobs(origin(emu()))).filter((j) => !known.has(j.jobId));
    emu().setFaults({ jobs: { failRate: 1, count: 2 } });
    await contextMenu(page, explorerRow(page, 'retry'), 'Perfectly Clear: Correct Images in Folder…');
    await pickQuick(page, 'School and Sports');
    await waitForToastText(page, /Corrected 3 files.*2 failed/, 180_000);
    const firstRun = await newJobs();
    for (const j of firstRun) known.add(j.jobId);
    const failedShas = firstRun.filter((j) => /fail/i.test(j.state)).map((j) => j.inputSha256).sort();
    expect(failedShas).toHaveLength(2);

    // Earlier summaries ("Corrected 2 files" of the test before) must not answer for the retry's.
    await runCommand(page, 'Notifications: Clear All Notifications');
    await clearSeenToasts(page);
    await runCommand(page, 'Perfectly Clear: Retry Failed Files of Last Run');
    const summary = await waitForToastText(page, /Perfectly Clear: Corrected \d+ files?/, 180_000);
    expect(summary).toMatch(/Corrected 2 files/);
    const retried = await newJobs();
    expect(retried.map((j) => j.inputSha256).sort()).toEqual(failedShas);
    const out = join(dir, 'corrected');
    expect(filesBelow(out).filter((f) => !f.split('/').pop()!.startsWith('.'))).toEqual([...SAMPLE_FILES].sort());
    const done = [...firstRun.filter((j) => !/fail/i.test(j.state)), ...retried];
    await expectProducedByService(done, SAMPLE_FILES, dir, out, 'School and Sports');
  });

  test('the service makes a file wait (503, Retry-After 3 s): the progress notification counts it down, then every file is corrected', async () => {
    const s = session();
    const { page, workspace } = s;
    await runCommand(page, 'Notifications: Clear All Notifications');
    await clearSeenToasts(page);
    emu().setFaults({ routes: { upload: { rate503: 1, count: 1, retryAfterSeconds: 3 } } });
    await contextMenu(page, explorerRow(page, 'waits'), 'Perfectly Clear: Correct Images in Folder…');
    await pickQuick(page, 'Universal');
    const waiting = await waitForToastText(page, /Service unavailable — retrying in \d s \(attempt 2 of \d\)/, 120_000);
    expect(waiting).toMatch(/Perfectly Clear: \d\/5 · /);
    await waitForToastText(page, /Corrected 5 files/, 180_000);
    const out = join(workspace, 'waits', 'corrected');
    expect(filesBelow(out).filter((f) => !f.split('/').pop()!.startsWith('.'))).toEqual([...SAMPLE_FILES].sort());
    const counted = (await seenToasts(page)).map((t) => /retrying in (\d) s/.exec(t)?.[1]).filter((n) => n !== undefined);
    // Counted down, not one frozen number.
    expect(new Set(counted).size, counted.join(',')).toBeGreaterThanOrEqual(2);
  });
});

describe('in place, then Restore Originals (local emulator backend)', () => {
  const emu = emulatorForTests({ control: true });
  const session = sessionForTests(() => ({ settings: { 'pfc.backend': 'emulator', 'pfc.emulatorUrl': emu().web, 'pfc.output.mode': 'in-place' }, folders: ['originals'] }));

  test('the corrected files replace the originals, and Restore Originals puts them back byte for byte', async () => {
    const s = session();
    const { page, workspace } = s;
    const dir = join(workspace, 'originals');
    await contextMenu(page, explorerRow(page, 'originals'), 'Perfectly Clear: Correct Images in Folder…');
    await pickQuick(page, 'Pro');
    // The universal .vsix carries no extended-attributes module: the summary says this installation cannot keep the photos' tags.
    expect(await waitForToastText(page, /Corrected 5 files/, 180_000)).toMatch(/this installation cannot keep the Finder tags, ratings and comments of the photos it replaces/);
    // In place: each file is now what the service produced from the original kept in .pfc-originals.
    await expectProducedByService(await serviceJobs(origin(emu())), SAMPLE_FILES, join(dir, '.pfc-originals'), dir, 'Pro');
    expectOriginalsUntouched(join(dir, '.pfc-originals'), SAMPLE_FILES);

    await runCommand(page, 'Notifications: Clear All Notifications');
    await contextMenu(page, explorerRow(page, 'originals'), 'Perfectly Clear: Restore Originals');
    const dialog = page.locator('.monaco-dialog-box', { hasText: 'Restore the originals' });
    await dialog.waitFor({ state: 'visible', timeout: 60_000 });
    await dialog.getByRole('button', { name: 'Restore' }).click();
    expect(await waitForToastText(page, /restored \d+ originals?/, 120_000)).toMatch(/restored 5 originals\./);
    expectOriginalsUntouched(dir, SAMPLE_FILES);
    expectNoPartials(dir);
  });
});

describe('hosted backend: first-run key prompt, cancel mid-batch, rerun', () => {
  const SECRET = `pfc-e2e-key-${Date.now().toString(36)}-do-not-log`;
  // The emulator stands in for the hosted Web API: it accepts only SECRET, and each job takes a while.
  const emu = emulatorForTests({ apiKeys: [SECRET], processingMs: 4000 });
  const session = sessionForTests(() => ({ settings: { 'pfc.backend': 'hosted', 'pfc.webApiUrl': emu().web, 'pfc.concurrency': 2, 'pfc.confirmAboveFiles': 3 }, folders: ['batch'] }));

  test('cancel leaves no partial file; a rerun completes the rest; the key never reaches settings or logs', async () => {
    const s = session();
    const { page, workspace } = s;
    const dir = join(workspace, 'batch');
    const out = join(dir, 'corrected');
    const logLines = (re: RegExp) => s.server.outputChannel().split('\n').filter((l) => re.test(l)).length;

    await contextMenu(page, explorerRow(page, 'batch'), 'Correct Images in Folder…');
    // No key yet: the first run offers to set one.
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor({ state: 'visible', timeout: 60_000 });
    await dialog.getByRole('button', { name: 'Set API Key' }).click();
    await answerInput(page, SECRET);
    await pickQuick(page, 'Universal');
    // 5 files > pfc.confirmAboveFiles (3) on a paid backend: the cost prompt.
    await confirmCost(page, 5);

    const progress = toast(page, /Perfectly Clear: \d\/5/);
    await progress.waitFor({ state: 'visible', timeout: 60_000 });
    // Cancel once a file is done and others are in flight.
    await waitFor('a first corrected file', () => logLines(/\] corrected /) >= 1, 120_000);
    await progress.getByRole('button', { name: 'Cancel' }).click();
    await waitForToastText(page, /Cancelled after correcting \d file/, 120_000);

    expectNoPartials(dir);
    const firstRun = filesBelow(out).filter((f) => !f.startsWith('.'));
    expect(firstRun.length).toBeGreaterThanOrEqual(1);
    expect(firstRun.length).toBeLessThan(5);
    for (const rel of firstRun) await expectCorrectedImage(join(dir, rel), join(out, rel));

    // Rerun: files done before are skipped, the rest are corrected.
    await clearSeenToasts(page);
    await contextMenu(page, explorerRow(page, 'batch'), 'Correct Images in Folder…');
    await pickQuick(page, 'Universal');
    // Only files that would be sent count: above the threshold it asks again, at or below it does not.
    if (5 - firstRun.length > 3) await confirmCost(page, 5 - firstRun.length);
    await waitForToastText(page, new RegExp(`Corrected ${5 - firstRun.length} files?.*${firstRun.length} already up to date`), 180_000);
    expect(filesBelow(out).filter((f) => !f.startsWith('.'))).toEqual([...SAMPLE_FILES].sort());
    for (const rel of SAMPLE_FILES) await expectCorrectedImage(join(dir, rel), join(out, rel));
    expectOriginalsUntouched(dir, SAMPLE_FILES);
    expectNoPartials(dir);

    // The key was used (the emulator accepts no other) but is stored nowhere readable.
    const settings = readFileSync(join(s.server.userDataDir, 'User', 'settings.json'), 'utf8');
    expect(settings).not.toContain(SECRET);
    expect(s.server.logs()).not.toContain(SECRET);
    expect(s.server.outputChannel()).toMatch(/corrected /);
    expect(s.server.outputChannel()).not.toContain(SECRET);
    for (const f of filesBelow(workspace)) expect(readFileSync(join(workspace, f)).includes(SECRET), f).toBe(false);
  });
});
