/** `addResultLayer` / `openResultDocument`: results back into the simulated Photoshop. */
import { describe, expect, it } from 'vitest';
import { addResultLayer, applyLayerResult, newResultDocument } from '../src/ps/apply';
import { checkStrength } from '../src/correct/run';
import { inModal } from '../src/ps/modal';
import { compositeOf, locate, restore, type DocState, type LayerNode } from './sim/index';
import { brighten, loadSample, meanDiff, rgbToRgba, simHost } from './helpers';
import sharp from 'sharp';

async function photoDoc(opts: { bits?: 'bitDepth8' | 'bitDepth16' | 'bitDepth32'; width?: number } = {}) {
  const { host, sim } = simHost();
  const photo = await loadSample('portraits/grace_hopper.jpg', opts.width ?? 96);
  const doc = sim.openDocument({ title: 'grace.psd', width: photo.width, height: photo.height, pixels: photo.pixels, channels: 3, bits: opts.bits });
  return { host, sim, doc, rgba: rgbToRgba(photo.pixels) };
}

function names(layers: LayerNode[]): string[] {
  return layers.map((l) => l.name);
}

const fullRect = (doc: DocState) => ({ left: 0, top: 0, right: doc.width, bottom: doc.height });

describe('addResultLayer', () => {
  it('adds the result as a new top layer holding exactly its pixels, in one named history step that undo removes', async () => {
    const { host, doc, rgba } = await photoDoc();
    const before = structuredClone(doc.layers);
    const result = { width: doc.width, height: doc.height, data: brighten(rgba) };

    const added = await inModal(host, 'Perfectly Clear: Universal', (ctx) =>
      addResultLayer(host, ctx, { documentId: doc.id, rect: fullRect(doc), image: result, name: 'Perfectly Clear: Universal' }),
    );

    expect(names(doc.layers)).toEqual(['Perfectly Clear: Universal', 'Background']);
    const layer = locate(doc.layers, added.layerId)!.node;
    expect(layer.kind).toBe('pixel');
    expect(layer.pixels).toEqual(result.data);
    expect(doc.layers[1]!.pixels).toEqual(before[0]!.pixels); // the original is untouched
    expect(doc.history.map((h) => h.name)).toEqual(['Open', 'Perfectly Clear: Universal']);
    expect(added.resampled).toBe(false);

    restore(doc, doc.history.at(-2)!); // Edit > Undo
    expect(doc.layers).toEqual(before);
  });

  it('puts a layer result directly above its source inside a group, aligned to the source bounds', async () => {
    const { host, doc, rgba } = await photoDoc();
    // A group holding a small pixel layer at (8,6)-(40,30), above the Background.
    const small = new Uint8Array(doc.width * doc.height * 4);
    for (let y = 6; y < 30; y++) for (let x = 8; x < 40; x++) small.set([rgba[(y * doc.width + x) * 4]!, 90, 90, 255], (y * doc.width + x) * 4);
    const inner: LayerNode = { id: 9001, name: 'face', kind: 'pixel', visible: true, isBackground: false, pixels: small, children: null };
    const other: LayerNode = { id: 9002, name: 'other', kind: 'pixel', visible: true, isBackground: false, pixels: new Uint8Array(small.length), children: null };
    doc.layers.unshift({ id: 9000, name: 'Group 1', kind: 'group', visible: true, isBackground: false, pixels: null, children: [other, inner] });
    const rect = { left: 8, top: 6, right: 40, bottom: 30 };
    const image = { width: 32, height: 24, data: new Uint8Array(32 * 24 * 4).fill(255) };

    await inModal(host, 'x', (ctx) => addResultLayer(host, ctx, { documentId: doc.id, sourceLayerId: 9001, rect, image, name: 'PFC' }));

    const group = doc.layers[0]!;
    expect(names(group.children!)).toEqual(['other', 'PFC', 'face']);
    const pfc = group.children![1]!;
    const at = (x: number, y: number) => Array.from(pfc.pixels!.subarray((y * doc.width + x) * 4, (y * doc.width + x) * 4 + 4));
    expect(at(8, 6)).toEqual([255, 255, 255, 255]);
    expect(at(39, 29)).toEqual([255, 255, 255, 255]);
    expect(at(7, 6)[3]).toBe(0);
    expect(at(40, 29)[3]).toBe(0);
  });

  it('puts a whole-document result above a top group, not inside it, and records the descriptors Photoshop expects', async () => {
    const { host, sim, doc, rgba } = await photoDoc();
    const inner: LayerNode = { id: 9101, name: 'inner', kind: 'pixel', visible: true, isBackground: false, pixels: new Uint8Array(rgba.length), children: null };
    doc.layers.unshift({ id: 9100, name: 'Group 1', kind: 'group', visible: true, isBackground: false, pixels: null, children: [inner] });

    await inModal(host, 'x', (ctx) =>
      addResultLayer(host, ctx, { documentId: doc.id, rect: fullRect(doc), image: { width: doc.width, height: doc.height, data: rgba }, name: 'PFC' }),
    );

    expect(names(doc.layers)).toEqual(['PFC', 'Group 1', 'Background']);
    expect(names(doc.layers[1]!.children!)).toEqual(['inner']);
    expect(sim.core.batchPlayLog).toEqual([
      [{ _obj: 'select', _target: [{ _ref: 'layer', _id: 9100 }], makeVisible: false, layerID: [9100], _options: { dialogOptions: 'silent' } }],
      [{ _obj: 'make', _target: [{ _ref: 'layer' }], using: { _obj: 'layer', name: 'PFC' }, _options: { dialogOptions: 'silent' } }],
    ]);
    expect(doc.history).toHaveLength(2);
  });

  it('rolls everything back when cancelled, leaving layers and history as they were', async () => {
    const { host, doc, rgba } = await photoDoc();
    const before = structuredClone(doc.layers);
    const abort = new AbortController();
    abort.abort();
    await expect(
      inModal(host, 'x', (ctx) =>
        addResultLayer(host, ctx, { documentId: doc.id, rect: fullRect(doc), image: { width: doc.width, height: doc.height, data: rgba }, name: 'PFC' }, abort.signal),
      ),
    ).rejects.toThrow('cancelled');
    expect(doc.layers).toEqual(before);
    expect(doc.history.map((h) => h.name)).toEqual(['Open']);
  });

  it('rolls back when the user cancels in Photoshop (Escape) during the modal scope', async () => {
    const { host, sim, doc, rgba } = await photoDoc();
    sim.core.cancelNextModal();
    await expect(
      inModal(host, 'x', (ctx) =>
        addResultLayer(host, ctx, { documentId: doc.id, rect: fullRect(doc), image: { width: doc.width, height: doc.height, data: rgba }, name: 'PFC' }),
      ),
    ).rejects.toThrow('cancelled');
    expect(names(doc.layers)).toEqual(['Background']);
  });

  it('writes 16-bit data into a 16-bit document and linear floats into a 32-bit one', async () => {
    for (const bits of ['bitDepth16', 'bitDepth32'] as const) {
      const { host, sim, doc, rgba } = await photoDoc({ bits, width: 48 });
      const data = brighten(rgba, 20);
      await inModal(host, 'x', (ctx) =>
        addResultLayer(host, ctx, { documentId: doc.id, rect: fullRect(doc), image: { width: doc.width, height: doc.height, data }, name: 'PFC' }),
      );
      expect(sim.imaging.putPixelsLog[0]!.componentSize).toBe(bits === 'bitDepth16' ? 16 : 32);
      expect(meanDiff(doc.layers[0]!.pixels!, data)).toBeLessThan(0.6);
    }
  });

  it('fits a result of another size to the source, and keeps a cut-out layer\'s shape', async () => {
    const { host, doc, rgba } = await photoDoc({ width: 64 });
    const big = await sharp(Buffer.from(brighten(rgba)), { raw: { width: doc.width, height: doc.height, channels: 4 } })
      .resize(doc.width * 2, doc.height * 2).raw().toBuffer();
    const shape = new Uint8Array(doc.width * doc.height).fill(255);
    shape.fill(0, 0, doc.width); // first row transparent in the source

    const added = await inModal(host, 'x', (ctx) =>
      addResultLayer(host, ctx, {
        documentId: doc.id, rect: fullRect(doc), image: { width: doc.width * 2, height: doc.height * 2, data: new Uint8Array(big) },
        keepShapeOf: shape, name: 'PFC',
      }),
    );

    expect(added.resampled).toBe(true);
    const px = doc.layers[0]!.pixels!;
    expect(px[3]).toBe(0);
    expect(px[(doc.width * 5 + 5) * 4 + 3]).toBe(255);
    // Compared with sharp's own downscale of the same big result (a resampler of record).
    const reference = new Uint8Array(await sharp(big, { raw: { width: doc.width * 2, height: doc.height * 2, channels: 4 } }).resize(doc.width, doc.height).raw().toBuffer());
    const rows = (a: Uint8Array) => a.subarray(doc.width * 4 * 2, a.length - doc.width * 4 * 2);
    expect(meanDiff(rows(px), rows(reference))).toBeLessThan(4);
  });

  it('keeps a soft edge as soft as it was when the result comes back with the source\'s alpha (a PNG round trip)', async () => {
    const { host, doc, rgba } = await photoDoc({ width: 64 });
    // Row 0 half transparent (an anti-aliased or feathered edge), as read from the source and as the service returns it.
    const shape = new Uint8Array(doc.width * doc.height).fill(255);
    shape.fill(128, 0, doc.width);
    const result = new Uint8Array(brighten(rgba));
    for (let i = 0; i < shape.length; i++) result[i * 4 + 3] = shape[i]!;
    await inModal(host, 'x', (ctx) =>
      addResultLayer(host, ctx, { documentId: doc.id, rect: fullRect(doc), image: { width: doc.width, height: doc.height, data: result }, keepShapeOf: shape, name: 'PFC' }),
    );
    const px = doc.layers[0]!.pixels!;
    // The source's own alpha, not its square (64): the uncorrected source would show through the edge.
    expect([px[3], px[(doc.width * 5 + 5) * 4 + 3]]).toEqual([128, 255]);
  });

  it('fails clearly when the source layer was deleted meanwhile, and changes nothing', async () => {
    const { host, doc, rgba } = await photoDoc();
    await expect(
      inModal(host, 'x', (ctx) =>
        addResultLayer(host, ctx, { documentId: doc.id, sourceLayerId: 424242, rect: fullRect(doc), image: { width: doc.width, height: doc.height, data: rgba }, name: 'PFC' }),
      ),
    ).rejects.toThrow('source layer was deleted');
    expect(doc.history).toHaveLength(1);
    expect(names(doc.layers)).toEqual(['Background']);
  });

  it('switches to the target document first when another one is active', async () => {
    const { host, sim, doc, rgba } = await photoDoc();
    const other = sim.openDocument({ title: 'other', width: 8, height: 8, pixels: new Uint8Array(8 * 8 * 3), channels: 3 });
    expect(sim.core.activeId).toBe(other.id);
    await inModal(host, 'x', (ctx) =>
      addResultLayer(host, ctx, { documentId: doc.id, rect: fullRect(doc), image: { width: doc.width, height: doc.height, data: rgba }, name: 'PFC' }),
    );
    expect(sim.core.batchPlayLog[0]).toEqual([{ _obj: 'select', _target: [{ _ref: 'document', _id: doc.id }], documentID: doc.id, _options: { dialogOptions: 'silent' } }]);
    expect(names(doc.layers)).toEqual(['PFC', 'Background']);
    expect(names(other.layers)).toEqual(['Background']);
  });
});

