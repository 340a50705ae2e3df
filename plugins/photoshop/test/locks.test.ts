/**
 * Layer locks, locked groups and artboards. The simulator refuses what Photoshop's docs say each lock prevents, and
 * more where they are silent (test/sim/state.ts, dom.ts, imaging.ts, photoshop.ts); the panel must refuse a result a
 * lock would keep out before anything is sent, naming the layer and what to do, and a lock set while the service
 * works must leave the document as it was. Driven as the panel's buttons do, against the emulator; checked on the
 * layers, the history, the outcome's message and the emulator's own record of jobs and storage requests.
 */
import { describe, expect, it } from 'vitest';
import type { PsLayer } from '../src/host/types';
import { makePreview } from '../src/correct/preview';
import { runCorrections } from '../src/correct/run';
import { resolveTargets, type Scope } from '../src/correct/targets';
import { findLayer } from '../src/ps/commands';
import { inModal } from '../src/ps/modal';
import { groupLayer, loadSample, pixelLayer, rgbToRgba, simHost } from './helpers';
import { emulator, keptDocuments, PARAMS, photoWith, press, RESULT, serviceCounts, tree } from './press';
import { cloneLayers, locate, type DocState, type LayerNode } from './sim/index';

type SimHost = ReturnType<typeof simHost>;

const HOW_TO_UNLOCK = 'select it in the Layers panel and click the lit lock icon at the top of the panel';

/** Press a button and expect it refused before anything reached the service, the document left exactly as it was. */
async function expectRefused(host: SimHost['host'], doc: DocState, scope: Scope, layerId: number | undefined, message: string): Promise<void> {
  const before = { layers: tree(doc.layers), history: doc.history.length };
  const { outcome, jobs, storage } = await press(host, doc, scope, layerId);
  expect(outcome).toMatchObject({ status: 'failed', message });
  expect({ jobs, storage }).toEqual({ jobs: 0, storage: 0 });
  expect({ layers: tree(doc.layers), history: doc.history.length }).toEqual(before);
}

