/**
 * The plugin end to end in real Chromium: the BUILT code.js runs on the
 * simulated figma, the BUILT ui.html in a sandboxed iframe, the emulator is
 * the backend, and the test drives the UI as a person would.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createWebBackend } from '@pfc/core';
import { startEmulator, type EmulatorHandle } from '@pfc/emulator';
import type { FrameLocator, Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../../../test/e2e/browser';
import type { DumpNode, NodeSpec } from './e2e/spec';
import { PLUGIN_DIR, serveHarness, serveWithoutCors } from './e2e/serve';

const REPO = join(PLUGIN_DIR, '..', '..');
const SHOTS = join(REPO, 'test-results');
const sample = (p: string) => readFileSync(join(REPO, 'samples', p)).toString('base64');
const API_KEY = 'e2e-key-0123456789abcd';

/** A frame holding a shared image, a layer with two image fills, a group, a component, an instance, a GIF and mixed text. */
const DOCUMENT: NodeSpec[] = [
  {
    kind: 'frame', name: 'Hero', solid: true, images: ['astronaut'], x: 0, width: 800,
    children: [
      { kind: 'rect', name: 'Portrait', images: ['grace'] },
      { kind: 'rect', name: 'Portrait again', images: ['grace'] },
      { kind: 'group', name: 'Group', children: [{ kind: 'rect', name: 'Two fills', images: ['coffee', 'rocket'] }] },
      { kind: 'component', name: 'Card', children: [{ kind: 'rect', name: 'Cat', images: ['cat'] }] },
      { kind: 'instance', name: 'Card instance', children: [{ kind: 'rect', name: 'Cat in instance', images: ['cat'] }] },
      { kind: 'rect', name: 'Animated', images: ['gif'] },
      { kind: 'text', name: 'Caption' },
    ],
  },
  { kind: 'rect', name: 'Rocket solo', images: ['rocket'], x: 1200, width: 640 },
];

type Dumped = DumpNode;

let emu: EmulatorHandle;
let harness: Awaited<ReturnType<typeof serveHarness>>;
let noCors: Awaited<ReturnType<typeof serveWithoutCors>>;
let browser: Awaited<ReturnType<typeof launchBrowser>>;
let page: Page;
let ui: FrameLocator;
const original = new Map<string, string[]>(); // layer name → image hashes of its fills before any run

async function dump(): Promise<Dumped[]> {
  return page.evaluate(() => window.harness.dump());
}
const imageHashes = (n: Dumped) => (n.fills === 'mixed' ? [] : n.fills.filter((f) => f.type === 'IMAGE').map((f) => f.imageHash ?? ''));
async function decode(hash: string) {
  const b64 = await page.evaluate((h) => window.harness.imageBase64(h), hash);
  if (!b64) throw new Error(`no image ${hash}`);
  return sharp(Buffer.from(b64, 'base64')).metadata();
}
/** Wait until the run's closing message is shown (it carries the ok or error class). */
async function finishedRunStatus(): Promise<string> {
  await ui.locator('#run-status.ok, #run-status.error').waitFor({ timeout: 240_000 });
  return (await ui.locator('#run-status').textContent()) ?? '';
}

