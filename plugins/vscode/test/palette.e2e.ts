/**
 * The Command Palette of a real VS Code (code-server): "Set BGR Licence Key"
 * is listed while `pfc.backend` is `container+bgr` (the one backend that uses
 * the key) and no longer once the setting changes — the manifest's
 * `config.pfc.backend` when clause as VS Code itself evaluates it.
 */
import type { Page } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import { sessionForTests } from './e2e/session';
import { quickInput, runCommand, waitForToastText } from './e2e/ui';

/** The Perfectly Clear "Set …" commands the palette lists, once it lists Set API Key (always there). */
async function setCommandsListed(page: Page): Promise<string[]> {
  const input = quickInput(page).locator('input');
  await page.keyboard.press('Control+Shift+P');
  await input.waitFor({ state: 'visible', timeout: 30_000 });
  await input.fill('>Perfectly Clear: Set');
  const rows = quickInput(page).locator('.monaco-list-row');
  await rows.filter({ hasText: 'Set API Key' }).first().waitFor({ state: 'visible', timeout: 30_000 });
  const listed = (await rows.allInnerTexts()).filter((t) => /Perfectly Clear: Set /.test(t)).map((t) => t.split('\n')[0]!.trim());
  await page.keyboard.press('Escape');
  return listed;
}

describe('Command Palette: Set BGR Licence Key follows pfc.backend', () => {
  // An emulator address (nothing needs to answer there): Use the Local Emulator then changes pfc.backend without asking.
  const session = sessionForTests(() => ({ settings: { 'pfc.backend': 'container+bgr', 'pfc.emulatorUrl': 'http://127.0.0.1:9/v2' }, folders: ['photos'] }));

  test('listed with container+bgr; gone once the user switches to the local emulator', async () => {
    const s = session();
    expect(await setCommandsListed(s.page)).toContain('Perfectly Clear: Set BGR Licence Key');

    await runCommand(s.page, 'Perfectly Clear: Use the Local Emulator');
    await waitForToastText(s.page, /pfc\.backend = emulator/, 60_000);
    // The palette is judged each time it opens.
    await expect.poll(async () => (await setCommandsListed(s.page)).includes('Perfectly Clear: Set BGR Licence Key'), { timeout: 60_000, interval: 1_000 }).toBe(false);
    expect(await setCommandsListed(s.page)).toContain('Perfectly Clear: Set API Key');
  });
});