describe('the simulated Photoshop refuses what a lock prevents', () => {
  /** Try `change` on layer 300 (locked as `locks`, inside a group locked as `groupLocks`) in a modal scope. */
  async function attempt(locks: LayerNode['locks'], groupLocks: LayerNode['locks'], change: (layer: PsLayer, host: SimHost['host'], docId: number) => unknown) {
    const { host, doc, rgba } = await photoWith((px) => [
      pixelLayer(301, 'above', px),
      groupLayer(310, 'Group', [
        pixelLayer(300, 'target', px, { locks, blendMode: 'multiply', mask: new Uint8Array(px.length / 4).fill(255) }),
        pixelLayer(302, 'below', px),
      ], { locks: groupLocks }),
    ]);
    const before = { layers: tree(doc.layers), history: doc.history.length };
    const run = inModal(host, 'x', async () => change(findLayer(host.ps.app.activeDocument!.layers, 300)!, host, doc.id));
    return { run, unchanged: () => expect({ layers: tree(doc.layers), history: doc.history.length }).toEqual(before), rgba };
  }
  const putPixels = async (layer: PsLayer, host: SimHost['host'], docId: number) => {
    const imageData = await host.ps.imaging.createImageDataFromBuffer(new Uint8Array(16), { width: 2, height: 2, components: 4, colorSpace: 'RGB' });
    await host.ps.imaging.putPixels({ documentID: docId, layerID: layer.id, imageData });
  };
  const putMask = async (layer: PsLayer, host: SimHost['host'], docId: number) => {
    const imageData = await host.ps.imaging.createImageDataFromBuffer(new Uint8Array(4), { width: 2, height: 2, components: 1, colorSpace: 'Grayscale' });
    await host.ps.imaging.putLayerMask({ documentID: docId, layerID: layer.id, imageData });
  };
  const moveUp = (layer: PsLayer, host: SimHost['host']) => layer.move(host.ps.app.activeDocument!.layers[0]!, 'placeBefore');

  it.each([
    ['Lock All: hiding', { all: true }, {}, (l: PsLayer) => (l.visible = false)],
    ['Lock All: the blend mode', { all: true }, {}, (l: PsLayer) => (l.blendMode = 'normal')],
    ['Lock All: the opacity', { all: true }, {}, (l: PsLayer) => (l.opacity = 50)],
    ['Lock All: the fill', { all: true }, {}, (l: PsLayer) => (l.fillOpacity = 50)],
    ['Lock All: clipping', { all: true }, {}, (l: PsLayer) => (l.isClippingMask = true)],
    ['Lock All: the mask density', { all: true }, {}, (l: PsLayer) => (l.layerMaskDensity = 50)],
    ['Lock All: pixels', { all: true }, {}, putPixels],
    ['Lock All: the mask', { all: true }, {}, putMask],
    ['Lock All: restacking', { all: true }, {}, moveUp],
    ['Lock Image Pixels: pixels', { pixels: true }, {}, putPixels],
    ['Lock Image Pixels: the mask', { pixels: true }, {}, putMask],
    ['Lock Transparent Pixels: pixels', { transparentPixels: true }, {}, putPixels],
    ['Lock Position: restacking', { position: true }, {}, moveUp],
    ["a locked group's layer: its opacity", {}, { all: true }, (l: PsLayer) => (l.opacity = 50)],
    ["a locked group's layer: leaving it", {}, { pixels: true }, moveUp],
  ] as const)('%s', async (_, locks, groupLocks, change) => {
    const { run, unchanged } = await attempt(locks, groupLocks, change);
    await expect(run).rejects.toThrow(/locked/);
    unchanged();
  });

  it('lets what a lock does not name through: the opacity of a pixel-locked layer, the pixels of a position-locked one', async () => {
    for (const [locks, change] of [[{ pixels: true, position: true }, (l: PsLayer) => (l.opacity = 50)], [{ position: true }, putPixels]] as const) {
      await (await attempt(locks, {}, change)).run;
    }
  });

  it('refuses to change the Background\'s blend mode, opacity, place or mask, as Photoshop does', async () => {
    const { host, doc } = await photoWith((px) => [pixelLayer(330, 'top', px)]);
    const before = { layers: tree(doc.layers), history: doc.history.length };
    const background = () => host.ps.app.activeDocument!.layers[1]!;
    for (const change of [
      (l: PsLayer) => (l.blendMode = 'multiply'),
      (l: PsLayer) => (l.opacity = 50),
      (l: PsLayer) => moveUp(l, host),
      (l: PsLayer) => putMask(l, host, doc.id),
    ]) {
      await expect(inModal(host, 'x', async () => change(background()))).rejects.toThrow(/background layer/);
    }
    expect({ layers: tree(doc.layers), history: doc.history.length }).toEqual(before);
  });

  it('refuses to release a clipping mask whose clipped layers above have Lock All', async () => {
    const { host, doc } = await photoWith((px) => [pixelLayer(322, 'tone', px, { clipped: true, locks: { all: true } }), pixelLayer(321, 'tint', px, { clipped: true }), pixelLayer(320, 'base', px)]);
    const before = tree(doc.layers);
    await expect(inModal(host, 'x', async () => (findLayer(host.ps.app.activeDocument!.layers, 321)!.isClippingMask = false))).rejects.toThrow(/"tone" is locked/);
    expect(tree(doc.layers)).toEqual(before);
  });

  it('answers a layer\'s own locks (the Background: position and transparency), and refuses a new layer anywhere inside a locked group', async () => {
    const { host, sim, doc } = await photoWith((px) => [groupLayer(410, 'Locked', [groupLayer(411, 'Open', [pixelLayer(401, 'deep', px)]), pixelLayer(400, 'inner', px)], { locks: { all: true } })]);
    const [group, background] = host.ps.app.activeDocument!.layers;
    const locks = (l: PsLayer) => [l.allLocked, l.pixelsLocked, l.positionLocked, l.transparentPixelsLocked];
    expect([locks(background!), locks(group!), locks(group!.layers![1]!)]).toEqual([[false, false, true, true], [true, false, false, false], [false, false, false, false]]);
    for (const selected of [400, 401]) {
      const answers = await inModal(host, 'x', async () => {
        await host.ps.action.batchPlay([{ _obj: 'select', _target: [{ _ref: 'layer', _id: selected }] }], {});
        return host.ps.action.batchPlay([{ _obj: 'make', _target: [{ _ref: 'layer' }], using: { _obj: 'layer', name: 'new' } }], {});
      });
      // As Photoshop answers a Make it cannot do (adobe-photoshop/spaces-design#1399).
      expect(answers).toEqual([{ _obj: 'error', message: 'The command “Make” is not currently available.', result: -25920 }]);
    }
    expect(tree(doc.layers)).toEqual([['Locked', true, false, { all: true }, [['Open', true, false, {}, [['deep', true, false, {}]]], ['inner', true, false, {}]]], ['Background', true, false, {}]]);
    expect(sim.core.doc(doc.id).history).toHaveLength(1);
  });
});

