/**
 * The original a correction replaced stays in the file, kept by the layer in a
 * hidden fill (keepers.ts), so Restore brings it back after the file was
 * closed and reopened — when Figma may drop every image no layer uses (the
 * simulator does: sim/reopen.ts). Driven as a user does (the UI's messages,
 * the menu commands, edits in the properties panel); checked on the layers'
 * fills, the images' bytes and the notifications.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ORIGINALS_KEY } from '../src/main/fills';
import { KEEPERS_KEY } from '../src/main/keepers';
import { A, afterFirstChange, applyCutShort, B, duringSecondChange, makeImages, OUT, OUT2, startAgain, stateOf, threePhotos, UNTOUCHED, type Closing } from './cut-short';
import { connect, freshSim } from './helpers';
import { imageFill, solidFill, type SimFigma } from './sim/figma';
import type { SimShape } from './sim/nodes';
import { correctWith, hashesOf, keeperOf, opts, restore, withoutHiddenFills } from './user-steps';

// The photo (A), another (B) and two results (cut-short.ts).
beforeAll(makeImages);

/** A layer showing the photo A in `paint` over a white fill, on the page and selected, with the plugin started. */
async function photo(paint: (a: string) => ImagePaint = (a) => imageFill(a)) {
  const sim = freshSim();
  const t = await connect(sim);
  const a = sim.addImage(A);
  const fills = [solidFill(1, 1, 1), paint(a)];
  const layer = sim.rect('Photo', fills);
  sim.place(layer);
  sim.select(layer);
  return { sim, t, a, fills, layer };
}

/** The bytes Figma holds for `hash`, as the plugin reads them; undefined when the file no longer has it. */
const bytesIn = async (sim: SimFigma, hash: string) => sim.getImageByHash(hash)?.getBytesAsync();

/** The plugin started again on `layer`, as a relaunch button or the next run does. */
async function again(sim: SimFigma, layer: SimShape) {
  sim.closePlugin();
  sim.select(layer);
  return connect(sim);
}

describe('a corrected layer keeps its original in the file', () => {
  it('Restore after the file was closed and reopened brings the original back, byte for byte, in its original paint; the keeper and its record go', async () => {
    const { sim, t, a, fills, layer } = await photo((a) => imageFill(a, { scaleMode: 'CROP', imageTransform: [[0.5, 0, 0.25], [0, 0.5, 0.25]], opacity: 0.8 }));
    const r = await correctWith(t, a, OUT);
    // The keeper: a hidden paint of the original, after the other fills.
    expect(hashesOf(layer)).toEqual(['SOLID', r.newHash, a]);
    expect((layer.fills as Paint[])[2]).toEqual(keeperOf(a));

    sim.reopenFile();
    expect(await restore(sim, layer)).toBe('Restored the original image on 1 layer');
    expect(layer.fills).toEqual(fills);
    expect(await bytesIn(sim, a)).toEqual(A);
    expect([layer.getPluginData(KEEPERS_KEY), layer.getPluginData(ORIGINALS_KEY), layer.getRelaunchData()]).toEqual(['', '', {}]);
  });

  it('a run with "Include hidden layers and fills" on a corrected layer neither sends its keeper nor changes it', async () => {
    const { sim, t, a, layer } = await photo();
    const first = await correctWith(t, a, OUT);
    const keeper = (layer.fills as Paint[])[2];

    const t2 = await again(sim, layer);
    const plan = await t2.request('run/plan', opts({ includeHidden: true }));
    // One image, one fill: the corrected one, sent as its original (corrected again from it). The keeper is no job.
    expect(plan.images.map((j) => [j.hash, j.fillCount, j.nodeCount])).toEqual([[first.newHash, 1, 1]]);
    expect(plan.skipped).toEqual([]);
    const r = await t2.put({ runId: plan.runId, hash: first.newHash, bytes: OUT2, relaunchNote: '' });
    expect(r.fillsChanged).toBe(1);
    expect(hashesOf(layer)).toEqual(['SOLID', r.newHash, a]);
    expect((layer.fills as Paint[])[2]).toEqual(keeper);
    expect(keeper).toEqual(keeperOf(a));
  });

  it('a keeper of the very image a run corrects is left as it is, also with "Include hidden layers and fills"', async () => {
    const { sim, t, a, layer } = await photo();
    await correctWith(t, a, OUT);
    // The user picks the original photo again for the visible fill, in the properties panel.
    const [white, , keeper] = layer.fills as Paint[];
    layer.fills = [white!, imageFill(a), keeper!];

    const r = await correctWith(await again(sim, layer), a, OUT2, { includeHidden: true });
    expect(r.fillsChanged).toBe(1);
    expect(layer.fills).toEqual([white, imageFill(r.newHash), keeperOf(a)]);
  });

  it('corrected again, the layer keeps one keeper, of the original, not the earlier result; reopened, Restore still brings the original back', async () => {
    const { sim, t, a, fills, layer } = await photo((a) => imageFill(a, { opacity: 0.6 }));
    const first = await correctWith(t, a, OUT);
    const second = await correctWith(await again(sim, layer), first.newHash, OUT2);
    expect(layer.fills).toEqual([solidFill(1, 1, 1), imageFill(second.newHash, { opacity: 0.6 }), keeperOf(a)]);
    expect(JSON.parse(layer.getPluginData(KEEPERS_KEY))).toEqual({ [a]: true });

    sim.reopenFile();
    // The earlier result is on no layer any more, and kept by none.
    expect(sim.getImageByHash(first.newHash)).toBeNull();
    expect(await restore(sim, layer)).toBe('Restored the original image on 1 layer');
    expect(layer.fills).toEqual(fills);
    expect(await bytesIn(sim, a)).toEqual(A);
  });

  it('leaves the user\'s own hidden image fills alone: Restore neither removes them nor takes them for keepers', async () => {
    const sim = freshSim();
    const t = await connect(sim);
    const [a, b] = [sim.addImage(A), sim.addImage(B)];
    // Hidden fills of the user's: another image, and the very photo the layer shows.
    const fills = [imageFill(a), imageFill(b, { opacity: 0.5, visible: false }), imageFill(a, { scaleMode: 'FIT', visible: false })];
    const layer = sim.rect('Photo', fills);
    sim.place(layer);
    sim.select(layer);
    const r = await correctWith(t, a, OUT);
    expect(hashesOf(layer)).toEqual([r.newHash, b, a, a]);
    // With hidden fills included, the user's count and the keeper does not: the photo's job has the corrected fill and the user's hidden one.
    const plan = await (await again(sim, layer)).request('run/plan', opts({ includeHidden: true }));
    expect(plan.images.map((j) => [j.hash, j.fillCount])).toEqual([
      [r.newHash, 2],
      [b, 1],
    ]);

    sim.reopenFile();
    expect(await restore(sim, layer)).toBe('Restored the original image on 1 layer');
    expect(layer.fills).toEqual(fills);
    expect(layer.getPluginData(KEEPERS_KEY)).toBe('');
  });

  it('a keeper the user deleted leaves Restore as it was: the original, gone with the reopened file, is reported missing', async () => {
    const { sim, t, a, layer } = await photo();
    const r = await correctWith(t, a, OUT);
    layer.fills = (layer.fills as Paint[]).slice(0, 2);

    sim.reopenFile();
    expect(await restore(sim, layer)).toBe('The original images are no longer in this file');
    expect(hashesOf(layer)).toEqual(['SOLID', r.newHash]);
  });
});