describe('newResultDocument', () => {
  it('puts a resized result into a new untitled document, exactly its pixels, with no file anywhere', async () => {
    const { host, sim, rgba, doc } = await photoDoc({ width: 50 });
    const big = { width: 100, height: Math.round((doc.height * 100) / doc.width), data: new Uint8Array(0) };
    big.data = new Uint8Array(await sharp(Buffer.from(rgba), { raw: { width: doc.width, height: doc.height, channels: 4 } }).resize(big.width, big.height).raw().toBuffer());

    const opened = await inModal(host, 'x', (ctx) => newResultDocument(host, ctx, big, 'grace (Perfectly Clear)', 300));

    expect(opened.title).toBe('grace (Perfectly Clear)');
    expect([opened.width, opened.height, opened.resolution]).toEqual([big.width, big.height, 300]);
    const state = sim.core.doc(opened.id);
    expect(compositeOf(state, state.layers)).toEqual(big.data);
    expect(sim.temp.files.size).toBe(0);
    expect(doc.history).toHaveLength(1); // the source document is untouched
  });

  it('closes the half-made document when the user cancels while it is filled', async () => {
    const { host, sim, doc } = await photoDoc({ width: 40 });
    const count = sim.core.docs.size;
    const image = { width: 20, height: 20, data: new Uint8Array(20 * 20 * 4).fill(200) };
    const run = inModal(host, 'x', async (ctx) => {
      sim.core.beforeCall = (call) => call === 'putPixels' && sim.core.cancelCurrentModal();
      return newResultDocument(host, ctx, image, 'cancelled', 72);
    });
    await expect(run).rejects.toThrow();
    expect(sim.core.docs.size).toBe(count);
    expect(sim.core.activeId).toBe(doc.id);
  });
});

