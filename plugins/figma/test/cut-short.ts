/**
 * Steps of the tests of an "Apply accepted" cut short (unfinished.test.ts,
 * multiplayer.test.ts): three layers showing one photo, an apply whose window
 * closes midway, the plugin started again, and what a layer keeps.
 */
import { RELAUNCH } from '../src/main/relaunch';
import type { MainToUi } from '../src/shared/messages';
import { DEFAULT_OPTIONS } from '../src/shared/run-options';
import { connect, freshSim, makeImage, type Connected } from './helpers';
import { imageFill, type SimFigma } from './sim/figma';
import type { SimNode, SimShape } from './sim/nodes';

/** The photo (A), another (B), and two results; set by `makeImages` (live bindings). */
export let A: Uint8Array, B: Uint8Array, OUT: Uint8Array, OUT2: Uint8Array;
export async function makeImages(): Promise<void> {
  [A, B, OUT, OUT2] = await Promise.all([
    makeImage(64, 48, 'jpeg', { r: 10, g: 20, b: 30 }),
    makeImage(64, 48, 'jpeg', { r: 90, g: 20, b: 200 }),
    makeImage(64, 48, 'jpeg', { r: 250, g: 200, b: 150 }),
    makeImage(64, 48, 'jpeg', { r: 120, g: 200, b: 40 }),
  ]);
}

export const OPTIONS = { ...DEFAULT_OPTIONS, preset: 'Pro', removeGlares: true };
export const NOTE = 'Perfectly Clear: preset Pro, glare removed';
/** The buttons of a corrected layer, which keeps its original in a hidden fill (keepers.ts). */
export const BUTTONS = { [RELAUNCH.again]: NOTE, [RELAUNCH.restore]: 'Put the original image back (kept as a hidden fill)' };
/** The buttons of a frame or copy holding corrected layers (the originals are kept in those). */
export const FRAME_BUTTONS = { [RELAUNCH.again]: NOTE, [RELAUNCH.restore]: 'Put the original image back' };
/** A layer the plugin never touched, or left as it was. */
export const UNTOUCHED = { data: {}, relaunch: {} };
/** A few turns of the event loop: time for a plugin that was not stopped to go on. */
export const settle = () => new Promise((resolve) => setTimeout(resolve, 20));
export type Closing = (sim: SimFigma) => Promise<void>;
export const afterFirstChange: Closing = (sim) => sim.closeWindowAfter('setFillsAsync', 1);
export const duringFirstChange: Closing = (sim) => sim.closeWindowDuring('setFillsAsync', 1);
/** The first layer's change made, the second's pending (it never lands: its records were written ahead of nothing), the third not reached. */
export const duringSecondChange: Closing = (sim) => sim.closeWindowDuring('setFillsAsync', 2);

/** What the plugin keeps on a node: all its plugin data and its relaunch buttons. */
export function stateOf(node: SimNode) {
  return { data: Object.fromEntries(node.getPluginDataKeys().sort().map((k) => [k, node.getPluginData(k)])), relaunch: node.getRelaunchData() };
}

/** Puts the photos on the page and says what is selected. */
export type Arrange = (sim: SimFigma, photos: SimShape[]) => SimNode[];
/** The first `count` photos on the page, selected. */
export const onPage = (count = 3): Arrange => (sim, photos) => {
  const some = photos.slice(0, count);
  sim.place(...some);
  return some;
};
/** The first `count` photos in a frame "Album", the frame selected. */
export const inAlbum = (count = 3): Arrange => (sim, photos) => {
  const album = sim.frame('Album', photos.slice(0, count));
  sim.place(album);
  return [album];
};

/** A plugin session on three layers showing the same photo, each framed its own way, arranged by `arrange`. */
export async function threePhotos(arrange: Arrange = onPage(), sim = freshSim()) {
  const t = await connect(sim);
  const original = sim.addImage(A);
  const fills = [
    [imageFill(original, { opacity: 0.7 })],
    [imageFill(original, { scaleMode: 'FIT', rotation: 90 })],
    [imageFill(original, { scaleMode: 'TILE', scalingFactor: 0.5 })],
  ];
  const layers = fills.map((f, i) => sim.rect(`Photo ${i + 1}`, f));
  const selected = arrange(sim, layers);
  sim.select(...selected);
  return { sim, t, original, layers, selected };
}

/** Plan the selection with OPTIONS and hand over the result for `hash`: the request that applies it, to send. */
export async function readyToApply(t: Connected, hash: string, placement: 'replace' | 'copy' = 'replace', bytes = OUT) {
  const plan = await t.request('run/plan', { options: { ...OPTIONS, placement } });
  await t.request('image/stage', { runId: plan.runId, hash, bytes });
  return { runId: plan.runId, hash, relaunchNote: NOTE };
}

/** Plan the selection with OPTIONS and apply the result for `hash`, the window closing as `closing` says: the apply never answers. */
export async function applyCutShort(t: Connected, hash: string, closing: Closing, placement: 'replace' | 'copy' = 'replace', bytes = OUT): Promise<void> {
  const apply = await readyToApply(t, hash, placement, bytes);
  const closed = closing(t.sim);
  void t.request('image/apply', apply);
  await closed;
  await settle();
}

/** Plan the selection with OPTIONS and apply the result for its one image, all through. */
export async function correctFully(t: Connected, bytes: Uint8Array): Promise<void> {
  const plan = await t.request('run/plan', { options: OPTIONS });
  await t.put({ runId: plan.runId, hash: plan.images[0]!.hash, bytes, relaunchNote: NOTE });
}

/** The plugin started again with `command`; its window's first request is answered once the start has settled what was left. */
export async function startAgain(sim: SimFigma, command = 'correct'): Promise<Extract<MainToUi, { type: 'init' }>> {
  const t = await connect(sim, { command });
  const init = t.next('init');
  t.send({ type: 'ui/ready' });
  return init;
}

/** The state an apply that was not cut short leaves on the first of three photos. */
export async function finishedFirstPhoto(): Promise<ReturnType<typeof stateOf>> {
  const { t, layers } = await threePhotos();
  await correctFully(t, OUT);
  return stateOf(layers[0]!);
}

/** The live (not removed) node named `name`. */
export function nodeNamed<T extends SimNode = SimShape>(sim: SimFigma, name: string): T | undefined {
  return [...sim.nodes.values()].find((n) => n.name === name && !n.removed) as T | undefined;
}
