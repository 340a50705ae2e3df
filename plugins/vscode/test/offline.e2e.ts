/**
 * A new user's first minutes, in a real VS Code (code-server): a fresh profile
 * (no key, no pfc setting) opening a folder received from someone else in
 * Restricted Mode. The commands are there, the folder's own settings cannot
 * redirect the run (backend, output mode), and the folder is corrected on the
 * embedded emulator, which says so once. It runs in a process the extension
 * host forked (code-server's own Node), not in the extension host. A
 * black-and-white photo among the samples comes back black-and-white: its
 * JPEG rewrite runs on the worker thread the .vsix carries beside its bundle.
 */
import { copyFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { describe, expect, test } from 'vitest';
import { expectFolderCorrected } from './e2e/checks';
import { REPO_DIR, SAMPLE_FILES, SAMPLES, sessionForTests } from './e2e/session';
import { contextMenu, explorerRow, pickQuick, runCommand, toast, waitForToastText } from './e2e/ui';

describe('fresh profile, untrusted folder: offline on the embedded emulator', () => {
  const session = sessionForTests(() => ({
    settings: {},
    folders: ['album'],
    // What a received folder might carry: send to the paid service, overwrite the originals.
    workspaceSettings: { 'pfc.backend': 'hosted', 'pfc.output.mode': 'in-place', 'pfc.confirmAboveFiles': 0 },
    // Where the extension host finds @pfc/emulator, as on a machine with the pfc tools installed (see src/embedded.ts).
    env: { NODE_PATH: join(REPO_DIR, 'node_modules') },
    restricted: true,
  }));

  test('Restricted Mode shows the command; the run ignores the folder\'s settings and corrects on the embedded emulator', async () => {
    const s = session();
    const { page, workspace } = s;
    const album = join(workspace, 'album');
    const bwSource = join(mkdtempSync(join(tmpdir(), 'pfc-bw-')), 'bw.jpg');
    await sharp(join(SAMPLES, 'portraits', 'astronaut.jpg')).toColourspace('b-w').jpeg({ quality: 90 }).toFile(bwSource);
    copyFileSync(bwSource, join(album, 'bw.jpg'));
    await contextMenu(page, explorerRow(page, 'album'), 'Perfectly Clear: Correct Images in Folder…');
    await pickQuick(page, 'Pro');

    // One notice, with its button, says where the results come from; no modal asked for a key.
    const notice = await waitForToastText(page, /results come from the local emulator/, 120_000);
    expect(notice).toMatch(/Set API Key/);
    await waitForToastText(page, /Corrected 6 files/, 180_000);
    // Said once: a single notification of it (the recorder sees each text change, so count the notification centre's entries).
    expect(await toast(page, /results come from the local emulator/).count()).toBeLessThanOrEqual(1);
    await runCommand(page, 'Notifications: Show Notifications');
    const centre = page.locator('.notifications-center .notification-list-item', { hasText: 'results come from the local emulator' });
    await expect.poll(() => centre.count(), { timeout: 30_000 }).toBe(1);
    await page.keyboard.press('Escape');
    expect(await page.locator('.monaco-dialog-box').count()).toBe(0);

    // Output mode "folder" (the user's default), not the folder's "in-place": originals untouched.
    const out = join(album, 'corrected');
    await expectFolderCorrected(album, out, [...SAMPLE_FILES, 'bw.jpg'], (rel) => (rel === 'bw.jpg' ? bwSource : join(SAMPLES, rel)));
    expect((await sharp(join(out, 'bw.jpg')).metadata()).channels).toBe(1);
    const log = s.server.outputChannel();
    const pid = Number(/embedded emulator started on http:\/\/127\.0\.0\.1:\d+\/v2 \(process (\d+), data in /.exec(log)?.[1]);
    expect(log).toMatch(/on the embedded local emulator/);
    // The emulator's own process, a child of the extension host (whose command line is code-server's).
    expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8')).toContain(join('emulator', 'dist', 'child.js'));
    const parent = Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
    expect(readFileSync(`/proc/${parent}/cmdline`, 'utf8')).not.toContain('child.js');
    expect(parent).not.toBe(process.pid);
    expect(await toast(page, /needs an API key/).count()).toBe(0);
  });
});
