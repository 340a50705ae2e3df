/**
 * Keys in a real VS Code (code-server), driven through its UI: a key the
 * service refuses is fixed from the run's own summary, and a key set while a
 * run is active is masked in the log from that moment on.
 */
import { cpSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { expectCorrectedImage, expectFolderCorrected } from './e2e/checks';
import { waitFor } from './e2e/code-server';
import { SAMPLE_FILES, sessionForTests } from './e2e/session';
import { answerInput, clearSeenToasts, clickNotificationButton, contextMenu, explorerRow, pickQuick, quickInput, runCommand, waitForStatusBarText, waitForToastText } from './e2e/ui';
import { emulatorForTests } from './helpers';

/** The API key's password box (src/keys.ts). */
const KEY_PROMPT = 'Paste your API key';

describe('hosted backend: the service refuses the stored key', () => {
  const SECRET = `pfc-e2e-right-${Date.now().toString(36)}-do-not-log`;
  const WRONG = `pfc-e2e-wrong-${Date.now().toString(36)}-do-not-log`;
  // The emulator stands in for the hosted Web API and accepts only SECRET.
  const emu = emulatorForTests({ apiKeys: [SECRET] });
  const session = sessionForTests(() => ({ settings: { 'pfc.backend': 'hosted', 'pfc.webApiUrl': emu().web }, folders: ['refused'] }));

  test('the summary that says the key was refused offers "Set API Key"; with the new key the folder is corrected', async () => {
    const s = session();
    const { page, workspace } = s;
    const dir = join(workspace, 'refused');
    await runCommand(page, 'Perfectly Clear: Set API Key');
    await answerInput(page, WRONG, KEY_PROMPT);
    await waitForStatusBarText(page, /API key saved in secret storage/, 60_000);
    await runCommand(page, 'Notifications: Clear All Notifications');
    await clearSeenToasts(page);

    await contextMenu(page, explorerRow(page, 'refused'), 'Perfectly Clear: Correct Images in Folder…');
    await pickQuick(page, 'Universal');
    const summary = /stopped early: the service refused the credentials/;
    // The run stops at once: VS Code shows no more than 3 toasts in 800 ms (NotificationsToasts' spam protection),
    // so the summary may land straight in the Notification Center, where the user finds it.
    await waitFor('the summary', () => /\] Perfectly Clear: Corrected 0 files.*stopped early: the service refused the credentials/.test(s.server.outputChannel()), 120_000);
    await clearSeenToasts(page);
    // The way out is on the notification itself: no command to find.
    await clickNotificationButton(page, summary, 'Set API Key');
    await answerInput(page, SECRET, KEY_PROMPT);
    // The next run, corrected, shows the key was stored (the status bar may still show the first key's confirmation).
    await quickInput(page).waitFor({ state: 'hidden', timeout: 60_000 });

    await runCommand(page, 'Notifications: Clear All Notifications');
    await contextMenu(page, explorerRow(page, 'refused'), 'Perfectly Clear: Correct Images in Folder…');
    await pickQuick(page, 'Universal');
    await waitFor('the second summary', () => /\] Perfectly Clear: Corrected 5 files/.test(s.server.outputChannel()), 180_000);
    await expectFolderCorrected(dir, join(dir, 'corrected'), SAMPLE_FILES);
    // Neither key reached the settings, the logs or the Output channel.
    const settings = readFileSync(join(s.server.userDataDir, 'User', 'settings.json'), 'utf8');
    for (const key of [SECRET, WRONG]) {
      expect(settings).not.toContain(key);
      expect(s.server.logs()).not.toContain(key);
    }
  });
});

describe('a key set while a run is active (local emulator backend)', () => {
  const KEY = `pfc-e2e-mid-run-${Date.now().toString(36)}`;
  // Each job takes a while, one at a time: the run is still going when the key is set.
  const emu = emulatorForTests({ processingMs: 4000, workers: 1 });
  const session = sessionForTests(() => ({ settings: { 'pfc.backend': 'emulator', 'pfc.emulatorUrl': emu().web, 'pfc.concurrency': 1 }, folders: ['masked'] }));

  test('"Set API Key" during the run: the key is masked in the Output channel from that moment', async () => {
    const s = session();
    const { page, workspace } = s;
    const dir = join(workspace, 'masked');
    // A photo named with the key stands for any line that could quote it (a service error echoing a request);
    // its folder sorts last, so it is corrected after the key is set.
    mkdirSync(join(dir, 'zz-last'));
    cpSync(join(dir, 'objects', 'coffee.jpg'), join(dir, 'zz-last', `${KEY}.jpg`));
    const log = (): string => s.server.outputChannel();

    await contextMenu(page, explorerRow(page, 'masked'), 'Perfectly Clear: Correct Images in Folder…');
    await pickQuick(page, 'Universal');
    await waitFor('a first corrected file', () => /\] corrected /.test(log()), 120_000);
    await runCommand(page, 'Perfectly Clear: Set API Key');
    await answerInput(page, KEY, KEY_PROMPT);
    await waitForStatusBarText(page, /API key saved in secret storage/, 60_000);
    await waitForToastText(page, /Perfectly Clear: Corrected 6 files/, 180_000);

    await expectCorrectedImage(join(dir, 'zz-last', `${KEY}.jpg`), join(dir, 'corrected', 'zz-last', `${KEY}.jpg`));
    expect(log()).toMatch(/\] corrected zz-last\/\*\*\*\.jpg → /);
    expect(log()).not.toContain(KEY);
  });
});
