/**
 * The main thread on a simulated `figma`, driven by the messages the UI sends:
 * the selection walk, skipping, size capping, fill replacement, insert as
 * copy, undo steps, relaunch data and notifications.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { COPY_GAP } from '../src/main/apply';
import { RELAUNCH } from '../src/main/relaunch';
import type { ResizeChoice } from '../src/shared/fit';
import { readImageHeader } from '../src/shared/image-header';
import type { Placement } from '../src/shared/messages';
import { DEFAULT_OPTIONS } from '../src/shared/run-options';
import { connect, freshSim, makeImage } from './helpers';
import { imageFill, SimFigma, solidFill } from './sim/figma';
import type { SimShape } from './sim/nodes';
import { keeperOf } from './user-steps';

let A: Uint8Array, B: Uint8Array, C: Uint8Array, GIF: Uint8Array, BIG: Uint8Array, OUT1: Uint8Array, OUT2: Uint8Array, HUGE: Uint8Array;
beforeAll(async () => {
  [A, B, C, GIF, BIG, OUT1, OUT2, HUGE] = await Promise.all([
    makeImage(64, 48, 'jpeg', { r: 10, g: 20, b: 30 }),
    makeImage(80, 60, 'png', { r: 40, g: 50, b: 60 }),
    makeImage(50, 70, 'jpeg', { r: 70, g: 80, b: 90 }),
    makeImage(40, 40, 'gif'),
    makeImage(3000, 2000, 'png'),
    makeImage(64, 48, 'jpeg', { r: 250, g: 200, b: 150 }),
    makeImage(80, 60, 'png', { r: 1, g: 2, b: 3 }),
    makeImage(4100, 100, 'png'),
  ]);
});

/** Frames, a group, a component and an instance sharing images A, B, C, plus fills the plugin must skip. */
function buildDocument(sim: SimFigma) {
  const a = sim.addImage(A), b = sim.addImage(B), c = sim.addImage(C);
  const r1 = sim.rect('Photo 1', [imageFill(a, { opacity: 0.8 }), imageFill(b, { scaleMode: 'FIT', filters: { exposure: 0.3 }, rotation: 90 })]);
  const r2 = sim.rect('Photo 2', [imageFill(c, { scaleMode: 'CROP', imageTransform: [[0.5, 0, 0.1], [0, 0.5, 0.2]] })]);
  const r3 = sim.rect('In component', [imageFill(b)]);
  const r4 = sim.rect('In instance', [imageFill(a)]);
  const hero = sim.frame('Hero', [r1, sim.group('Group', [r2]), sim.frame('Card', [r3], [], 'COMPONENT'), sim.frame('Card instance', [r4], [], 'INSTANCE')], [solidFill(1, 1, 1), imageFill(a)]);
  hero.x = 100;
  hero.width = 500;
  const text = sim.text('Mixed text', sim.mixed);
  const video = sim.rect('Video', [{ type: 'VIDEO', videoHash: 'v1', scaleMode: 'FILL' }]);
  const empty = sim.rect('No data', [{ type: 'IMAGE', imageHash: null, scaleMode: 'FILL' }]);
  sim.place(hero, text, video, empty);
  return { a, b, c, hero, r1, r2, r3, r4, text, video, empty };
}

const none = { kind: 'none' } as const;
const optionsFor = (placement: Placement, resize: ResizeChoice = none) => ({ options: { ...DEFAULT_OPTIONS, placement, resize } });

