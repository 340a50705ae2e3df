/**
 * Layers deleted while the plugin works on others — by this user, or by another in the same file (multiplayer) —
 * at the moment the plugin waits on Figma for a change (the simulator's `pauseAt`). Figma answers any use of a
 * deleted layer with an error (typings `BaseNodeMixin.removed`; the simulator does too, session.ts), so the plugin
 * must drop such a layer and go on with the others: the apply changes the rest and warns, Restore restores the
 * rest and says so, a failed apply still removes the copies it made, and Restore still ends with its toast.
 * Checked where the user sees it: fills, plugin data, relaunch buttons, the layers on the page, the toasts.
 */
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { LAYER_DELETED } from '../src/main/apply';
import { ORIGINALS_KEY } from '../src/main/fills';
import { CLOCK_SKEW_MS, LEASE_MS } from '../src/main/leases';
import {
  A, applyCutShort, B, BUTTONS, correctFully, FRAME_BUTTONS, duringFirstChange, makeImages, nodeNamed, onPage, OPTIONS, OUT, readyToApply, startAgain, stateOf, threePhotos, UNTOUCHED, type Arrange,
} from './cut-short';
import { connect, freshSim } from './helpers';
import { imageFill, type SimFigma } from './sim/figma';
import type { SimNode, SimShape } from './sim/nodes';
import { withoutHiddenFills } from './user-steps';

beforeAll(makeImages);
afterEach(() => void vi.useRealTimers());

const hashOf = (layer: SimShape) => (layer.fills as ImagePaint[])[0]!.imageHash;

/** The Restore command on `layers`, paused at its first call of `method` (its first fills change), when `meanwhile` happens; its toast. */
async function restoreWhile(sim: SimFigma, layers: SimNode[], meanwhile: () => void, method = 'setFillsAsync'): Promise<string | undefined> {
  sim.closePlugin();
  sim.select(...layers);
  const shown = sim.notifications.length;
  const paused = sim.pauseAt(method, 1);
  await connect(sim, { command: 'restore' });
  await paused.reached;
  meanwhile();
  paused.release();
  await expect.poll(() => sim.notifications.length).toBe(shown + 1);
  return sim.notifications.at(-1)?.message;
}

/** Restore had more to say than a toast holds: the toast has a Why button, and the plugin ends when it goes (restore-why.test.ts). */
function toastEndsPlugin(sim: SimFigma): void {
  expect([sim.notifications.at(-1)?.button, sim.closed]).toEqual(['Why', false]);
  sim.endToasts('timeout');
  expect(sim.closed).toBe(true);
}

describe('"Apply accepted" with a layer of the image deleted meanwhile', () => {
  it.each([
    ['while the third layer is looked up', 'getNodeByIdAsync', 3, false],
    ['while the first layer\'s change waits on Figma', 'setFillsAsync', 1, false],
    ['while its own change waits on Figma', 'setFillsAsync', 2, true],
  ] as const)('deleted %s: the other layers change, with their records and buttons, and the user is told', async (_when, method, count, underWay) => {
    const { sim, t, original, layers } = await threePhotos();
    const [first, second, third] = layers;
    const apply = await readyToApply(t, original);
    const paused = sim.pauseAt(method, count);
    const applied = t.request('image/apply', apply);
    await paused.reached;
    sim.otherUser().nodes.get(second!.id)!.remove();
    paused.release();

    const r = await applied;
    expect([r.nodesChanged, r.warnings]).toEqual([2, [LAYER_DELETED]]);
    for (const layer of [first!, third!]) {
      expect(hashOf(layer)).toBe(r.newHash);
      expect(JSON.parse(layer.getPluginData(ORIGINALS_KEY))).toEqual({ [r.newHash]: original });
      expect(layer.getRelaunchData()).toEqual(BUTTONS);
    }
    // Undoing the deletion brings it back as it was: nothing was written on it (a change cut off by it is not left half made).
    if (!underWay) expect([hashOf(second!), stateOf(second!)]).toEqual([original, UNTOUCHED]);
  });
});

