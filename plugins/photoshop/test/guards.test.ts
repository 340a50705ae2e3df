/**
 * Guards found missing by hand mutations of `src`: each case drives a run as the panel's buttons do (the panel's
 * options passed to `runCorrections`, against the emulator) and checks what the user gets — the documents open, the
 * layers and their pixels, the emulator's jobs, the outcome's message — and fails when its guard is taken out.
 */
import { readAll, type CorrectionBackend } from '@pfc/core';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { createBackend } from '../src/backend/factory';
import { DEFAULT_CHOICES, toParams } from '../src/correct/options';
import { runCorrections } from '../src/correct/run';
import { resolveTargets } from '../src/correct/targets';
import { DEFAULT_SETTINGS } from '../src/settings/store';
import { compositeOf } from './sim/index';
import { brighten, groupLayer, loadSample, pixelLayer, sameBytes, simHost } from './helpers';
import { emulator, keptDocuments, PARAMS, photoWith, press, RESULT, serviceCounts, tree } from './press';

/**
 * The emulator, its result passed through `change` (as another service might return it), with `meanwhile` run once
 * its job is done, before the result is back: what the user did while the service worked.
 */
function throughBackend({ change = async (b: Uint8Array) => b, meanwhile = () => undefined }: { change?: (bytes: Uint8Array) => Promise<Uint8Array>; meanwhile?: () => void }): CorrectionBackend {
  const inner = emulator.backend();
  return {
    kind: inner.kind,
    validate: (params) => inner.validate(params),
    correct: async (input, params, options) => {
      const result = await inner.correct(input, params, options);
      const bytes = await change(await readAll(result.body));
      meanwhile();
      return { ...result, body: new Response(new Uint8Array(bytes)).body! };
    },
  };
}

/** A service that flattens: its results come back without alpha. */
const flatten = async (bytes: Uint8Array) => new Uint8Array(await sharp(bytes).removeAlpha().png().toBuffer());

describe('the source layer\'s shape', () => {
  it('Correct Layer on a layer with transparent parts, from a service that flattens: the result has the layer\'s own shape', async () => {
    const { host, doc } = await photoWith((rgba) => {
      const pixels = rgba.slice();
      const width = 64; // photoWith's photo
      // A transparent strip on the left, a hole and a half-transparent band.
      for (let i = 0; i < pixels.length / 4; i++) {
        const [x, y] = [i % width, Math.floor(i / width)];
        if (x < 12 || (x >= 30 && x < 40 && y >= 30 && y < 40)) pixels[i * 4 + 3] = 0;
        else if (y >= 10 && y < 14) pixels[i * 4 + 3] = 128;
      }
      return [pixelLayer(500, 'cut', pixels)];
    });
    const { outcome } = await press(host, doc, 'layer', 500, throughBackend({ change: flatten }));
    expect(outcome).toMatchObject({ status: 'done' });
    const [result, source] = [doc.layers[0]!, doc.layers[1]!];
    expect([result.name, source.name]).toEqual([RESULT, 'cut']);
    const alphas = (px: Uint8Array) => px.filter((_, i) => (i & 3) === 3);
    expect(sameBytes(alphas(result.pixels!), alphas(source.pixels!))).toBe(true);
  });
});

describe('options the panel passes to the run reach the layer the user gets', () => {
  it('the strength slider: Correct Document adds its result at that opacity', async () => {
    const { host, doc } = await photoWith();
    const [outcome] = await runCorrections(host, emulator.backend(), resolveTargets(host, 'document'), PARAMS, { strength: 35 });
    expect(outcome).toMatchObject({ status: 'done', message: `added layer "${RESULT}"` });
    expect(doc.layers.map((l) => [l.name, l.opacity ?? 100])).toEqual([[RESULT, 35], ['Background', 100]]);
  });

  it('Selection only: the result shows inside the selection only, the photo as it was outside', async () => {
    const { host, doc, rgba } = await photoWith();
    const selection = new Uint8Array(doc.width * doc.height);
    const half = doc.height >> 1;
    selection.fill(255, 0, half * doc.width); // the top half
    doc.selection = selection;
    const [outcome] = await runCorrections(host, emulator.backend(), resolveTargets(host, 'document'), PARAMS, { selectionOnly: true });
    expect(outcome).toMatchObject({ status: 'done' });
    expect(doc.layers[0]!.mask).toEqual(selection);
    const shown = compositeOf(doc, doc.layers);
    const below = (doc.height - 1) * doc.width * 4;
    expect([...shown.subarray(below, below + doc.width * 4)]).toEqual([...rgba.subarray(below, below + doc.width * 4)]);
  });
});

