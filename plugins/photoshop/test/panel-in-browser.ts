/**
 * The built panel in Chromium for one e2e test file: the emulator, the
 * panel's server (`e2e-page.ts`), the browser and the page, started before
 * the file's tests and closed after them, the panel driver bound to the page.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startEmulator, type EmulatorHandle, type EmulatorOptions } from '@pfc/emulator';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { launchBrowser } from '../../../test/e2e/browser';
import { bundleSim, DIST, startPanelServer } from './e2e-page';
import { testEngine } from './emulator-engine';
import { drivePage, until } from './panel-driver';

/** What a test file gets from {@link panelForFile}. */
export interface PanelPage {
  emu: EmulatorHandle;
  page: Page;
}

export interface PanelOptions {
  /** Added to the emulator's options (it always has {@link testEngine} and its control routes). */
  emulator?: EmulatorOptions;
  /** The manifest's network domains the simulated UXP enforces (default: the shipped manifest's). */
  domains?: string[];
  /** Runs once the emulator and the page exist, before the panel loads: to keep them, seed the account, listen to the page. */
  beforeLoad: (started: PanelPage) => void | Promise<void>;
}

/**
 * Start the panel for the calling test file, 300 px wide on the simulated host. Its tests start once the panel
 * has listed its presets, which is the end of its load.
 */
export function panelForFile(options: PanelOptions): void {
  let emu: EmulatorHandle | undefined;
  let server: Awaited<ReturnType<typeof startPanelServer>> | undefined;
  let browser: Awaited<ReturnType<typeof launchBrowser>> | undefined;
  beforeAll(async () => {
    if (!existsSync(join(DIST, 'index.js'))) throw new Error('the panel is not built: run `npm run build` first');
    emu = await startEmulator({ webPort: 0, engine: testEngine, control: true, ...options.emulator });
    server = await startPanelServer();
    browser = await launchBrowser();
    const page = await browser.context.newPage();
    drivePage(page);
    await page.setViewportSize({ width: 300, height: 980 });
    await page.addInitScript({ content: await bundleSim(options.domains) });
    await options.beforeLoad({ emu, page });
    await page.goto(`${server.origin}/`);
    await until(() => document.querySelectorAll('#preset sp-menu-item').length > 0);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await emu?.close();
  });
}
