/**
 * Restore's account when it does not fit a toast (Figma shows 100 characters of one): the toast keeps the counts
 * and a Why button, the Why window names every layer left and why, and the plugin ends as Figma ends it — when the
 * toast goes without a click, or when the window is closed. Driven as a user does: a correction through the UI's
 * run loop, an edit in the properties panel, the Restore command in a later session, the toast's button.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { connect, freshSim, makeImage } from './helpers';
import { imageFill, type SimFigma } from './sim/figma';
import type { SimNode } from './sim/nodes';
import { correctWith, restore, restoreWhy } from './user-steps';

let original: Uint8Array;
let corrected: Uint8Array;
let other: Uint8Array;
beforeAll(async () => {
  [original, corrected, other] = await Promise.all([
    makeImage(64, 48, 'jpeg', { r: 10, g: 20, b: 30 }),
    makeImage(64, 48, 'png', { r: 40, g: 50, b: 60 }),
    makeImage(32, 32, 'png', { r: 200, g: 30, b: 90 }),
  ]);
});

/** Layers named `names`, corrected, then all but the first given another image by the user. */
async function correctedThenReplaced(names: readonly string[]): Promise<{ sim: SimFigma; layers: SimNode[] }> {
  const sim = freshSim();
  const t = await connect(sim);
  const hash = sim.addImage(original);
  const layers = names.map((name) => sim.rect(name, [imageFill(hash)]));
  sim.place(...layers);
  sim.select(...layers);
  await correctWith(t, hash, corrected);
  const replacement = imageFill(sim.addImage(other));
  for (const layer of layers.slice(1)) layer.fills = [replacement];
  return { sim, layers };
}

const TOAST = 'Restored the original image on 1 layer; 1 layer changed since is left as it is, selected';

describe('Restore with more to say than a toast holds', () => {
  it('the toast going by without a click ends the plugin, no window opened', async () => {
    const { sim, layers } = await correctedThenReplaced(['Photo', 'Team portrait, second row']);

    expect(await restore(sim, ...layers)).toBe(TOAST);
    expect([sim.notifications.at(-1)?.button, sim.closed]).toEqual(['Why', false]);
    sim.endToasts('timeout');

    expect([sim.closed, sim.shownHtml]).toEqual([true, undefined]);
  });

  it('dismissed, it ends the plugin too', async () => {
    const { sim, layers } = await correctedThenReplaced(['Photo', 'Banner']);
    await restore(sim, ...layers);
    sim.endToasts('dismiss');
    expect(sim.closed).toBe(true);
  });

  it('Why opens the window with every statement; the plugin stays until the window is closed', async () => {
    const { sim, layers } = await correctedThenReplaced(['Photo', 'Team portrait, second row']);
    await restore(sim, ...layers);

    expect(restoreWhy(sim)).toEqual([
      'Restored the original image on 1 layer', '1 layer changed since is left as it is, selected', '"Team portrait, second row": another image',
    ]);
    expect([sim.closed, sim.toastButtonShowing]).toEqual([false, false]);
    sim.closeWindow();
    expect(sim.closed).toBe(true);
  });

  it('a layer name is shown as the user typed it, never read as markup', async () => {
    const name = '<img src=x onerror="parent.postMessage(1)"> & \'quotes\'';
    const { sim, layers } = await correctedThenReplaced(['Photo', name]);
    await restore(sim, ...layers);

    expect(restoreWhy(sim).at(-1)).toBe(`"${name}": another image`);
    expect(sim.shownHtml).not.toContain('<img');
    expect(sim.shownHtml).not.toContain('<script');
  });

  it('when everything fits, the plugin ends with the toast, which has no button', async () => {
    const { sim, layers } = await correctedThenReplaced(['Photo']);
    expect(await restore(sim, ...layers)).toBe('Restored the original image on 1 layer');
    expect([sim.notifications.at(-1)?.button, sim.closed]).toEqual([undefined, true]);
  });
});
