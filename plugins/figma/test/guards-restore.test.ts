/**
 * Guards of the way back to the originals: Restore after what users do
 * between corrections (reframing, correcting again, hidden fills, layers
 * that refuse, originals no longer in the file, text given several fills) and
 * after a window closed during "Apply accepted". Driven through the UI's
 * messages and the menu commands on the simulated Figma; checked on the
 * layers' fills and the notifications.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { PAINTS_KEY } from '../src/main/fills';
import { KEEPERS_KEY } from '../src/main/keepers';
import { connect, freshSim, makeImage } from './helpers';
import { imageFill } from './sim/figma';
import { correctWith, hashesOf, keeperOf, opts, restore, restoreWhy, withoutHiddenFills } from './user-steps';

let A: Uint8Array, B: Uint8Array, OUT: Uint8Array, OUT2: Uint8Array, SMALL: Uint8Array;
beforeAll(async () => {
  [A, B, OUT, OUT2, SMALL] = await Promise.all([
    makeImage(64, 48, 'jpeg', { r: 10, g: 20, b: 30 }),
    makeImage(80, 60, 'png', { r: 40, g: 50, b: 60 }),
    makeImage(64, 48, 'jpeg', { r: 250, g: 200, b: 150 }),
    makeImage(80, 60, 'png', { r: 1, g: 2, b: 3 }),
    makeImage(32, 24, 'jpeg', { r: 200, g: 30, b: 90 }),
  ]);
});

describe('Restore', () => {
  it('takes off what the correction added to a fill: a TILE fill given without scalingFactor gets its tiles back as they were', async () => {
    const sim = freshSim();
    const t = await connect(sim);
    const a = sim.addImage(A);
    // The typings make scalingFactor optional (`ImagePaint.scalingFactor?`): a fill made by another plugin may lack it.
    const tiled = imageFill(a, { scaleMode: 'TILE' });
    const layer = sim.rect('Tiled', [tiled]);
    sim.place(layer);
    sim.select(layer);
    // A result half as wide: the tiles keep their size on the canvas with scalingFactor 2.
    const r = await correctWith(t, a, SMALL);
    // The original stays in the layer, in a hidden fill after the others (keepers.ts), until the restore.
    expect(layer.fills).toEqual([imageFill(r.newHash, { scaleMode: 'TILE', scalingFactor: 2 }), keeperOf(a)]);
    expect(await restore(sim, layer)).toBe('Restored the original image on 1 layer');
    expect(layer.fills).toEqual([tiled]);
  });

  it('brings back the first original after a layer corrected by a version without paint records is corrected again', async () => {
    const sim = freshSim();
    const t = await connect(sim);
    const a = sim.addImage(A);
    const paint = imageFill(a, { opacity: 0.6 });
    const layer = sim.rect('Photo', [paint]);
    sim.place(layer);
    sim.select(layer);
    await correctWith(t, a, OUT);
    // As a version of the plugin that kept no paint records left it: nor keepers.
    layer.setPluginData(PAINTS_KEY, '');
    layer.setPluginData(KEEPERS_KEY, '');
    layer.fills = withoutHiddenFills(layer);
    sim.closePlugin();
    sim.select(layer);
    const again = await connect(sim);
    const r = await correctWith(again, hashesOf(layer)[0] as string, OUT2);
    // Corrected again, the layer gets a keeper of its first original, still in the file.
    expect(hashesOf(layer)).toEqual([r.newHash, a]);

    expect(await restore(sim, layer)).toBe('Restored the original image on 1 layer');
    expect(layer.fills).toEqual([paint]);
  });

  it('after correct, reframe, correct again: brings back the original image in the framing the user chose, not the first result', async () => {
    const sim = freshSim();
    const t = await connect(sim);
    const a = sim.addImage(A);
    const layer = sim.rect('Photo', [imageFill(a)]);
    sim.place(layer);
    sim.select(layer);
    const first = await correctWith(t, a, OUT);
    // The user crops the corrected photo in the properties panel (the hidden fill keeping the original stays).
    const framing: Transform = [
      [0.5, 0, 0.25],
      [0, 0.5, 0.25],
    ];
    layer.fills = [imageFill(first.newHash, { scaleMode: 'CROP', imageTransform: framing }), keeperOf(a)];
    sim.closePlugin();
    sim.select(layer);
    // Corrected again (a result of the same shape): the user's framing stays.
    const second = await correctWith(await connect(sim), first.newHash, OUT2);
    expect(layer.fills).toEqual([imageFill(second.newHash, { scaleMode: 'CROP', imageTransform: framing }), keeperOf(a)]);

    expect(await restore(sim, layer)).toBe('Restored the original image on 1 layer; 1 fill you reframed keeps your framing');
    expect(layer.fills).toEqual([imageFill(a, { scaleMode: 'CROP', imageTransform: framing })]);
  });
  it('restores the layers whose original is in the file and names what is missing, where an original is no longer in the file', async () => {
    const sim = freshSim();
    const t = await connect(sim);
    const [a, b] = [sim.addImage(A), sim.addImage(B)];
    const first = sim.rect('First', [imageFill(a)]);
    const second = sim.rect('Second', [imageFill(b)]);
    sim.place(first, second);
    sim.select(first, second);
    const ra = await correctWith(t, a, OUT);
    const rb = await correctWith(t, b, OUT2);
    // The user deletes the hidden fill that kept the second original in the file; reopened, the file no longer holds it.
    second.fills = withoutHiddenFills(second);
    sim.reopenFile();

    expect(await restore(sim, first, second)).toBe('Restored the original image on 1 layer; 1 original is no longer in this file');
    expect([hashesOf(first), hashesOf(second)]).toEqual([[a], [rb.newHash]]);
    expect(ra.newHash).not.toBe(a);
  });
  it('restores the other layers when a corrected text layer has since been given several fills, and names that one as left', async () => {
    const sim = freshSim();
    const t = await connect(sim);
    const a = sim.addImage(A);
    const caption = sim.rect('Caption', [imageFill(a)], 'TEXT');
    const photo = sim.rect('Photo', [imageFill(a)]);
    sim.place(caption, photo);
    sim.select(caption, photo);
    const r = await correctWith(t, a, OUT);
    expect([hashesOf(caption), hashesOf(photo)]).toEqual([[r.newHash, a], [r.newHash, a]]);
    // The user colours a word of the caption differently.
    caption.fillPartOfText();

    // The toast: the count, and the selection says which layer; Why says what to do.
    expect(await restore(sim, caption, photo)).toBe('Restored the original image on 1 layer; 1 layer changed since is left as it is, selected');
    expect(photo.fills).toEqual([imageFill(a)]);
    expect(sim.page.selection.map((n) => n.name)).toEqual(['Caption']);
    expect(restoreWhy(sim).at(-1)).toBe('"Caption": part of the text has another fill (give the text one fill to restore it)');
  });
  it('refuses clearly and changes nothing when a layer refuses its original', async () => {
    const sim = freshSim();
    const t = await connect(sim);
    const a = sim.addImage(A);
    const layers = [sim.rect('One', [imageFill(a)]), sim.rect('Two', [imageFill(a)])];
    sim.place(...layers);
    sim.select(...layers);
    const r = await correctWith(t, a, OUT);
    sim.fillsFaults.set(layers[1]!.id, new Error('the layer is locked by a library'));

    expect(await restore(sim, ...layers)).toBe('Nothing was changed: the originals could not be restored (the layer is locked by a library)');
    expect(layers.map(hashesOf)).toEqual([[r.newHash, a], [r.newHash, a]]);
  });
});

describe('hidden fills', () => {
  it('a hidden fill of an image a visible fill also shows is left as it is unless hidden fills are included; Restore brings back both after two corrections', async () => {
    const sim = freshSim();
    const t = await connect(sim);
    const a = sim.addImage(A);
    const fills = [imageFill(a, { opacity: 0.9 }), imageFill(a, { scaleMode: 'FIT', visible: false })];
    const layer = sim.rect('Photo', fills);
    sim.place(layer);
    sim.select(layer);
    const first = await correctWith(t, a, OUT, { includeHidden: true });
    expect(hashesOf(layer)).toEqual([first.newHash, first.newHash, a]);
    sim.closePlugin();
    sim.select(layer);
    const second = await correctWith(await connect(sim), first.newHash, OUT2);
    // Only the visible fill: the hidden one still shows the first result. The keeper of the original stays one.
    expect(hashesOf(layer)).toEqual([second.newHash, first.newHash, a]);

    expect(await restore(sim, layer)).toBe('Restored the original image on 1 layer');
    expect(layer.fills).toEqual(fills);
  });

  it('the same, with the window closed during the second correction: the next start keeps the way back of the hidden fill', async () => {
    const sim = freshSim();
    const t = await connect(sim);
    const a = sim.addImage(A);
    const fills = [imageFill(a, { opacity: 0.9 }), imageFill(a, { scaleMode: 'FIT', visible: false })];
    const layer = sim.rect('Photo', fills);
    sim.place(layer);
    sim.select(layer);
    const first = await correctWith(t, a, OUT, { includeHidden: true });
    sim.closePlugin();
    sim.select(layer);
    const again = await connect(sim);
    const plan = await again.request('run/plan', opts());
    const { newHash } = await again.request('image/stage', { runId: plan.runId, hash: first.newHash, bytes: OUT2 });
    const closed = sim.closeWindowAfter('setFillsAsync', 1);
    void again.request('image/apply', { runId: plan.runId, hash: first.newHash, relaunchNote: '' });
    await closed;
    expect(hashesOf(layer)).toEqual([newHash, first.newHash, a]);

    // Restore starts the plugin again, which first finishes what the closed window left.
    expect(await restore(sim, layer)).toBe('Restored the original image on 1 layer');
    expect(layer.fills).toEqual(fills);
  });
});

describe('a window closed during "Apply accepted"', () => {
  it('what a start could not settle stays for the next start, also through a correction on the same page, and is finished then', async () => {
    const sim = freshSim();
    const t = await connect(sim);
    const a = sim.addImage(A);
    const layer = sim.rect('Photo', [imageFill(a)]);
    sim.place(layer);
    sim.select(layer);
    const plan = await t.request('run/plan', opts());
    const { newHash } = await t.request('image/stage', { runId: plan.runId, hash: a, bytes: OUT });
    const closed = sim.closeWindowAfter('setFillsAsync', 1);
    void t.request('image/apply', { runId: plan.runId, hash: a, relaunchNote: 'Perfectly Clear: preset Universal' });
    await closed;
    expect(hashesOf(layer)).toEqual([newHash, a]);
    expect(layer.getRelaunchData()).toEqual({});

    // The next start cannot load the page (Figma could not fetch it): it says so and finishes nothing.
    const page = sim.page;
    const load = page.loadAsync.bind(page);
    page.loadAsync = () => {
      page.loadAsync = load;
      return Promise.reject(new Error('the page could not be loaded'));
    };
    const other = sim.rect('Other', [imageFill(sim.addImage(B))]);
    sim.place(other);
    sim.select(other);
    const failed = await connect(sim);
    await expect.poll(() => sim.notifications.at(-1)?.message).toMatch(/could not finish layers its closed window left \(the page could not be loaded\)/);
    expect(layer.getRelaunchData()).toEqual({});
    // In that session the user corrects another layer on the same page, all through.
    await correctWith(failed, hashesOf(other)[0] as string, OUT2);

    // The start after that finishes the layer.
    sim.closePlugin();
    sim.select();
    const again = await connect(sim);
    const init = again.next('init');
    again.send({ type: 'ui/ready' });
    await init;
    expect(Object.keys(layer.getRelaunchData()).sort()).toEqual(['correct-again', 'restore']);
  });
});
