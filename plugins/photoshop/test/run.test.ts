/**
 * `runCorrections` end to end under Node: the simulated Photoshop, the real
 * Web API client of `@pfc/core`, and the emulator doing the image work.
 */
import { createWebBackend, ParameterError } from '@pfc/core';
import { startEmulator } from '@pfc/emulator';
import sharp from 'sharp';
import { describe, expect, it, vi } from 'vitest';
import { createBackend } from '../src/backend/factory';
import { toParams, DEFAULT_CHOICES } from '../src/correct/options';
import { DEFAULT_SETTINGS } from '../src/settings/store';
import { runCorrections } from '../src/correct/run';
import { decodeImage } from '../src/image/codec';
import { resolveTargets } from '../src/correct/targets';
import { exportPixels } from '../src/ps/export';
import { inModal } from '../src/ps/modal';
import { compositeOf } from './sim/index';
import { emulatorForFile, testEngine } from './emulator-engine';
import { decodeWithSharp, loadSample, meanDiff, sameBytes, simHost, withCorrect } from './helpers';

const emulator = emulatorForFile();
const { backend } = emulator;

async function setup(samples: string[]) {
  const { host, sim } = simHost();
  const docs = [];
  for (const s of samples) {
    const photo = await loadSample(s, 160);
    docs.push(sim.openDocument({ title: s.split('/')[1]!, width: photo.width, height: photo.height, pixels: photo.pixels, channels: 3 }));
  }
  return { host, sim, docs };
}

