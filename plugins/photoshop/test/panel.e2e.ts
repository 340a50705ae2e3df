/**
 * The built panel (dist/) in real Chromium, with `require('photoshop')` and
 * `require('uxp')` answered by the simulated host and the emulator as the
 * backend. The test works the panel as a person would: Settings, the three
 * buttons, Cancel; then checks documents, layers, pixels and history.
 */
import { createWebBackend } from '@pfc/core';
import type { EmulatorHandle, EmulatorJobRecord } from '@pfc/emulator';
import { createHash } from 'node:crypto';
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { meanDiff, sameBytes } from './helpers';
import { panelForFile } from './panel-in-browser';
import { choose, disabled, drag, layerMask, layerRgba, openPhoto, outcomes, runButton, sim, themeScreenshots, type, until } from './panel-driver';
import type { SimApi } from './sim/browser-entry';

const API_KEY = 'e2e-account-key';

let emu: EmulatorHandle;
let page: Page;
const pageErrors: string[] = [];
/** Bodies of the corrected files the panel downloaded, in order. */
const downloads: Buffer[] = [];
/** Bodies of the files the panel uploaded, in order. */
const uploads: Buffer[] = [];

/** The service's own record of its jobs, read through the emulator's control route (not the panel). */
async function serviceJobs(): Promise<EmulatorJobRecord[]> {
  const res = await fetch(`${new URL(emu.web).origin}/_emulator/jobs`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { jobs: EmulatorJobRecord[] }).jobs;
}

panelForFile({
  // Two tests cancel a job the service keeps hanging; extra workers keep later jobs from queueing behind them.
  emulator: { workers: 4 },
  beforeLoad: async (started) => {
    ({ emu, page } = started);
    // A custom preset in the account, which the panel should offer.
    await createWebBackend({ baseURL: emu.web, apiKey: API_KEY }).presets.create({
      name: 'Studio Warm', description: 'made by the e2e test', file: new TextEncoder().encode('exported preset'),
    });
    // Pre-signed uploads and results live on the emulator's storage origin, as on the real service.
    const fromEmulator = (url: string): boolean => [emu.web, emu.storage].some((base) => url.startsWith(new URL(base).origin));
    page.on('pageerror', (e) => pageErrors.push(e.message));
    if (process.env.PFC_E2E_DEBUG) page.on('console', (m) => console.log(`[page] ${m.text()}`));
    page.on('request', (r) => {
      const body = r.postDataBuffer();
      if (fromEmulator(r.url()) && r.method() === 'PUT' && body) uploads.push(body);
    });
    page.on('response', async (r) => {
      if (fromEmulator(r.url()) && r.request().method() === 'GET' && (r.headers()['content-type'] ?? '').startsWith('image/')) {
        downloads.push(await r.body());
      }
    });
  },
});

