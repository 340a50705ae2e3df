/**
 * What a window closed during "Apply accepted" leaves is finished the next
 * time the plugin starts, with any command, before it does anything else:
 * each layer changed by then gets what a finished apply gives it (records,
 * saved options, relaunch buttons — also on a selected frame or a copy around
 * it), each layer not reached is as it was, a copy in which nothing was
 * corrected is removed, and no fill changes. Finding them loads and searches
 * only the pages an apply was cut short on. Checked where the user sees it:
 * the layers' relaunch buttons, plugin data and fills, the form's options,
 * the notifications, the undo steps and the pages the plugin loaded.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  A, afterFirstChange, applyCutShort, B, BUTTONS, correctFully, FRAME_BUTTONS, duringFirstChange, duringSecondChange, finishedFirstPhoto, inAlbum, makeImages,
nodeNamed, onPage, OPTIONS, NOTE, OUT, OUT2, settle, startAgain, stateOf, threePhotos, UNTOUCHED, type Arrange, type Closing,
} from './cut-short';
import { connect, freshSim, makeImage } from './helpers';
import { asScene } from './sim/document';
import { imageFill } from './sim/figma';
import type { SimFrame, SimShape } from './sim/nodes';

beforeAll(makeImages);

describe('the start after a window closed during "Apply accepted"', () => {
  it.each(['correct', 'correct-again', 'settings'])('(%s) finishes the layers changed by then and leaves the others as they were, changing no fill', async (command) => {
    const { sim, t, original, layers } = await threePhotos();
    await applyCutShort(t, original, duringSecondChange);
    const shown = layers.map((l) => l.fills);
    expect(layers.map((l) => (l.fills as ImagePaint[])[0]?.imageHash !== original)).toEqual([true, false, false]);

    sim.select(layers[0]!);
    const init = await startAgain(sim, command);
    // Not a fill changed: the very same paints.
    layers.forEach((l, i) => expect(l.fills).toBe(shown[i]));
    expect(stateOf(layers[0]!)).toEqual(await finishedFirstPhoto());
    expect(layers[0]!.getRelaunchData()).toEqual(BUTTONS);
    expect(layers.slice(1).map(stateOf)).toEqual([UNTOUCHED, UNTOUCHED]);
    if (command === 'correct-again') expect(init.againOptions).toEqual(OPTIONS);
    expect(sim.notifications).toEqual([]);
  });

  it('finishes a layer corrected before, corrected again and cut short, as two whole corrections leave it', async () => {
    const twice = async (closing?: Closing) => {
      const { sim, t, layers } = await threePhotos(onPage(1));
      await correctFully(t, OUT);
      const shown = (layers[0]!.fills as ImagePaint[])[0]!.imageHash!;
      if (closing) await applyCutShort(t, shown, closing, 'replace', OUT2);
      else await correctFully(t, OUT2);
      return { sim, photo: layers[0]! };
    };
    const { sim, photo } = await twice(afterFirstChange);
    await startAgain(sim);
    expect(stateOf(photo)).toEqual(stateOf((await twice()).photo));
  });

  it('(restore) settles before restoring: the layers not reached keep nothing of the apply', async () => {
    const { sim, t, original, layers } = await threePhotos();
    await applyCutShort(t, original, duringSecondChange);

    sim.select(...layers.slice(1));
    await connect(sim, { command: 'restore' });
    await expect.poll(() => sim.closed).toBe(true);
    expect(sim.notifications.map((n) => n.message)).toEqual(['Nothing to restore: the selection has no layers corrected by Perfectly Clear']);
    expect(layers.slice(1).map(stateOf)).toEqual([UNTOUCHED, UNTOUCHED]);
    expect(layers[0]!.getRelaunchData()).toEqual(BUTTONS);
  });

  it('finishes them from another page, loading only the page the apply was cut short on; then nothing is left to load or walk', async () => {
    const { sim, t, original, layers } = await threePhotos();
    await applyCutShort(t, original, afterFirstChange);
    const elsewhere = sim.addPage('Page 2');
    sim.showPage(elsewhere);
    const more = sim.addPage('Page 3');
    more.appendChild(asScene(sim.rect('Other', [imageFill(sim.addImage(B))])));

    await startAgain(sim);
    expect(layers[0]!.getRelaunchData()).toEqual(BUTTONS);
    expect(layers.slice(1).map(stateOf)).toEqual([UNTOUCHED, UNTOUCHED]);
    expect(sim.pageLoads).toEqual(['Page 1']);

    // Settled: the next start, nothing selected, loads no page and goes through no node.
    sim.closePlugin();
    sim.select();
    const walked = sim.walked;
    await startAgain(sim);
    expect([sim.pageLoads, sim.walked - walked]).toEqual([['Page 1'], 0]);
  });

  it('after an apply that was not cut short, the next start loads no page and goes through no node', async () => {
    const { sim, t } = await threePhotos();
    await correctFully(t, OUT);
    sim.closePlugin();
    sim.select();
    const walked = sim.walked;
    await startAgain(sim);
    expect([sim.pageLoads, sim.walked - walked]).toEqual([[], 0]);
  });

  it.each([
    ['during the second layer\'s change', duringSecondChange, FRAME_BUTTONS],
    ['before any change landed', duringFirstChange, {}],
  ])('gives a selected frame its buttons when a layer in it was changed (closed %s)', async (_, closing, buttons) => {
    const { sim, t, original, selected } = await threePhotos(inAlbum());
    await applyCutShort(t, original, closing);

    await startAgain(sim);
    expect(stateOf(selected[0]!)).toEqual({ data: {}, relaunch: buttons });
  });

  it('after an apply that failed, nothing is marked: the layers and the selected frame are as they were', async () => {
    const { sim, t, layers, selected } = await threePhotos(inAlbum());
    const fills = layers.map((l) => l.fills);
    sim.fillsFaults.set(layers[2]!.id, new Error('layer is locked by a library'));
    await expect(correctFully(t, OUT)).rejects.toThrow(/locked/);
    expect([...selected, ...layers].map(stateOf)).toEqual([UNTOUCHED, UNTOUCHED, UNTOUCHED, UNTOUCHED]);
    expect(layers.map((l) => l.fills)).toEqual(fills);
  });

  it('finishes a hidden layer inside an instance that a run including hidden layers changed', async () => {
    const sim = freshSim();
    const t = await connect(sim);
    const original = sim.addImage(A);
    const hidden = sim.rect('Hidden photo', [imageFill(original)]);
    hidden.visible = false;
    const card = sim.frame('Card', [hidden], [], 'COMPONENT');
    const instance = card.createInstance();
    sim.place(card, instance);
    sim.select(instance);
    const plan = await t.request('run/plan', { options: { ...OPTIONS, includeHidden: true } });
    await t.request('image/stage', { runId: plan.runId, hash: original, bytes: OUT });
    const closed = afterFirstChange(sim);
    void t.request('image/apply', { runId: plan.runId, hash: original, relaunchNote: NOTE });
    await closed;
    await settle();

    await startAgain(sim);
    const inInstance = instance.kids.list.find((n) => n.name === 'Hidden photo') as SimShape;
    expect(inInstance.getRelaunchData()).toEqual(BUTTONS);
    expect(JSON.parse(inInstance.getPluginData('pfc.options'))).toEqual({ ...OPTIONS, includeHidden: true });
  });

  it('leaves the records of a layer the user put another image in since, without buttons', async () => {
    const { sim, t, original, layers } = await threePhotos();
    await applyCutShort(t, original, afterFirstChange);
    const corrected = (layers[0]!.fills as ImagePaint[])[0]!.imageHash!;
    layers[0]!.fills = [imageFill(sim.addImage(B))];

    await startAgain(sim);
    const { data, relaunch } = stateOf(layers[0]!);
    // The record of the keeper the change added stays with them, as the way back does.
    expect([Object.keys(data), relaunch]).toEqual([['pfc.keepers', 'pfc.originals', 'pfc.paints'], {}]);
    expect(JSON.parse(data['pfc.originals']!)).toEqual({ [corrected]: original });
  });

  it('finishes a tiled layer whose result is smaller so that Restore puts back its exact tile size, though Figma stores the new one rounded', async () => {
    const tiled: Arrange = (sim, photos) => {
      sim.place(photos[2]!);
      return [photos[2]!];
    };
    const { sim, t, original, layers } = await threePhotos(tiled);
    const before = layers[2]!.fills;
    // 48 px wide for 64: the tiles keep their width with a scaling factor of 0.5 × 64 / 48, which a 32-bit float holds only near.
    await applyCutShort(t, original, afterFirstChange, 'replace', await makeImage(48, 36, 'jpeg', { r: 250, g: 200, b: 150 }));
    expect((layers[2]!.fills as ImagePaint[])[0]!.scalingFactor).not.toBe(2 / 3);

    await startAgain(sim);
    sim.closePlugin();
    sim.select(layers[2]!);
    await connect(sim, { command: 'restore' });
    await expect.poll(() => sim.closed).toBe(true);
    expect(sim.notifications.map((n) => n.message)).toEqual(['Restored the original image on 1 layer']);
    expect(layers[2]!.fills).toEqual(before);
  });
});

describe('"Insert as copy" cut short by closing the window', () => {
  it('keeps a copy in which a layer was corrected, with its buttons; the layer not reached in it is as copied', async () => {
    const { sim, t, original, layers, selected } = await threePhotos(inAlbum(2));
    await applyCutShort(t, original, afterFirstChange, 'copy');

    await startAgain(sim);
    const copy = nodeNamed<SimFrame>(sim, 'Album (corrected)')!;
    expect(copy.getRelaunchData()).toEqual(FRAME_BUTTONS);
    const [corrected, notReached] = copy.findAll() as unknown as SimShape[];
    expect((corrected!.fills as ImagePaint[])[0]?.imageHash).not.toBe(original);
    expect(JSON.parse(corrected!.getPluginData('pfc.options'))).toEqual({ ...OPTIONS, placement: 'copy' });
    expect([stateOf(notReached!), notReached!.fills]).toEqual([UNTOUCHED, layers[1]!.fills]);
    expect([...selected, ...layers.slice(0, 2)].map(stateOf)).toEqual([UNTOUCHED, UNTOUCHED, UNTOUCHED]);
  });

  it('removes the copies in which nothing was corrected, says so, and an undo brings them back to stay', async () => {
    const { sim, t, original, selected: photos } = await threePhotos(onPage(2));
    const fills = photos.map((l) => (l as SimShape).fills);
    // Both copies are made before the first change, which never lands.
    await applyCutShort(t, original, duringFirstChange, 'copy');
    const copies = ['Photo 1 (corrected)', 'Photo 2 (corrected)'].map((name) => nodeNamed(sim, name)!);
    expect(copies.map((c) => c.fills)).toEqual(fills);

    await startAgain(sim);
    expect(copies.map((c) => c.removed)).toEqual([true, true]);
    expect(sim.notifications.map((n) => n.message)).toEqual(['Removed 2 copies left uncorrected when the Perfectly Clear window closed; Undo brings them back']);
    // The removal is an undo step of its own, after the settling that took the copies' markers off.
    expect(sim.undoSteps.at(-1)).toEqual(copies.map((c) => `remove ${c.id}`));
    expect(copies.map(stateOf)).toEqual([UNTOUCHED, UNTOUCHED]);
    expect([photos.map(stateOf), photos.map((l) => (l as SimShape).fills)]).toEqual([[UNTOUCHED, UNTOUCHED], fills]);
  });

  it('removes a copy made before the window closed while the next original was looked up', async () => {
    const { sim, t, original } = await threePhotos(onPage(2));
    await applyCutShort(t, original, (s) => s.closeWindowDuring('getNodeByIdAsync', 2), 'copy');
    const copy = nodeNamed(sim, 'Photo 1 (corrected)')!;
    expect(nodeNamed(sim, 'Photo 2 (corrected)')).toBeUndefined();

    await startAgain(sim);
    expect(copy.removed).toBe(true);
  });

  it.each([
    ['renamed it', (copy: SimShape) => void (copy.name = 'Hero')],
    ['deleted its original (the copy is the one left showing the photo)', (_: SimShape, photo: SimShape) => photo.remove()],
  ])('keeps a copy in which nothing was corrected once the user %s: it is theirs', async (_, edit) => {
    const { sim, t, original, layers } = await threePhotos(onPage(1));
    const fills = layers[0]!.fills;
    await applyCutShort(t, original, duringFirstChange, 'copy');
    const copy = nodeNamed(sim, 'Photo 1 (corrected)')!;
    edit(copy, layers[0]!);

    await startAgain(sim);
    expect([copy.removed, stateOf(copy), copy.fills]).toEqual([false, UNTOUCHED, fills]);
    expect(sim.notifications).toEqual([]);
  });
});
