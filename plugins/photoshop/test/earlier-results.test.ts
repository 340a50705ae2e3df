/**
 * A second correction of what the panel corrected before (other options,
 * or the same button pressed again): the new result replaces the earlier one.
 * Correct Document reads the document without the earlier result on top (the
 * upload is the first one's, byte for byte, and no history step is left);
 * Correct Layer's new layer is seen, not hidden under the earlier one; both
 * hide the earlier layer (never delete it) in their own history step, saying
 * so. Driven as the panel's buttons do against the emulator; checked on the
 * bytes sent, the layers, the history and the composite the user sees.
 */
import { createHash } from 'node:crypto';
import type { CorrectionBackend } from '@pfc/core';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CHOICES, toParams } from '../src/correct/options';
import { makePreview } from '../src/correct/preview';
import { runCorrections } from '../src/correct/run';
import { resolveTargets } from '../src/correct/targets';
import { emulatorForFile } from './emulator-engine';
import { loadSample, meanDiff, rgbToRgba, simHost } from './helpers';
import { compositeOf, locate } from './sim/index';

const emulator = emulatorForFile();
const UNIVERSAL = toParams(DEFAULT_CHOICES);
const PRO = toParams({ ...DEFAULT_CHOICES, preset: 'Pro' });
/** No colour correction: a result close to the photo, far from the default correction's. */
const NONE = toParams({ ...DEFAULT_CHOICES, preset: 'none' });
const HIDDEN = 'an earlier result, was hidden: the new layer replaces it (show it again to compare)';

/** The emulator's backend, recording a hash of every upload. */
function recordingBackend(): { backend: CorrectionBackend; sent: string[] } {
  const sent: string[] = [];
  const real = emulator.backend();
  const backend = new Proxy(real, {
    get(target, key, receiver) {
      if (key !== 'correct') return Reflect.get(target, key, receiver);
      return (input: Uint8Array, ...rest: unknown[]) => {
        sent.push(createHash('sha1').update(input).digest('hex'));
        return (target.correct as (...a: unknown[]) => unknown)(input, ...rest);
      };
    },
  });
  return { backend, sent };
}

async function photoDocument() {
  const { host, sim } = simHost();
  const photo = await loadSample('portraits/astronaut.jpg', 96);
  const doc = sim.openDocument({ title: 'astronaut.psd', width: photo.width, height: photo.height, pixels: photo.pixels, channels: 3 });
  return { host, sim, doc, photo };
}

describe('a second correction replaces the earlier result', () => {
  it('Correct Document again: the composite is read without the earlier result, which is hidden, not deleted', async () => {
    const { host, doc } = await photoDocument();
    const { backend, sent } = recordingBackend();
    await runCorrections(host, backend, resolveTargets(host, 'document'), UNIVERSAL);
    const [second] = await runCorrections(host, backend, resolveTargets(host, 'document'), PRO);

    expect(second).toMatchObject({ status: 'done' });
    // The same pixels went both times: the photo as it was, not the first result.
    expect(sent).toHaveLength(2);
    expect(sent[1]).toBe(sent[0]);
    expect(doc.layers.map((l) => [l.name, l.visible])).toEqual([['Perfectly Clear: Pro', true], ['Perfectly Clear: Universal', false], ['Background', true]]);
    // Reading left no step behind: one step per correction.
    expect(doc.history.map((h) => h.name)).toEqual(['Open', 'Perfectly Clear: Universal', 'Perfectly Clear: Pro']);
    expect(second!.notes).toContain(`"Perfectly Clear: Universal", ${HIDDEN}`);
  });

  it('Correct Layer again on the same layer: the new result is the one seen, the earlier one above it hidden', async () => {
    const { host, sim, doc, photo } = await photoDocument();
    // The photo on a layer of its own over a blue Background, selected.
    const blue = new Uint8Array(photo.width * photo.height * 4).map((_v, i) => [40, 90, 200, 255][i % 4]!);
    locate(doc.layers, doc.layers[0]!.id)!.node.pixels = blue;
    doc.layers.unshift({ id: 901, name: 'Photo', kind: 'pixel', visible: true, isBackground: false, pixels: rgbToRgba(photo.pixels), children: null });
    doc.activeLayerIds = [901];
    const [first] = await runCorrections(host, emulator.backend(), resolveTargets(host, 'layer'), UNIVERSAL);
    expect(first).toMatchObject({ status: 'done' });

    sim.core.doc(doc.id).activeLayerIds = [901];
    const [second] = await runCorrections(host, emulator.backend(), resolveTargets(host, 'layer'), NONE);

    expect(second).toMatchObject({ status: 'done' });
    expect(doc.layers.map((l) => [l.name, l.visible])).toEqual([['Perfectly Clear: Universal', false], ['Perfectly Clear: no colour correction', true], ['Photo', true], ['Background', true]]);
    // What the user sees is the new result.
    const shown = compositeOf(doc, doc.layers);
    expect(meanDiff(shown, doc.layers[1]!.pixels!)).toBeLessThanOrEqual(0.5);
    expect(meanDiff(shown, locate(doc.layers, first!.layerId!)!.node.pixels!)).toBeGreaterThan(1);
    expect(second!.notes).toContain(`"Perfectly Clear: Universal", ${HIDDEN}`);
  });

  it('the document preview is made of the document without the earlier result, and leaves no step', async () => {
    const { host, doc } = await photoDocument();
    const { backend, sent } = recordingBackend();
    await makePreview(host, backend, UNIVERSAL, 'document');
    await runCorrections(host, backend, resolveTargets(host, 'document'), UNIVERSAL);
    await makePreview(host, backend, PRO, 'document');

    expect(sent).toHaveLength(3);
    expect(sent[2]).toBe(sent[0]);
    expect(doc.layers.map((l) => [l.name, l.visible])).toEqual([['Perfectly Clear: Universal', true], ['Background', true]]);
    expect(doc.history.map((h) => h.name)).toEqual(['Open', 'Perfectly Clear: Universal']);
  });

  it('Correct Layer on a result layer itself corrects it once more, and says how to correct from the original', async () => {
    const { host, sim, doc } = await photoDocument();
    await runCorrections(host, emulator.backend(), resolveTargets(host, 'document'), UNIVERSAL);
    sim.core.doc(doc.id).activeLayerIds = [doc.layers[0]!.id];
    const [again] = await runCorrections(host, emulator.backend(), resolveTargets(host, 'layer'), PRO);
    expect(again!.notes).toContain('"Perfectly Clear: Universal" is a layer Perfectly Clear added, so its correction was corrected once more; to correct from the original, select the layer it was made from');
  });
});