describe('a resize with background removal', () => {
  it('of a photo wider than the 5000 px a cut-out is sent at: the scale is of the photo\'s own size', async () => {
    const { host, sim } = simHost();
    const [width, height] = [6000, 300]; // the Web API takes an aspect ratio below 21:1
    const pixels = new Uint8Array(width * height * 3).map((_, i) => (i % 3 === 0 ? (i / 3) % 256 : 128));
    const doc = sim.openDocument({ title: 'panorama.jpg', width, height, pixels, channels: 3 });
    const params = toParams({ ...DEFAULT_CHOICES, background: 'colour', resize: 'scale', resizeValue: 50 });
    const [outcome] = await runCorrections(host, emulator.backend(), resolveTargets(host, 'document'), params);
    expect(outcome).toMatchObject({ status: 'done' });
    expect(emulator.handle().jobs().at(-1)!.requested).toMatchObject({ removeBackground: true, scale: 50 });
    expect(keptDocuments(sim, doc).map((d) => [d.width, d.height])).toEqual([[3000, 150]]);
  });
});

describe('background choices reach the service', () => {
  it('Remove (transparent) asks for a PNG, whatever the upload\'s format (a large photo is sent as a JPEG), so the cut-out keeps its transparency', async () => {
    const { host, doc } = await photoWith();
    const [outcome] = await runCorrections(host, emulator.backend(), resolveTargets(host, 'document'), toParams({ ...DEFAULT_CHOICES, background: 'transparent' }));
    expect(outcome).toMatchObject({ status: 'done' });
    expect(emulator.handle().jobs().at(-1)!.requested).toMatchObject({ removeBackground: true, outputType: 'png' });
    expect(doc.layers[0]!.mask, 'the cut-out is a mask over the result').toBeTruthy();
  });

  it('a shadow under the subject on a colour is asked for', async () => {
    const { host } = await photoWith();
    const [outcome] = await runCorrections(host, emulator.backend(), resolveTargets(host, 'document'), toParams({ ...DEFAULT_CHOICES, background: 'colour', backgroundColour: '#00ff00', shadow: 'soft' }));
    expect(outcome).toMatchObject({ status: 'done', message: 'added layer "Perfectly Clear: Universal, background #00ff00 with soft shadow"' });
    expect(emulator.handle().jobs().at(-1)!.requested).toMatchObject({ removeBackground: true, bgColor: '#00ff00', bgShadow: 'soft' });
  });
});

describe('Correct Layer on a layer without pixels of its own', () => {
  it('an adjustment layer is refused, saying what to select, before anything is read or sent', async () => {
    const { host, doc } = await photoWith(() => [{ id: 800, name: 'Curves 1', kind: 'curves', visible: true, isBackground: false, pixels: null, children: null }]);
    doc.activeLayerIds = [800];
    const before = serviceCounts();
    expect(() => resolveTargets(host, 'layer')).toThrow('"Curves 1" is a curves layer; Correct Layer works on pixel, smart object and text layers. Select one, or use Correct Document.');
    expect(serviceCounts()).toEqual(before);
    expect(doc.layers.map((l) => l.name)).toEqual(['Curves 1', 'Background']);
  });
});

describe('the Web API\'s limits for background removal are not applied to the self-hosted containers', () => {
  it('a 16-bit document with its background removed is not reduced to an 8-bit PNG for them', async () => {
    const { host, sim } = simHost();
    const photo = await loadSample('portraits/astronaut.jpg', 96);
    sim.openDocument({ title: 'deep.psd', width: photo.width, height: photo.height, pixels: photo.pixels, channels: 3, bits: 'bitDepth16' });
    const settings = { ...DEFAULT_SETTINGS, backend: 'container' as const, containerURL: emulator.handle().urls.container!, bgrURL: emulator.handle().urls.bgr! };
    const selfHosted = createBackend(settings, { bgrLicenceKey: 'studio-licence' }, fetch);
    const [outcome] = await runCorrections(host, selfHosted, resolveTargets(host, 'document'), toParams({ ...DEFAULT_CHOICES, background: 'transparent' }));
    expect(outcome).toMatchObject({ status: 'done' });
    expect(outcome!.notes).toContain("the result is an 8-bit correction widened to the document's 16 bits per channel (the service returns 8-bit images); the original layers keep their full 16-bit precision");
    expect(outcome!.notes.filter((n) => n.includes('background removal') || n.includes('8-bit PNG'))).toEqual([]);
  });
});