beforeAll(async () => {
  emu = await startEmulator({ webPort: 0 });
  await createWebBackend({ baseURL: emu.web, apiKey: API_KEY }).presets.create({ name: 'Brand look', description: 'e2e', file: new TextEncoder().encode('look=brand') });
  [harness, noCors, browser] = await Promise.all([serveHarness(), serveWithoutCors(new URL(emu.web).origin), launchBrowser()]);
  page = await browser.context.newPage();
  // Uncaught errors in the page or the plugin window are printed; the blocked-request test's CORS console lines are expected.
  page.on('pageerror', (err) => console.error('[page error]', err.message));
  await page.setViewportSize({ width: 420, height: 680 });
  await page.goto(harness.url);
  await page.waitForFunction(() => window.harness !== undefined);
  const images = {
    astronaut: sample('portraits/astronaut.jpg'),
    grace: sample('portraits/grace_hopper.jpg'),
    coffee: sample('objects/coffee.jpg'),
    rocket: sample('outdoors/rocket.jpg'),
    cat: sample('objects/chelsea.png'),
    gif: (await sharp(join(REPO, 'samples/objects/chelsea.png')).resize(60).gif().toBuffer()).toString('base64'),
  };
  await page.evaluate(([imgs, spec]) => window.harness.setup(imgs, spec), [images, DOCUMENT] as const);
  for (const n of await dump()) if (imageHashes(n).length > 0) original.set(n.name, imageHashes(n));
  ui = page.frameLocator('#plugin-ui');
  mkdirSync(SHOTS, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
  await Promise.all([harness?.close(), noCors?.close(), emu?.close()]);
});

describe('Figma plugin in Chromium with the emulator', () => {
  it('corrects every distinct image once, in place, with an injected failure reported per image (light theme)', async () => {
    await page.evaluate(() => {
      window.harness.select('Hero');
      return window.harness.launch('correct', 'light');
    });
    await ui.locator('#selection', { hasText: '6 images' }).waitFor();

    // Settings: the local emulator, with an API key that is never shown back.
    await ui.getByRole('button', { name: 'Settings' }).click();
    await ui.getByLabel('Local emulator').check();
    await ui.getByLabel('Emulator URL').fill(emu.web);
    await ui.getByLabel('API key').fill(API_KEY);
    await ui.getByRole('button', { name: 'Save' }).click();
    await ui.locator('#settings-status', { hasText: /^Saved$/ }).waitFor();
    expect(await ui.locator('#api-key-hint').textContent()).toBe('Stored key: ••••abcd');
    expect(await ui.getByLabel('API key').inputValue()).toBe('');
    expect(await ui.locator('body').innerHTML()).not.toContain(API_KEY);
    await ui.getByRole('button', { name: 'Back' }).click();

    // Options: the account's custom preset, and a resize beyond Figma's limit.
    await ui.locator('#custom-presets option', { hasText: 'Brand look' }).waitFor({ state: 'attached' });
    await ui.getByLabel('Preset').selectOption('Brand look');
    await ui.getByLabel('Resize', { exact: true }).selectOption('long');
    await ui.getByLabel('Resize value').fill('6000');
    emu.setFaults({ jobs: { failRate: 1, count: 1 } });
    await ui.getByRole('button', { name: /Correct 6 images/ }).click();
    const text = await finishedRunStatus();
    emu.setFaults({});
    expect(text).toBe('4 images corrected, 1 failed, 2 skipped');

    // The UI: one row per distinct image, one failure with its reason, the skips with theirs.
    expect(await ui.locator('.item[data-phase=done]').count()).toBe(4);
    const failed = ui.locator('.item[data-phase=failed]');
    expect(await failed.count()).toBe(1);
    expect(await failed.locator('.error').textContent()).toMatch(/could not correct this image/);
    const failedHash = await failed.getAttribute('data-hash');
    expect(await ui.locator('.item.skipped', { hasText: /GIF/ }).count()).toBe(1);
    expect(await ui.locator('.item.skipped', { hasText: /mixed fills/ }).count()).toBe(1);
    expect(await ui.locator('.item[data-phase=done] .notes').first().textContent()).toMatch(/6000 px long edge.*4096/);
    expect(await ui.locator('.item[data-phase=done] img.thumb[src^="blob:"]').count()).toBe(4);
    await failed.scrollIntoViewIfNeeded();
    await page.locator('#plugin-ui').screenshot({ path: join(SHOTS, 'figma-ui-light.png') });

    // The document: every fill of a corrected image holds the same new image, ≤ 4096 px.
    expect(emu.stats().jobs.total).toBe(5); // 5 distinct JPEG/PNG images, the shared ones once
    const nodes = await dump();
    const byName = new Map(nodes.map((n) => [n.name, n]));
    const newHashOf = new Map<string, string>();
    const gifHash = original.get('Animated')?.[0];
    for (const [name, hashesBefore] of original) {
      if (name === 'Rocket solo') continue; // not selected in this run
      const now = imageHashes(byName.get(name)!);
      expect(now, name).toHaveLength(hashesBefore.length);
      hashesBefore.forEach((before, i) => {
        const after = now[i] ?? '';
        if (before === failedHash || before === gifHash) return expect(after, name).toBe(before);
        expect(after, name).not.toBe(before);
        // Layers sharing an image get the same corrected image.
        if (newHashOf.has(before)) expect(after, `${name} shares its image`).toBe(newHashOf.get(before));
        newHashOf.set(before, after);
      });
      if (hashesBefore.some((h) => h !== failedHash && h !== gifHash)) {
        expect(byName.get(name)!.relaunch, name).toEqual({ correct: 'Perfectly Clear: preset Brand look, long edge 6000 px' });
      }
    }
    expect(newHashOf.size).toBe(4);
    for (const hash of newHashOf.values()) {
      const meta = await decode(hash);
      expect(Math.max(meta.width ?? 0, meta.height ?? 0)).toBe(4096);
    }
    const hero = byName.get('Hero')!;
    expect(hero.fills !== 'mixed' && hero.fills.map((f) => f.type)).toEqual(['SOLID', 'IMAGE']);
    const state = await page.evaluate(() => window.harness.state());
    expect(state.undoSteps).toBe(1);
    expect(state.notifications.at(-1)).toEqual({ message: text, error: false });
  });

  it('inserts corrected copies beside the originals, and names the host when a request is blocked (dark theme)', async () => {
    const before = await dump();
    // Hero now holds corrected images while Rocket solo still has the original rocket: count what is selected.
    const parentOf = new Map(before.map((n) => [n.id, n.parentId]));
    const heroId = before.find((n) => n.name === 'Hero')?.id;
    const inHero = (id: string | null): boolean => id !== null && (id === heroId || inHero(parentOf.get(id) ?? null));
    const selected = before.filter((n) => inHero(n.id) || n.name === 'Rocket solo');
    const distinct = new Set(selected.flatMap(imageHashes)).size;
    await page.evaluate(() => {
      window.harness.select('Hero', 'Rocket solo');
      return window.harness.launch('remove-background', 'dark');
    });
    await ui.locator('#selection', { hasText: `${distinct} images` }).waitFor();
    expect(await ui.getByLabel('Remove background').isChecked()).toBe(true);
    // The last run's options come back (the custom preset once the account's list has loaded).
    await ui.locator('#custom-presets option', { hasText: 'Brand look' }).waitFor({ state: 'attached' });
    expect(await ui.getByLabel('Preset').inputValue()).toBe('Brand look');
    expect(await ui.getByLabel('Resize value').inputValue()).toBe('6000');
    await ui.getByLabel('Resize', { exact: true }).selectOption('none');
    await ui.getByLabel('Colour + shadow').check();
    await ui.locator('#bg-color').fill('#3366ff');
    await ui.getByLabel('Insert as copy').check();
    const jobsBefore = emu.stats().jobs.total;
    await ui.getByRole('button', { name: `Correct ${distinct} images` }).click();
    expect(await finishedRunStatus()).toBe(`${distinct - 1} images corrected, 2 skipped`); // the GIF and the mixed text
    expect(emu.stats().jobs.total - jobsBefore).toBe(distinct - 1);
    await page.locator('#plugin-ui').screenshot({ path: join(SHOTS, 'figma-ui-dark.png') });

    const top = await page.evaluate(() => window.harness.childNames());
    expect(top).toEqual(['Hero', 'Hero (corrected)', 'Rocket solo', 'Rocket solo (corrected)']);
    const nodes = await dump();
    const hero = nodes.find((n) => n.name === 'Hero')!;
    const heroCopy = nodes.find((n) => n.name === 'Hero (corrected)')!;
    expect(heroCopy.x).toBe(hero.x + hero.width + 40);
    // Originals untouched by this run.
    for (const n of before) expect(nodes.find((m) => m.id === n.id)?.fills, n.name).toEqual(n.fills);
    // The copies hold new images wherever the originals had a corrected image.
    const soloCopy = nodes.find((n) => n.name === 'Rocket solo (corrected)')!;
    const copyHash = imageHashes(soloCopy)[0] ?? '';
    expect(copyHash).not.toBe(original.get('Rocket solo')?.[0]);
    const meta = await decode(copyHash);
    expect([meta.width, meta.height]).toEqual([640, 427]);
    expect(soloCopy.relaunch).toEqual({ correct: 'Perfectly Clear: preset Brand look, background #3366ff with soft shadow' });

    // The emulator without CORS headers: the UI names the host and says what the server must send.
    await ui.getByRole('button', { name: 'Settings' }).click();
    await ui.getByLabel('Emulator URL').fill(`${noCors.url}/v2`);
    await ui.getByRole('button', { name: 'Save' }).click();
    const host = new URL(noCors.url).host;
    await ui.locator('#settings-status', { hasText: `${host} answered, but did not allow the request` }).waitFor();
    expect(await ui.locator('#settings-status').textContent()).toMatch(/^Saved, but your presets could not be loaded: .*CORS.*Origin: null.*Access-Control-Allow-Origin: \*/);
    expect(noCors.origins).toContain('null');
  });

  it('says Figma blocked a host missing from networkAccess (CSP), distinct from CORS and from a host that does not answer', async () => {
    // A published plugin whose manifest allowed only the hosted API: Chromium enforces the CSP Figma derives from it.
    await page.evaluate(() => window.harness.setNetwork({ allowedDomains: ['https://api.perfectlyclear.io'] }, 'published'));
    await page.evaluate(() => window.harness.launch('settings', 'light'));
    await ui.getByLabel('Local emulator').check();
    await ui.getByLabel('Emulator URL').fill(emu.web);
    await ui.getByRole('button', { name: 'Save' }).click();
    const emuHost = new URL(emu.web).host;
    const status = ui.locator('#settings-status', { hasText: `Figma blocked the request to ${emuHost}` });
    await status.waitFor();
    expect(await status.textContent()).toMatch(/network access list \(manifest\.json "networkAccess"\)/);
    // With the real manifest (allowedDomains ["*"]) the same address works once published.
    await page.evaluate(() => window.harness.setNetwork(null, 'published'));
    await page.evaluate(() => window.harness.launch('settings', 'light'));
    await ui.getByRole('button', { name: 'Save' }).click();
    await ui.locator('#settings-status', { hasText: /^Saved$/ }).waitFor();
    // Nothing listening: neither CSP nor CORS.
    await ui.getByLabel('Emulator URL').fill('http://127.0.0.1:9/v2');
    await ui.getByRole('button', { name: 'Save' }).click();
    await ui.locator('#settings-status', { hasText: 'Could not reach 127.0.0.1:9: nothing answered' }).waitFor();
    await ui.getByLabel('Emulator URL').fill(emu.web);
    await ui.getByRole('button', { name: 'Save' }).click();
    await ui.locator('#settings-status', { hasText: /^Saved$/ }).waitFor();
    await page.evaluate(() => window.harness.setNetwork(null, 'development'));
  });

  it('fits results Figma would refuse (over 4096 px, or not PNG/JPEG) in the browser before they go back', async () => {
    const wide = await sharp({ create: { width: 5000, height: 300, channels: 4, background: { r: 0, g: 90, b: 200, alpha: 0.5 } } }).png().toBuffer();
    const fitted = await page.evaluate((b64) => window.harness.fit(b64), wide.toString('base64'));
    const meta = await sharp(Buffer.from(fitted.base64, 'base64')).metadata();
    expect([meta.format, meta.width, meta.height, meta.hasAlpha]).toEqual(['png', 4096, 246, true]);
    expect(fitted.notes).toEqual(['resized from 5000×300 to 4096×246: Figma accepts images up to 4096×4096 px']);
    const webp = await sharp({ create: { width: 64, height: 32, channels: 3, background: '#808080' } }).webp().toBuffer();
    const converted = await page.evaluate((b64) => window.harness.fit(b64), webp.toString('base64'));
    expect((await sharp(Buffer.from(converted.base64, 'base64')).metadata()).format).toBe('png');
    expect(converted.notes).toEqual(['converted from webp to PNG for Figma']);
  });
});
