/**
 * Correct Layer on layers that are more than plain Normal 100 % pixels: the
 * document must look like the source, corrected. Driven as the panel's button
 * does (`resolveTargets` + `runCorrections`) against the emulator; what the
 * user sees is checked: the composite, against the same document with the
 * source's pixels replaced by the corrected ones; the result layer's
 * properties; and the notes for what could not be carried over.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_CHOICES, toParams } from '../src/correct/options';
import { runCorrections, type Outcome } from '../src/correct/run';
import { resolveTargets } from '../src/correct/targets';
import { emulatorForFile } from './emulator-engine';
import { loadSample, pixelLayer, rgbToRgba, simHost } from './helpers';
import { cloneLayers, compositeOf, locate, type DocState, type LayerNode } from './sim/index';

const { backend } = emulatorForFile();

/**
 * A document with a flat blue Background (so that whatever the source lets through shows) and `layers` above it
 * (topmost first) made from a photo, the first of them selected.
 */
async function photoWith(layers: (photo: Uint8Array, doc: DocState) => LayerNode[], clipsLayersOverClipped = true) {
  const { host, sim } = simHost();
  sim.core.clipsLayersOverClipped = clipsLayersOverClipped;
  const photo = await loadSample('portraits/astronaut.jpg', 64);
  const blue = new Uint8Array(photo.pixels.length).map((_v, i) => [40, 90, 200][i % 3]!);
  const doc = sim.openDocument({ title: 'astronaut.psd', width: photo.width, height: photo.height, pixels: blue, channels: 3 });
  const added = layers(rgbToRgba(photo.pixels), doc);
  doc.layers.unshift(...added);
  doc.activeLayerIds = [added[0]!.id];
  return { host, sim, doc, rgba: rgbToRgba(photo.pixels) };
}

/** A canvas-sized grey mask: `inside(x, y)` shown (255), the rest hidden (0). */
function maskOf(doc: DocState, inside: (x: number, y: number) => boolean): Uint8Array {
  const mask = new Uint8Array(doc.width * doc.height);
  for (let y = 0; y < doc.height; y++) for (let x = 0; x < doc.width; x++) mask[y * doc.width + x] = inside(x, y) ? 255 : 0;
  return mask;
}

/** Correct the selected layer as the panel's Correct Layer button does. */
async function correctLayer(host: ReturnType<typeof simHost>['host'], options: { selectionOnly?: boolean } = {}): Promise<Outcome> {
  const [outcome] = await runCorrections(host, backend(), resolveTargets(host, 'layer'), toParams(DEFAULT_CHOICES), options);
  expect(outcome).toMatchObject({ status: 'done' });
  return outcome!;
}

/**
 * What the user should see: the layers as they were, with the source's pixels replaced by the corrected ones (the
 * result layer's), composited. Compared with the document's composite, channel by channel.
 */
function differenceFromCorrectedSource(doc: DocState, before: LayerNode[], sourceId: number, resultId: number): number {
  const expected = cloneLayers(before);
  locate(expected, sourceId)!.node.pixels = locate(doc.layers, resultId)!.node.pixels!.slice();
  const want = compositeOf(doc, expected);
  const got = compositeOf(doc, doc.layers);
  let worst = 0;
  for (let i = 0; i < got.length; i++) worst = Math.max(worst, Math.abs(got[i]! - want[i]!));
  return worst;
}

const HIDDEN_NOTE = 'was hidden: the corrected layer took over its blend mode, opacity, fill and mask, which would otherwise count twice (show it again to compare)';