describe('the resolution the user set', () => {
  it('a resized result opens as a document at its source\'s resolution', async () => {
    const { host, sim, doc } = await photoWith();
    doc.resolution = 300;
    const [outcome] = await runCorrections(host, emulator.backend(), resolveTargets(host, 'document'), toParams({ ...DEFAULT_CHOICES, resize: 'long', resizeValue: 40 }));
    expect(outcome).toMatchObject({ status: 'done' });
    expect(keptDocuments(sim, doc).map((d) => [Math.max(d.width, d.height), d.resolution])).toEqual([[40, 300]]);
  });

  it('a result kept because its document was closed meanwhile opens at the document\'s resolution, read before it closed', async () => {
    const { host, sim, doc } = await photoWith();
    doc.resolution = 240;
    const [outcome] = await runCorrections(host, throughBackend({ meanwhile: () => sim.core.closeDocument(doc.id) }), resolveTargets(host, 'document'), PARAMS);
    expect(outcome).toMatchObject({ status: 'failed', message: expect.stringContaining('it was opened as a new document') });
    expect(keptDocuments(sim, doc).map((d) => [d.width, d.height, d.resolution])).toEqual([[doc.width, doc.height, 240]]);
  });
});

describe('layers named as the panel\'s results that are not the earlier result on top stay as the user left them', () => {
  it('one under a layer of the user\'s: Correct Document hides nothing', async () => {
    const { host, doc } = await photoWith((rgba) => [pixelLayer(601, 'Retouch', brighten(rgba, 10), { opacity: 50 }), pixelLayer(602, RESULT, brighten(rgba, 60))]);
    const { outcome } = await press(host, doc, 'document');
    expect(outcome).toMatchObject({ status: 'done', notes: [] });
    expect(tree(doc.layers).map((l) => (l as unknown[]).slice(0, 2))).toEqual([[RESULT, true], ['Retouch', true], [RESULT, true], ['Background', true]]);
  });

  it('one under a hidden earlier result: Correct Document leaves it shown', async () => {
    const { host, doc } = await photoWith((rgba) => [pixelLayer(601, RESULT, brighten(rgba, 30), { visible: false }), pixelLayer(602, 'Perfectly Clear: Pro', brighten(rgba, 60))]);
    const { outcome } = await press(host, doc, 'document');
    expect(outcome).toMatchObject({ status: 'done', notes: [] });
    expect(tree(doc.layers).map((l) => (l as unknown[]).slice(0, 2))).toEqual([[RESULT, true], [RESULT, false], ['Perfectly Clear: Pro', true], ['Background', true]]);
  });
});

describe('Correct Layer again on a layer in a group, under a layer of the user\'s', () => {
  it('hides the earlier result directly above it, so that the new one is seen', async () => {
    const { host, doc } = await photoWith((rgba) => [
      groupLayer(700, 'Portrait', [
        pixelLayer(701, 'Dodge', brighten(rgba, 5), { opacity: 20 }),
        pixelLayer(702, 'Perfectly Clear: Pro', brighten(rgba, 60)),
        pixelLayer(703, 'face', rgba),
      ]),
    ]);
    const { outcome } = await press(host, doc, 'layer', 703);
    expect(outcome).toMatchObject({ status: 'done', notes: ['"Perfectly Clear: Pro", an earlier result, was hidden: the new layer replaces it (show it again to compare)'] });
    const names = (l: unknown) => (l as unknown[]).slice(0, 2);
    const [group] = tree(doc.layers) as unknown[][];
    expect([group![0], (group![4] as unknown[]).map(names)]).toEqual(['Portrait', [['Dodge', true], ['Perfectly Clear: Pro', false], [RESULT, true], ['face', true]]]);
  });
});