describe('Correct Layer and Correct Document with locked layers', () => {
  it('the Background of a freshly opened JPEG, whose position and transparency are locked, is corrected as ever', async () => {
    const { host, doc } = await photoWith();
    const background = host.ps.app.activeDocument!.layers[0]!;
    expect([background.isBackgroundLayer, background.positionLocked, background.transparentPixelsLocked]).toEqual([true, true, true]);

    const layer = await press(host, doc, 'layer', background.id);
    const whole = await press(host, doc, 'document');

    expect([layer.outcome.status, whole.outcome.status, layer.jobs, whole.jobs]).toEqual(['done', 'done', 1, 1]);
    expect(doc.layers.map((l) => [l.name, l.visible])).toEqual([[RESULT, true], [RESULT, false], ['Background', true]]);
  });

  it.each([
    ['Lock Image Pixels', { pixels: true }],
    ['Lock Position', { position: true }],
    ['Lock Transparent Pixels', { transparentPixels: true }],
  ])('a Multiply source with %s is taken over as any other: the result takes its look, and the source is hidden', async (_, locks) => {
    const { host, doc } = await photoWith((px) => [pixelLayer(500, 'tint', px, { blendMode: 'multiply', locks })]);

    const { outcome, jobs } = await press(host, doc, 'layer', 500);

    expect([outcome.status, jobs]).toEqual(['done', 1]);
    expect(doc.layers.map((l) => [l.name, l.blendMode ?? 'normal', l.visible])).toEqual([[RESULT, 'multiply', true], ['tint', 'multiply', false], ['Background', 'normal', true]]);
  });

  it('a source with Lock All that the result covers (Normal, 100 %) gets its result above it, and stays as it was', async () => {
    const { host, doc } = await photoWith((px) => [pixelLayer(510, 'retouched', px, { locks: { all: true } })]);

    const { outcome } = await press(host, doc, 'layer', 510);

    expect(outcome.status).toBe('done');
    expect(tree(doc.layers)).toEqual([[RESULT, true, false, {}], ['retouched', true, false, { all: true }], ['Background', true, false, {}]]);
  });

  it('a masked source without Lock All has its mask read once, as the result is added: the check before sending does not read it', async () => {
    const { host, sim, doc } = await photoWith((px) => [pixelLayer(515, 'masked', px, { mask: new Uint8Array(px.length / 4).fill(255) })]);

    const { outcome } = await press(host, doc, 'layer', 515);

    expect(outcome.status).toBe('done');
    expect(sim.imaging.getLayerMaskLog).toEqual([515]);
  });

  it('a source with Lock All that the result would take over (it must be hidden) is refused before anything is sent', async () => {
    const { host, doc } = await photoWith((px) => [pixelLayer(520, 'tint', px, { blendMode: 'multiply', locks: { all: true } })]);
    await expectRefused(host, doc, 'layer', 520,
      `"tint" is locked, so it cannot be hidden under the result, which takes over its blend mode, opacity, fill and mask: unlock it (${HOW_TO_UNLOCK}), then correct again; nothing was sent`);
  });

  it('a layer clipped to the source with Lock All (it must clip to the result instead) is refused before anything is sent', async () => {
    const { host, doc } = await photoWith((px) => [pixelLayer(531, 'tone', px, { clipped: true, locks: { all: true } }), pixelLayer(530, 'subject', px)]);
    await expectRefused(host, doc, 'layer', 530,
      `"tone" is clipped to "subject" and locked, so it cannot be clipped to the result layer instead: unlock it (${HOW_TO_UNLOCK}), then correct again; nothing was sent`);
  });

  it('an earlier result with Lock All (it must be hidden) is refused before anything is sent; hidden by the user, it is left alone', async () => {
    const { host, doc } = await photoWith();
    expect((await press(host, doc, 'document')).outcome.status).toBe('done');
    const earlier = doc.layers[0]!;
    earlier.locks = { all: true };

    await expectRefused(host, doc, 'document', undefined,
      `"${RESULT}", the earlier result the new one replaces, is locked, so it cannot be hidden: unlock it (${HOW_TO_UNLOCK}) or hide it yourself, then correct again; nothing was sent`);

    earlier.visible = false;
    expect((await press(host, doc, 'document')).outcome.status).toBe('done');
    expect(tree(doc.layers)).toEqual([[RESULT, true, false, {}], [RESULT, false, false, { all: true }], ['Background', true, false, {}]]);
  });
});

