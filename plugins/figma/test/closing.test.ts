/**
 * The user closes the plugin window while "Apply accepted" is putting a result
 * into its layers. Figma stops the plugin there: no API works for it any more
 * and nothing after its pending `await` runs (test/sim/session.ts). Every layer
 * changed by then must still lead back to its original — Restore and "Correct
 * again" in a later session — and the layers not reached must be as they were.
 * A commit that fails on a layer puts the records back as they were.
 * Driven through the plugin's messages; checked on the layers' fills, their
 * plugin data and what Restore and a new plan do.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { CROPS_KEY, ORIGINALS_KEY, PAINTS_KEY } from '../src/main/fills';
import { DEFAULT_OPTIONS } from '../src/shared/run-options';
import { connect, freshSim, makeImage } from './helpers';
import { imageFill, type SimFigma } from './sim/figma';
import type { SimShape } from './sim/nodes';

let A: Uint8Array, OUT: Uint8Array, OUT2: Uint8Array;
beforeAll(async () => {
  [A, OUT, OUT2] = await Promise.all([
    makeImage(64, 48, 'jpeg', { r: 10, g: 20, b: 30 }),
    makeImage(64, 48, 'jpeg', { r: 250, g: 200, b: 150 }),
    makeImage(64, 48, 'jpeg', { r: 120, g: 200, b: 40 }),
  ]);
});

const options = { options: DEFAULT_OPTIONS };
/** A few turns of the event loop: time for a plugin that was not stopped to go on. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));
const imageOf = (layer: SimShape) => (layer.fills as ImagePaint[])[0]?.imageHash;
/** A layer's records, under every key a correction writes. */
const recordsOf = (layer: SimShape) => [ORIGINALS_KEY, CROPS_KEY, PAINTS_KEY].map((key) => layer.getPluginData(key));

/** Three layers showing the same photo, each framed its own way, selected. */
function threePhotos(sim: SimFigma) {
  const original = sim.addImage(A);
  const fills = [
    [imageFill(original, { opacity: 0.7 })],
    [imageFill(original, { scaleMode: 'FIT', rotation: 90 })],
    [imageFill(original, { scaleMode: 'TILE', scalingFactor: 0.5, filters: { exposure: 0.2 } })],
  ];
  const layers = fills.map((f, i) => sim.rect(`Photo ${i + 1}`, f));
  sim.place(...layers);
  sim.select(...layers);
  return { original, fills, layers };
}

/** A new session with `layers` selected running `command` (Restore closes by itself): its notification. */
async function relaunch(sim: SimFigma, command: 'restore', layers: SimShape[]): Promise<string | undefined> {
  sim.select(...layers);
  const shown = sim.notifications.length;
  await connect(sim, { command });
  await expect.poll(() => sim.notifications.length).toBe(shown + 1);
  return sim.notifications.at(-1)?.message;
}

describe('closing the window during "Apply accepted"', () => {
  it.each([
    ['right after the first layer\'s change', (sim: SimFigma) => sim.closeWindowAfter('setFillsAsync', 1)],
    ['while the second layer\'s change is pending (it never lands)', (sim: SimFigma) => sim.closeWindowDuring('setFillsAsync', 2)],
  ])('closed %s: every layer changed is restorable, and the others are as they were', async (_, closeWindow) => {
    const sim = freshSim();
    const t = await connect(sim);
    const { original, fills, layers } = threePhotos(sim);
    const plan = await t.request('run/plan', options);
    await t.request('image/stage', { runId: plan.runId, hash: original, bytes: OUT });
    const closed = closeWindow(sim);
    // Never answered: the window closes while the plugin applies.
    void t.request('image/apply', { runId: plan.runId, hash: original, relaunchNote: 'note' });
    await closed;
    await settle();
    const changed = layers.filter((l) => imageOf(l) !== original);
    expect(changed.map((l) => l.name)).toEqual(['Photo 1']);
    expect(layers.slice(1).map((l) => l.fills)).toEqual(fills.slice(1));

    // "Correct again" in a new session: the changed layer's original is found and sent (one job with the others').
    const again = await connect(sim, { command: 'correct-again' });
    sim.select(...layers);
    const againPlan = await again.request('run/plan', options);
    expect(againPlan.images).toHaveLength(1);
    expect(againPlan.images[0]?.notes).toContain('corrected before: corrected again from its original, replacing the earlier correction');
    expect(await again.request('image/read', { runId: againPlan.runId, hash: againPlan.images[0]!.hash })).toEqual({ bytes: A, format: 'jpeg' });
    sim.closePlugin();

    // Restore in a new session: the changed layer gets its original paint back; the others are left alone and not named.
    expect(await relaunch(sim, 'restore', layers)).toBe('Restored the original image on 1 layer');
    expect(layers.map((l) => l.fills)).toEqual(fills);
    expect(recordsOf(layers[0]!)).toEqual(['', '', '']);
  });

  it('a layer corrected before whose change the close cut off still leads back to its original', async () => {
    const sim = freshSim();
    const t = await connect(sim);
    const { original, fills, layers } = threePhotos(sim);
    const [reached, corrected] = [layers[0]!, layers[1]!];
    sim.select(corrected);
    const first = await t.put({ runId: (await t.request('run/plan', options)).runId, hash: original, bytes: OUT, relaunchNote: '' });
    // Both in one job (the original is sent once): the layer showing the original is changed first.
    sim.select(reached, corrected);
    const plan = await t.request('run/plan', options);
    await t.request('image/stage', { runId: plan.runId, hash: plan.images[0]!.hash, bytes: OUT2 });
    // Closed while the second layer's change is pending: it never lands.
    const closed = sim.closeWindowDuring('setFillsAsync', 2);
    void t.request('image/apply', { runId: plan.runId, hash: plan.images[0]!.hash, relaunchNote: '' });
    await closed;
    await settle();
    expect([imageOf(reached) === original, imageOf(corrected)]).toEqual([false, first.newHash]);

    expect(await relaunch(sim, 'restore', [reached, corrected])).toBe('Restored the original image on 2 layers');
    expect([reached.fills, corrected.fills]).toEqual(fills.slice(0, 2));
  });

  it('a failed commit puts back each layer\'s fills and records as they were', async () => {
    const sim = freshSim();
    const t = await connect(sim);
    const { original, fills, layers } = threePhotos(sim);
    // The first layer was corrected before: its records must come back exactly.
    sim.select(layers[0]!);
    const once = await t.put({ runId: (await t.request('run/plan', options)).runId, hash: original, bytes: OUT, relaunchNote: '' });
    sim.select(...layers);
    const before = layers.map((l) => [l.fills, recordsOf(l)]);
    expect(recordsOf(layers[0]!)[0]).toBe(JSON.stringify({ [once.newHash]: original }));

    const plan = await t.request('run/plan', options);
    sim.fillsFaults.set(layers[2]!.id, new Error('layer is locked by a library'));
    await expect(t.put({ runId: plan.runId, hash: plan.images[0]!.hash, bytes: OUT2, relaunchNote: '' })).rejects.toThrow(/locked/);
    expect(layers.map((l) => [l.fills, recordsOf(l)])).toEqual(before);
    expect(layers.slice(1).map((l) => l.fills)).toEqual(fills.slice(1));
  });
});