describe('runCorrections with the emulator', () => {
  it('adds the corrected pixels the service returned as a new layer, leaving the original untouched', async () => {
    const { host, sim, docs } = await setup(['portraits/astronaut.jpg']);
    const doc = docs[0]!;
    const original = doc.layers[0]!.pixels!.slice();
    const params = toParams(DEFAULT_CHOICES);
    // What the panel will upload, corrected by the client directly, is the reference.
    const upload = await inModal(host, 'read', () => exportPixels(host, host.ps.app.activeDocument!));
    const reference = await backend().correctBytes(upload.bytes, params);

    const outcomes = await runCorrections(host, backend(), resolveTargets(host, 'document'), params);

    expect(outcomes).toMatchObject([{ title: 'astronaut.jpg', status: 'done', message: 'added layer "Perfectly Clear: Universal"' }]);
    expect(doc.layers.map((l) => l.name)).toEqual(['Perfectly Clear: Universal', 'Background']);
    // Compared as bytes: a mismatch found by `toEqual` walks the typed arrays for minutes.
    expect(sameBytes(doc.layers[1]!.pixels!, original), 'the source layer is untouched').toBe(true);
    expect(doc.history.map((h) => h.name)).toEqual(['Open', 'Perfectly Clear: Universal']);
    const layer = doc.layers[0]!.pixels!;
    expect(sameBytes(layer, decodeImage(reference.bytes).data), "exactly the service's pixels").toBe(true);
    // …which libjpeg decodes alike, up to chroma upsampling differences.
    expect(meanDiff(layer, (await decodeWithSharp(reference.bytes)).data)).toBeLessThan(2.5);
    expect(meanDiff(layer, original)).toBeGreaterThan(8); // the correction changed the photo
    expect(sim.imaging.live.size).toBe(0);
  });

  it('corrects every open document, reports the one that fails, and goes on', async () => {
    const { host, docs } = await setup(['portraits/astronaut.jpg', 'objects/coffee.jpg', 'outdoors/rocket.jpg']);
    emulator.handle().setFaults({ jobs: { failRate: 1, count: 1 } }); // the first job started ends FAILED
    try {
      const outcomes = await runCorrections(host, backend(), resolveTargets(host, 'all'), toParams(DEFAULT_CHOICES));
      expect(outcomes.map((o) => o.status)).toEqual(['failed', 'done', 'done']);
      expect(outcomes[0]!.message).toBe('the service could not correct it: processing failed (injected fault)');
    } finally {
      emulator.handle().setFaults({});
    }
    expect(docs.map((d) => d.layers.length)).toEqual([1, 2, 2]);
    expect(docs[0]!.history).toHaveLength(1);
    expect(host.ps.app.activeDocument!.id).toBe(docs[2]!.id); // the document active before the run
  });

  it('Correct All gives back the document the user started on after switching to the others itself', async () => {
    const { host, sim, docs } = await setup(['portraits/astronaut.jpg', 'objects/coffee.jpg', 'outdoors/rocket.jpg']);
    sim.core.userSwitchesTo(docs[0]!.id);
    // While the second document is at the service the user looks at the third; the panel then switches to the
    // second and the third to add their results: the user's look was the panel's to undo.
    const looking = withCorrect(backend(), async (input, params, options) => {
      if (host.ps.app.activeDocument!.id === docs[1]!.id) sim.core.userSwitchesTo(docs[2]!.id);
      return backend().correct(input, params, options);
    });

    const outcomes = await runCorrections(host, looking, resolveTargets(host, 'all'), toParams(DEFAULT_CHOICES));

    expect(outcomes.map((o) => o.status)).toEqual(['done', 'done', 'done']);
    expect(host.ps.app.activeDocument!.id).toBe(docs[0]!.id);
  });

  it('Correct All gives back the starting document after opening a kept result as a document of its own (the panel brought it to the front)', async () => {
    const { host, sim, docs } = await setup(['portraits/astronaut.jpg', 'objects/coffee.jpg', 'outdoors/rocket.jpg']);
    sim.core.userSwitchesTo(docs[0]!.id);
    const lastClosed = withCorrect(backend(), async (input, params, options) => {
      if (options?.fileName?.startsWith('rocket')) sim.core.closeDocument(docs[2]!.id);
      return backend().correct(input, params, options);
    });

    const outcomes = await runCorrections(host, lastClosed, resolveTargets(host, 'all'), toParams(DEFAULT_CHOICES));

    expect(outcomes.map((o) => o.status)).toEqual(['done', 'done', 'failed']);
    expect(outcomes[2]!.message).toContain('it was opened as a new document, "rocket (Perfectly Clear)"');
    expect(host.ps.app.activeDocument!.id).toBe(docs[0]!.id);
  });

  it('Correct All leaves the user on a document they switched to after the panel last switched', async () => {
    const { host, sim, docs } = await setup(['portraits/astronaut.jpg', 'objects/coffee.jpg', 'outdoors/rocket.jpg']);
    sim.core.userSwitchesTo(docs[0]!.id);
    // While the last document is at the service the user brings it to the front to work on it; that job fails, so
    // the panel switches to no document after the user did.
    const lastFails = withCorrect(backend(), async (input, params, options) => {
      if (options?.fileName?.startsWith('rocket')) {
        sim.core.userSwitchesTo(docs[2]!.id);
        throw new Error('processing failed');
      }
      return backend().correct(input, params, options);
    });

    const outcomes = await runCorrections(host, lastFails, resolveTargets(host, 'all'), toParams(DEFAULT_CHOICES));

    expect(outcomes.map((o) => o.status)).toEqual(['done', 'done', 'failed']);
    expect(host.ps.app.activeDocument!.id).toBe(docs[2]!.id);
  });

  it('cancels a run waiting on the service: the document is unchanged and the rest is not started', async () => {
    const { host, docs } = await setup(['portraits/astronaut.jpg', 'objects/coffee.jpg']);
    emulator.handle().setFaults({ jobs: { hangRate: 1 } });
    const abort = new AbortController();
    try {
      const outcomes = await runCorrections(host, backend(), resolveTargets(host, 'all'), toParams(DEFAULT_CHOICES), {
        signal: abort.signal,
        onProgress: (p) => p.phase === 'processing' && abort.abort(),
      });
      expect(outcomes.map((o) => o.status)).toEqual(['cancelled', 'cancelled']);
      expect(outcomes[0]!.message).toContain('left unchanged');
    } finally {
      emulator.handle().setFaults({});
    }
    for (const d of docs) {
      expect(d.layers).toHaveLength(1);
      expect(d.history).toHaveLength(1);
    }
  });

  it('a service that restarts while it holds the job (the job is lost) gets the pixels again: the layer comes from the new one, and the outcome says so', async () => {
    const { host, docs } = await setup(['portraits/astronaut.jpg']);
    const signingSecret = 'one secret for both';
    // The first one holds the job (PROCESSING) until it stops.
    let service = await startEmulator({ engine: testEngine, container: false, bgr: false, signingSecret });
    service.setFaults({ jobs: { hangRate: 1 } });
    const ports = { webPort: Number(new URL(service.web).port), storage: { port: Number(new URL(service.urls.storage!).port) } };
    const first = service;
    let restarted: Promise<void> | undefined;
    let lostJob: { inputSha256: string } | undefined;
    const phases: string[] = [];
    try {
      const client = createWebBackend({ baseURL: service.web, apiKey: 'test-key', poll: { initialDelayMs: 20, maxDelayMs: 100 } });
      const outcomes = await runCorrections(host, client, resolveTargets(host, 'document'), toParams(DEFAULT_CHOICES), {
        onProgress: (p) => {
          phases.push(p.phase);
          // A restart at the same address: the new one knows nothing of the job.
          if (p.phase === 'processing' && !restarted) {
            restarted = (async () => {
              lostJob = first.jobs()[0];
              await first.close();
              service = await startEmulator({ engine: testEngine, container: false, bgr: false, signingSecret, ...ports });
            })();
          }
        },
      });
      await restarted;
      expect(outcomes).toMatchObject([{ status: 'done', message: 'added layer "Perfectly Clear: Universal"' }]);
      expect(outcomes[0]!.notes).toContain('the service lost the job (it may have restarted), so the pixels were sent again (attempt 2 of 3)');
      expect(phases.filter((p) => p === 'uploading')).toHaveLength(2);
      // The new service's job record: one job, completed, from its own upload.
      expect(service).not.toBe(first);
      expect(service.jobs().map((j) => j.state)).toEqual(['COMPLETED']);
      // The same pixels as the lost job's.
      expect(service.jobs()[0]!.inputSha256).toBe(lostJob!.inputSha256);
      const layer = docs[0]!.layers[0]!;
      expect(layer.name).toBe('Perfectly Clear: Universal');
      expect(meanDiff(layer.pixels!, docs[0]!.layers[1]!.pixels!)).toBeGreaterThan(8);
    } finally {
      await restarted?.catch(() => undefined);
      await service.close();
    }
  });

  it.each([
    ['25.10 or later, which retries for timeOut itself', true],
    // The panel retries; Photoshop's refusal is told by its number 9, as its text is in the user's language.
    ['before 25.10, in German', false],
  ])('applies a result that arrives while another plug-in or a dialog holds Photoshop (%s) once it is free, not throwing it away', async (_, retriesForTimeOut) => {
    const { host, sim, docs } = await setup(['portraits/astronaut.jpg']);
    sim.core.retriesForTimeOut = retriesForTimeOut;
    // While the job runs, another plug-in takes the modal state, and gives it back half a second after the result is in.
    const outcomes = await runCorrections(host, backend(), resolveTargets(host, 'document'), toParams(DEFAULT_CHOICES), {
      onProgress: (p) => {
        if (p.phase !== 'applying' || sim.core.heldByOther) return;
        sim.core.heldByOther = 'Other Plugin';
        setTimeout(() => (sim.core.heldByOther = undefined), 500);
      },
    });
    expect(outcomes).toMatchObject([{ status: 'done' }]);
    expect(docs[0]!.layers.map((l) => l.name)).toEqual(['Perfectly Clear: Universal', 'Background']);
  });

  it.each([
    ['25.10 or later, which retries for timeOut itself', true],
    ['before 25.10, in German', false],
  ])('Correct All: a document read while a dialog or another plug-in holds Photoshop waits for it (%s), rather than failing with its refusal', async (_, retriesForTimeOut) => {
    const { host, sim, docs } = await setup(['portraits/astronaut.jpg', 'objects/coffee.jpg']);
    sim.core.retriesForTimeOut = retriesForTimeOut;
    // While the first document is at the service, the user opens a dialog, and closes it half a second after the second is to be read.
    const outcomes = await runCorrections(host, backend(), resolveTargets(host, 'all'), toParams(DEFAULT_CHOICES), {
      onProgress: (p) => {
        if (p.index !== 1 || p.phase !== 'reading' || sim.core.heldByOther) return;
        sim.core.heldByOther = 'Other Plugin';
        setTimeout(() => (sim.core.heldByOther = undefined), 500);
      },
    });
    expect(outcomes.map((o) => [o.title, o.status, o.message])).toEqual([
      ['astronaut.jpg', 'done', 'added layer "Perfectly Clear: Universal"'],
      ['coffee.jpg', 'done', 'added layer "Perfectly Clear: Universal"'],
    ]);
    expect(docs.map((d) => d.layers.length)).toEqual([2, 2]);
  });

  it('rejects invalid choices before reading or uploading anything', async () => {
    const { host, sim } = await setup(['objects/coffee.jpg']);
    const before = emulator.handle().stats().requests;
    const params = toParams({ ...DEFAULT_CHOICES, background: 'colour', backgroundColour: 'not-a-colour' });
    await expect(runCorrections(host, backend(), resolveTargets(host, 'document'), params)).rejects.toThrow(ParameterError);
    await expect(runCorrections(host, backend(), resolveTargets(host, 'document'), params)).rejects.toThrow(/bgColor must be/);
    expect(sim.imaging.getPixelsLog).toHaveLength(0);
    expect(emulator.handle().stats().requests).toEqual(before);
  });

  it('removes a background non-destructively: a layer mask from the result over a full copy, the background kept under the mask', async () => {
    const { host, docs } = await setup(['portraits/grace_hopper.jpg']);
    const doc = docs[0]!;
    const source = doc.layers[0]!.pixels!.slice();
    const outcomes = await runCorrections(host, backend(), resolveTargets(host, 'document'), toParams({ ...DEFAULT_CHOICES, background: 'transparent' }));
    expect(outcomes[0]).toMatchObject({ status: 'done', message: 'added layer "Perfectly Clear: Universal, background removed"' });
    const layer = doc.layers[0]!;
    const centre = (doc.height >> 1) * doc.width + (doc.width >> 1);
    expect(layer.mask![0]).toBe(0); // corner: masked out
    expect(layer.mask![centre]).toBe(255); // subject shown
    expect([...layer.pixels!.subarray(0, 4)]).toEqual([...source.subarray(0, 4)]); // the removed background is still there
    const shown = compositeOf(doc, doc.layers.slice(0, 1));
    expect(shown[3]).toBe(0); // as seen: the background is gone
    expect(doc.history.map((h) => h.name)).toEqual(['Open', 'Perfectly Clear: Universal, background removed']);
  });

  it('opens a resized result as a new document at the requested size', async () => {
    const { host, sim, docs } = await setup(['objects/coffee.jpg']);
    const outcomes = await runCorrections(host, backend(), resolveTargets(host, 'document'), toParams({ ...DEFAULT_CHOICES, resize: 'long', resizeValue: 320 }));
    expect(outcomes[0]).toMatchObject({ status: 'done', message: 'resized result opened as a new document, "coffee (Perfectly Clear)"' });
    const opened = [...sim.core.docs.values()].find((d) => d.id !== docs[0]!.id)!;
    expect(Math.max(opened.width, opened.height)).toBe(320);
    expect(docs[0]!.layers).toHaveLength(1);
    expect(sim.temp.files.size).toBe(0);
  });

  it('corrects the active layer only, keeping its shape, and says when a CMYK document was converted', async () => {
    const { host, sim } = simHost();
    const photo = await loadSample('objects/chelsea.png', 120);
    const doc = sim.openDocument({ title: 'cat.psd', width: photo.width, height: photo.height, pixels: photo.pixels, channels: 3, mode: 'CMYKColorMode' });
    // A cut-out layer: the left half of the photo, above the background.
    const half = new Uint8Array(doc.width * doc.height * 4);
    for (let y = 0; y < doc.height; y++) for (let x = 0; x < doc.width / 2; x++) {
      const i = y * doc.width + x;
      half.set([photo.pixels[i * 3]!, photo.pixels[i * 3 + 1]!, photo.pixels[i * 3 + 2]!, 255], i * 4);
    }
    doc.layers.unshift({ id: 777, name: 'left half', kind: 'pixel', visible: true, isBackground: false, pixels: half, children: null });
    doc.activeLayerIds = [777];

    const outcomes = await runCorrections(host, backend(), resolveTargets(host, 'layer'), toParams(DEFAULT_CHOICES));

    expect(outcomes[0]!.status).toBe('done');
    expect(outcomes[0]!.notes.join(' ')).toContain('CMYK to RGB');
    expect(outcomes[0]!.notes.join(' ')).not.toContain('8-bit correction'); // an 8-bit document loses no depth
    expect(doc.layers.map((l) => l.name)).toEqual(['Perfectly Clear: Universal', 'left half', 'Background']);
    const px = doc.layers[0]!.pixels!;
    const right = ((doc.height >> 1) * doc.width + doc.width - 5) * 4;
    expect(px[right + 3]).toBe(0); // nothing added outside the source layer
    const left = ((doc.height >> 1) * doc.width + 5) * 4;
    expect(px[left + 3]).toBe(255);
  });

  it('refuses a layer with a vector mask before anything is sent, and says a layer\'s effects were not copied', async () => {
    const { host, sim } = simHost();
    const photo = await loadSample('outdoors/rocket.jpg', 96);
    const doc = sim.openDocument({ title: 'shapes.psd', width: photo.width, height: photo.height, pixels: photo.pixels, channels: 3 });
    const layer = (id: number, name: string) => ({ id, name, kind: 'pixel' as const, visible: true, isBackground: false, pixels: doc.layers[0]!.pixels!.slice(), children: null });
    doc.layers.unshift({ ...layer(801, 'styled'), effects: { _obj: 'layerEffects', scale: { _unit: 'percentUnit', _value: 100 }, dropShadow: { _obj: 'dropShadow', enabled: true } } });
    doc.layers.unshift({ ...layer(802, 'vector-masked'), vectorMask: true });
    const counting = backend();
    const correct = vi.spyOn(counting, 'correct');

    doc.activeLayerIds = [802];
    const [refused] = await runCorrections(host, counting, resolveTargets(host, 'layer'), toParams(DEFAULT_CHOICES));
    expect(refused).toMatchObject({ status: 'failed' });
    expect(refused!.message).toBe('"vector-masked" has a vector mask, which the result layer cannot take over: rasterize it first (Layer > Rasterize > Vector Mask) or use Correct Document; nothing was sent');
    expect(correct).not.toHaveBeenCalled();
    expect(doc.history.map((h) => h.name)).toEqual(['Open']);
    // The property was read with Photoshop's documented "get" form (batchplay.md:226-240).
    expect(sim.core.batchPlayLog[0]).toEqual([{ _obj: 'get', _target: [{ _property: 'hasVectorMask' }, { _ref: 'layer', _id: 802 }, { _ref: 'document', _id: doc.id }], _options: { dialogOptions: 'silent' } }]);

    doc.activeLayerIds = [801];
    const [styled] = await runCorrections(host, counting, resolveTargets(host, 'layer'), toParams(DEFAULT_CHOICES));
    expect(styled!.status).toBe('done');
    expect(correct).toHaveBeenCalledTimes(1);
    expect(styled!.notes).toContain('the effects (layer style) of "styled" stay on that layer below the result and were not copied to it; effects drawn inside the layer (overlays, inner shadow, bevel) are covered by the result');

    // Disabled effects are no effects: no note.
    doc.layers.find((l) => l.id === 801)!.effects = { _obj: 'layerEffects', dropShadow: { _obj: 'dropShadow', enabled: false } };
    doc.activeLayerIds = [801];
    const [plain] = await runCorrections(host, counting, resolveTargets(host, 'layer'), toParams(DEFAULT_CHOICES));
    expect(plain!.notes.join(' ')).not.toContain('layer style');
  });

  it('says that a 16-bit document gets an 8-bit correction widened to its depth', async () => {
    const { host, sim } = simHost();
    const photo = await loadSample('portraits/astronaut.jpg', 96);
    sim.openDocument({ title: 'deep.psd', width: photo.width, height: photo.height, pixels: photo.pixels, channels: 3, bits: 'bitDepth16' });

    const outcomes = await runCorrections(host, backend(), resolveTargets(host, 'document'), toParams(DEFAULT_CHOICES));

    expect(outcomes[0]!.status).toBe('done');
    // 16-bit sRGB RGB is sent exactly (no conversion note); the only loss is the result's depth, and it is said.
    expect(outcomes[0]!.notes).toEqual([
      "the result is an 8-bit correction widened to the document's 16 bits per channel (the service returns 8-bit images); the original layers keep their full 16-bit precision",
    ]);
  });

  it('says what becomes of an untagged document\'s colours (taken as the working space), never "None to sRGB"', async () => {
    const { host, sim } = simHost();
    const photo = await loadSample('portraits/astronaut.jpg', 96);
    const doc = sim.openDocument({ title: 'untagged.jpg', width: photo.width, height: photo.height, pixels: photo.pixels, channels: 3, profile: null });
    // As Photoshop answers for a document that is not colour managed (classes/document.md:94).
    expect(host.ps.app.activeDocument!.colorProfileName).toBe('None');

    const [outcome] = await runCorrections(host, backend(), resolveTargets(host, 'document'), toParams(DEFAULT_CHOICES));

    expect(outcome!.status).toBe('done');
    expect(outcome!.notes).toEqual([
      '"untagged.jpg" has no colour profile, so Photoshop took its colours to be in your working RGB space (Edit > Color Settings) to convert them to sRGB for the upload and the result back, which changes nothing when that space is sRGB; if they belong to another profile, assign it (Edit > Assign Profile) and correct again',
    ]);
    expect(doc.layers.map((l) => l.name)).toEqual(['Perfectly Clear: Universal', 'Background']);
  });

  it('sends a valid PNG upload the service can read', async () => {
    const { host } = await setup(['outdoors/rocket.jpg']);
    const upload = await inModal(host, 'read', () => exportPixels(host, host.ps.app.activeDocument!));
    expect((await sharp(upload.bytes).metadata()).format).toBe('png');
  });

  it('says what to do when the key is refused or the service cannot be reached', async () => {
    const strict = await startEmulator({ webPort: 0, apiKeys: ['the-right-key'] });
    try {
      const { host, docs } = await setup(['objects/coffee.jpg']);
      const wrongKey = createWebBackend({ baseURL: strict.web, apiKey: 'a-wrong-key', maxRetries: 0 });
      const [refused] = await runCorrections(host, wrongKey, resolveTargets(host, 'document'), toParams(DEFAULT_CHOICES));
      expect(refused!.message).toBe('the service refused the API key (HTTP 401): check it under Settings');
      expect(refused!.message).not.toContain('a-wrong-key');
      const closedPort = createWebBackend({ baseURL: 'http://127.0.0.1:9/v2', apiKey: 'k', maxRetries: 0 });
      const [unreachable] = await runCorrections(host, closedPort, resolveTargets(host, 'document'), toParams(DEFAULT_CHOICES));
      expect(unreachable).toMatchObject({ status: 'failed' });
      expect(unreachable!.message).toMatch(/check the backend address under Settings$/);
      expect(docs[0]!.history).toHaveLength(1);
    } finally {
      await strict.close();
    }
  });

  it('runs on the self-hosted containers: colour correction, then background removal on the BGR container', async () => {
    const { host, docs } = await setup(['portraits/grace_hopper.jpg']);
    const doc = docs[0]!;
    const settings = { ...DEFAULT_SETTINGS, backend: 'container' as const, containerURL: emulator.handle().urls.container!, bgrURL: emulator.handle().urls.bgr! };
    const selfHosted = createBackend(settings, { bgrLicenceKey: 'studio-licence' }, fetch);
    const outcomes = await runCorrections(host, selfHosted, resolveTargets(host, 'document'), toParams({ ...DEFAULT_CHOICES, background: 'transparent' }));
    expect(outcomes[0]).toMatchObject({ status: 'done', message: 'added layer "Perfectly Clear: Universal, background removed"' });
    const mask = doc.layers[0]!.mask!;
    expect(mask[0]).toBe(0);
    expect(mask[(doc.height >> 1) * doc.width + (doc.width >> 1)]).toBe(255);
    // The colour container alone has no AI Art: refused before anything is read or sent.
    const containerOnly = createBackend({ ...settings, bgrURL: '' }, {}, fetch);
    await expect(runCorrections(host, containerOnly, resolveTargets(host, 'document'), toParams({ ...DEFAULT_CHOICES, aiArt: 'cartoon' }))).rejects.toThrow(ParameterError);
    expect(doc.layers).toHaveLength(2);
  });
});
