/**
 * A multi-root workspace in a real VS Code (code-server), driven through its
 * UI: images selected in two workspace folders are corrected in one run, each
 * with its own folder's settings (`.vscode/settings.json`, resource scope).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { expectCorrectedImage, expectOriginalsUntouched, filesBelow } from './e2e/checks';
import { SAMPLE_FILES, sessionForTests } from './e2e/session';
import { contextMenu, expand, expandToShow, explorerRow, pickQuick, seenToasts, selectRows, waitForToastText } from './e2e/ui';
import { emulatorForTests } from './helpers';

describe('a selection across two workspace folders (local emulator backend)', () => {
  const emu = emulatorForTests();
  const session = sessionForTests(() => ({
    settings: { 'pfc.backend': 'emulator', 'pfc.emulatorUrl': emu().web },
    folders: ['album-a', 'album-b'],
    // Album A keeps the user's output folder; album B's own settings put results beside each photo.
    multiRoot: { 'album-b': { 'pfc.output.mode': 'suffix', 'pfc.output.suffix': '-fixed' } },
  }));

  test("one run, one summary; each folder's photo goes where its own folder's settings say", async () => {
    const s = session();
    const { page, workspace } = s;
    const [a, b] = [join(workspace, 'album-a'), join(workspace, 'album-b')];
    // Both folders have the same subfolders: album A's come first in the tree, album B's last.
    await expand(page, 'album-a');
    await expand(page, 'album-b');
    // Album B's children are shown (only it has a .vscode folder): both folders' subfolders are in the tree.
    await explorerRow(page, '.vscode').waitFor({ state: 'visible', timeout: 30_000 });
    await expandToShow(page, 'portraits', 'first', 'astronaut.jpg');
    await expandToShow(page, 'outdoors', 'last', 'rocket.jpg');
    await selectRows(page, ['astronaut.jpg', 'rocket.jpg']);
    await contextMenu(page, explorerRow(page, 'rocket.jpg'), 'Perfectly Clear: Correct Selected Images');
    await pickQuick(page, 'Universal');
    await waitForToastText(page, /Perfectly Clear: Corrected 2 files/, 120_000);

    await expectCorrectedImage(join(a, 'portraits', 'astronaut.jpg'), join(a, 'portraits', 'corrected', 'astronaut.jpg'));
    await expectCorrectedImage(join(b, 'outdoors', 'rocket.jpg'), join(b, 'outdoors', 'rocket-fixed.jpg'));
    expect(existsSync(join(b, 'outdoors', 'corrected'))).toBe(false);
    // Nothing else was written; the originals are intact.
    const written = (dir: string): string[] => filesBelow(dir).filter((f) => !SAMPLE_FILES.includes(f) && !f.startsWith('.vscode/') && !f.split('/').pop()!.startsWith('.'));
    expect(written(a)).toEqual(['portraits/corrected/astronaut.jpg']);
    expect(written(b)).toEqual(['outdoors/rocket-fixed.jpg']);
    expectOriginalsUntouched(a, SAMPLE_FILES);
    expectOriginalsUntouched(b, SAMPLE_FILES);
    // One summary for the two folders; the progress counted both files.
    const toasts = await seenToasts(page);
    expect(new Set(toasts.filter((t) => /Perfectly Clear: Corrected/.test(t)).map((t) => /Corrected \d+ files?/.exec(t)![0]))).toEqual(new Set(['Corrected 2 files']));
    expect(toasts.filter((t) => /Perfectly Clear: \d\/\d/.test(t)).every((t) => /Perfectly Clear: \d\/2\b/.test(t))).toBe(true);
    expect(s.server.outputChannel()).toMatch(/run: .*album-b.*output mode suffix/);
  });
});