describe('selection walk', () => {
  it('finds every image fill under frames, groups, components and instances, once per distinct image, and says what it skips', async () => {
    const t = await connect();
    const d = buildDocument(t.sim);
    t.sim.select(d.hero, d.text, d.video, d.empty, d.r1);
    const plan = await t.request('run/plan', optionsFor('replace', none));
    const byHash = new Map(plan.images.map((i) => [i.hash, i]));
    expect([...byHash.keys()].sort()).toEqual([d.a, d.b, d.c].sort());
    expect(byHash.get(d.a)).toMatchObject({ fillCount: 3, nodeCount: 3, width: 64, height: 48 });
    expect(byHash.get(d.b)).toMatchObject({ fillCount: 2, nodeCount: 2, width: 80, height: 60 });
    expect(byHash.get(d.c)).toMatchObject({ fillCount: 1, nodeCount: 1 });
    expect(plan.skipped.map((s) => [s.nodeName, s.reason])).toEqual([
      ['Mixed text', expect.stringContaining('mixed fills')],
      ['Video', expect.stringContaining('video')],
      ['No data', expect.stringContaining('without image data')],
    ]);
  });

  it('skips GIFs with a reason and caps resizes that would exceed 4096 px', async () => {
    const t = await connect();
    const gif = t.sim.rect('Animated', [imageFill(t.sim.addImage(GIF))]);
    const big = t.sim.rect('Big', [imageFill(t.sim.addImage(BIG))]);
    t.sim.place(gif, big);
    t.sim.select(gif, big);
    const plan = await t.request('run/plan', optionsFor('replace', { kind: 'scale', percent: 200 }));
    // Planning reads no bytes; the GIF is skipped when its bytes are read for correction.
    expect(plan.images.map((i) => i.hash)).toEqual([gif.fills !== t.sim.mixed ? (gif.fills[0] as ImagePaint).imageHash : '', (big.fills as ImagePaint[])[0]?.imageHash]);
    expect(await t.request('image/read', { runId: plan.runId, hash: plan.images[0]!.hash })).toEqual({ skip: expect.stringMatching(/GIF.*JPEG and PNG/) });
    expect(plan.images[1]).toMatchObject({ width: 3000, height: 2000, resize: { long: 4096 }, expected: { width: 4096, height: 2731 } });
    expect(plan.images[1]?.notes[0]).toMatch(/6000×4000.*4096/);
  });

  it('refuses to plan without a selection', async () => {
    const t = await connect();
    await expect(t.request('run/plan', optionsFor('replace', none))).rejects.toThrow(/Select one or more layers/);
  });
});