describe('Photoshop panel in Chromium on the simulated host', () => {
  it('starts on a page cut down to UXP\'s globals (no TextDecoder/TextEncoder, event-less AbortSignal, fetch without signal)', async () => {
    const removed = await sim((s) => s.removedGlobals());
    for (const g of ['TextDecoder', 'TextEncoder', 'structuredClone', 'atob', 'btoa', 'queueMicrotask', 'DOMException', 'MutationObserver', 'requestAnimationFrame']) {
      expect(removed).toContain(g);
    }
    expect(await page.evaluate(() => typeof (globalThis as { TextDecoder?: unknown }).TextDecoder)).toBe('undefined');
    // The panel got past its load: the presets are listed and nothing threw.
    expect(await page.evaluate(() => document.querySelectorAll('#preset sp-menu-item').length)).toBeGreaterThan(3);
    expect(pageErrors).toEqual([]);
  });

  it('saves the emulator as backend and the key in secure storage, and lists the account\'s presets', async () => {
    await page.click('#toggle-settings');
    await choose('backend', 'Local emulator');
    await type('emulator-url', emu.web);
    await type('api-key', API_KEY);
    await page.click('#save-settings');
    await expect.poll(() => page.textContent('#message')).toBe('Settings saved.');
    expect(await page.evaluate(() => (document.getElementById('api-key') as HTMLElement & { value: string }).value)).toBe(''); // never shown again
    expect(await page.getAttribute('#api-key', 'placeholder')).toContain('saved');
    expect(await sim((s) => s.secureKeys())).toEqual(['pfc.apiKey']);
    const stored = await page.evaluate(() => JSON.stringify(localStorage));
    expect(stored).toContain('emulator');
    expect(stored).not.toContain(API_KEY);
    expect(await page.textContent('#backend-label')).toContain('Emulator');
    await expect.poll(() => page.evaluate(() => [...document.querySelectorAll('#preset sp-menu-item')].map((x) => x.textContent))).toContain('Studio Warm');
    await page.click('#toggle-settings');
  });

  it('Correct Document adds the corrected photo as a new layer above the source, in one history step that undo removes', async () => {
    const doc = await openPhoto('portraits/astronaut.jpg', 'astronaut.jpg');
    const background = (doc.layers[0] as { id: number }).id;
    const original = await layerRgba(doc.id, background);
    downloads.length = 0;
    uploads.length = 0;
    const jobsBefore = (await serviceJobs()).length;

    await runButton('#correct-document');

    // The service received the user's choice and exactly the document's pixels (a lossless PNG).
    const jobs = await serviceJobs();
    expect(jobs).toHaveLength(jobsBefore + 1);
    const job = jobs.at(-1)!;
    expect(job.requested.preset).toBe('Universal');
    expect(uploads).toHaveLength(1);
    expect(job.inputSha256).toBe(createHash('sha256').update(uploads[0]!).digest('hex'));
    const sent = await sharp(uploads[0]!).ensureAlpha().raw().toBuffer();
    expect(sameBytes(new Uint8Array(sent), original)).toBe(true);

    expect(await outcomes()).toEqual([{ status: 'done', text: 'astronaut.jpg — added layer "Perfectly Clear: Universal"' }]);
    const after = await sim((s) => s.documents());
    const now = after.find((d) => d.id === doc.id)!;
    expect(now.layers.map((l) => (l as { name: string }).name)).toEqual(['Perfectly Clear: Universal', 'Background']);
    expect(now.history).toEqual(['Open', 'Perfectly Clear: Universal']);
    // The new layer holds the file the service returned; the original layer is untouched.
    const layer = await layerRgba(doc.id, (now.layers[0] as { id: number }).id);
    await expect.poll(() => downloads.length).toBe(1); // the response listener reads the body asynchronously
    const { data } = await sharp(downloads[0]!).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    // PNG in, PNG out: the layer holds the service's pixels exactly.
    expect(sameBytes(layer, new Uint8Array(data))).toBe(true);
    expect(meanDiff(layer, original)).toBeGreaterThan(8);
    expect(sameBytes(await layerRgba(doc.id, background), original)).toBe(true);
    // batchPlay got exactly the descriptors Photoshop records for "select layer" and "new layer".
    expect(await sim((s) => s.batchPlayLog())).toEqual([
      [{ _obj: 'select', _target: [{ _ref: 'layer', _id: background }], makeVisible: false, layerID: [background], _options: { dialogOptions: 'silent' } }],
      [{ _obj: 'make', _target: [{ _ref: 'layer' }], using: { _obj: 'layer', name: 'Perfectly Clear: Universal' }, _options: { dialogOptions: 'silent' } }],
    ]);
    expect(await sim((s) => s.getPixelsLog())).toEqual([{ documentID: doc.id, colorSpace: 'RGB', colorProfile: 'sRGB IEC61966-2.1', componentSize: 8 }]);
    expect(await sim((s) => s.modalLog())).toEqual(['Reading pixels for Perfectly Clear', 'Perfectly Clear: Universal']);
    expect(await sim((s) => s.liveImageData())).toBe(0);

    const undone = await page.evaluate((id) => window.__sim.undo(id), doc.id);
    expect(undone.layers.map((l) => (l as { name: string }).name)).toEqual(['Background']);
    expect(sameBytes(await layerRgba(doc.id, background), original)).toBe(true);
  });

  it('Correct Layer with a custom preset and the Strength slider dragged to 60 puts the result above the layer at 60% opacity, keeping its shape', async () => {
    const doc = await openPhoto('outdoors/rocket.jpg', 'rocket.jpg');
    const withCutout = await page.evaluate((id) => window.__sim.addLeftHalfLayer(id, 'cut-out'), doc.id);
    await choose('preset', 'Studio Warm');
    await drag('strength', 60);
    expect(await page.textContent('#strength >> [data-part=value]')).toBe('60%');

    await runButton('#correct-layer');
    await drag('strength', 100);

    expect(await outcomes()).toEqual([{ status: 'done', text: 'rocket.jpg — added layer "Perfectly Clear: Studio Warm"' }]);
    expect((await serviceJobs()).at(-1)!.requested.preset).toBe('Studio Warm');
    const now = await page.evaluate((id) => window.__sim.document(id), doc.id);
    expect(now.layers.map((l) => (l as { name: string }).name)).toEqual(['Perfectly Clear: Studio Warm', 'cut-out', 'Background']);
    expect(now.layers.map((l) => (l as { opacity: number }).opacity)).toEqual([60, 100, 100]);
    expect(now.history).toEqual(['Open', 'Perfectly Clear: Studio Warm']);
    const px = await layerRgba(doc.id, (now.layers[0] as { id: number }).id);
    const row = (now.height >> 1) * now.width;
    expect(px[(row + 10) * 4 + 3]).toBe(255); // inside the cut-out
    expect(px[(row + now.width - 10) * 4 + 3]).toBe(0); // outside: still transparent
    expect((withCutout.layers[0] as { name: string }).name).toBe('cut-out');
    await choose('preset', 'Universal (AI preset selection)');
  });

  it('Correct All Open Documents reports the failing document and corrects the others', async () => {
    const coffee = await openPhoto('objects/coffee.jpg', 'coffee.psd', { mode: 'CMYKColorMode', bits: 'bitDepth16' });
    const before = await sim((s) => s.documents());
    emu.setFaults({ jobs: { failRate: 1, count: 1 } }); // the first job ends FAILED
    try {
      await runButton('#correct-all');
    } finally {
      emu.setFaults({});
    }
    const got = await outcomes();
    expect(got.map((o) => o.status)).toEqual(['failed', 'done', 'done']);
    expect(got[0]!.text).toBe('astronaut.jpg — the service could not correct it: processing failed (injected fault)');
    expect(got[2]!.text).toContain('"coffee.psd" was converted for the upload only (CMYK to RGB), sent as a lossless 16-bit PNG');
    expect(got[2]!.text).toContain("the result is an 8-bit correction widened to the document's 16 bits per channel");
    expect(got[1]!.text).not.toContain('8-bit correction'); // astronaut.jpg is 8-bit
    expect(await page.textContent('#message')).toBe('2 of 3 corrected, 1 failed.');
    const after = await sim((s) => s.documents());
    expect(after.map((d) => d.layers.length)).toEqual(before.map((d, i) => d.layers.length + (i === 0 ? 0 : 1)));
    expect(after[0]!.history).toEqual(before[0]!.history);
    expect(after.find((d) => d.id === coffee.id)!.history).toEqual(['Open', 'Perfectly Clear: Universal']);
    await themeScreenshots('photoshop-panel');
  });

  it('Cancel while the service works leaves the document unchanged', async () => {
    const docs = await sim((s) => s.documents());
    const target = docs[0]!;
    await page.evaluate((id) => window.__sim.activate(id), target.id);
    emu.setFaults({ jobs: { hangRate: 1 } });
    try {
      await page.click('#correct-document');
      await until(() => document.getElementById('progress-text')?.textContent?.includes('processing') === true, 60_000);
      await page.click('#cancel');
      await until(() => document.getElementById('progress-area')!.classList.contains('hidden'), 60_000);
    } finally {
      emu.setFaults({});
    }
    expect(await outcomes()).toEqual([{ status: 'cancelled', text: 'astronaut.jpg — cancelled: the document was left unchanged' }]);
    const now = await page.evaluate((id) => window.__sim.document(id), target.id);
    expect(now.layers).toEqual(target.layers);
    expect(now.history).toEqual(target.history);
    expect(await disabled('correct-document')).toBe(false);
  });

  it('Cancel while the service makes the document wait: the progress line counts the wait down, and Cancel ends it at once', async () => {
    const docs = await sim((s) => s.documents());
    const target = docs[0]!;
    await page.evaluate((id) => window.__sim.activate(id), target.id);
    // The job start refused for the account's jobs at once, with a Retry-After of a minute.
    emu.setFaults({ routes: { pfc: { rate429: 1, count: 1, retryAfterSeconds: 60 } } });
    try {
      await page.click('#correct-document');
      await until(() => /^astronaut\.jpg: Service busy \(too many jobs at once\) — retrying in 1:\d\d$/.test(document.getElementById('progress-text')?.textContent ?? ''), 30_000);
      const began = Date.now();
      await page.click('#cancel');
      await until(() => document.getElementById('progress-area')!.classList.contains('hidden'), 10_000);
      expect(Date.now() - began).toBeLessThan(5_000);
    } finally {
      emu.setFaults({});
    }
    expect(await outcomes()).toEqual([{ status: 'cancelled', text: 'astronaut.jpg — cancelled: the document was left unchanged' }]);
    const now = await page.evaluate((id) => window.__sim.document(id), target.id);
    expect(now.layers).toEqual(target.layers);
  });

  it('a result Photoshop stays too busy to take for two minutes is kept, and Add Kept Result adds it once the dialog is closed, with no new job', async () => {
    const target = (await sim((s) => s.documents()))[0]!;
    await page.evaluate((id) => window.__sim.activate(id), target.id);
    const jobsBefore = (await serviceJobs()).length;
    await page.evaluate(() => window.__sim.openDialogWhileReading('Reading pixels'));
    await page.click('#correct-document');
    try {
      // The two minutes the result waits for Photoshop pass in a moment (the service's own times do not).
      await until(() => document.getElementById('progress-text')?.textContent?.endsWith('adding the result') === true, 60_000);
      await page.evaluate(() => window.__sim.clockSpeed(1000));
      await until(() => document.getElementById('progress-area')!.classList.contains('hidden'), 60_000);
    } finally {
      await page.evaluate(() => window.__sim.clockSpeed(1));
    }
    const [kept] = await outcomes();
    expect(kept!.status).toBe('failed');
    expect(kept!.text).toMatch(/^astronaut\.jpg — Photoshop stayed busy with another plug-in or a dialog for 120 s, so the result could not be added \(.*a dialog.*\); the result is kept: close the dialog, then press Add Kept Result$/);
    expect(await page.isVisible('#place-kept')).toBe(true);
    expect((await page.evaluate((id) => window.__sim.document(id), target.id)).layers).toEqual(target.layers);

    await page.evaluate(() => window.__sim.closeDialog());
    await runButton('#place-kept');

    expect(await outcomes()).toEqual([{ status: 'done', text: 'astronaut.jpg — added layer "Perfectly Clear: Universal"' }]);
    expect(await page.isVisible('#place-kept')).toBe(false);
    expect(await serviceJobs()).toHaveLength(jobsBefore + 1);
    const now = await page.evaluate((id) => window.__sim.document(id), target.id);
    expect(now.history).toEqual([...target.history, 'Perfectly Clear: Universal']);
  });

  it('Escape in Photoshop\'s progress bar while the result is applied: reported cancelled, documents unchanged, Correct All stops', async () => {
    const before = await sim((s) => s.documents());
    await page.evaluate(() => window.__sim.escapeDuringModal('Perfectly Clear:'));
    await runButton('#correct-all');
    const got = await outcomes();
    expect(got[0]).toEqual({ status: 'cancelled', text: `${before[0]!.title} — cancelled: the document was left unchanged` });
    expect(got.slice(1).every((o) => o.status === 'cancelled')).toBe(true); // the rest were not started
    const after = await sim((s) => s.documents());
    expect(after.map((d) => [d.layers, d.history])).toEqual(before.map((d) => [d.layers, d.history]));
  });

  it('Preview shows a small corrected copy, toggled Before/After, without touching the document; Apply then makes one step', async () => {
    const doc = await openPhoto('outdoors/rocket.jpg', 'preview.jpg');
    await choose('preset', 'Pro');
    await choose('background', 'Replace with colour');
    await type('bg-colour', '#204080');
    const jobsBefore = (await serviceJobs()).length;
    const descriptorsBefore = (await sim((s) => s.batchPlayLog())).length;
    uploads.length = 0;
    downloads.length = 0;

    await page.click('#preview');
    await until(() => !document.getElementById('preview-area')!.classList.contains('hidden') && document.getElementById('progress-area')!.classList.contains('hidden'));

    // The service ran one job with the user's options, on a copy scaled down by Photoshop (getPixels targetSize).
    const jobs = await serviceJobs();
    expect(jobs).toHaveLength(jobsBefore + 1);
    expect(jobs.at(-1)!.requested).toMatchObject({ preset: 'Pro', removeBackground: true, bgColor: '#204080' });
    expect(uploads).toHaveLength(1);
    const sent = await sharp(uploads[0]!).metadata();
    expect(Math.max(sent.width!, sent.height!)).toBe(400);
    expect((await sim((s) => s.getPixelsLog())).at(-1)).toMatchObject({ documentID: doc.id, targetSize: expect.any(Object), componentSize: 8 });
    // The document is untouched: same layers, same history, no batchPlay command, no image data left over.
    const now = await page.evaluate((id) => window.__sim.document(id), doc.id);
    expect(now.layers).toEqual(doc.layers);
    expect(now.history).toEqual(['Open']);
    expect((await sim((s) => s.batchPlayLog())).length).toBe(descriptorsBefore);
    expect(await sim((s) => s.liveImageData())).toBe(0);

    // What the user sees: After is the service's result, Before is the upload; they differ.
    const shown = async () => {
      const src = (await page.getAttribute('#preview-image', 'src'))!;
      expect(src.startsWith('data:image/jpeg;base64,')).toBe(true);
      return new Uint8Array(await sharp(Buffer.from(src.slice(src.indexOf(',') + 1), 'base64')).raw().toBuffer());
    };
    const rgb = async (bytes: Buffer) => new Uint8Array(await sharp(bytes).flatten({ background: '#ffffff' }).removeAlpha().raw().toBuffer());
    await expect.poll(() => downloads.length).toBe(1);
    const after = await shown();
    expect(meanDiff(after, await rgb(downloads[0]!))).toBeLessThan(3); // JPEG re-encoding only
    expect(await page.textContent('#preview-caption')).toBe('preview.jpg: after — Perfectly Clear: Pro, background #204080');
    await page.click('#show-before');
    const before = await shown();
    expect(meanDiff(before, await rgb(uploads[0]!))).toBeLessThan(3);
    expect(meanDiff(before, after)).toBeGreaterThan(8);
    expect(await page.textContent('#preview-caption')).toBe('preview.jpg: before');
    await page.click('#show-after');
    expect(meanDiff(await shown(), after)).toBe(0);
    await themeScreenshots('photoshop-panel-preview');

    // Cancel during a preview: said, nothing changed, the shown preview stays the last finished one.
    emu.setFaults({ jobs: { hangRate: 1 } });
    try {
      await page.click('#preview');
      await until(() => document.getElementById('progress-text')?.textContent === 'Preview: processing', 60_000);
      await page.click('#cancel');
      await until(() => document.getElementById('progress-area')!.classList.contains('hidden'), 60_000);
    } finally {
      emu.setFaults({});
    }
    expect(await page.textContent('#message')).toBe('Preview cancelled.');
    expect((await page.evaluate((id) => window.__sim.document(id), doc.id)).history).toEqual(['Open']);
    expect(meanDiff(await shown(), after)).toBe(0);

    // Applying is the usual correction: exactly one history step.
    await runButton('#correct-document');
    expect((await page.evaluate((id) => window.__sim.document(id), doc.id)).history).toEqual(['Open', 'Perfectly Clear: Pro, background #204080']);
    await choose('preset', 'Universal (AI preset selection)');
    await choose('background', 'Keep');
  });

  it('keeps the transparency of a background removal, and opens a resized result as a new untitled document', async () => {
    const doc = await openPhoto('portraits/grace_hopper.jpg', 'grace.jpg');
    await choose('background', 'Remove (transparent)');
    await runButton('#correct-document');
    expect(await outcomes()).toEqual([{ status: 'done', text: 'grace.jpg — added layer "Perfectly Clear: Universal, background removed"' }]);
    expect((await serviceJobs()).at(-1)!.requested).toMatchObject({ preset: 'Universal', removeBackground: true, outputType: 'png' });
    const cut = await page.evaluate((id) => window.__sim.document(id), doc.id);
    const mask = await layerMask(doc.id, (cut.layers[0] as { id: number }).id);
    expect(mask[0]).toBe(0); // corner: masked out, non-destructively
    expect(mask[(cut.height >> 1) * cut.width + (cut.width >> 1)]).toBe(255); // subject: shown
    expect(cut.history).toEqual(['Open', 'Perfectly Clear: Universal, background removed']);

    await choose('background', 'Keep');
    await choose('resize', 'Long edge (px)');
    await type('resize-value', '300');
    const before = await sim((s) => s.documents());
    await runButton('#correct-document');
    await choose('resize', 'Keep size');
    expect((await serviceJobs()).at(-1)!.requested.long).toBe(300);
    expect(await outcomes()).toEqual([{ status: 'done', text: 'grace.jpg — resized result opened as a new document, "grace (Perfectly Clear)"' }]);
    const after = await sim((s) => s.documents());
    expect(after).toHaveLength(before.length + 1);
    const opened = after.find((d) => d.title === 'grace (Perfectly Clear)')!;
    expect(Math.max(opened.width, opened.height)).toBe(300);
    expect(await sim((s) => s.tempFiles())).toEqual([]); // no file: nothing left behind, Ctrl+S asks where to save
    expect(after.find((d) => d.id === doc.id)!.history).toEqual(cut.history); // the source is untouched
  });

  it('switches to the self-hosted containers in Settings and removes a background there', async () => {
    await page.click('#toggle-settings');
    await choose('backend', 'Self-hosted container');
    await type('container-url', emu.urls.container!);
    await type('bgr-url', emu.urls.bgr!);
    await type('bgr-key', 'studio-licence');
    await page.click('#save-settings');
    await expect.poll(() => page.textContent('#message')).toBe('Settings saved.');
    expect(await page.textContent('#backend-label')).toContain('Container');
    expect((await sim((s) => s.secureKeys())).sort()).toEqual(['pfc.apiKey', 'pfc.bgrLicenceKey']);
    await page.click('#toggle-settings');

    const doc = await openPhoto('portraits/astronaut.jpg', 'astronaut-studio.jpg');
    await choose('background', 'Remove (transparent)');
    await runButton('#correct-document');
    await choose('background', 'Keep');
    const [outcome] = await outcomes();
    expect(outcome!.status).toBe('done');
    expect(outcome!.text).toMatch(/^astronaut-studio\.jpg — added layer "Perfectly Clear: Universal, background removed"/);
    expect(await page.textContent('#outcomes .note')).toContain('corrected_url'); // the container's own note, shown
    const now = await page.evaluate((id) => window.__sim.document(id), doc.id);
    expect(now.history).toEqual(['Open', 'Perfectly Clear: Universal, background removed']);
    const mask = await layerMask(doc.id, (now.layers[0] as { id: number }).id);
    expect(mask[0]).toBe(0);
    expect(mask[(now.height >> 1) * now.width + (now.width >> 1)]).toBe(255);

    // A saved key can be removed, not only replaced.
    await page.click('#toggle-settings');
    expect(await page.isVisible('#remove-bgr-key')).toBe(true);
    await page.click('#remove-bgr-key');
    await expect.poll(() => page.textContent('#message')).toBe('The saved licence key was removed.');
    expect(await sim((s) => s.secureKeys())).toEqual(['pfc.apiKey']);
    expect(await page.isVisible('#remove-bgr-key')).toBe(false);
    await page.click('#toggle-settings');
    expect(pageErrors).toEqual([]);
    // The panel used the Spectrum widgets only as UXP documents them, all along.
    expect(await sim((s) => s.spectrumViolations())).toEqual([]);
  });

  it('Preview of the active layer reads that layer, not the composite (the same pixels Correct Layer would send)', async () => {
    await page.click('#toggle-settings');
    await choose('backend', 'Local emulator');
    await page.click('#save-settings');
    await expect.poll(() => page.textContent('#message')).toBe('Settings saved.');
    await page.click('#toggle-settings');
    const doc = await openPhoto('outdoors/rocket.jpg', 'layers.jpg');
    const background = (doc.layers[0] as { id: number }).id;
    // An opaque inverted layer on top: the composite shows it, the active layer (Background) does not.
    await page.evaluate((id) => window.__sim.addInvertedLayerOnTop(id, 'inverted'), doc.id);
    const original = await layerRgba(doc.id, background);
    uploads.length = 0;

    await choose('preview-target', 'Active layer');
    await page.click('#preview');
    await until(() => !document.getElementById('preview-area')!.classList.contains('hidden') && document.getElementById('progress-area')!.classList.contains('hidden'));
    await choose('preview-target', 'Document');

    expect(await page.textContent('#preview-caption')).toMatch(/^layers\.jpg, layer "Background": after/);
    expect((await sim((s) => s.getPixelsLog())).at(-1)).toMatchObject({ documentID: doc.id, layerID: background, targetSize: expect.any(Object) });
    // What reached the service (its own record) is the Background layer scaled down, pixel for pixel.
    expect(uploads).toHaveLength(1);
    expect((await serviceJobs()).at(-1)!.inputSha256).toBe(createHash('sha256').update(uploads[0]!).digest('hex'));
    const { data: sent, info } = await sharp(uploads[0]!).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    expect(Math.max(info.width, info.height)).toBe(400);
    const expected = new Uint8Array(info.width * info.height * 4);
    for (let y = 0; y < info.height; y++) {
      const sy = Math.min(doc.height - 1, Math.floor(((y + 0.5) * doc.height) / info.height));
      for (let x = 0; x < info.width; x++) {
        const sx = Math.min(doc.width - 1, Math.floor(((x + 0.5) * doc.width) / info.width));
        expected.set(original.subarray((sy * doc.width + sx) * 4, (sy * doc.width + sx) * 4 + 4), (y * info.width + x) * 4);
      }
    }
    expect(sameBytes(new Uint8Array(sent), expected)).toBe(true);
    // And the panel's Before image is that layer too (JPEG re-encoding only), not the inverted composite.
    await page.click('#show-before');
    const src = (await page.getAttribute('#preview-image', 'src'))!;
    const before = new Uint8Array(await sharp(Buffer.from(src.slice(src.indexOf(',') + 1), 'base64')).raw().toBuffer());
    const rgb = new Uint8Array(await sharp(uploads[0]!).removeAlpha().raw().toBuffer());
    expect(meanDiff(before, rgb)).toBeLessThan(3);
    expect((await page.evaluate((id) => window.__sim.document(id), doc.id)).history).toEqual(['Open']);
    expect(await sim((s) => s.spectrumViolations())).toEqual([]);
  });

  it('Correct Layer on a layer in a locked group is refused before anything is uploaded, saying which group to unlock', async () => {
    const doc = await openPhoto('objects/coffee.jpg', 'locked.jpg');
    await page.evaluate((id) => window.__sim.addLayerInLockedGroup(id, 'Retouch', 'face'), doc.id);
    const jobsBefore = (await serviceJobs()).length;
    uploads.length = 0;

    await runButton('#correct-layer');

    expect(await outcomes()).toEqual([{
      status: 'failed',
      text: 'locked.jpg — "face" is inside the locked group "Retouch", where Photoshop cannot add the result layer: unlock it (select it in the Layers panel and click the lit lock icon at the top of the panel), or use Correct Document, then correct again; nothing was sent',
    }]);
    expect(await page.textContent('#message')).toBe('0 of 1 corrected, 1 failed.');
    expect((await serviceJobs()).length).toBe(jobsBefore);
    expect(uploads).toEqual([]);
    const now = await page.evaluate((id) => window.__sim.document(id), doc.id);
    expect(now.layers.map((l) => (l as { name: string }).name)).toEqual(['Retouch', 'Background']);
    expect(now.history).toEqual(['Open']);
  });

  it('the simulated Spectrum widgets refuse what UXP does not document, and fire events as UXP does', async () => {
    const refused = await page.evaluate(() => {
      const attempts: Record<string, () => unknown> = {
        'sp-button size': () => document.getElementById('correct-layer')!.setAttribute('size', 'L'),
        'sp-button variant': () => document.getElementById('correct-layer')!.setAttribute('variant', 'accent'),
        'sp-button disabled property': () => ((document.getElementById('correct-layer') as unknown as { disabled: boolean }).disabled = true),
        'sp-picker input event': () => document.getElementById('preset')!.addEventListener('input', () => undefined),
        'sp-textfield min': () => document.getElementById('resize-value')!.setAttribute('min', '1'),
        'sp-textfield placeholder property': () => ((document.getElementById('api-key') as unknown as { placeholder: string }).placeholder = 'x'),
        'sp-slider step': () => document.getElementById('strength')!.setAttribute('step', '5'),
        'sp-checkbox click-only listener': () => document.getElementById('selection-only')!.addEventListener('mouseenter', () => undefined),
      };
      const out: Record<string, boolean> = {};
      for (const [name, attempt] of Object.entries(attempts)) {
        try {
          attempt();
          out[name] = false;
        } catch {
          out[name] = true;
        }
      }
      document.body.appendChild(document.createElement('sp-dropdown'));
      return out;
    });
    expect(Object.entries(refused).filter(([, thrown]) => !thrown)).toEqual([]);
    await until(() => (window as unknown as { __sim: SimApi }).__sim.spectrumViolations().some((v) => v.includes('sp-dropdown')));
    expect(await page.evaluate(() => document.getElementById('correct-layer')!.hasAttribute('size'))).toBe(false);

    // A disabled sp-button swallows the click; a checkbox click toggles and fires input then change; a slider
    // drag fires input while moving and change once, on release; setting `value` from script fires nothing.
    await page.evaluate(() => {
      const log: string[] = ((window as unknown as { __events: string[] }).__events = []);
      document.getElementById('show-before')!.setAttribute('disabled', '');
      document.getElementById('show-before')!.addEventListener('click', () => log.push('before:click'));
      for (const type of ['input', 'change']) {
        document.getElementById('selection-only')!.addEventListener(type, (e) => log.push(`checkbox:${type}:${String((e.target as unknown as { checked: boolean }).checked)}`));
        document.getElementById('strength')!.addEventListener(type, () => log.push(`slider:${type}`));
      }
      (document.getElementById('strength') as unknown as { value: number }).value = 50;
    });
    await page.click('#show-before');
    await page.click('#selection-only');
    await drag('strength', 80);
    const events = await page.evaluate(() => (window as unknown as { __events: string[] }).__events);
    expect(events.slice(0, 2)).toEqual(['checkbox:input:true', 'checkbox:change:true']);
    const slider = events.slice(2);
    expect(slider.at(-1)).toBe('slider:change');
    expect(slider.filter((e) => e === 'slider:change')).toHaveLength(1);
    expect(slider.filter((e) => e === 'slider:input').length).toBeGreaterThan(1);
    expect(await page.evaluate(() => (document.getElementById('strength') as unknown as { value: number }).value)).toBe(80);
  });
});