describe('Correct All', () => {
  it('gives the user back the document they were looking at', async () => {
    const { host, sim, doc, rgba } = await photoWith();
    const other = sim.openDocument({ title: 'second.jpg', width: doc.width, height: doc.height, pixels: rgba, channels: 4 });
    sim.core.activeId = doc.id; // the user went back to the photo before pressing Correct All
    const outcomes = await runCorrections(host, emulator.backend(), resolveTargets(host, 'all'), PARAMS);
    expect(outcomes.map((o) => [o.title, o.status])).toEqual([['astronaut.jpg', 'done'], ['second.jpg', 'done']]);
    expect([doc.layers[0]!.name, other.layers[0]!.name]).toEqual([RESULT, RESULT]);
    expect(sim.core.activeId).toBe(doc.id);
  });
});

describe('Cancel', () => {
  it('Escape in Photoshop just as a resized result\'s pixels are written: the half-made document is closed again', async () => {
    const { host, sim, doc } = await photoWith();
    const put = sim.imaging.putPixels.bind(sim.imaging);
    sim.imaging.putPixels = async (options) => {
      await put(options);
      sim.core.cancelCurrentModal(); // the user presses Escape in Photoshop's progress bar
    };
    const [outcome] = await runCorrections(host, emulator.backend(), resolveTargets(host, 'document'), toParams({ ...DEFAULT_CHOICES, resize: 'long', resizeValue: 40 }));
    expect(outcome).toMatchObject({ status: 'cancelled' });
    expect(keptDocuments(sim, doc)).toEqual([]);
    expect(sim.core.activeId).toBe(doc.id);
  });

  it('Escape in Photoshop as the pixels are read: nothing is sent, no job is paid for', async () => {
    const { host, sim, doc } = await photoWith();
    const get = sim.imaging.getPixels.bind(sim.imaging);
    sim.imaging.getPixels = async (options) => {
      const got = await get(options);
      sim.core.cancelCurrentModal(); // Escape, pressed as the read ends
      return got;
    };
    const before = serviceCounts();
    const [outcome] = await runCorrections(host, emulator.backend(), resolveTargets(host, 'document'), PARAMS);
    expect(outcome).toMatchObject({ status: 'cancelled', message: 'cancelled: the document was left unchanged' });
    expect(serviceCounts()).toEqual(before);
    expect([doc.layers.length, doc.history.length]).toEqual([1, 1]);
  });

  it('Cancel in the panel while another plug-in holds Photoshop as a resized result arrives: the run ends at once, no document opens', async () => {
    const { host, sim, doc } = await photoWith();
    sim.core.retriesForTimeOut = false; // Photoshop before 25.10: the panel waits for the modal state itself
    const abort = new AbortController();
    // The other plug-in gives Photoshop back 10 s after it took it (a run that waited for that would end only then),
    // or once the run has ended: timed from the test's start instead, a correction slower than 2 s (a loaded machine)
    // got the result after the release and was never held.
    let release = (): void => undefined;
    const holding = throughBackend({ meanwhile: () => {
      sim.core.heldByOther = 'Other Plugin';
      setTimeout(() => abort.abort(), 100);
      const timer = setTimeout(() => release(), 10_000);
      release = () => {
        clearTimeout(timer);
        sim.core.heldByOther = undefined;
      };
    } });
    const [outcome] = await runCorrections(host, holding, resolveTargets(host, 'document'), toParams({ ...DEFAULT_CHOICES, resize: 'long', resizeValue: 40 }), { signal: abort.signal });
    expect(sim.core.heldByOther, 'the run ended while Photoshop was still held').toBe('Other Plugin');
    expect(outcome).toMatchObject({ status: 'cancelled' });
    release();
    // Nothing is left waiting for Photoshop to be free: no document opens once it is.
    await new Promise((r) => setTimeout(r, 200));
    expect(keptDocuments(sim, doc)).toEqual([]);
  });

  it('Correct All, Escape in Photoshop while the first document is read: the run stops, nothing is sent', async () => {
    const { host, sim, doc, rgba } = await photoWith();
    const other = sim.openDocument({ title: 'second.jpg', width: doc.width, height: doc.height, pixels: rgba, channels: 4 });
    const before = serviceCounts();
    sim.core.cancelNextModal();
    const outcomes = await runCorrections(host, emulator.backend(), resolveTargets(host, 'all'), PARAMS);
    expect(outcomes.map((o) => [o.title, o.status])).toEqual([['astronaut.jpg', 'cancelled'], ['second.jpg', 'cancelled']]);
    expect(serviceCounts()).toEqual(before);
    expect([doc.layers.length, other.layers.length]).toEqual([1, 1]);
  });
});
