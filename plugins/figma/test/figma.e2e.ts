/**
 * The plugin end to end in real Chromium: the BUILT code.js runs on the
 * simulated figma, the BUILT ui.html in a sandboxed iframe, the emulator is
 * the backend, and the test drives the UI as a person would.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createWebBackend } from '@pfc/core';
import { startEmulator, type EmulatorHandle } from '@pfc/emulator';
import type { FrameLocator, Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../../../test/e2e/browser';
import { sniffMedia } from '@pfc/core/media';
import { THUMBNAIL_SIDE } from '../src/ui/thumbnail';
import { rgbForWebApi } from '../src/ui/web-api-input';
import type { DumpNode, NodeSpec } from './e2e/spec';
import { PLUGIN_DIR, serveHarness, serveWithoutCors } from './e2e/serve';
import { greyProfile, jpegWithIcc, pngWithIcc, rgbProfile, SRGB_D50 } from '../../../test/support/icc';
import { greyJpeg, greyPng, meanDifference, shownPixels } from './grey-images';
import { nodeRedraw } from './node-redraw';

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
/** The service's own record of every job (the emulator's control API), oldest first. */
async function serviceJobs(): Promise<{ jobId: string; state: string; requested: Record<string, unknown>; inputSha256: string; record: { correctedFile?: string } }[]> {
  const res = await fetch(`${new URL(emu.web).origin}/_emulator/jobs`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { jobs: Awaited<ReturnType<typeof serviceJobs>> }).jobs;
}
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
async function imageBytes(hash: string): Promise<Buffer> {
  const b64 = await page.evaluate((h) => window.harness.imageBase64(h), hash);
  if (!b64) throw new Error(`no image ${hash}`);
  return Buffer.from(b64, 'base64');
}
/** Decoded RGBA pixels, to compare images by what they show. */
async function pixels(bytes: Uint8Array) {
  const { data, info } = await sharp(bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}
/** Wait for the review step: every image corrected, nothing written yet. */
async function reviewReady(): Promise<string> {
  try {
    await ui.locator('#review-actions:not([hidden])').waitFor({ timeout: 240_000 });
  } catch (err) {
    await page.locator('#plugin-ui').screenshot({ path: join(SHOTS, 'figma-review-timeout.png') });
    console.error('[review timeout]', await ui.locator('#run-status').textContent(), JSON.stringify(await ui.locator('#items li').allTextContents()));
    throw err;
  }
  return (await ui.locator('#run-status').textContent()) ?? '';
}
/** Every node of the document as the harness sees it, by id. */
async function snapshot(): Promise<Map<string, Dumped>> {
  return new Map((await dump()).map((n) => [n.id, n]));
}

/** In Settings, choose the emulator (with `apiKey` when given) and save; Settings stay open. */
async function saveEmulatorSettings(apiKey?: string): Promise<void> {
  await ui.getByRole('button', { name: 'Settings' }).click();
  await ui.getByLabel('Local emulator').check();
  await ui.getByLabel('Emulator URL').fill(emu.web);
  if (apiKey !== undefined) await ui.getByLabel('API key').fill(apiKey);
  await ui.getByRole('button', { name: 'Save' }).click();
  await ui.locator('#settings-status', { hasText: /^Saved$/ }).waitFor();
}

/** Wait until the run's closing message is shown (it carries the ok or error class). */
async function finishedRunStatus(): Promise<string> {
  await ui.locator('#run-status.ok, #run-status.error').waitFor({ timeout: 240_000 });
  return (await ui.locator('#run-status').textContent()) ?? '';
}

beforeAll(async () => {
  emu = await startEmulator({ webPort: 0, control: true });
  await createWebBackend({ baseURL: emu.web, apiKey: API_KEY }).presets.create({ name: 'Brand look', description: 'e2e', file: new TextEncoder().encode('look=brand') });
  [harness, noCors, browser] = await Promise.all([serveHarness(), serveWithoutCors(new URL(emu.web).origin), launchBrowser()]);
  page = await browser.context.newPage();
  // Uncaught errors in the page or the plugin window are printed; the blocked-request test's CORS console lines are expected.
  page.on('pageerror', (err) => console.error('[page error]', err.message));
  page.on('console', (m) => {
    if (m.type() === 'error' && !/CORS|Content Security Policy|ERR_FAILED|ERR_CONNECTION_REFUSED|Failed to load resource/.test(m.text())) console.error('[console]', m.text());
  });
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
  it('previews, then puts back exactly what the service made with the chosen options; a rejected result and a failed job change nothing (light theme)', async () => {
    await page.evaluate(() => {
      window.harness.select('Hero');
      return window.harness.launch('correct', 'light');
    });
    await ui.locator('#selection', { hasText: '6 images' }).waitFor();

    // Settings: the local emulator, with an API key that is never shown back.
    await saveEmulatorSettings(API_KEY);
    expect(await ui.locator('#api-key-hint').textContent()).toBe('Stored key: ••••abcd');
    expect(await ui.getByLabel('API key').inputValue()).toBe('');
    expect(await ui.locator('body').innerHTML()).not.toContain(API_KEY);
    await ui.getByRole('button', { name: 'Back' }).click();

    // Options: the account's custom preset, glare removal, a resize beyond Figma's limit.
    await ui.locator('#custom-presets option', { hasText: 'Brand look' }).waitFor({ state: 'attached' });
    await ui.getByLabel('Preset').selectOption('Brand look');
    await ui.getByLabel('Remove glare from glasses').check();
    await ui.getByLabel('Resize', { exact: true }).selectOption('long');
    await ui.getByLabel('Resize value').fill('1200');
    const before = await snapshot();
    const jobsBefore = (await serviceJobs()).length;
    emu.setFaults({ jobs: { failRate: 1, count: 1 } });
    await ui.getByRole('button', { name: /Correct 6 images/ }).click();
    expect(await reviewReady()).toMatch(/^4 results to review/);
    emu.setFaults({});

    // Nothing on the canvas changed while the results wait for review.
    expect(await snapshot()).toEqual(before);
    expect(await ui.locator('.item[data-phase=ready]').count()).toBe(4);
    expect(await ui.locator('.item[data-phase=ready] img.thumb.before[src^="blob:"]').count()).toBe(4);
    expect(await ui.locator('.item[data-phase=ready] img.thumb.after[src^="blob:"]').count()).toBe(4);
    // Each picture is a thumbnail made once in the browser, not the full-size image (the window keeps no results).
    const thumbSides = () => ui.locator('.item[data-phase=ready] img.thumb').evaluateAll((imgs) => imgs.map((img) => Math.max((img as HTMLImageElement).naturalWidth, (img as HTMLImageElement).naturalHeight)));
    await expect.poll(async () => (await thumbSides()).every((side) => side > 0)).toBe(true);
    expect(Math.max(...(await thumbSides()))).toBeLessThanOrEqual(THUMBNAIL_SIDE);
    expect(await ui.locator('.item[data-phase=ready] .notes', { hasText: /Usage: imageCorrectionCount 1/ }).count()).toBe(4);
    const failed = ui.locator('.item[data-phase=failed]');
    expect(await failed.count()).toBe(1);
    expect(await failed.locator('.error').textContent()).toMatch(/could not correct this image/);
    const failedHash = await failed.getAttribute('data-hash');
    expect(await ui.locator('.item.skipped', { hasText: /GIF/ }).count()).toBe(1);
    expect(await ui.locator('.item.skipped', { hasText: /mixed fills/ }).count()).toBe(1);
    await ui.locator('#items').scrollIntoViewIfNeeded();
    await page.locator('#plugin-ui').screenshot({ path: join(SHOTS, 'figma-preview-light.png') });

    // Reject one result, accept the rest.
    const rejected = ui.locator('.item[data-phase=ready]').first();
    const rejectedHash = await rejected.getAttribute('data-hash');
    await rejected.getByLabel('Accept').uncheck();
    await ui.getByRole('button', { name: 'Apply accepted' }).click();
    const text = await finishedRunStatus();
    expect(text).toBe('3 images corrected, 1 rejected, 1 failed, 2 skipped');

    // The service's record: one job per distinct JPEG/PNG image, each with the user's options.
    const jobs = (await serviceJobs()).slice(jobsBefore);
    expect(jobs).toHaveLength(5);
    for (const job of jobs) expect(job.requested, job.jobId).toMatchObject({ preset: 'Brand look', removeGlares: true, long: 1200 });
    // Each image put back is the service's output for that image's bytes (compared by pixels).
    const after = await snapshot();
    const originalBySha = new Map<string, string>();
    for (const hashes of original.values()) for (const h of hashes) originalBySha.set(sha256(await imageBytes(h)), h);
    const newHashOf = new Map<string, string>();
    for (const [id, node] of before) {
      const was = imageHashes(node);
      const now = imageHashes(after.get(id)!);
      was.forEach((h, i) => {
        if (now[i] !== h) newHashOf.set(h, now[i] ?? '');
      });
    }
    let checked = 0;
    for (const job of jobs.filter((j) => j.state === 'COMPLETED')) {
      const originalHash = originalBySha.get(job.inputSha256);
      expect(originalHash, 'the job processed an image of the selection').toBeDefined();
      if (originalHash === rejectedHash) {
        expect(newHashOf.has(originalHash!), 'a rejected result is not written').toBe(false);
        continue;
      }
      expect(newHashOf.has(originalHash!), 'an accepted result replaced the original image').toBe(true);
      const output = new Uint8Array(await (await fetch(job.record.correctedFile!)).arrayBuffer());
      const inFigma = await pixels(await imageBytes(newHashOf.get(originalHash!)!));
      const fromService = await pixels(output);
      expect([inFigma.width, inFigma.height]).toEqual([fromService.width, fromService.height]);
      expect(Buffer.compare(inFigma.data, fromService.data), 'Figma holds the service output').toBe(0);
      checked += 1;
    }
    expect(checked).toBe(3);
    expect(newHashOf.has(failedHash ?? '')).toBe(false);
    // Every layer of a corrected image holds the same new image, with the relaunch buttons.
    for (const [id, node] of before) {
      const now = after.get(id)!;
      // Rocket solo shares an image with a layer in Hero but was not selected: it keeps its original.
      if (node.name === 'Rocket solo') {
        expect(now, node.name).toEqual(node);
        continue;
      }
      imageHashes(node).forEach((h, i) => expect(imageHashes(now)[i], node.name).toBe(newHashOf.get(h) ?? h));
      if (imageHashes(node).some((h) => newHashOf.has(h))) {
        // Each changed layer keeps its original in a hidden fill (keepers.ts), and its restore button says so.
        expect(now.relaunch, node.name).toEqual({ 'correct-again': 'Perfectly Clear: preset Brand look, glare removed, long edge 1200 px', restore: 'Put the original image back (kept as a hidden fill)' });
      }
    }
    const state = await page.evaluate(() => window.harness.state());
    expect(state.undoSteps).toBe(1);
    expect(state.notifications.at(-1)).toEqual({ message: text, error: false });
  });

  it('restores the original images from the plugin data, after the file was closed and reopened; a layer changed since is left, and Why says so in a window', async () => {
    // The file is reopened (only the images on layers are left: each original on its layer's hidden fill), and the
    // user puts another image in one corrected layer.
    await page.evaluate(() => {
      window.harness.reopenFile();
      window.harness.showImage('Cat in instance', 'grace');
      window.harness.select('Hero');
      return window.harness.launch('restore', 'light');
    });
    const toast = async () => (await page.evaluate(() => window.harness.state())).notifications.at(-1);
    await expect.poll(async () => (await toast())?.message).toMatch(/^Restored the original image on \d+ layers; 1 layer changed since is left as it is, selected$/);
    expect((await toast())?.button).toBe('Why');
    const now = await dump();
    for (const [name, hashes] of original) {
      if (name === 'Rocket solo' || name === 'Cat in instance') continue;
      expect(imageHashes(now.find((n) => n.name === name)!), name).toEqual(hashes);
      // The frame keeps its buttons while a layer in it is left to restore.
      if (name !== 'Hero') expect(now.find((n) => n.name === name)!.relaunch, name).toEqual({});
    }
    expect(Object.keys(now.find((n) => n.name === 'Hero')!.relaunch)).toEqual(['correct-again', 'restore']);

    // Why: a window under the plugin's Content-Security-Policy, its text as the user reads it.
    await page.evaluate(() => window.harness.clickToastButton());
    await ui.locator('li', { hasText: '"Cat in instance": another image' }).waitFor();
    expect(await ui.locator('h1').textContent()).toMatch(/^Restored the original image on \d+ layers$/);
    await page.locator('#plugin-ui').screenshot({ path: join(SHOTS, 'figma-restore-why.png') });
    await page.evaluate(() => {
      window.harness.closeWindow();
      // Its own image back, for the runs that follow.
      window.harness.showImage('Cat in instance', 'cat');
    });
  });

  it('inserts transparent corrected copies and leaves every original node unchanged, with a layer selected inside its frame (dark theme)', async () => {
    const before = await snapshot();
    await page.evaluate(() => {
      window.harness.select('Hero', 'Portrait', 'Rocket solo');
      return window.harness.launch('remove-background', 'dark');
    });
    await ui.locator('#selection', { hasText: '6 images' }).waitFor();
    expect(await ui.getByLabel('Remove background').isChecked()).toBe(true);
    // The last run's options come back (the custom preset once the account's list has loaded).
    await ui.locator('#custom-presets option', { hasText: 'Brand look' }).waitFor({ state: 'attached' });
    expect(await ui.getByLabel('Preset').inputValue()).toBe('Brand look');
    expect(await ui.getByLabel('Resize value').inputValue()).toBe('1200');
    await ui.getByLabel('Resize', { exact: true }).selectOption('none');
    await ui.getByLabel('Remove glare from glasses').uncheck();
    await ui.getByLabel('Transparent').check();
    await ui.getByLabel('Insert as copy').check();
    const jobsBefore = (await serviceJobs()).length;
    await ui.getByRole('button', { name: 'Correct 6 images' }).click();
    await reviewReady();
    await ui.locator('#items').scrollIntoViewIfNeeded();
    await page.locator('#plugin-ui').screenshot({ path: join(SHOTS, 'figma-preview-dark.png') });
    await ui.getByRole('button', { name: 'Apply accepted' }).click();
    expect(await finishedRunStatus()).toBe('5 images corrected, 2 skipped');
    const jobs = (await serviceJobs()).slice(jobsBefore);
    expect(jobs).toHaveLength(5);
    for (const job of jobs) expect(job.requested, job.jobId).toMatchObject({ preset: 'Brand look', removeBackground: true, outputType: 'png' });
    for (const job of jobs) expect(job.requested.removeGlares, job.jobId).toBeUndefined();

    // Every original node, deep: same fills, place, parent, relaunch data.
    const after = await snapshot();
    for (const [id, node] of before) expect(after.get(id), node.name).toEqual(node);
    const top = await page.evaluate(() => window.harness.childNames());
    expect(top).toEqual(['Hero', 'Hero (corrected)', 'Rocket solo', 'Rocket solo (corrected)']);
    expect(await page.evaluate(() => window.harness.childNames('Hero'))).not.toContain('Portrait (corrected)');
    // The copies hold transparent PNGs: background removal, checked by pixels.
    const soloCopy = [...after.values()].find((n) => n.name === 'Rocket solo (corrected)')!;
    const png = await pixels(await imageBytes(imageHashes(soloCopy)[0]!));
    let transparent = 0;
    for (let i = 3; i < png.data.length; i += 4) if ((png.data[i] ?? 255) < 255) transparent += 1;
    expect(transparent / (png.width * png.height)).toBeGreaterThan(0.05);
    expect([png.width, png.height]).toEqual([640, 427]);

    // The emulator without CORS headers: the UI names the host and says what the server must send.
    await ui.getByRole('button', { name: 'Settings' }).click();
    await ui.getByLabel('Emulator URL').fill(`${noCors.url}/v2`);
    await ui.getByRole('button', { name: 'Save' }).click();
    const host = new URL(noCors.url).host;
    await ui.locator('#settings-status', { hasText: `${host} answered, but did not allow the request` }).waitFor();
    expect(await ui.locator('#settings-status').textContent()).toMatch(/^Saved, but your presets could not be loaded: .*CORS.*Origin: null.*Access-Control-Allow-Origin: \*/);
    expect(noCors.origins).toContain('null');
    await ui.getByLabel('Emulator URL').fill(emu.web);
    await ui.getByRole('button', { name: 'Save' }).click();
    await ui.locator('#settings-status', { hasText: /^Saved$/ }).waitFor();
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

  it('makes greyscale images RGB for the Web API in the browser as in Node: JPEGs and PNGs losslessly, those with an RGB profile redrawn (upright, full size, own format); colour ones stay byte for byte', async () => {
    const inBrowser = async (bytes: Uint8Array) => {
      const out = await page.evaluate((b64) => window.harness.rgbForWebApi(b64), Buffer.from(bytes).toString('base64'));
      return { bytes: new Uint8Array(Buffer.from(out.base64, 'base64')), notes: out.notes };
    };
    const facts = async (bytes: Uint8Array) => {
      const m = await sharp(bytes).metadata();
      return { format: m.format, width: m.width, height: m.height, channels: m.channels, orientation: m.orientation ?? 1, grey: sniffMedia(bytes)?.grey };
    };
    const redrawn = [
      // An RGB profile cannot describe grey samples: core does not convert it, the browser draws it. Chromium applies
      // that profile's gamma 2.2 to the grey and lcms (sharp) ignores it: a level or two apart, hence its own tolerance.
      { name: 'grey JPEG with an RGB profile, turned by EXIF', original: new Uint8Array(jpegWithIcc(Buffer.from(await greyJpeg(90, 60)), rgbProfile('RGB gamma 2.2 (test)', SRGB_D50, 2.2))), expected: { format: 'jpeg', width: 60, height: 90, channels: 3 }, within: 3 },
      { name: 'grey PNG with an RGB profile', original: new Uint8Array(pngWithIcc(Buffer.from(await greyPng(80, 50, false)), rgbProfile('RGB gamma 2.2 (test)', SRGB_D50, 2.2))), expected: { format: 'png', width: 80, height: 50 }, within: 3 },
    ];
    for (const { name, original, expected, within = 1 } of redrawn) {
      const chromium = await inBrowser(original);
      const node = await rgbForWebApi(original, nodeRedraw);
      expect(await facts(chromium.bytes), name).toMatchObject({ ...expected, orientation: 1, grey: false });
      expect(await facts(chromium.bytes), `${name}: the Node stand-in draws as Chromium does`).toEqual(await facts(node.bytes));
      // The same picture, the right way up: within rounding of the original as shown.
      expect(meanDifference(await shownPixels(chromium.bytes), await shownPixels(original)), name).toBeLessThan(within);
      expect(chromium.notes, name).toEqual(['converted from greyscale to RGB before upload: the Web API takes RGB or RGBA images only']);
    }
    // A grey PNG is not drawn: in the browser's own (de)compression streams too, the same samples in RGB(A), a grey profile as the RGB one.
    for (const { name, original, channels } of [
      { name: 'grey PNG with alpha', original: await greyPng(80, 50, true), channels: 4 },
      { name: 'grey PNG', original: await greyPng(80, 50, false), channels: 3 },
      { name: 'grey PNG with a grey profile', original: new Uint8Array(pngWithIcc(Buffer.from(await greyPng(80, 50, false)), greyProfile('Gray Gamma 2.2 (test)', 2.2))), channels: 3 },
    ]) {
      const chromium = await inBrowser(original);
      expect(await facts(chromium.bytes), name).toMatchObject({ format: 'png', width: 80, height: 50, channels, grey: false });
      expect(Buffer.compare(await shownPixels(chromium.bytes), await shownPixels(original)), name).toBe(0);
      expect(chromium.notes, name).toEqual(['converted from greyscale to RGB before upload, losslessly (the same samples): the Web API takes RGB or RGBA images only']);
    }
    // A grey JPEG, baseline or progressive, is not drawn: in the browser too, the same JPEG data in colour, byte for byte as in Node.
    for (const progressive of [false, true]) {
      const grey = await greyJpeg(90, 60, progressive);
      const transcoded = await inBrowser(grey);
      expect(Buffer.from(transcoded.bytes).equals(Buffer.from((await rgbForWebApi(grey, nodeRedraw)).bytes)), `progressive ${progressive}`).toBe(true);
      expect(await facts(transcoded.bytes)).toMatchObject({ format: 'jpeg', width: 90, height: 60, channels: 3, orientation: 6, grey: false });
      expect(meanDifference(await shownPixels(transcoded.bytes), await shownPixels(grey))).toBe(0);
      expect(transcoded.notes).toEqual(['converted from greyscale to RGB before upload, losslessly (the same JPEG data): the Web API takes RGB or RGBA images only']);
    }
    const baseline = await greyJpeg(90, 60);
    // With a grey profile too: the same data under the RGB profile that shows the grey's tones.
    const profiled = new Uint8Array(jpegWithIcc(Buffer.from(baseline), greyProfile('Gray Gamma 1.8 (test)', 1.8)));
    const profiledSent = await inBrowser(profiled);
    expect(Buffer.from(profiledSent.bytes).equals(Buffer.from((await rgbForWebApi(profiled, nodeRedraw)).bytes))).toBe(true);
    expect((await sharp(profiledSent.bytes).metadata()).icc?.subarray(16, 20).toString('latin1')).toBe('RGB ');
    expect(meanDifference(await shownPixels(profiledSent.bytes), await shownPixels(profiled))).toBeLessThan(0.5);
    expect(profiledSent.notes).toEqual(['converted from greyscale to RGB before upload, losslessly (the same JPEG data): the Web API takes RGB or RGBA images only']);
    for (const colour of [readFileSync(join(REPO, 'samples/objects/coffee.jpg')), readFileSync(join(REPO, 'samples/objects/chelsea.png'))]) {
      const sent = await inBrowser(new Uint8Array(colour));
      expect(Buffer.from(sent.bytes).equals(colour)).toBe(true);
      expect(sent.notes).toEqual([]);
    }
  });

  it('says in the image\'s row that the service asked to wait, counting down, then finishes the image (light theme)', async () => {
    await page.evaluate(() => {
      window.harness.select('Rocket solo');
      return window.harness.launch('correct', 'light');
    });
    await ui.locator('#selection', { hasText: '1 image' }).waitFor();
    await saveEmulatorSettings();
    await ui.getByRole('button', { name: 'Back' }).click();
    // The job start refused for the account's jobs at once, with a Retry-After of 3 s.
    emu.setFaults({ routes: { pfc: { rate429: 1, count: 1, retryAfterSeconds: 3 } } });
    await ui.getByRole('button', { name: /Correct 1 image/ }).click();
    const phase = ui.locator('.item .phase');
    await phase.filter({ hasText: /^Service busy \(too many jobs at once\) — retrying in [34] s$/ }).waitFor({ timeout: 10_000 });
    await phase.filter({ hasText: /^Service busy \(too many jobs at once\) — retrying in 1 s$/ }).waitFor({ timeout: 5_000 });
    expect(await reviewReady()).toMatch(/^1 result to review/);
    emu.setFaults({});
    expect(await phase.textContent()).toBe('Ready: compare, then accept or reject');
    await ui.getByRole('button', { name: 'Discard all' }).click();
    await finishedRunStatus();
  });
});
