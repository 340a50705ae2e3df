/**
 * Which layers the selection walk reaches, and what it costs: a layer the
 * user cannot see (hidden itself or under a hidden frame or group) counts as
 * hidden; "Include hidden" reaches hidden layers inside instances, and so does
 * Restore; one selected in the layers panel, which the plugin cannot even read
 * while it skips invisible instance layers, is skipped with why, and the window
 * works for the rest; the walk on every selection change does not call into
 * the plugin for each node of a large frame.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_OPTIONS, type RunOptions } from '../src/shared/run-options';
import { connect, freshSim, makeImage } from './helpers';
import { imageFill, solidFill, type SimFigma } from './sim/figma';
import type { SimFrame, SimShape } from './sim/nodes';
import { keeperOf } from './user-steps';

let A: Uint8Array, B: Uint8Array, OUT: Uint8Array, OUT2: Uint8Array;
beforeAll(async () => {
  [A, B, OUT, OUT2] = await Promise.all([
    makeImage(64, 48, 'jpeg', { r: 10, g: 20, b: 30 }),
    makeImage(80, 60, 'png', { r: 40, g: 50, b: 60 }),
    makeImage(64, 48, 'jpeg', { r: 250, g: 200, b: 150 }),
    makeImage(80, 60, 'png', { r: 5, g: 100, b: 200 }),
  ]);
});

const opts = (o: Partial<RunOptions> = {}) => ({ options: { ...DEFAULT_OPTIONS, ...o } });
const hashes = (plan: { images: { hash: string }[] }) => plan.images.map((i) => i.hash).sort();

describe('hidden layers', () => {
  it('treats a visible layer inside a hidden frame as hidden: not counted, not sent, and says which layer hides it', async () => {
    const t = await connect();
    const a = t.sim.addImage(A);
    const photo = t.sim.rect('Photo', [imageFill(a)]);
    const frame = t.sim.frame('Hidden frame', [t.sim.group('Group', [photo])]);
    frame.visible = false;
    t.sim.place(frame);
    // Picked in the layers panel: the layer is selected, though nothing of it shows on the canvas.
    const selection = t.next('selection');
    t.sim.select(photo);
    expect((await selection).selection).toEqual({ layers: 1, images: 0, fills: 0 });
    const plan = await t.request('run/plan', opts());
    expect(plan.images).toEqual([]);
    expect(plan.skipped).toEqual([{ nodeId: photo.id, nodeName: 'Photo', reason: expect.stringMatching(/^is inside the hidden layer "Hidden frame".*Include hidden/) }]);

    const all = await t.request('run/plan', opts({ includeHidden: true }));
    expect(hashes(all)).toEqual([a]);
    const applied = await t.put({ runId: all.runId, hash: a, bytes: OUT, relaunchNote: '' });
    expect(photo.fills).toEqual([imageFill(applied.newHash), keeperOf(a)]);
  });

  it('"Include hidden" reaches a hidden layer inside an instance, and Restore puts its original back', async () => {
    const sim = freshSim();
    const t = await connect(sim);
    const [a, b] = [sim.addImage(A), sim.addImage(B)];
    const hiddenPhoto = sim.rect('Hidden photo', [imageFill(b)]);
    hiddenPhoto.visible = false;
    const card = sim.frame('Card', [sim.rect('Photo', [imageFill(a)]), hiddenPhoto], [], 'COMPONENT');
    const instance = card.createInstance();
    sim.place(card, instance);
    sim.select(instance);
    expect(hashes(await t.request('run/plan', opts()))).toEqual([a]);
    const plan = await t.request('run/plan', opts({ includeHidden: true }));
    expect(hashes(plan)).toEqual([a, b].sort());
    const applied = await t.put({ runId: plan.runId, hash: b, bytes: OUT, relaunchNote: '' });
    await t.request('run/end', { runId: plan.runId, summary: { done: 1, failed: 0, skipped: 0, rejected: 0, cancelled: false } });
    expect(applied.nodesChanged).toBe(1);
    const inInstance = instance.kids.list.find((n) => n.name === 'Hidden photo') as SimShape;
    // The test reads the document directly; only the plugin's view hides invisible instance layers (sim/session.ts).
    const look = () => inInstance.fills;
    expect(look()).toEqual([imageFill(applied.newHash), keeperOf(b)]);
    expect(hiddenPhoto.fills).toEqual([imageFill(b)]);

    sim.closePlugin();
    sim.select(instance);
    await connect(sim, { command: 'restore' });
    await expect.poll(() => sim.notifications.at(-1)?.message).toBe('Restored the original image on 1 layer');
    expect(look()).toEqual([imageFill(b)]);
  });
});

describe('a layer hidden inside an instance, selected in the layers panel', () => {
  /** `promise`, or a failure naming what the plugin notified instead of answering. */
  async function answered<T>(sim: SimFigma, promise: Promise<T>): Promise<T> {
    const silence = new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no answer; notified: ${JSON.stringify(sim.notifications)}`)), 2000));
    return Promise.race([promise, silence]);
  }

  it('opens and works for the other layers; the hidden ones are skipped, saying why, and corrected with "Include hidden"', async () => {
    const sim = freshSim();
    const [a, b] = [sim.addImage(A), sim.addImage(B)];
    const hiddenPhoto = sim.rect('Hidden photo', [imageFill(b)]);
    hiddenPhoto.visible = false;
    const hiddenFrame = sim.frame('Hidden frame', [sim.rect('Inner photo', [imageFill(b)])]);
    hiddenFrame.visible = false;
    const card = sim.frame('Card', [hiddenPhoto, hiddenFrame], [], 'COMPONENT');
    const instance = card.createInstance();
    const photo = sim.rect('Photo', [imageFill(a)]);
    sim.place(card, instance, photo);
    const inInstance = instance.kids.list[0] as SimShape;
    const innerInInstance = (instance.kids.list[1] as SimFrame).kids.list[0] as SimShape;
    // "Correct again" reads the options saved on the selection as the window opens.
    const t = await connect(sim, { command: 'correct-again' });
    sim.select(inInstance, innerInInstance, photo);
    const init = t.next('init');
    t.send({ type: 'ui/ready' });
    expect((await answered(sim, init)).selection).toEqual({ layers: 3, images: 1, fills: 1 });
    const selection = t.next('selection');
    sim.select(photo, inInstance, innerInInstance);
    expect((await answered(sim, selection)).selection).toEqual({ layers: 3, images: 1, fills: 1 });

    const plan = await answered(sim, t.request('run/plan', opts()));
    expect(hashes(plan)).toEqual([a]);
    expect(plan.skipped).toEqual([
      { nodeId: inInstance.id, nodeName: 'Hidden photo', reason: 'is hidden inside the instance "Card"; hidden layers are not sent (tick "Include hidden layers and fills" to correct them)' },
      { nodeId: innerInInstance.id, nodeName: 'Inner photo', reason: 'is inside the hidden layer "Hidden frame" of the instance "Card", so it cannot be seen; hidden layers are not sent (tick "Include hidden layers and fills" to correct them)' },
    ]);
    const applied = await t.put({ runId: plan.runId, hash: a, bytes: OUT, relaunchNote: '' });
    expect(photo.fills).toEqual([imageFill(applied.newHash), keeperOf(a)]);
    expect([inInstance.fills, innerInInstance.fills]).toEqual([[imageFill(b)], [imageFill(b)]]);

    const all = await t.request('run/plan', opts({ includeHidden: true }));
    expect(all.skipped).toEqual([]);
    const hidden = await t.put({ runId: all.runId, hash: b, bytes: OUT2, relaunchNote: '' });
    expect([inInstance.fills, innerInInstance.fills]).toEqual([
      [imageFill(hidden.newHash), keeperOf(b)],
      [imageFill(hidden.newHash), keeperOf(b)],
    ]);
    expect(hiddenPhoto.fills).toEqual([imageFill(b)]);
  });
});

describe('selection changes', () => {
  it('counts the images of a frame of 3000 layers without calling into the plugin for each layer', async () => {
    const t = await connect();
    const a = t.sim.addImage(A);
    const layers = Array.from({ length: 3000 }, (_, i) => t.sim.rect(`Shape ${i}`, i % 1000 === 0 ? [imageFill(a)] : [solidFill(0.5, 0.5, 0.5)]));
    const frame = t.sim.frame('Screen', [t.sim.group('Content', layers)]);
    t.sim.place(frame);
    const selection = t.next('selection');
    t.sim.select(frame);
    expect((await selection).selection).toEqual({ layers: 1, images: 1, fills: 3 });
    expect(t.sim.callbacks).toBe(0);
  });
});