describe('replace in place', () => {
  it('swaps the image in every fill that used it, keeping paint properties and other fills; one undo step per run', async () => {
    const t = await connect();
    const d = buildDocument(t.sim);
    t.sim.select(d.hero);
    const plan = await t.request('run/plan', optionsFor('replace', none));
    expect(await t.request('image/read', { runId: plan.runId, hash: d.a })).toEqual({ bytes: A, format: 'jpeg' });
    const r = await t.put({ runId: plan.runId, hash: d.a, bytes: OUT1, relaunchNote: 'Perfectly Clear: preset Pro' });
    expect(r).toMatchObject({ fillsChanged: 3, nodesChanged: 3, copiesCreated: 0 });
    expect(t.sim.imageBytes(r.newHash)).toEqual(OUT1);
    // Each layer keeps the original in a hidden fill after the others (keepers.ts); the counts above leave it out.
    expect(d.hero.fills).toEqual([solidFill(1, 1, 1), imageFill(r.newHash), keeperOf(d.a)]);
    expect(d.r1.fills).toEqual([imageFill(r.newHash, { opacity: 0.8 }), imageFill(d.b, { scaleMode: 'FIT', filters: { exposure: 0.3 }, rotation: 90 }), keeperOf(d.a)]);
    expect(d.r4.fills).toEqual([imageFill(r.newHash), keeperOf(d.a)]);
    expect(d.r1.getRelaunchData()).toEqual({ [RELAUNCH.again]: 'Perfectly Clear: preset Pro', [RELAUNCH.restore]: 'Put the original image back (kept as a hidden fill)' });
    const r2 = await t.put({ runId: plan.runId, hash: d.b, bytes: OUT2, relaunchNote: 'x' });
    expect(r2.fillsChanged).toBe(2);
    expect((d.r1.fills as ImagePaint[])[1]).toEqual(imageFill(r2.newHash, { scaleMode: 'FIT', filters: { exposure: 0.3 }, rotation: 90 }));
    expect(d.r1.fills).toHaveLength(4);
    expect((d.r1.fills as ImagePaint[]).slice(2)).toEqual([keeperOf(d.a), keeperOf(d.b)]);
    expect(d.r3.fills).toEqual([imageFill(r2.newHash), keeperOf(d.b)]);

    expect(t.sim.undoSteps).toHaveLength(0);
    const end = await t.request('run/end', { runId: plan.runId, summary: { done: 2, failed: 1, skipped: 0, rejected: 0, cancelled: false } });
    expect(end.message).toBe('2 images corrected, 1 failed');
    expect(t.sim.undoSteps).toHaveLength(1);
    expect(t.sim.notifications).toEqual([{ message: '2 images corrected, 1 failed', error: false }]);
    await expect(t.request('image/read', { runId: plan.runId, hash: d.a })).rejects.toThrow(/not active/);
  });

  it('refuses results Figma cannot take, naming the limit, and changes nothing', async () => {
    const t = await connect();
    const d = buildDocument(t.sim);
    t.sim.select(d.r2);
    const plan = await t.request('run/plan', optionsFor('replace', none));
    await expect(t.request('image/stage', { runId: plan.runId, hash: d.c, bytes: HUGE })).rejects.toThrow(/4100×100 px.*4096×4096/);
    await expect(t.request('image/stage', { runId: plan.runId, hash: d.c, bytes: await makeImage(10, 10, 'webp') })).rejects.toThrow(/not a PNG, JPEG or GIF \(webp\)/);
    await expect(t.request('image/apply', { runId: plan.runId, hash: d.c, relaunchNote: '' })).rejects.toThrow(/no corrected image was handed over/);
    expect(d.r2.fills).toEqual([imageFill(d.c, { scaleMode: 'CROP', imageTransform: [[0.5, 0, 0.1], [0, 0.5, 0.2]] })]);
  });
});