describe('"Apply accepted" with a selected frame or a copy deleted meanwhile', () => {
  /** Photo 1 in "Album 1", Photo 2 in "Album 2", the albums selected: each gets relaunch buttons with its photo's change. */
  const twoAlbums: Arrange = (sim, photos) => {
    const albums = [sim.frame('Album 1', [photos[0]!]), sim.frame('Album 2', [photos[1]!])];
    sim.place(...albums);
    return albums;
  };

  it.each([
    ['while the second album is looked up (the first found already)', 'getNodeByIdAsync', 4, 0],
    ['while the first photo\'s change waits on Figma', 'setFillsAsync', 1, 1],
  ] as const)('an album deleted %s: the photo in the other changes, and that album gets its buttons', async (_when, method, count, gone) => {
    const { sim, t, original, layers, selected: albums } = await threePhotos(twoAlbums);
    const apply = await readyToApply(t, original);
    const paused = sim.pauseAt(method, count);
    const applied = t.request('image/apply', apply);
    await paused.reached;
    albums[gone]!.remove();
    paused.release();

    const r = await applied;
    const kept = 1 - gone;
    expect([r.nodesChanged, r.warnings]).toEqual([1, [LAYER_DELETED]]);
    expect([hashOf(layers[kept]!), albums[kept]!.getRelaunchData()]).toEqual([r.newHash, FRAME_BUTTONS]);
  });

  it('a copy deleted while the first copy\'s change waits on Figma: the other copy is corrected, with its buttons', async () => {
    const { sim, t, original, layers } = await threePhotos(onPage(2));
    const apply = await readyToApply(t, original, 'copy');
    const paused = sim.pauseAt('setFillsAsync', 1);
    const applied = t.request('image/apply', apply);
    await paused.reached;
    nodeNamed(sim, 'Photo 2 (corrected)')!.remove();
    paused.release();

    const r = await applied;
    expect([r.nodesChanged, r.copiesCreated, r.warnings]).toEqual([1, 1, [LAYER_DELETED]]);
    const copy = nodeNamed(sim, 'Photo 1 (corrected)')!;
    expect([hashOf(copy), copy.getRelaunchData()]).toEqual([r.newHash, BUTTONS]);
    expect(layers.slice(0, 2).map((l) => [hashOf(l), stateOf(l)])).toEqual([[original, UNTOUCHED], [original, UNTOUCHED]]);
  });
});

describe('planning with a main component deleted meanwhile', () => {
  it.each([
    ['while another one\'s instances are looked up', 'Card 2'],
    ['while its own instances are looked up', 'Card 1'],
  ] as const)('deleted %s: the plan is made, warning of the components still there', async (_when, gone) => {
    const t = await connect();
    const sim = t.sim;
    const a = sim.addImage(A);
    const cards = ['Card 1', 'Card 2'].map((name) => sim.frame(name, [sim.rect('Photo', [imageFill(a)])], [], 'COMPONENT'));
    sim.place(...cards, ...cards.map((c) => c.createInstance()));
    sim.select(...cards);
    const paused = sim.pauseAt('getInstancesAsync', 1);
    const planned = t.request('run/plan', { options: { ...OPTIONS } });
    await paused.reached;
    cards.find((c) => c.name === gone)!.remove();
    paused.release();
    const kept = gone === 'Card 1' ? 'Card 2' : 'Card 1';
    expect((await planned).warnings).toEqual([`"${kept}" is a main component: replacing its images changes its 1 instance as well. Use "Insert as copy" to leave them as they are.`]);
  });
});

describe('"Insert as copy" failing after the user deleted one of its copies', () => {
  it('removes the other copies, and leaves the originals as they were', async () => {
    const { sim, t, original, layers } = await threePhotos();
    const apply = await readyToApply(t, original, 'copy');
    const paused = sim.pauseAt('setFillsAsync', 1);
    const applied = t.request('image/apply', apply);
    await paused.reached;
    // Each selected layer has its copy by now; the user deletes the first, and the third's change will be refused.
    const copies = ['Photo 1 (corrected)', 'Photo 2 (corrected)', 'Photo 3 (corrected)'].map((n) => nodeNamed(sim, n)!);
    expect(copies.every(Boolean)).toBe(true);
    copies[0]!.remove();
    sim.fillsFaults.set(copies[2]!.id, new Error('the layer is locked'));
    paused.release();

    await expect(applied).rejects.toThrow('the layer is locked');
    expect(copies.map((c) => c.removed)).toEqual([true, true, true]);
    expect(sim.page.children.map((n) => n.name)).toEqual(['Photo 1', 'Photo 2', 'Photo 3']);
    expect(layers.map((l) => [hashOf(l), stateOf(l)])).toEqual(layers.map(() => [original, UNTOUCHED]));
  });
});

describe('the start removing the copies applies cut short left uncorrected', () => {
  it('removes the others when the user deleted one of them while it loaded another page', async () => {
    const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);
    vi.useFakeTimers({ toFake: ['Date'], now: T0 });
    // This user's apply cut short on page 1, another user's on page 2: this user's next start settles both, once the other's lease ran out.
    const sim = freshSim();
    const other = sim.otherUser();
    const page2 = sim.addPage('Page 2');
    other.showPage(page2);
    for (const [who, count] of [[sim, 2], [other, 1]] as const) {
      const { t, original } = await threePhotos(onPage(count), who);
      await applyCutShort(t, original, duringFirstChange, 'copy');
    }
    const copiesOn = (page: typeof page2) => (page.children as unknown as SimShape[]).filter((n) => n.name.endsWith('(corrected)'));
    const copies = [...copiesOn(sim.page), ...copiesOn(page2)];
    expect(copies).toHaveLength(3);
    vi.setSystemTime(T0 + LEASE_MS + CLOCK_SKEW_MS + 1_000);

    const loading = sim.pauseAt('loadAsync', 2);
    const started = startAgain(sim);
    await loading.reached;
    // The page loaded first is settled by now, its copies due to go: the user deletes one of them meanwhile.
    copiesOn(sim.pageLoads[0] === 'Page 2' ? page2 : sim.page)[0]!.remove();
    loading.release();
    await started;
    expect(copies.map((c) => c.removed)).toEqual([true, true, true]);
    expect(sim.notifications.map((n) => n.message)).toEqual(['Removed 2 copies left uncorrected when the Perfectly Clear window closed; Undo brings them back']);
  });
});