describe('a window closed during "Apply accepted", then the file closed and reopened', () => {
  it.each([
    ['right after the first layer changed', afterFirstChange],
    ['while the second layer\'s change was pending', duringSecondChange],
  ] as [string, Closing][])('%s: each layer shows its original, or the result with its keeper and records; Restore brings back every original', async (_when, closing) => {
    const { sim, t, original, layers } = await threePhotos();
    const before = layers.map((l) => l.fills);
    await applyCutShort(t, original, closing);
    sim.reopenFile();
    await startAgain(sim);

    const corrected = (layers[0]!.fills as ImagePaint[])[0]!.imageHash!;
    expect(layers.map(hashesOf)).toEqual([[corrected, original], [original], [original]]);
    expect(JSON.parse(layers[0]!.getPluginData(KEEPERS_KEY))).toEqual({ [original]: true });
    expect(JSON.parse(layers[0]!.getPluginData(ORIGINALS_KEY))).toEqual({ [corrected]: original });
    for (const layer of layers.slice(1)) expect(stateOf(layer)).toEqual(UNTOUCHED);

    sim.reopenFile();
    expect(await restore(sim, ...layers)).toBe('Restored the original image on 1 layer');
    expect(layers.map((l) => l.fills)).toEqual(before);
    expect(await bytesIn(sim, original)).toEqual(A);
  });

  it('a layer corrected by a version without keepers, corrected again with the window closed before its change landed, is left as it was: no keeper record', async () => {
    const { sim, t, a, layer } = await photo();
    const first = await correctWith(t, a, OUT);
    // As a version without keepers left it.
    layer.fills = withoutHiddenFills(layer);
    layer.setPluginData(KEEPERS_KEY, '');
    const [fills, state] = [layer.fills, stateOf(layer)];
    const t2 = await again(sim, layer);
    const plan = await t2.request('run/plan', opts());
    await t2.request('image/stage', { runId: plan.runId, hash: first.newHash, bytes: OUT2 });
    const closed = sim.closeWindowDuring('setFillsAsync', 1);
    void t2.request('image/apply', { runId: plan.runId, hash: first.newHash, relaunchNote: '' });
    await closed;

    await startAgain(sim);
    expect(layer.fills).toEqual(fills);
    expect(stateOf(layer)).toEqual(state);
  });
});