describe('insert as copy', () => {
  it('adds one corrected duplicate beside each selected layer and leaves the originals alone', async () => {
    const t = await connect();
    const d = buildDocument(t.sim);
    const solo = t.sim.rect('Solo', [imageFill(d.a)]);
    solo.x = 900;
    solo.width = 120;
    t.sim.place(solo);
    t.sim.select(d.hero, solo);
    const plan = await t.request('run/plan', optionsFor('copy', none));
    const first = await t.put({ runId: plan.runId, hash: d.a, bytes: OUT1, relaunchNote: 'again' });
    expect(first).toMatchObject({ copiesCreated: 2, fillsChanged: 4 });
    const second = await t.put({ runId: plan.runId, hash: d.b, bytes: OUT2, relaunchNote: 'again' });
    expect(second.copiesCreated).toBe(0);

    const page = t.sim.page.children.map((n) => n.name);
    expect(page).toEqual(['Hero', 'Hero (corrected)', 'Mixed text', 'Video', 'No data', 'Solo', 'Solo (corrected)']);
    const heroCopy = t.sim.page.children[1] as unknown as SimShape & { findAll: FrameNode['findAll'] };
    expect(heroCopy.x).toBe(100 + 500 + COPY_GAP);
    // The copy of Hero is a corrected layer itself (its own image fill), keeping its original.
    expect(heroCopy.getRelaunchData()).toEqual({ [RELAUNCH.again]: 'again', [RELAUNCH.restore]: 'Put the original image back (kept as a hidden fill)' });
    const hashes = heroCopy.findAll(() => true).flatMap((n) => ('fills' in n && Array.isArray(n.fills) ? (n.fills as Paint[]) : []).filter((p): p is ImagePaint => p.type === 'IMAGE').map((p) => p.imageHash));
    // The copy's corrected layers keep their originals in hidden fills: Photo 1 both, the other two one each.
    expect(hashes.sort()).toEqual([first.newHash, first.newHash, second.newHash, second.newHash, d.c, d.a, d.a, d.b, d.b].sort());
    expect(d.r1.fills).toEqual([imageFill(d.a, { opacity: 0.8 }), imageFill(d.b, { scaleMode: 'FIT', filters: { exposure: 0.3 }, rotation: 90 })]);
    expect(d.hero.fills).toEqual([solidFill(1, 1, 1), imageFill(d.a)]);
  });

  it('places copies in auto-layout frames without moving the siblings, and skips layers inside instances', async () => {
    const t = await connect();
    const a = t.sim.addImage(A);
    const inRow = t.sim.rect('In row', [imageFill(a)]);
    const next = t.sim.rect('Next', []);
    const row = t.sim.frame('Row', [inRow, next]);
    row.layoutMode = 'HORIZONTAL';
    row.layout();
    const nested = t.sim.rect('Nested', [imageFill(a)]);
    const instance = t.sim.frame('Instance', [nested], [], 'INSTANCE');
    t.sim.place(row, instance);
    t.sim.select(inRow, nested);
    const plan = await t.request('run/plan', optionsFor('copy', none));
    expect(plan.skipped).toEqual([{ nodeId: nested.id, nodeName: 'Nested', reason: expect.stringContaining('inside an instance') }]);
    await t.put({ runId: plan.runId, hash: a, bytes: OUT1, relaunchNote: '' });
    expect(row.children.map((n) => n.name)).toEqual(['In row', 'In row (corrected)', 'Next']);
    expect(next.x).toBe(100);
    expect(row.children[1]).toMatchObject({ layoutPositioning: 'ABSOLUTE', x: 100 + COPY_GAP });
  });

  it('keeps a copy inside a clipping frame within its bounds', async () => {
    const t = await connect();
    const a = t.sim.addImage(A);
    const photo = t.sim.rect('Photo', [imageFill(a)]);
    photo.x = 50;
    const card = t.sim.frame('Card', [photo]);
    card.clipsContent = true;
    card.width = 200;
    card.height = 150;
    t.sim.place(card);
    t.sim.select(photo);
    const plan = await t.request('run/plan', optionsFor('copy', none));
    const applied = await t.put({ runId: plan.runId, hash: a, bytes: OUT1, relaunchNote: '' });
    const copy = card.children[1]!;
    expect([copy.name, copy.x, copy.y]).toEqual(['Photo (corrected)', 100, 0]);
    expect(applied.warnings.join()).toMatch(/clips its content/);
  });

  it('never changes the original when a frame and a layer inside it are both selected', async () => {
    const t = await connect();
    const a = t.sim.addImage(A);
    const photo = t.sim.rect('Photo', [imageFill(a)]);
    const card = t.sim.frame('Card', [photo]);
    t.sim.place(card);
    t.sim.select(card, photo);
    const before = JSON.stringify(card.children.map((n) => [n.id, n.name]));
    const plan = await t.request('run/plan', optionsFor('copy', none));
    await t.put({ runId: plan.runId, hash: a, bytes: OUT1, relaunchNote: '' });
    expect(JSON.stringify(card.children.map((n) => [n.id, n.name]))).toBe(before);
    expect(photo.fills).toEqual([imageFill(a)]);
    expect(t.sim.page.children.map((n) => n.name)).toEqual(['Card', 'Card (corrected)']);
  });
});

