/**
 * A Figma file several people edit at once, each running the plugin in their
 * own session (the simulator's `otherUser`): a start settles an "Apply
 * accepted" cut short only when that apply cannot still be running — at once
 * when it was this client's, another client's once its lease ran out — and
 * only that apply's markers; applies running together on one page, or on
 * two, are each found again when cut short. Checked where the users see it:
 * the layers' fills, plugin data and relaunch buttons, the copies, Restore.
 */
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { CLOCK_SKEW_MS, LEASE_MS, LEASE_PREFIX } from '../src/main/leases';
import { AHEAD_KEY } from '../src/main/records';
import { AHEAD_PAGES_KEY, BUTTONS_AHEAD_KEY } from '../src/main/unfinished';
import {
  applyCutShort, BUTTONS, duringFirstChange, duringSecondChange, finishedFirstPhoto, makeImages, nodeNamed, onPage, readyToApply, settle, startAgain,
  stateOf, threePhotos, UNTOUCHED,
} from './cut-short';
import { freshSim } from './helpers';
import type { SimFigma } from './sim/figma';
import type { SimNode, SimShape } from './sim/nodes';
import { restore } from './user-steps';

beforeAll(makeImages);
afterEach(() => void vi.useRealTimers());

/** Everything on the document a start could change: each live node's plugin data, buttons and fills, and the root's plugin data. */
function documentState(sim: SimFigma) {
  const nodes = [...sim.nodes.values()].filter((n) => !n.removed && n.type !== 'DOCUMENT');
  return { root: stateOf(sim.root).data, nodes: nodes.map((n) => ({ name: n.name, ...stateOf(n), fills: (n as SimShape).fills })) };
}

/** The apply entries on the document (leases.ts). */
const entries = (sim: SimFigma) => sim.root.getPluginDataKeys().filter((k) => k.startsWith(LEASE_PREFIX));

/** The clock of every session, set: the sandbox's `Date` is this process's. */
function clockAt(ms: number): void {
  vi.useFakeTimers({ toFake: ['Date'], now: ms });
}

const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);

describe('another user starts the plugin while an apply runs', () => {
  it.each([
    ['replace', 2, 'the first layer changed, the second\'s records written ahead of its change'],
    ['copy', 1, 'both copies made and marked, nothing in them changed yet'],
  ] as const)('(%s, paused at change %i: %s) leaves that apply\'s markers, copies and records as they are; it then finishes, and Restore works', async (placement, change, _state) => {
    const { sim, t, original, layers } = await threePhotos(onPage(2));
    const apply = await readyToApply(t, original, placement);
    const paused = sim.pauseAt('setFillsAsync', change);
    const applied = t.request('image/apply', apply);
    await paused.reached;
    const during = documentState(sim);
    expect(entries(sim)).toHaveLength(1);

    await startAgain(sim.otherUser());
    expect(documentState(sim)).toEqual(during);

    paused.release();
    const result = await applied;
    expect([result.nodesChanged, result.copiesCreated]).toEqual(placement === 'replace' ? [2, 0] : [2, 2]);
    expect(entries(sim)).toEqual([]);
    const corrected = placement === 'replace' ? layers.slice(0, 2) : ['Photo 1 (corrected)', 'Photo 2 (corrected)'].map((n) => nodeNamed(sim, n)!);
    expect(corrected.map((l) => l.getRelaunchData())).toEqual([BUTTONS, BUTTONS]);
    if (placement === 'replace') expect(stateOf(layers[0]!)).toEqual(await finishedFirstPhoto());
    const fills = corrected.map((l) => l.fills);
    expect(fills.map((f) => (f as ImagePaint[])[0]!.imageHash)).not.toContain(original);

    expect(await restore(sim, ...corrected)).toBe('Restored the original image on 2 layers');
    expect(corrected.map((l) => (l.fills as ImagePaint[])[0]!.imageHash)).toEqual([original, original]);
  });
});

describe('a long apply', () => {
  it('renews its lease at each layer: another user\'s start long after it began, soon after its last change, leaves it running', async () => {
    clockAt(T0);
    const { sim, t, original } = await threePhotos();
    const apply = await readyToApply(t, original);
    let paused = sim.pauseAt('setFillsAsync', 1);
    const applied = t.request('image/apply', apply);
    for (const at of [1, 2]) {
      await paused.reached;
      vi.setSystemTime(T0 + at * 4 * 60_000);
      const next = sim.pauseAt('setFillsAsync', 1);
      paused.release();
      paused = next;
    }
    await paused.reached;
    // Past the lease since the apply began, not since its third change (renewed just before it).
    vi.setSystemTime(T0 + LEASE_MS + CLOCK_SKEW_MS + 1_000);
    const during = documentState(sim);
    await startAgain(sim.otherUser());
    expect(documentState(sim)).toEqual(during);
    paused.release();
    expect((await applied).nodesChanged).toBe(3);
  });
});

