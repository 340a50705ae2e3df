/**
 * Guards a careless change could drop without another test noticing, each
 * driven as a user drives the plugin (the UI's messages, the menu commands)
 * on the simulated Figma and checked where the user sees the outcome: the
 * layers' fills and images, the layers on the page and their relaunch
 * buttons, what would be sent to the service, the notifications.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { AHEAD_KEY } from '../src/main/records';
import { DEFAULT_OPTIONS } from '../src/shared/run-options';
import { correct, croppingBackend } from './cropping-service';
import { connect, freshSim, makeImage } from './helpers';
import { imageFill } from './sim/figma';
import type { SimNode } from './sim/nodes';
import { correctWith, hashesOf, opts, restore } from './user-steps';

let A: Uint8Array, B: Uint8Array, OUT: Uint8Array, OUT2: Uint8Array;
beforeAll(async () => {
  [A, B, OUT, OUT2] = await Promise.all([
    makeImage(64, 48, 'jpeg', { r: 10, g: 20, b: 30 }),
    makeImage(80, 60, 'png', { r: 40, g: 50, b: 60 }),
    makeImage(64, 48, 'jpeg', { r: 250, g: 200, b: 150 }),
    makeImage(80, 60, 'png', { r: 1, g: 2, b: 3 }),
  ]);
});

describe('"Insert as copy"', () => {
  it('leaves a hidden layer inside the copy as it was unless hidden layers are included', async () => {
    for (const includeHidden of [false, true]) {
      const t = await connect();
      const a = t.sim.addImage(A);
      const shown = t.sim.rect('Shown', [imageFill(a)]);
      const hidden = t.sim.rect('Hidden', [imageFill(a)]);
      hidden.visible = false;
      const album = t.sim.frame('Album', [shown, hidden]);
      t.sim.place(album);
      t.sim.select(album);
      const plan = await t.request('run/plan', opts({ placement: 'copy', includeHidden }));
      const r = await t.put({ runId: plan.runId, hash: a, bytes: OUT, relaunchNote: '' });
      const copy = t.sim.page.children[1] as unknown as { name: string; children: { name: string; fills: unknown }[] };
      expect(copy.name).toBe('Album (corrected)');
      // Each corrected layer of the copy keeps its original in a hidden fill (keepers.ts).
      expect(copy.children.map((n) => [n.name, hashesOf(n)])).toEqual([
        ['Shown', [r.newHash, a]],
        ['Hidden', includeHidden ? [r.newHash, a] : [a]],
      ]);
      // The originals are untouched either way: no keeper there.
      expect([hashesOf(shown), hashesOf(hidden)]).toEqual([[a], [a]]);
    }
  });

  it('makes a copy only beside the selected layers whose image was accepted', async () => {
    const t = await connect();
    const [a, b] = [t.sim.addImage(A), t.sim.addImage(B)];
    const first = t.sim.rect('First', [imageFill(a)]);
    const second = t.sim.rect('Second', [imageFill(b)]);
    t.sim.place(first, second);
    t.sim.select(first, second);
    const plan = await t.request('run/plan', opts({ placement: 'copy' }));
    // The user accepts the result for the first image only; the second's is rejected.
    await t.request('image/stage', { runId: plan.runId, hash: b, bytes: OUT2 });
    const r = await t.put({ runId: plan.runId, hash: a, bytes: OUT, relaunchNote: '' });
    expect(r.copiesCreated).toBe(1);
    await t.request('run/end', { runId: plan.runId, summary: { done: 1, failed: 0, skipped: 0, rejected: 1, cancelled: false } });
    expect(t.sim.page.children.map((n) => [n.name, hashesOf(n as unknown as { fills: unknown })])).toEqual([
      ['First', [a]],
      ['First (corrected)', [r.newHash, a]],
      ['Second', [b]],
    ]);
  });
});

describe('replace in place', () => {
  it('tells the user when a layer of the image was deleted during the run, and changes the others', async () => {
    const t = await connect();
    const a = t.sim.addImage(A);
    const kept = t.sim.rect('Kept', [imageFill(a)]);
    const gone = t.sim.rect('Gone', [imageFill(a)]);
    t.sim.place(kept, gone);
    t.sim.select(kept, gone);
    const plan = await t.request('run/plan', opts());
    gone.remove();
    const r = await t.put({ runId: plan.runId, hash: a, bytes: OUT, relaunchNote: '' });
    expect(r.nodesChanged).toBe(1);
    expect(r.warnings).toEqual(['a layer using this image was deleted during the run']);
    expect(hashesOf(kept)).toEqual([r.newHash, a]);
  });

  it('refuses, saying what to do, when the corrected image handed over is no longer in the file, and changes nothing', async () => {
    const t = await connect();
    const a = t.sim.addImage(A);
    const layer = t.sim.rect('Photo', [imageFill(a)]);
    t.sim.place(layer);
    t.sim.select(layer);
    const plan = await t.request('run/plan', opts());
    const { newHash } = await t.request('image/stage', { runId: plan.runId, hash: a, bytes: OUT });
    t.sim.images.delete(newHash);
    await expect(t.request('image/apply', { runId: plan.runId, hash: a, relaunchNote: '' })).rejects.toThrow('the corrected image is no longer in the file; correct the image again');
    expect(layer.fills).toEqual([imageFill(a)]);
    expect(layer.getPluginDataKeys().filter((k) => layer.getPluginData(k) !== '')).toEqual([]);
  });
});

describe('main components', () => {
  it('warns before replacing the images of a main component that has a single instance', async () => {
    const t = await connect();
    const a = t.sim.addImage(A);
    const card = t.sim.frame('Card', [t.sim.rect('Photo', [imageFill(a)])], [], 'COMPONENT');
    const instance = card.createInstance();
    t.sim.place(card, instance);
    t.sim.select(card);
    const plan = await t.request('run/plan', opts());
    expect(plan.warnings).toEqual(['"Card" is a main component: replacing its images changes its 1 instance as well. Use "Insert as copy" to leave them as they are.']);
  });
});

describe('relaunch buttons', () => {
  it('go only on the selected frames that hold a corrected layer', async () => {
    const t = await connect();
    const [a, b] = [t.sim.addImage(A), t.sim.addImage(B)];
    const withA = t.sim.frame('With A', [t.sim.rect('Photo A', [imageFill(a)])]);
    const withB = t.sim.frame('With B', [t.sim.rect('Photo B', [imageFill(b)])]);
    t.sim.place(withA, withB);
    t.sim.select(withA, withB);
    await correctWith(t, a, OUT);
    expect(Object.keys(withA.getRelaunchData()).sort()).toEqual(['correct-again', 'restore']);
    // Nothing in "With B" was corrected: "Restore original" there would have nothing to restore.
    expect(withB.getRelaunchData()).toEqual({});
  });

  it('keep the first 1000 characters of a long description (a long custom preset name), which Figma takes', async () => {
    const t = await connect();
    const a = t.sim.addImage(A);
    const layer = t.sim.rect('Photo', [imageFill(a)]);
    t.sim.place(layer);
    t.sim.select(layer);
    const plan = await t.request('run/plan', opts());
    const note = `Perfectly Clear: preset ${'Studio '.repeat(200)}`;
    const r = await t.put({ runId: plan.runId, hash: a, bytes: OUT, relaunchNote: note });
    expect(r.warnings).toEqual([]);
    expect(layer.getRelaunchData()).toEqual({ 'correct-again': note.slice(0, 1000), restore: 'Put the original image back (kept as a hidden fill)' });
  });

  it('"Insert as copy" of a frame puts them on the copy, not on the layers inside it', async () => {
    const t = await connect();
    const a = t.sim.addImage(A);
    const album = t.sim.frame('Album', [t.sim.rect('Photo', [imageFill(a)])]);
    t.sim.place(album);
    t.sim.select(album);
    await correctWith(t, a, OUT, { placement: 'copy' });
    const copy = t.sim.page.children[1] as unknown as SimNode & { children: SimNode[] };
    expect(Object.keys(copy.getRelaunchData()).sort()).toEqual(['correct-again', 'restore']);
    expect(copy.children[0]!.getRelaunchData()).toEqual({});
    expect(album.getRelaunchData()).toEqual({});
  });
});

describe('a finished correction', () => {
  it('leaves no change marked as under way on its layers', async () => {
    const t = await connect();
    const a = t.sim.addImage(A);
    const layer = t.sim.rect('Photo', [imageFill(a)]);
    t.sim.place(layer);
    t.sim.select(layer);
    await correctWith(t, a, OUT);
    expect(layer.getPluginData(AHEAD_KEY)).toBe('');
    expect(layer.getPluginDataKeys().filter((k) => layer.getPluginData(k) !== '').sort()).toEqual(['pfc.keepers', 'pfc.options', 'pfc.originals', 'pfc.paints']);
  });
});

describe('planning', () => {
  it('after a cancelled plan, the next Correct in the same window plans again', async () => {
    const t = await connect();
    const images = await Promise.all([1, 2, 3].map((i) => makeImage(10 + i, 10, 'png')));
    const layers = images.map((bytes, i) => t.sim.rect(`L${i}`, [imageFill(t.sim.addImage(bytes))]));
    t.sim.place(...layers);
    t.sim.select(...layers);
    const planned = t.request('run/plan', opts());
    t.send({ type: 'plan/cancel' });
    await expect(planned).rejects.toThrow(/Cancelled/);
    expect((await t.request('run/plan', opts())).images).toHaveLength(3);
  });
});

describe('the end of a run', () => {
  it('shows the notification as an error when every image failed, and as news otherwise', async () => {
    const t = await connect();
    const a = t.sim.addImage(A);
    const layer = t.sim.rect('Photo', [imageFill(a)]);
    t.sim.place(layer);
    t.sim.select(layer);
    const failed = await t.request('run/plan', opts());
    await t.request('run/end', { runId: failed.runId, summary: { done: 0, failed: 1, skipped: 0, rejected: 0, cancelled: false } });
    const mixed = await t.request('run/plan', opts());
    await t.request('run/end', { runId: mixed.runId, summary: { done: 1, failed: 1, skipped: 0, rejected: 0, cancelled: false } });
    expect(t.sim.notifications).toEqual([
      { message: '0 images corrected, 1 failed', error: true },
      { message: '1 image corrected, 1 failed', error: false },
    ]);
  });
});

describe('"Correct again"', () => {
  it('on a selected frame of corrected photos, starts from the options the correction used', async () => {
    const sim = freshSim();
    const t = await connect(sim);
    const a = sim.addImage(A);
    const album = sim.frame('Album', [sim.rect('Photo', [imageFill(a)])]);
    sim.place(album);
    sim.select(album);
    const options = { preset: 'Pro', removeGlares: true, outputType: 'png' as const };
    await correctWith(t, a, OUT, options);
    sim.closePlugin();
    sim.select(album);

    const again = await connect(sim, { command: 'correct-again' });
    const init = again.next('init');
    again.send({ type: 'ui/ready' });
    expect((await init).againOptions).toEqual({ ...DEFAULT_OPTIONS, ...options });
  });
});

describe('correcting again', () => {
  it('after a crop the service did not report, sends the corrected image, not the original it cannot frame, and says so', async () => {
    const sim = freshSim();
    const original = sim.addImage(await makeImage(400, 300));
    const layer = sim.rect('Photo', [imageFill(original)]);
    sim.place(layer);
    sim.select(layer);
    // The service crops 300×300 px from x = 100 without saying so.
    await correct(sim, croppingBackend({ x: 100, y: 0, width: 300, height: 300 }, false));
    const corrected = hashesOf(layer)[0] as string;
    expect(corrected).not.toBe(original);
    sim.closePlugin();
    sim.select(layer);

    const t = await connect(sim);
    const plan = await t.request('run/plan', opts());
    expect(plan.images.map((j) => [j.hash, j.notes[0]])).toEqual([[corrected, expect.stringMatching(/crop the service did not report.*corrected once more/)]]);
    // What the UI sends the service for it: the corrected image's bytes.
    expect(await t.request('image/read', { runId: plan.runId, hash: corrected })).toEqual({ bytes: sim.imageBytes(corrected), format: 'jpeg' });
  });

  it('a layer showing both an earlier result and its original shows the new result, and Restore brings back its fills', async () => {
    const sim = freshSim();
    const t = await connect(sim);
    const a = sim.addImage(A);
    const fills = [imageFill(a, { opacity: 0.9 }), imageFill(a, { scaleMode: 'FIT', visible: false })];
    const layer = sim.rect('Photo', fills);
    sim.place(layer);
    sim.select(layer);
    const first = await correctWith(t, a, OUT);
    // The user's hidden fill of the original, then the keeper (keepers.ts).
    expect(hashesOf(layer)).toEqual([first.newHash, a, a]);
    sim.closePlugin();
    sim.select(layer);
    // Now with hidden fills: the earlier result and the original are one job, sending the original once.
    const again = await connect(sim);
    const plan = await again.request('run/plan', opts({ includeHidden: true }));
    expect(plan.images).toHaveLength(1);
    const r = await again.put({ runId: plan.runId, hash: plan.images[0]!.hash, bytes: OUT2, relaunchNote: '' });
    expect(hashesOf(layer)[0]).toBe(r.newHash);
    // One of its fills was left as it was, and the user is told.
    expect(hashesOf(layer)[1]).not.toBe(r.newHash);
    expect(r.warnings).toContain('"Photo" shows both the original and an earlier result: one fill was corrected, the other left as it was');

    expect(await restore(sim, layer)).toBe('Restored the original image on 1 layer');
    expect(layer.fills).toEqual(fills);
  });
});