describe('messages and settings', () => {
  it('answers ui/ready with the command and selection, and reports selection changes', async () => {
    const t = await connect(freshSim({ command: 'remove-background' }));
    const d = buildDocument(t.sim);
    const init = t.next('init');
    t.send({ type: 'ui/ready' });
    expect(await init).toMatchObject({ command: 'remove-background', selection: { layers: 0, images: 0 }, settings: { backend: 'hosted', apiKeyHint: null }, lastOptions: null });
    expect(t.sim.shownWith).toMatchObject({ themeColors: true });
    const sel = t.next('selection');
    t.sim.select(d.hero);
    expect((await sel).selection).toEqual({ layers: 1, images: 3, fills: 6 });
  });

  it('remembers the last options for the next session ("Correct again")', async () => {
    const sim = freshSim();
    const t = await connect(sim);
    const d = buildDocument(sim);
    sim.select(d.r2);
    const options = { ...DEFAULT_OPTIONS, preset: 'Brand look', removeBackground: true, background: 'shadow' as const, resize: { kind: 'long' as const, px: 1200 } };
    await t.request('run/plan', { options });
    sim.closePlugin();
    const again = await connect(sim, { command: 'correct' });
    const init = again.next('init');
    again.send({ type: 'ui/ready' });
    expect((await init).lastOptions).toEqual(options);
  });

  it('answers concurrent requests by request id', async () => {
    const t = await connect();
    const d = buildDocument(t.sim);
    t.sim.select(d.hero);
    const plan = await t.request('run/plan', optionsFor('replace', none));
    const [ra, rb, rc] = await Promise.all([d.a, d.b, d.c].map((hash) => t.request('image/read', { runId: plan.runId, hash })));
    const bytesOf = (r: typeof ra) => (r && 'bytes' in r ? r.bytes : new Uint8Array());
    expect(readImageHeader(bytesOf(ra))).toMatchObject({ width: 64 });
    expect(readImageHeader(bytesOf(rb))).toMatchObject({ width: 80 });
    expect(readImageHeader(bytesOf(rc))).toMatchObject({ width: 50 });
  });

  it('keeps the API key in clientStorage and shows only a hint', async () => {
    const t = await connect();
    const key = 'sk-test-0123456789abcdef';
    const saved = await t.request('settings/save', { settings: { backend: 'emulator', containerURL: '', bgrURL: '', emulatorURL: 'http://127.0.0.1:8787/v2' }, apiKey: { action: 'set', value: key } });
    expect(saved).toMatchObject({ backend: 'emulator', apiKeyHint: '••••cdef' });
    expect(JSON.stringify(await t.request('settings/get', {}))).not.toContain(key);
    expect((await t.request('backend/config', {})).apiKey).toBe(key);
    await expect(t.request('settings/save', { settings: { ...saved, emulatorURL: 'nope' }, apiKey: { action: 'set', value: 'bad key' } })).rejects.toThrow(
      /Emulator URL must be an http.*API key must not contain spaces/,
    );
    // A self-hosted container on another computer over plain http: refused before it is stored, saying why and what works.
    await expect(t.request('settings/save', { settings: { ...saved, backend: 'container', containerURL: 'http://192.168.1.20:8080', bgrURL: '' }, apiKey: { action: 'keep' } })).rejects.toThrow(
      /Container URL: plain http:\/\/192\.168\.1\.20:8080 cannot be reached from Figma: .*mixed content/,
    );
    expect(await t.request('settings/get', {})).toMatchObject({ backend: 'emulator' });
    // The container backend's secret is the BGR licence key, stored apart from the API key.
    const container = await t.request('settings/save', { settings: { ...saved, backend: 'container', containerURL: 'http://localhost:8080', bgrURL: 'http://localhost:8081' }, apiKey: { action: 'set', value: 'licence-0123456789wxyz' } });
    expect(container).toMatchObject({ apiKeyHint: '••••cdef', bgrLicenceHint: '••••wxyz' });
    expect(await t.request('backend/config', {})).toMatchObject({ apiKey: key, bgrLicenceKey: 'licence-0123456789wxyz' });
    expect((await t.request('settings/save', { settings: saved, apiKey: { action: 'clear' } })).apiKeyHint).toBeNull();
    expect((await t.sim.clientStorage.keysAsync()).sort()).toEqual(['pfc.bgrLicence.v1', 'pfc.settings.v1']);
  });
});
