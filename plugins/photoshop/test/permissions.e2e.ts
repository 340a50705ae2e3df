/**
 * The simulated UXP's network permission, seen as a user would: the built
 * panel under a manifest whose `requiredPermissions.network.domains` does not
 * list the emulator. UXP refuses such requests (manifest-v5/index.md); so
 * does the simulator (`strict-globals.ts`). The shipped manifest says "all",
 * so panel.e2e.ts never meets a refusal: without this test the simulator
 * could let every request through and no test would notice.
 */
import type { EmulatorHandle } from '@pfc/emulator';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { panelForFile } from './panel-in-browser';
import { choose, openPhoto, outcomes, runButton, sim, type } from './panel-driver';

/** A manifest that allows only the hosted API. */
const DOMAINS = ['https://api.perfectlyclear.io'];

let emu: EmulatorHandle;
let page: Page;
panelForFile({
  domains: DOMAINS,
  beforeLoad: (started) => {
    ({ emu, page } = started);
  },
});

/** Every request the emulator answered, its storage included. */
const served = () => {
  const s = emu.stats();
  return Object.values(s.requests).reduce((a, b) => a + b, 0) + s.storage.requests;
};

describe('a backend outside the manifest\'s network domains', () => {
  it('is refused by the host: the panel says so, the document is unchanged, and the service never hears of it', async () => {
    const before = served();
    await page.click('#toggle-settings');
    await choose('backend', 'Local emulator');
    await type('emulator-url', emu.web);
    await type('api-key', 'e2e-account-key');
    await page.click('#save-settings');
    // Saving lists the account's presets: that request is the first one refused.
    await expect.poll(() => page.textContent('#message'), { timeout: 30_000 }).toMatch(/presets could not be loaded: .*Permission denied: http:\/\/127\.0\.0\.1:\d+ is not in the manifest's requiredPermissions\.network\.domains/);
    await page.click('#toggle-settings');

    const doc = await openPhoto('objects/coffee.jpg', 'coffee.jpg');
    await runButton('#correct-document');
    const got = await outcomes();
    expect(got.map((o) => o.status)).toEqual(['failed']);
    expect(got[0]!.text).toMatch(/^coffee\.jpg — could not reach .*Permission denied/);
    const after = (await sim((s) => s.documents())).find((d) => d.id === doc.id)!;
    expect(after.layers).toHaveLength(1);
    expect(after.history).toEqual(['Open']);
    expect(served()).toBe(before);
    expect(emu.jobs()).toEqual([]);
  });
});