describe('Correct Layer in locked groups and artboards', () => {
  it.each([
    ['Lock All', { all: true }],
    ['Lock Position', { position: true }],
  ])('a source in a group with %s is refused before anything is sent, naming the group', async (_, locks) => {
    const { host, doc } = await photoWith((px) => [groupLayer(610, 'Retouch', [pixelLayer(600, 'face', px)], { locks })]);
    await expectRefused(host, doc, 'layer', 600,
      `"face" is inside the locked group "Retouch", where Photoshop cannot add the result layer: unlock it (${HOW_TO_UNLOCK}), or use Correct Document, then correct again; nothing was sent`);
  });

  it('a source in an unlocked group inside locked ones is refused, naming every locked one', async () => {
    const { host, doc } = await photoWith((px) => [
      groupLayer(620, 'Board', [groupLayer(621, 'Outer', [groupLayer(622, 'Inner', [pixelLayer(623, 'face', px)])], { locks: { all: true } })], { artboard: true, locks: { position: true } }),
    ]);
    await expectRefused(host, doc, 'layer', 623,
      `"face" is inside the locked group "Outer" and the locked artboard "Board", where Photoshop cannot add the result layer: unlock them (${HOW_TO_UNLOCK}), then correct again; nothing was sent`);
  });

  it('a source in an unlocked artboard gets its result directly above it, inside the artboard', async () => {
    const { host, doc } = await photoWith((px) => [groupLayer(630, 'Artboard 1', [pixelLayer(631, 'shoes', px), pixelLayer(632, 'face', px)], { artboard: true })]);
    expect(host.ps.app.activeDocument!.artboards.map((a) => [a.name, a.kind])).toEqual([['Artboard 1', 'group']]);

    const { outcome } = await press(host, doc, 'layer', 632);

    expect(outcome.status).toBe('done');
    expect(tree(doc.layers)).toEqual([['Artboard 1', true, false, {}, [['shoes', true, false, {}], [RESULT, true, false, {}], ['face', true, false, {}]]], ['Background', true, false, {}]]);
  });

  it('Correct Layer with an artboard selected says it is an artboard, before anything is read', async () => {
    const { host, sim, doc } = await photoWith((px) => [groupLayer(640, 'Artboard 1', [pixelLayer(641, 'face', px)], { artboard: true })]);
    doc.activeLayerIds = [640];
    expect(() => resolveTargets(host, 'layer')).toThrow('"Artboard 1" is an artboard; Correct Layer works on pixel, smart object and text layers. Select one inside it.');
    expect(sim.imaging.getPixelsLog).toEqual([]);
  });

  it('Preview of a layer in a locked group is refused the same way, before its job is sent', async () => {
    const { host, doc } = await photoWith((px) => [groupLayer(650, 'Retouch', [pixelLayer(651, 'face', px)], { locks: { all: true } })]);
    doc.activeLayerIds = [651];
    const before = serviceCounts();
    await expect(makePreview(host, emulator.backend(), PARAMS, 'layer')).rejects.toThrow(
      `"face" is inside the locked group "Retouch", where Photoshop cannot add the result layer: unlock it (${HOW_TO_UNLOCK}), or use Correct Document, then correct again; nothing was sent`);
    expect(serviceCounts()).toEqual(before);
  });
});