describe('Correct Layer keeps the look of its source', () => {
  it('a layer at 100 % opacity and 40 % fill with a layer style: the result takes over its fill, the source is hidden, and the style\'s fate is said', async () => {
    const { host, doc } = await photoWith((rgba) => [
      pixelLayer(501, 'glow', rgba, { fillOpacity: 40, effects: { _obj: 'layerEffects', dropShadow: { _obj: 'dropShadow', enabled: true } } }),
    ]);
    const before = cloneLayers(doc.layers);

    const outcome = await correctLayer(host);

    const result = doc.layers[0]!;
    expect(differenceFromCorrectedSource(doc, before, 501, result.id)).toBeLessThanOrEqual(1);
    expect([result.name, result.fillOpacity, result.opacity ?? 100, result.blendMode ?? 'normal']).toEqual(['Perfectly Clear: Universal', 40, 100, 'normal']);
    expect(doc.layers[1]!.visible).toBe(false);
    expect(outcome.notes).toContain(`"glow" ${HIDDEN_NOTE}`);
    expect(outcome.notes).toContain('the effects (layer style) of "glow" are hidden with it and were not copied to the result: to show them, copy them onto it (Layer > Layer Style > Copy Layer Style, then Paste Layer Style)');
    expect(doc.history.map((h) => h.name)).toEqual(['Open', 'Perfectly Clear: Universal']);
  });

  it('a layer mask at 60 % density and a 2 px feather: the result\'s mask has both, and the source, shown at 40 % where it hid, is taken over', async () => {
    const { host, doc } = await photoWith((rgba, d) => [
      pixelLayer(502, 'masked', rgba, { mask: maskOf(d, (x) => x >= d.width / 2), maskDensity: 60, maskFeather: 2 }),
    ]);
    const before = cloneLayers(doc.layers);

    const outcome = await correctLayer(host);

    const result = doc.layers[0]!;
    expect(differenceFromCorrectedSource(doc, before, 502, result.id)).toBeLessThanOrEqual(1);
    expect(result.mask).toEqual(before[0]!.mask);
    expect([result.maskDensity, result.maskFeather]).toEqual([60, 2]);
    expect(doc.layers[1]!.visible).toBe(false);
    expect(outcome.notes).toContain(`"masked" ${HIDDEN_NOTE}`);
  });

  it('a layer mask that cannot be read fails the correction, naming it, and adds nothing (never a result that shows what the mask hid)', async () => {
    const { host, doc } = await photoWith((rgba, d) => [pixelLayer(505, 'masked', rgba, { mask: maskOf(d, (x) => x >= d.width / 2) })]);
    const before = cloneLayers(doc.layers);
    host.ps.imaging.getLayerMask = () => Promise.reject(new Error('Photoshop could not read the mask'));

    const [outcome] = await runCorrections(host, backend(), resolveTargets(host, 'layer'), toParams(DEFAULT_CHOICES));

    expect(outcome).toMatchObject({ status: 'failed' });
    expect(outcome!.message).toContain('its layer mask could not be read (Photoshop could not read the mask)');
    expect(doc.layers.map((l) => l.id)).toEqual(before.map((l) => l.id));
    expect(doc.history.map((h) => h.name)).toEqual(['Open']);
  });

  it('with Selection only, the source mask\'s density goes into the combined mask\'s pixels and its feather is said to be left out', async () => {
    const { host, doc } = await photoWith((rgba, d) => [
      pixelLayer(503, 'masked', rgba, { mask: maskOf(d, (x) => x >= d.width / 2), maskDensity: 50, maskFeather: 3 }),
    ]);
    doc.selection = maskOf(doc, (_x, y) => y < doc.height / 2);

    const outcome = await correctLayer(host, { selectionOnly: true });

    const result = doc.layers[0]!;
    const at = (x: number, y: number) => result.mask![y * doc.width + x];
    // Selected and hidden by the source's mask: shown at 50 %; outside the selection: hidden.
    expect([at(2, 2), at(doc.width - 2, 2), at(2, doc.height - 2)]).toEqual([128, 255, 0]);
    expect([result.maskDensity ?? 100, result.maskFeather ?? 0]).toEqual([100, 0]);
    expect(outcome.notes).toContain('the feather of the layer mask of "masked" (3 px) was not carried over: the result\'s mask combines that mask with the selection or cut-out, and a feather would soften those too');
  });

  it('a layer mask that is switched off hides nothing on the result either, and the note says it stays on the source', async () => {
    const { host, doc } = await photoWith((rgba, d) => [pixelLayer(504, 'unmasked', rgba, { mask: maskOf(d, (x) => x < 8), maskEnabled: false })]);
    const before = cloneLayers(doc.layers);

    const outcome = await correctLayer(host);

    const result = doc.layers[0]!;
    expect(differenceFromCorrectedSource(doc, before, 504, result.id)).toBeLessThanOrEqual(1);
    expect(result.mask).toBeUndefined();
    expect(doc.layers[1]!.visible).toBe(true); // Normal 100 %: covered, not taken over
    expect(outcome.notes).toContain('the layer mask of "unmasked" is switched off, so the result was not masked by it; the mask stays on "unmasked"');
  });

  it('Blend If cannot be copied: the note says the result shows what it hid', async () => {
    const range = { _obj: 'blendRange', channel: { _ref: 'channel', _enum: 'channel', _value: 'gray' }, srcBlackMin: 0, srcBlackMax: 0, srcWhiteMin: 255, srcWhiteMax: 255, destBlackMin: 40, destBlackMax: 90, destWhiteMin: 255, desaturate: 255 };
    const { host } = await photoWith((rgba) => [pixelLayer(505, 'blended', rgba, { blendRange: [range] })]);

    const outcome = await correctLayer(host);

    expect(outcome.notes).toContain('"blended" uses Blend If (Layer Style > Blending Options), which was not copied: the result shows the pixels it hid; set the same ranges on the result to match');
  });
});