describe('an apply cut short in one user\'s session', () => {
  it('is settled by another user\'s start only once its lease ran out, by any clock within the skew', async () => {
    clockAt(T0);
    const { sim, t, original, layers } = await threePhotos();
    await applyCutShort(t, original, duringSecondChange);
    const left = documentState(sim);
    const other = sim.otherUser();

    await startAgain(other);
    vi.setSystemTime(T0 + LEASE_MS + CLOCK_SKEW_MS - 1_000);
    await startAgain(other);
    expect(documentState(sim)).toEqual(left);
    expect(layers[0]!.getPluginData(AHEAD_KEY)).not.toBe('');

    vi.setSystemTime(T0 + LEASE_MS + CLOCK_SKEW_MS + 1_000);
    await startAgain(other);
    expect(stateOf(layers[0]!)).toEqual(await finishedFirstPhoto());
    expect(layers.slice(1).map(stateOf)).toEqual([UNTOUCHED, UNTOUCHED]);
    expect([entries(sim), other.pageLoads]).toEqual([[], ['Page 1']]);
  });

  it('is settled at once by the same user\'s next start, while another user\'s apply on the same page runs on untouched', async () => {
    const { sim, t, original, layers } = await threePhotos(onPage(1));
    // The other user's photos, on the same page.
    const other = sim.otherUser();
    const theirs = await threePhotos(onPage(2), other);
    const theirApply = await readyToApply(theirs.t, theirs.original);
    const paused = other.pauseAt('setFillsAsync', 2);
    const theirsApplied = theirs.t.request('image/apply', theirApply);
    await paused.reached;

    sim.select(layers[0]!);
    await applyCutShort(t, original, duringFirstChange);
    expect(layers[0]!.getPluginData(AHEAD_KEY)).not.toBe('');
    const theirsDuring = theirs.layers.slice(0, 2).map(stateOf);
    await startAgain(sim);
    expect(stateOf(layers[0]!)).toEqual(UNTOUCHED);
    expect(theirs.layers.slice(0, 2).map(stateOf)).toEqual(theirsDuring);

    paused.release();
    expect((await theirsApplied).nodesChanged).toBe(2);
    expect(entries(sim)).toEqual([]);
  });
});

describe('applies running at once, both cut short', () => {
  /** A user's two photos on `page` (in view), their apply paused at its second layer's change, then their window closed. */
  async function cutShortOn(sim: SimFigma, page: 'Page 1' | 'Page 2') {
    if (page === 'Page 2') sim.showPage(sim.addPage('Page 2'));
    const { t, original, layers } = await threePhotos(onPage(2), sim);
    const apply = await readyToApply(t, original);
    const paused = sim.pauseAt('setFillsAsync', 2);
    void t.request('image/apply', apply);
    await paused.reached;
    return { layers, close: () => sim.closeWindow() };
  }

  it.each(['Page 1', 'Page 2'] as const)('each is found again, the other user\'s on %s, and settled at its own user\'s next start', async (theirPage) => {
    const sim = freshSim();
    const other = sim.otherUser();
    const mine = await cutShortOn(sim, 'Page 1');
    const theirs = await cutShortOn(other, theirPage);
    mine.close();
    theirs.close();
    await settle();
    const finished = await finishedFirstPhoto();

    await startAgain(sim);
    expect([mine.layers.map(stateOf), theirs.layers[0]!.getPluginData(AHEAD_KEY) !== '']).toEqual([[finished, UNTOUCHED, UNTOUCHED], true]);
    await startAgain(other);
    expect(theirs.layers.map(stateOf)).toEqual([finished, UNTOUCHED, UNTOUCHED]);
    expect(entries(sim)).toEqual([]);
  });

  it('one finishing while the other is cut short on the same page leaves the other\'s found again', async () => {
    const sim = freshSim();
    const other = sim.otherUser();
    const theirs = await cutShortOn(other, 'Page 1');
    const { t, original, layers } = await threePhotos(onPage(1), sim);
    await t.request('image/apply', await readyToApply(t, original));
    theirs.close();
    await settle();

    expect(layers[0]!.getRelaunchData()).toEqual(BUTTONS);
    await startAgain(other);
    expect(theirs.layers.map(stateOf)).toEqual([await finishedFirstPhoto(), UNTOUCHED, UNTOUCHED]);
  });
});

describe('a document written by the version before leases', () => {
  it('has the apply cut short on its list of pages settled, by any user\'s start', async () => {
    const { sim, t, original, layers } = await threePhotos();
    await applyCutShort(t, original, duringSecondChange);
    asWrittenBefore(sim);

    await startAgain(sim.otherUser());
    expect(layers.map(stateOf)).toEqual([await finishedFirstPhoto(), UNTOUCHED, UNTOUCHED]);
    expect(sim.root.getPluginDataKeys()).toEqual([]);
  });
});

/**
 * The document as the version before leases leaves an apply cut short: one
 * list of pages on the root (`AHEAD_PAGES_KEY`), markers that name no apply.
 */
function asWrittenBefore(sim: SimFigma): void {
  const [key] = entries(sim);
  const { pages } = JSON.parse(sim.root.getPluginData(key!)) as { pages: string[] };
  sim.root.setPluginData(key!, '');
  sim.root.setPluginData(AHEAD_PAGES_KEY, JSON.stringify(pages));
  for (const node of sim.nodes.values() as Iterable<SimNode>) {
    for (const k of [AHEAD_KEY, BUTTONS_AHEAD_KEY]) {
      const marker = node.getPluginData(k);
      if (!marker) continue;
      const { apply: _, ...before } = JSON.parse(marker) as Record<string, unknown>;
      node.setPluginData(k, JSON.stringify(before));
    }
  }
}
