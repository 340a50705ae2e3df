/**
 * The defects found in the review, each shown on the simulated Figma: pattern
 * fills, all-or-nothing apply, TILE scaling, main components, hidden layers,
 * planning without byte reads (cancellable, with progress), restore and
 * "Correct again".
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ORIGINALS_KEY } from '../src/main/fills';
import type { RunOptions } from '../src/shared/run-options';
import { DEFAULT_OPTIONS } from '../src/shared/run-options';
import { connect, freshSim, makeImage } from './helpers';
import { imageFill, solidFill } from './sim/figma';
import { keeperOf } from './user-steps';

let A: Uint8Array, B: Uint8Array, OUT: Uint8Array, WIDE: Uint8Array;
beforeAll(async () => {
  [A, B, OUT, WIDE] = await Promise.all([
    makeImage(64, 48, 'jpeg', { r: 10, g: 20, b: 30 }),
    makeImage(80, 60, 'png', { r: 40, g: 50, b: 60 }),
    makeImage(64, 48, 'jpeg', { r: 250, g: 200, b: 150 }),
    makeImage(128, 96, 'jpeg', { r: 90, g: 90, b: 90 }),
  ]);
});

const opts = (o: Partial<RunOptions> = {}) => ({ options: { ...DEFAULT_OPTIONS, ...o } });

describe('putting results back', () => {
  it('sets fills next to a pattern fill (setFillsAsync) and keeps a TILE fill the same size on the canvas', async () => {
    const t = await connect();
    const a = t.sim.addImage(A);
    const source = t.sim.rect('Tile source', [solidFill(0, 0, 0)]);
    const pattern: PatternPaint = { type: 'PATTERN', sourceNodeId: source.id, tileType: 'RECTANGULAR', scalingFactor: 1, spacing: { x: 0, y: 0 }, horizontalAlignment: 'START' };
    const layer = t.sim.rect('Layer', [imageFill(a, { scaleMode: 'TILE', scalingFactor: 0.5 }), pattern]);
    t.sim.place(source, layer);
    t.sim.select(layer);
    const plan = await t.request('run/plan', opts());
    const r = await t.put({ runId: plan.runId, hash: a, bytes: WIDE, relaunchNote: '' });
    // 64 px wide before, 128 after: half the scaling factor keeps the tiles where they were.
    // The original stays in the layer as a hidden fill, after the others (keepers.ts).
    expect(layer.fills).toEqual([imageFill(r.newHash, { scaleMode: 'TILE', scalingFactor: 0.25 }), pattern, keeperOf(a)]);
  });

  it('changes every layer of an image or none: a refusing layer rolls back the others and removes the copies', async () => {
    const t = await connect();
    const a = t.sim.addImage(A);
    const [p1, p2, p3] = ['One', 'Two', 'Three'].map((n) => t.sim.rect(n, [imageFill(a)]));
    t.sim.place(p1!, p2!, p3!);
    t.sim.select(p1!, p2!, p3!);
    const plan = await t.request('run/plan', opts());
    t.sim.fillsFaults.set(p3!.id, new Error('layer is locked by a library'));
    await expect(t.put({ runId: plan.runId, hash: a, bytes: OUT, relaunchNote: '' })).rejects.toThrow(/locked/);
    for (const p of [p1, p2, p3]) expect(p!.fills).toEqual([imageFill(a)]);
    expect(p1!.getPluginData(ORIGINALS_KEY)).toBe('');

    const copyPlan = await t.request('run/plan', opts({ placement: 'copy' }));
    const names = () => t.sim.page.children.map((n) => n.name);
    const before = names();
    // The copy of the second layer refuses: the copies made for this image go again.
    const next = t.sim.nextIdPeek();
    t.sim.fillsFaults.set(`1:${Number(next.split(':')[1]) + 1}`, new Error('refused'));
    await expect(t.put({ runId: copyPlan.runId, hash: a, bytes: OUT, relaunchNote: '' })).rejects.toThrow(/refused/);
    expect(names()).toEqual(before);
  });

  it('warns before replacing images in a main component whose instances would change, and the instances do change', async () => {
    const t = await connect();
    const a = t.sim.addImage(A);
    const photo = t.sim.rect('Photo', [imageFill(a)]);
    const card = t.sim.frame('Card', [photo], [], 'COMPONENT');
    const i1 = card.createInstance();
    const i2 = card.createInstance();
    t.sim.place(card, i1, i2);
    t.sim.select(card);
    const plan = await t.request('run/plan', opts());
    expect(plan.warnings).toEqual([expect.stringMatching(/"Card" is a main component: replacing its images changes its 2 instances/)]);
    const r = await t.put({ runId: plan.runId, hash: a, bytes: OUT, relaunchNote: '' });
    const inInstance = i1.findAll((n) => n.name === 'Photo')[0] as unknown as { fills: Paint[] };
    // The component's fills, its keeper of the original with them.
    expect(inInstance.fills).toEqual([imageFill(r.newHash), keeperOf(a)]);
    expect((await t.request('run/plan', opts({ placement: 'copy' }))).warnings).toEqual([]);
  });

  it('inserts no copy inside a main component, where it would appear in every instance', async () => {
    const t = await connect();
    const a = t.sim.addImage(A);
    const photo = t.sim.rect('Photo', [imageFill(a)]);
    const card = t.sim.frame('Card', [photo], [], 'COMPONENT');
    t.sim.place(card, card.createInstance());
    t.sim.select(photo);
    const plan = await t.request('run/plan', opts({ placement: 'copy' }));
    expect(plan.images).toEqual([]);
    expect(plan.skipped).toEqual([{ nodeId: photo.id, nodeName: 'Photo', reason: expect.stringMatching(/inside the main component "Card", where a copy would appear in every instance/) }]);
    expect(card.children.map((n) => n.name)).toEqual(['Photo']);
    // The component itself selected: its copy lands beside it, a new component with no instances.
    t.sim.select(card);
    const whole = await t.request('run/plan', opts({ placement: 'copy' }));
    expect(whole.images.map((i) => i.hash)).toEqual([a]);
  });

  it('leaves a layer whose image comes from a paint style linked to it: replacing its fills would detach it', async () => {
    const t = await connect();
    const a = t.sim.addImage(A);
    const styled = t.sim.rect('Styled', [imageFill(a)]);
    styled.linkStyle('S:brand-photo,1:2');
    t.sim.place(styled);
    t.sim.select(styled);
    const plan = await t.request('run/plan', opts());
    expect(plan.images).toEqual([]);
    expect(plan.skipped).toEqual([{ nodeId: styled.id, nodeName: 'Styled', reason: expect.stringMatching(/takes its fills from a paint style; replacing them would detach it/) }]);
    // A copy may take the corrected image: the styled original keeps its link.
    const copy = await t.request('run/plan', opts({ placement: 'copy' }));
    expect(copy.images.map((i) => i.hash)).toEqual([a]);
    await t.put({ runId: copy.runId, hash: a, bytes: OUT, relaunchNote: '' });
    expect([styled.fillStyleId, styled.fills]).toEqual(['S:brand-photo,1:2', [imageFill(a)]]);
  });

  it('skips hidden layers and hidden image fills unless asked, and sends nothing for them', async () => {
    const t = await connect();
    const [a, b] = [t.sim.addImage(A), t.sim.addImage(B)];
    const hiddenLayer = t.sim.rect('Hidden layer', [imageFill(a)]);
    hiddenLayer.visible = false;
    const hiddenPaint = t.sim.rect('Hidden paint', [imageFill(b, { visible: false })]);
    const frame = t.sim.frame('Frame', [hiddenLayer, hiddenPaint]);
    t.sim.place(frame);
    t.sim.select(frame);
    expect((await t.request('run/plan', opts())).images).toEqual([]);
    const all = await t.request('run/plan', opts({ includeHidden: true }));
    expect(all.images.map((i) => i.hash).sort()).toEqual([a, b].sort());
  });
});

describe('planning', () => {
  it('reads no image bytes while planning, and each image once when corrected; sets skipInvisibleInstanceChildren', async () => {
    const t = await connect();
    expect(t.sim.skipInvisibleInstanceChildren).toBe(true);
    const [a, b] = [t.sim.addImage(A), t.sim.addImage(B)];
    const layers = [t.sim.rect('A', [imageFill(a)]), t.sim.rect('B', [imageFill(b)]), t.sim.rect('A again', [imageFill(a)])];
    t.sim.place(...layers);
    t.sim.select(...layers);
    const progress = t.next('plan/progress');
    const plan = await t.request('run/plan', opts());
    expect(await progress).toMatchObject({ done: 1, total: 2 });
    expect(t.sim.byteReads).toBe(0);
    for (const img of plan.images) await t.request('image/read', { runId: plan.runId, hash: img.hash });
    expect(t.sim.byteReads).toBe(2);
  });

  it('stops planning when the UI cancels', async () => {
    const t = await connect();
    const images = await Promise.all([1, 2, 3, 4].map((i) => makeImage(10 + i, 10, 'png')));
    const layers = images.map((bytes, i) => t.sim.rect(`L${i}`, [imageFill(t.sim.addImage(bytes))]));
    t.sim.place(...layers);
    t.sim.select(...layers);
    const planned = t.request('run/plan', opts());
    t.send({ type: 'plan/cancel' });
    await expect(planned).rejects.toThrow(/Cancelled/);
  });
});

describe('restore and correct again', () => {
  it('restores the original images in a later session, from the plugin data, in one undo step', async () => {
    const sim = freshSim();
    const t = await connect(sim);
    const a = sim.addImage(A);
    const photo = sim.rect('Photo', [imageFill(a, { opacity: 0.5 })]);
    const card = sim.frame('Card', [photo]);
    sim.place(card);
    sim.select(card);
    const options = { ...DEFAULT_OPTIONS, preset: 'Pro', removeGlares: true };
    const plan = await t.request('run/plan', { options });
    await t.put({ runId: plan.runId, hash: a, bytes: OUT, relaunchNote: 'note' });
    await t.request('run/end', { runId: plan.runId, summary: { done: 1, failed: 0, skipped: 0, rejected: 0, cancelled: false } });
    expect(photo.fills).not.toEqual([imageFill(a, { opacity: 0.5 })]);
    sim.closePlugin();

    // "Correct again" on the layer: the options saved with it come back.
    const again = await connect(sim, { command: 'correct-again' });
    const init = again.next('init');
    sim.select(photo);
    again.send({ type: 'ui/ready' });
    expect((await init).againOptions).toEqual(options);
    sim.closePlugin();

    const steps = sim.undoSteps.length;
    sim.select(card);
    await connect(sim, { command: 'restore' });
    await expect.poll(() => sim.notifications.at(-1)?.message).toBe('Restored the original image on 1 layer');
    expect(photo.fills).toEqual([imageFill(a, { opacity: 0.5 })]);
    expect(photo.getPluginData(ORIGINALS_KEY)).toBe('');
    expect(photo.getRelaunchData()).toEqual({});
    expect(sim.undoSteps.length).toBe(steps + 1);
    expect(sim.closed).toBe(true);
  });
});