/** Photoshop free at once: no other plug-in or dialog holds it in these tests. */
const NO_WAIT = { seconds: 0 };

/** `result` for the source layer `sourceLayerId` (its pixels `source`), applied at 50 % strength. */
function atHalfStrength(doc: DocState, sourceLayerId: number, result: { width: number; height: number; data: Uint8Array }, source: Uint8Array) {
  return { documentId: doc.id, sourceLayerId, rect: fullRect(doc), image: result, name: 'PFC', strength: 50, sourcePixels: () => ({ width: doc.width, height: doc.height, data: source.slice() }) };
}

describe('the new layer keeps its source\'s look', () => {
  it('takes over a Multiply 80 % source: its mask, blend mode and opacity, the source hidden, the strength mixed into the pixels', async () => {
    const { host, sim, doc, rgba } = await photoDoc({ width: 40 });
    // A pixel layer over the Background with a mask hiding its left half, in Multiply at 80 %.
    const mask = new Uint8Array(doc.width * doc.height);
    for (let y = 0; y < doc.height; y++) mask.fill(255, y * doc.width + (doc.width >> 1), (y + 1) * doc.width);
    const masked: LayerNode = { id: 7700, name: 'masked', kind: 'pixel', visible: true, isBackground: false, pixels: rgba.slice(), children: null, mask, blendMode: 'multiply', opacity: 80 };
    doc.layers.unshift(masked);
    doc.activeLayerIds = [7700];
    const result = { width: doc.width, height: doc.height, data: brighten(rgba) };

    const added = await applyLayerResult(host, atHalfStrength(doc, 7700, result, rgba), NO_WAIT);

    const node = locate(doc.layers, added.layerId)!.node;
    expect(node.mask).toEqual(mask); // what the mask hid stays hidden
    expect(node.blendMode).toBe('multiply');
    // The result takes the source's place: its opacity, the source hidden, the strength a mix of the pixels.
    expect([node.opacity, masked.visible, added.sourceHidden]).toEqual([80, false, true]);
    for (const i of [0, 1, 2, 4 * 17 + 1]) expect(node.pixels![i]).toBe(Math.round(rgba[i]! + (result.data[i]! - rgba[i]!) * 0.5));
    // So the picture is the one the source made, with corrected pixels: nothing counted twice.
    const alone = doc.layers.filter((l) => l.id !== 7700);
    expect(compositeOf(doc, doc.layers)).toEqual(compositeOf(doc, alone));
    expect(sim.core.progressLog.map((p) => p.value)).toEqual([0.1, 0.4, 0.8]); // Photoshop's progress bar moves
    expect(doc.history.map((h) => h.name)).toEqual(['Open', 'PFC']); // still one step
    expect(sim.imaging.live.size).toBe(0);
  });

  it('refuses a result whose source starts to take over after the mix was decided, leaving the document as it was', async () => {
    const { host, sim, doc, rgba } = await photoDoc({ width: 40 });
    const plain: LayerNode = { id: 7710, name: 'plain', kind: 'pixel', visible: true, isBackground: false, pixels: rgba.slice(), children: null };
    doc.layers.unshift(plain);
    const before = structuredClone(doc.layers);
    sim.core.onModal = (name) => {
      if (name === 'PFC') plain.blendMode = 'multiply'; // the user's change, between the two scopes
    };

    const result = { width: doc.width, height: doc.height, data: brighten(rgba) };
    await expect(applyLayerResult(host, atHalfStrength(doc, 7710, result, rgba), NO_WAIT)).rejects.toThrow(
      '"plain" changed (blend mode, opacity, fill or mask) while the result was being added, so the strength could not be applied; nothing was changed: run the correction again',
    );
    expect(doc.layers).toEqual([{ ...before[0]!, blendMode: 'multiply' }, ...before.slice(1)]);
    expect(doc.history.map((h) => h.name)).toEqual(['Open']);
  });

  it('a source that stops taking over after the mix was decided gets the result\'s own pixels, at the strength as opacity', async () => {
    const { host, sim, doc, rgba } = await photoDoc({ width: 40 });
    const tinted: LayerNode = { id: 7720, name: 'tinted', kind: 'pixel', visible: true, isBackground: false, pixels: rgba.slice(), children: null, blendMode: 'multiply' };
    doc.layers.unshift(tinted);
    sim.core.onModal = (name) => {
      if (name === 'PFC') tinted.blendMode = 'normal';
    };

    const result = { width: doc.width, height: doc.height, data: brighten(rgba) };
    const added = await applyLayerResult(host, atHalfStrength(doc, 7720, result, rgba), NO_WAIT);

    const node = locate(doc.layers, added.layerId)!.node;
    expect([node.opacity, tinted.visible, added.sourceHidden]).toEqual([50, true, false]);
    expect(node.pixels).toEqual(result.data);
  });

  it('a whole-document result takes the strength as its opacity', async () => {
    const { host, doc, rgba } = await photoDoc({ width: 30 });
    const added = await inModal(host, 'PFC', (ctx) =>
      addResultLayer(host, ctx, { documentId: doc.id, rect: fullRect(doc), image: { width: doc.width, height: doc.height, data: rgba }, name: 'PFC', strength: 65 }),
    );
    expect(locate(doc.layers, added.layerId)!.node.opacity).toBe(65);
  });
});