describe('Restore with a corrected layer deleted meanwhile', () => {
  it('restores the others, says how many went, and the plugin ends', async () => {
    const { sim, t, original, layers } = await threePhotos();
    await correctFully(t, OUT);
    const [first, second, third] = layers;

    const toast = await restoreWhile(sim, layers, () => second!.remove());
    expect(toast).toBe('Restored the original image on 2 layers; 1 layer was deleted during the restore');
    expect(sim.closed).toBe(true);
    for (const layer of [first!, third!]) expect([hashOf(layer), stateOf(layer)]).toEqual([original, UNTOUCHED]);
  });
});

describe('Restore with a layer deleted while it works out the fills the user reframed', () => {
  /** Photo 1 with two fills of the photo, Photo 2 with one, corrected, then every fill reframed (Fill ↔ Fit) by the user. */
  async function reframedSince() {
    const { sim, t, original, layers } = await threePhotos(onPage(2));
    layers[0]!.fills = [imageFill(original), imageFill(original, { opacity: 0.5 })];
    await correctFully(t, OUT);
    // The fills the user sees: the hidden one keeping the original (keepers.ts) is left as it is.
    for (const layer of layers.slice(0, 2)) {
      layer.fills = (layer.fills as ImagePaint[]).map((p) => (p.visible === false ? p : { ...p, scaleMode: p.scaleMode === 'FIT' ? 'FILL' : 'FIT' }));
    }
    return { sim, original, layers: layers.slice(0, 2) };
  }

  it.each([
    ['another layer, not reached yet', 1],
    ['the layer worked on, between its fills', 0],
  ] as const)('%s: the other is restored in the user\'s framing, and the toast says one went', async (_which, gone) => {
    const { sim, original, layers } = await reframedSince();
    // Restored, a layer has no keeper left: its fills are those the user reframed.
    const framing = layers.map((l) => (withoutHiddenFills(l) as ImagePaint[]).map((p) => p.scaleMode));
    // Photo 1's first fill: its refit waits on Figma for the image sizes.
    const toast = await restoreWhile(sim, layers, () => layers[gone]!.remove(), 'getSizeAsync');
    expect(toast).toBe('Restored the original image on 1 layer; 1 layer was deleted during the restore');
    toastEndsPlugin(sim);
    const kept = 1 - gone;
    expect((layers[kept]!.fills as ImagePaint[]).map((p) => [p.imageHash, p.scaleMode])).toEqual(framing[kept]!.map((mode) => [original, mode]));
  });
});

describe('the end of Restore after the user moved on', () => {
  /** Two photos corrected, the second given another image since: Restore restores the first and leaves the second, selected. */
  async function oneLeft() {
    const { sim, t, original, layers } = await threePhotos();
    await correctFully(t, OUT);
    layers[1]!.fills = [imageFill(sim.addImage(B))];
    return { sim, original, layers: layers.slice(0, 2) };
  }
  const TOAST = 'Restored the original image on 1 layer; 1 layer changed since is left as it is, selected';

  it('on another page by then: the toast, the plugin ends, and that page\'s selection stays the user\'s', async () => {
    const { sim, original, layers } = await oneLeft();
    const page2 = sim.addPage('Page 2');
    const there = sim.rect('There', [imageFill(sim.addImage(A))]);
    page2.appendChild(there as unknown as SceneNode);
    page2.selection = [there as unknown as SceneNode];
    // A layer there with buttons and nothing to restore: Restore clears those only on what was selected when it began.
    there.setRelaunchData(BUTTONS);

    expect(await restoreWhile(sim, layers, () => sim.showPage(page2))).toBe(TOAST);
    toastEndsPlugin(sim);
    expect([page2.selection.map((n) => n.name), there.getRelaunchData()]).toEqual([['There'], BUTTONS]);
    expect(hashOf(layers[0] as SimShape)).toBe(original);
  });

  it('the layer left deleted by then: the toast, and the plugin ends', async () => {
    const { sim, original, layers } = await oneLeft();
    expect(await restoreWhile(sim, layers, () => layers[1]!.remove())).toBe(TOAST);
    toastEndsPlugin(sim);
    expect(hashOf(layers[0] as SimShape)).toBe(original);
  });
});