describe('Correct Document under locked groups and artboards', () => {
  it('with a locked group on top, the result is made beside the Background and moved above the group, which stays as it was', async () => {
    const { host, sim, doc } = await photoWith((px) => [groupLayer(700, 'Locked', [pixelLayer(701, 'inner', px)], { locks: { all: true } })]);

    const { outcome } = await press(host, doc, 'document');

    expect(outcome.status).toBe('done');
    expect(tree(doc.layers)).toEqual([[RESULT, true, false, {}], ['Locked', true, false, { all: true }, [['inner', true, false, {}]]], ['Background', true, false, {}]]);
    const background = doc.layers[2]!.id;
    expect(sim.core.batchPlayLog.map((d) => [d[0]!._obj, d[0]!._target?.[0]?._id])).toEqual([['select', background], ['make', undefined]]);
  });

  it('with every top-level layer a locked group, it is refused before anything is sent', async () => {
    const { host, sim } = simHost();
    const photo = await loadSample('portraits/astronaut.jpg', 64);
    // Opened with transparency: no Background, every layer in a group.
    const doc = sim.openDocument({ title: 'groups.psd', width: photo.width, height: photo.height, pixels: rgbToRgba(photo.pixels), channels: 4 });
    const layer0 = doc.layers[0]!;
    doc.layers = [groupLayer(710, 'Retouch', [], { locks: { all: true } }), groupLayer(711, 'Photo', [layer0], { locks: { position: true } })];

    await expectRefused(host, doc, 'document', undefined,
      `every layer at the top of "groups.psd" is a locked group, so Photoshop cannot add the result layer above them: unlock "Retouch" (${HOW_TO_UNLOCK}), then correct again; nothing was sent`);
  });
});

describe('a document of artboards', () => {
  const ARTBOARDS = '"boards.psd" has artboards, and a result of the whole canvas would be a layer outside them, which exporting an artboard leaves out: select the photo\'s layer inside an artboard and use Correct Layer; nothing was sent';

  /** A document made with artboards (no Background), the photo in the second one. */
  async function boards() {
    const { host, sim } = simHost();
    const photo = await loadSample('portraits/astronaut.jpg', 64);
    const doc = sim.openDocument({ title: 'boards.psd', width: photo.width, height: photo.height, pixels: rgbToRgba(photo.pixels), channels: 4 });
    const layer0 = doc.layers[0]!;
    doc.layers = [groupLayer(710, 'Artboard 1', [], { artboard: true }), groupLayer(711, 'Artboard 2', [layer0], { artboard: true })];
    return { host, sim, doc, photoLayer: layer0.id };
  }

  it('Correct Document is refused before anything is read or sent: its result would sit outside every artboard', async () => {
    const { host, sim, doc } = await boards();
    await expectRefused(host, doc, 'document', undefined, ARTBOARDS);
    expect(sim.imaging.getPixelsLog).toEqual([]);
  });

  it('the preview of the document is refused the same way, and Correct All Open Documents reports it for that document', async () => {
    const { host, doc } = await boards();
    const before = serviceCounts();
    await expect(makePreview(host, emulator.backend(), PARAMS, 'document')).rejects.toThrow(ARTBOARDS);
    const outcomes = await runCorrections(host, emulator.backend(), resolveTargets(host, 'all'), PARAMS);
    expect(outcomes.map((o) => [o.title, o.status, o.message])).toEqual([['boards.psd', 'failed', ARTBOARDS]]);
    expect(serviceCounts()).toEqual(before);
    expect(tree(doc.layers)).toEqual([['Artboard 1', true, false, {}, []], ['Artboard 2', true, false, {}, [['Layer 0', true, false, {}]]]]);
  });

  it('Correct Layer on the photo inside an artboard puts its result above it, inside the artboard', async () => {
    const { host, doc, photoLayer } = await boards();
    expect((await press(host, doc, 'layer', photoLayer)).outcome.status).toBe('done');
    expect(tree(doc.layers)).toEqual([['Artboard 1', true, false, {}, []], ['Artboard 2', true, false, {}, [[RESULT, true, false, {}], ['Layer 0', true, false, {}]]]]);
  });
});