describe('Correct Layer in a clipping mask', () => {
  /** A base showing only a centred square, with the photo above it. */
  function framed(photo: Uint8Array, doc: DocState, over: Partial<LayerNode>): LayerNode[] {
    const square = photo.map((v, i) => {
      const p = i >> 2, x = p % doc.width, y = Math.floor(p / doc.width);
      const inside = x >= 16 && x < 48 && y >= 16 && y < 48;
      return (i & 3) === 3 ? (inside ? 255 : 0) : 200;
    });
    return [pixelLayer(601, 'photo', photo, over), pixelLayer(600, 'frame', square)];
  }

  for (const clipsLayersOverClipped of [false, true]) {
    it(`a source clipped to the layer below gives a result clipped the same way, nothing spilling outside the base (${clipsLayersOverClipped ? 'a new layer over a clipped one joins it' : 'it does not'})`, async () => {
      const { host, doc } = await photoWith((rgba, d) => framed(rgba, d, { clipped: true }), clipsLayersOverClipped);
      const before = cloneLayers(doc.layers);

      await correctLayer(host);

      const [result, source, base] = doc.layers;
      const corner = compositeOf(doc, doc.layers).subarray(0, 4); // outside the base: the Background only
      expect([...corner]).toEqual([...compositeOf(doc, [doc.layers.at(-1)!]).subarray(0, 4)]);
      expect(differenceFromCorrectedSource(doc, before, 601, result!.id)).toBeLessThanOrEqual(1);
      expect([result!.clipped, source!.clipped, base!.clipped ?? false]).toEqual([true, true, false]);
    });
  }

  it('a source that is the base of a clipping mask, taken over (80 % opacity): the result becomes the base and the clipped layer stays shown, now clipped to it', async () => {
    const { host, doc } = await photoWith((rgba, d) => {
      const tint = new Uint8Array(rgba.length);
      for (let i = 0; i < tint.length; i += 4) tint.set([255, 120, 60, 255], i);
      const half = maskOf(d, (_x, y) => y < d.height / 2);
      return [pixelLayer(702, 'tint', tint, { clipped: true, blendMode: 'multiply' }), pixelLayer(701, 'subject', rgba, { opacity: 80, mask: half })];
    });
    doc.activeLayerIds = [701];
    const before = cloneLayers(doc.layers);

    await correctLayer(host);

    expect(differenceFromCorrectedSource(doc, before, 701, doc.layers[1]!.id)).toBeLessThanOrEqual(1);
    expect(doc.layers.map((l) => [l.name, l.clipped ?? false, l.visible])).toEqual([
      ['tint', true, true], ['Perfectly Clear: Universal', false, true], ['subject', false, false], ['Background', false, true],
    ]);
  });

  it('Correct Document over a clipped top layer puts a result that is clipped to nothing', async () => {
    const { host, doc } = await photoWith((rgba, d) => framed(rgba, d, { clipped: true }));

    const [outcome] = await runCorrections(host, backend(), resolveTargets(host, 'document'), toParams(DEFAULT_CHOICES));

    expect(outcome).toMatchObject({ status: 'done' });
    const result = doc.layers[0]!;
    expect([...compositeOf(doc, doc.layers).subarray(0, 4)]).toEqual([...result.pixels!.subarray(0, 4)]); // covers the corner too
    expect(result.clipped ?? false).toBe(false);
  });
});