describe('strength', () => {
  it('is refused outside 1–100 with a message naming it and the range, before anything runs', () => {
    for (const bad of [0, 101, 12.5, Number.NaN]) expect(() => checkStrength(bad)).toThrow(/strength must be a whole number from 1 to 100/);
    expect(() => checkStrength(1)).not.toThrow();
  });
});

describe('selection only', () => {
  it('masks the result to the active selection, combined with the source layer\'s own mask', async () => {
    const { host, doc, rgba } = await photoDoc({ width: 40 });
    const selection = new Uint8Array(doc.width * doc.height);
    for (let y = 0; y < doc.height >> 1; y++) selection.fill(255, y * doc.width, (y + 1) * doc.width); // top half selected
    doc.selection = selection;
    const result = { width: doc.width, height: doc.height, data: brighten(rgba) };
    const added = await inModal(host, 'PFC', (ctx) =>
      addResultLayer(host, ctx, { documentId: doc.id, rect: fullRect(doc), image: result, name: 'PFC', selectionOnly: true }),
    );
    const node = locate(doc.layers, added.layerId)!.node;
    expect(node.mask).toEqual(selection);
    const shown = compositeOf(doc, doc.layers);
    const bottom = ((doc.height - 1) * doc.width + 3) * 4;
    expect([...shown.subarray(bottom, bottom + 4)]).toEqual([...rgba.subarray(bottom, bottom + 4)]); // outside: the original
    expect(doc.history.map((h) => h.name)).toEqual(['Open', 'PFC']);
  });

  it('without a selection, or unchecked, adds no mask', async () => {
    const { host, doc, rgba } = await photoDoc({ width: 30 });
    const image = { width: doc.width, height: doc.height, data: rgba };
    const a = await inModal(host, 'PFC', (ctx) => addResultLayer(host, ctx, { documentId: doc.id, rect: fullRect(doc), image, name: 'PFC', selectionOnly: true }));
    expect(locate(doc.layers, a.layerId)!.node.mask).toBeUndefined();
    doc.selection = new Uint8Array(doc.width * doc.height).fill(255);
    const b = await inModal(host, 'PFC2', (ctx) => addResultLayer(host, ctx, { documentId: doc.id, rect: fullRect(doc), image, name: 'PFC2' }));
    expect(locate(doc.layers, b.layerId)!.node.mask).toBeUndefined();
  });
});