describe('a lock set while the service works', () => {
  /** Correct Layer on `sourceId`, with `lock` done to the layers as the result's history step opens (the user locked something meanwhile). */
  async function lockedMeanwhile(doc: DocState, host: SimHost['host'], sim: SimHost['sim'], sourceId: number, lock: (layers: LayerNode[]) => void) {
    sim.core.onModal = (name) => {
      if (name === RESULT) lock(doc.layers);
    };
    const locked = cloneLayers(doc.layers);
    lock(locked);
    const history = doc.history.map((h) => h.name);
    const pressed = await press(host, doc, 'layer', sourceId);
    // Nothing of the result is left: the layers are as the user left them (with the lock), and no history step was added.
    expect({ layers: tree(doc.layers), history: doc.history.map((h) => h.name) }).toEqual({ layers: tree(locked), history });
    return pressed;
  }

  const KEPT = 'it was opened as a new document, "astronaut (Perfectly Clear)", instead (Layer > Duplicate Layer… puts it back in place)';

  it('a group locked around the source: the job ran, the result is not added, the document is left as it was, the result kept as a document of its own, and the message says why', async () => {
    const { host, sim, doc } = await photoWith((px) => [groupLayer(810, 'Retouch', [pixelLayer(800, 'face', px)])]);

    const { outcome, jobs } = await lockedMeanwhile(doc, host, sim, 800, (layers) => (locate(layers, 810)!.node.locks = { all: true }));

    expect(jobs).toBe(1);
    expect(outcome).toMatchObject({
      status: 'failed',
      message: `"face" is inside the locked group "Retouch", where Photoshop cannot add the result layer (locked after the pixels were sent), so the result could not be added as a layer; ${KEPT}`,
    });
    expect(keptDocuments(sim, doc).map((d) => [d.title, d.width, d.height])).toEqual([['astronaut (Perfectly Clear)', doc.width, doc.height]]);
    expect(tree(doc.layers)[0]).toEqual(['Retouch', true, false, { all: true }, [['face', true, false, {}]]]);
  });

  it('a source locked that the result must hide: nothing is left half-done', async () => {
    const { host, sim, doc } = await photoWith((px) => [pixelLayer(820, 'tint', px, { blendMode: 'multiply' })]);

    const { outcome } = await lockedMeanwhile(doc, host, sim, 820, (layers) => (locate(layers, 820)!.node.locks = { all: true }));

    expect(outcome.message).toBe(`"tint" is locked, so it cannot be hidden under the result, which takes over its blend mode, opacity, fill and mask (locked after the pixels were sent), so the result could not be added as a layer; ${KEPT}`);
    expect(keptDocuments(sim, doc)).toHaveLength(1);
    expect(doc.layers.map((l) => [l.name, l.visible])).toEqual([['tint', true], ['Background', true]]);
  });
});
