/**
 * The simulated Figma is at least as strict as Figma where the plugin relies
 * on it (each limit cites its source in test/sim): these tests prove the
 * simulator refuses what Figma refuses, so the plugin's tests can fail.
 */
import { describe, expect, it } from 'vitest';
import { freshSim, makeImage } from './helpers';
import { CLIENT_STORAGE_QUOTA } from './sim/clone';
import { imageFill, SimFigma } from './sim/figma';
import { PLUGIN_DATA_LIMIT } from './sim/nodes';
import { runInFigmaSandbox } from './sim/sandbox';

const run = (code: string) => runInFigmaSandbox(code, { figma: {}, __html__: '' });

describe('main-thread sandbox', () => {
  it.each(['setTimeout(() => 0, 1)', 'new URL("https://x")', 'new TextEncoder()', 'crypto.getRandomValues(new Uint8Array(1))', 'new Blob([])', 'fetch("https://x")', 'structuredClone({})', 'document.body', 'window.location', 'globalThis.setTimeout(() => 0)', 'process.env', 'queueMicrotask(() => 0)'])(
    'has no %s',
    (code) => {
      expect(() => run(code)).toThrow(TypeError);
    },
  );

  it('has the language built-ins, figma, __html__ and console', () => {
    const seen: unknown[] = [];
    runInFigmaSandbox('figma.push([typeof Promise, typeof Uint8Array, typeof Map, typeof JSON, typeof __html__, typeof console.log, typeof globalThis.figma])', { figma: seen, __html__: '<p>' });
    expect(seen).toEqual([['function', 'function', 'function', 'object', 'string', 'function', 'object']]);
  });
});

describe('messages and clientStorage carry only what Figma documents', () => {
  it('postMessage refuses Map, Blob, ArrayBuffer, typed arrays other than Uint8Array, functions and class instances', () => {
    const sim = freshSim();
    for (const bad of [new Map(), new Blob([]), new ArrayBuffer(2), new Uint16Array(2), () => 1, new (class X {})()]) {
      expect(() => sim.ui.postMessage({ bad })).toThrow(/postMessage: pluginMessage\.bad is a/);
    }
    expect(() => sim.ui.postMessage({ a: [1, 'x', null, undefined, true, new Date(0), new Uint8Array([1])] })).not.toThrow();
  });

  it('clientStorage refuses Dates and other types, enforces the 5 MB quota and is kept per plugin id', async () => {
    const a = new SimFigma({ pluginId: 'quota-test' });
    await expect(a.clientStorage.setAsync('d', new Date())).rejects.toThrow(/Date/);
    await a.clientStorage.setAsync('big', new Uint8Array(CLIENT_STORAGE_QUOTA - 100));
    await expect(a.clientStorage.setAsync('more', new Uint8Array(200))).rejects.toThrow(/quota/);
    // The same id on a later run reads it; another id does not.
    expect(((await new SimFigma({ pluginId: 'quota-test' }).clientStorage.getAsync('big')) as Uint8Array).byteLength).toBe(CLIENT_STORAGE_QUOTA - 100);
    expect(await new SimFigma({ pluginId: 'other-id' }).clientStorage.getAsync('big')).toBeUndefined();
  });
});

describe('document model', () => {
  it('setRelaunchData takes only commands of the manifest', () => {
    const sim = freshSim();
    const r = sim.rect('r', []);
    expect(() => r.setRelaunchData({ 'not-in-manifest': 'x' })).toThrow(/relaunchButtons/);
    expect(() => r.setRelaunchData({ 'correct-again': 'x' })).not.toThrow();
  });

  it('refuses a plugin data entry whose plugin id, key and value exceed 100 kB, counted in UTF-8 bytes', () => {
    const r = new SimFigma({ pluginId: 'p'.repeat(10) }).rect('r', []);
    const room = PLUGIN_DATA_LIMIT - 10 - 'k'.length;
    expect(() => r.setPluginData('k', 'x'.repeat(room))).not.toThrow();
    expect(() => r.setPluginData('k', 'x'.repeat(room + 1))).toThrow(/exceeds 100 kB/);
    expect(() => r.setPluginData('k', 'é'.repeat(Math.floor(room / 2) + 1))).toThrow(/exceeds 100 kB/);
  });

  it('pattern paints need setFillsAsync; a component change reaches instances without an override', async () => {
    const sim = freshSim();
    const a = sim.addImage(await makeImage(8, 8, 'png'));
    const b = sim.addImage(await makeImage(9, 9, 'png'));
    const photo = sim.rect('Photo', [imageFill(a)]);
    const card = sim.frame('Card', [photo], [], 'COMPONENT');
    const inst1 = card.createInstance();
    const inst2 = card.createInstance();
    sim.place(card, inst1, inst2);
    const pattern: PatternPaint = { type: 'PATTERN', sourceNodeId: card.id, tileType: 'RECTANGULAR', scalingFactor: 1, spacing: { x: 0, y: 0 }, horizontalAlignment: 'START' };
    expect(() => (photo.fills = [pattern])).toThrow(/setFillsAsync/);
    // An override on the second instance keeps it.
    const override = inst2.findAll((n) => n.name === 'Photo')[0] as unknown as { fills: Paint[] };
    override.fills = [imageFill(b)];
    await photo.setFillsAsync([imageFill(b), pattern]);
    const fillsOf = (n: SceneNode) => ((n as unknown as { fills: Paint[] }).fills).map((p) => p.type);
    expect(fillsOf(inst1.findAll((n) => n.name === 'Photo')[0]!)).toEqual(['IMAGE', 'PATTERN']);
    expect(fillsOf(inst2.findAll((n) => n.name === 'Photo')[0]!)).toEqual(['IMAGE']);
  });

  it('skipInvisibleInstanceChildren hides invisible instance sublayers from findAll and getNodeByIdAsync', async () => {
    const sim = freshSim();
    const hidden = sim.rect('Hidden', []);
    hidden.visible = false;
    const card = sim.frame('Card', [hidden], [], 'COMPONENT');
    const inst = card.createInstance();
    sim.place(card, inst);
    const inner = inst.findAll()[0]!;
    expect(inst.findAll().map((n) => n.name)).toEqual(['Hidden']);
    sim.skipInvisibleInstanceChildren = true;
    expect(inst.findAll()).toEqual([]);
    expect(card.findAll().map((n) => n.name)).toEqual(['Hidden']); // not inside an instance
    expect(await sim.getNodeByIdAsync(inner.id)).toBeNull();
  });

  it('with skipInvisibleInstanceChildren, the plugin can touch nothing of a node it holds that is invisible inside an instance', async () => {
    const sim = freshSim();
    const a = sim.addImage(await makeImage(8, 8, 'png'));
    const hiddenPhoto = sim.rect('Hidden photo', [imageFill(a)]);
    hiddenPhoto.visible = false;
    const shownPhoto = sim.rect('Shown photo', [imageFill(a)]);
    const hiddenFrame = sim.frame('Hidden frame', [shownPhoto]);
    hiddenFrame.visible = false;
    const card = sim.frame('Card', [hiddenPhoto, hiddenFrame], [], 'COMPONENT');
    const inst = card.createInstance();
    sim.place(card, inst);
    const [inInstance, frameInInstance] = inst.kids.list;
    sim.select(inInstance!, frameInInstance!, hiddenPhoto);
    const figma = sim.launch();
    // Held by the plugin with the flag off (read from the selection and below it), then the flag goes on. (Typed as frames: the members touched.)
    const [photo, frame, inComponent] = figma.currentPage.selection as unknown as FrameNode[];
    const shownBelow = frame!.children[0] as unknown as FrameNode;
    figma.skipInvisibleInstanceChildren = true;
    const touches: ((n: FrameNode) => unknown)[] = [
      (n) => n.visible, (n) => n.parent, (n) => n.name, (n) => n.type, (n) => n.id, (n) => n.removed, (n) => n.fills, (n) => n.fillStyleId,
      (n) => n.getPluginData('k'), (n) => n.setPluginData('k', 'v'), (n) => n.setFillsAsync([]), (n) => (n.name = 'x'), (n) => 'fills' in n, (n) => Object.keys(n),
    ];
    for (const node of [photo!, frame!, shownBelow!]) for (const touch of touches) expect(() => touch(node)).toThrow(/does not exist/);
    expect(() => frame!.children).toThrow(/does not exist/);
    expect(() => frame!.findAll()).toThrow(/does not exist/);
    // The main component's hidden layer is not inside an instance; the instance itself is visible.
    expect([inComponent!.name, inComponent!.visible]).toEqual(['Hidden photo', false]);
    expect(figma.currentPage.selection).toHaveLength(3);
    figma.skipInvisibleInstanceChildren = false;
    expect([photo!.name, frame!.children.length, shownBelow!.parent?.name]).toEqual(['Hidden photo', 1, 'Hidden frame']);
  });

  it('findAllWithCriteria finds by type and by plugin data, in findAll\'s order, without calling into the plugin', async () => {
    const sim = freshSim();
    const [r, t] = [sim.rect('R', []), sim.text('T', [])];
    const hidden = sim.rect('Hidden', []);
    hidden.visible = false;
    hidden.setPluginData('k', 'v');
    const card = sim.frame('Card', [r, sim.group('G', [t]), hidden], [], 'COMPONENT');
    const inst = card.createInstance();
    sim.place(card, inst);
    const names = (nodes: readonly SceneNode[]) => nodes.map((n) => n.name);
    expect(names(card.findAllWithCriteria({ types: ['RECTANGLE', 'TEXT'] }))).toEqual(names(card.findAll((n) => n.type === 'RECTANGLE' || n.type === 'TEXT')));
    const callbacks = sim.callbacks;
    expect(names(card.findAllWithCriteria({ pluginData: { keys: ['k'] } }))).toEqual(['Hidden']);
    expect(names(card.findAllWithCriteria({ pluginData: {} }))).toEqual(['Hidden']);
    expect(card.findAllWithCriteria({ pluginData: { keys: ['other'] } })).toEqual([]);
    expect(sim.callbacks).toBe(callbacks);
    sim.skipInvisibleInstanceChildren = true;
    expect(names(inst.findAllWithCriteria({ types: ['RECTANGLE'] }))).toEqual(['R']);
    expect(() => card.findAllWithCriteria({ sharedPluginData: { namespace: 'x' } })).toThrow(/not simulated/);
  });

  it('takes image paints turned in steps of 90° only', async () => {
    const sim = freshSim();
    const a = sim.addImage(await makeImage(8, 8, 'png'));
    const r = sim.rect('R', []);
    await expect(r.setFillsAsync([imageFill(a, { rotation: 45 })])).rejects.toThrow(/increments of 90/);
    await r.setFillsAsync([imageFill(a, { scaleMode: 'TILE', scalingFactor: 2, rotation: 180 })]);
  });

  it('keeps a paint\'s numbers as 32-bit floats: they read back near the values given, not equal', async () => {
    const sim = freshSim();
    const a = sim.addImage(await makeImage(8, 8, 'png'));
    const r = sim.rect('R', []);
    const given: ImagePaint = { type: 'IMAGE', imageHash: a, scaleMode: 'CROP', opacity: 0.4, imageTransform: [[2 / 3, 0, 1 / 3], [0, 0.1, 0.2]] };
    await r.setFillsAsync([given]);
    const back = (r.fills as ImagePaint[])[0]!;
    expect(back.opacity).not.toBe(0.4);
    expect(back.opacity).toBeCloseTo(0.4, 7);
    expect(back.imageTransform!.flat()).toEqual(given.imageTransform!.flat().map(Math.fround));
  });

  it('shows what a layer sees of an image fill: a CROP transform stretches the image part over the layer', async () => {
    const sim = freshSim();
    const a = sim.addImage(await makeImage(400, 300, 'png'));
    const r = sim.rect('R', [imageFill(a, { scaleMode: 'CROP', imageTransform: [[0.5, 0, 0.25], [0, 0.5, 0]] })]);
    r.width = 200;
    r.height = 100;
    // 200×150 px over 200×100 canvas units: squeezed vertically.
    expect(sim.imageView(r)).toEqual({ pixel: { x: 1, y: 100 / 150 }, shown: { x: 100, y: 0, width: 200, height: 150 } });
    await r.setFillsAsync([imageFill(a, { scaleMode: 'TILE', scalingFactor: 0.5 })]);
    expect(sim.imageView(r)).toEqual({ pixel: { x: 0.5, y: 0.5 }, tile: { width: 200, height: 150 } });
    await r.setFillsAsync([imageFill(a, { scaleMode: 'FIT', rotation: 90 })]);
    // Turned, 300×400 px fit within 200×100: by the height.
    expect(sim.imageView(r).pixel).toEqual({ x: 0.25, y: 0.25 });
  });

  it('auto layout moves the siblings after an inserted layer unless it is absolutely positioned', () => {
    const sim = freshSim();
    const [p, q] = [sim.rect('P', []), sim.rect('Q', [])];
    const row = sim.frame('Row', [p, q]);
    row.layoutMode = 'HORIZONTAL';
    row.layout();
    expect(q.x).toBe(100);
    const extra = sim.rect('Extra', []);
    row.insertChild(1, extra as unknown as SceneNode);
    expect(q.x).toBe(200);
    const loose = sim.rect('Loose', []);
    expect(() => (loose.layoutPositioning = 'ABSOLUTE')).toThrow(/auto-layout/);
    row.insertChild(1, loose as unknown as SceneNode);
    expect(q.x).toBe(300);
    loose.layoutPositioning = 'ABSOLUTE';
    expect(q.x).toBe(200);
  });

  it('with "documentAccess": "dynamic-page", a page\'s content is reachable once loaded (the page viewed is), and the document cannot be searched', async () => {
    const sim = freshSim();
    const here = sim.rect('Here', []);
    sim.place(here);
    const page2 = sim.addPage('Page 2');
    const there = sim.rect('There', []);
    page2.appendChild(there as unknown as SceneNode);
    const figma = sim.launch();
    const [page, node, viewed] = (await Promise.all([page2.id, there.id, here.id].map((id) => figma.getNodeByIdAsync(id)))) as [PageNode, RectangleNode, RectangleNode];
    expect([page.name, viewed.name]).toEqual(['Page 2', 'Here']);
    expect(() => page.children).toThrow(/loadAsync/);
    expect(() => page.findAllWithCriteria({ types: ['RECTANGLE'] })).toThrow(/loadAsync/);
    expect(() => node.name).toThrow(/not loaded/);
    expect(() => (figma.root as unknown as DocumentNode).findAllWithCriteria({ types: ['RECTANGLE'] })).toThrow(/loadAllPagesAsync/);
    const loading = page.loadAsync();
    expect(() => node.name).toThrow(/not loaded/);
    await loading;
    expect([page.findAllWithCriteria({ types: ['RECTANGLE'] }).map((n) => n.name), node.name]).toEqual([['There'], 'There']);
    expect(sim.pageLoads).toEqual(['Page 2']);
    // A new run starts with the page the user views loaded, and that only.
    const again = sim.launch();
    const there2 = (await again.getNodeByIdAsync(there.id)) as RectangleNode;
    expect(() => there2.name).toThrow(/not loaded/);
    sim.showPage(page2);
    expect(there2.name).toBe('There');
  });
});

describe('closing the plugin', () => {
  /** Whether `promise` settles within a few turns of the event loop. */
  const settles = (promise: Promise<unknown>) => Promise.race([promise.then(() => true, () => true), new Promise<boolean>((r) => setTimeout(() => r(false), 20))]);

  it('disables every API call, callbacks, and leaves pending promises unsettled, whether the plugin or the user closes it', async () => {
    for (const close of ['plugin', 'user'] as const) {
      const sim = freshSim();
      const a = sim.addImage(await makeImage(8, 8, 'png'));
      const photo = sim.rect('Photo', [imageFill(a)]);
      sim.place(photo);
      sim.select(photo);
      const figma = sim.launch();
      const node = figma.currentPage.selection[0] as RectangleNode;
      let selectionChanges = 0;
      figma.on('selectionchange', () => void (selectionChanges += 1));
      const pending = [node.setFillsAsync([]), figma.getNodeByIdAsync(node.id), figma.clientStorage.getAsync('k')];
      if (close === 'plugin') figma.closePlugin();
      else sim.closeWindow();
      expect(sim.closed).toBe(true);
      for (const p of pending) expect(await settles(p)).toBe(false);
      // The change itself was made: the API call ran before the close; only its answer never comes.
      expect(photo.fills).toEqual([]);
      const calls: (() => unknown)[] = [() => figma.currentPage, () => node.name, () => node.fills, () => figma.notify('x'), () => figma.getImageByHash(a), () => figma.ui.postMessage({}), () => (figma.skipInvisibleInstanceChildren = true)];
      for (const call of calls) expect(call).toThrow(/plugin is closed/);
      sim.select(photo);
      expect(selectionChanges).toBe(0);
    }
  });

  it('lets a test close the window right after the plugin\'s Nth call of an API method resolved, before its code goes on', async () => {
    const sim = freshSim();
    const a = sim.addImage(await makeImage(8, 8, 'png'));
    const layers = ['One', 'Two', 'Three'].map((n) => sim.rect(n, [imageFill(a)]));
    sim.place(...layers);
    sim.select(...layers);
    const figma = sim.launch();
    const closed = sim.closeWindowAfter('setFillsAsync', 2);
    const reached: string[] = [];
    void (async () => {
      for (const node of figma.currentPage.selection as RectangleNode[]) {
        await node.setFillsAsync([]);
        reached.push(node.name);
      }
    })();
    await closed;
    // Give the plugin's code every chance to go on: it must not.
    await new Promise((r) => setTimeout(r, 20));
    expect(reached).toEqual(['One']);
    expect(layers.map((l) => l.fills)).toEqual([[], [], [imageFill(a)]]);
    // A new run works again.
    expect(sim.launch().currentPage.selection).toHaveLength(3);
  });

  it('lets a test close the window while the plugin\'s Nth call of an API method is pending: it never takes effect', async () => {
    const sim = freshSim();
    const a = sim.addImage(await makeImage(8, 8, 'png'));
    const layers = ['One', 'Two'].map((n) => sim.rect(n, [imageFill(a)]));
    sim.place(...layers);
    sim.select(...layers);
    const figma = sim.launch();
    const closed = sim.closeWindowDuring('setFillsAsync', 2);
    const [one, two] = figma.currentPage.selection as RectangleNode[];
    await one!.setFillsAsync([]);
    const pending = two!.setFillsAsync([]);
    await closed;
    expect(await settles(pending)).toBe(false);
    expect(layers.map((l) => l.fills)).toEqual([[], [imageFill(a)]]);
    expect(() => two!.name).toThrow(/plugin is closed/);
  });
});

describe('several users on one document', () => {
  it('share its nodes, plugin data and images; each has their own clientStorage, plugin run, loaded pages and skipInvisibleInstanceChildren', async () => {
    const sim = freshSim();
    const photo = sim.rect('Photo', []);
    sim.place(photo);
    const page2 = sim.addPage('Page 2');
    const other = sim.otherUser();
    const mine = sim.launch();
    const theirs = other.launch();
    // Their launch leaves my run going.
    expect(sim.closed).toBe(false);
    mine.root.setPluginData('k', 'mine');
    expect(theirs.root.getPluginData('k')).toBe('mine');
    expect(((await theirs.getNodeByIdAsync(photo.id)) as RectangleNode).name).toBe('Photo');
    await mine.clientStorage.setAsync('id', 'me');
    expect(await theirs.clientStorage.getAsync('id')).toBeUndefined();
    await ((await theirs.getNodeByIdAsync(page2.id)) as PageNode).loadAsync();
    expect([other.pageLoads, sim.pageLoads]).toEqual([['Page 2'], []]);
    const page2Mine = (await mine.getNodeByIdAsync(page2.id)) as PageNode;
    expect(() => page2Mine.children).toThrow(/loadAsync/);
    theirs.skipInvisibleInstanceChildren = true;
    expect(mine.skipInvisibleInstanceChildren).toBe(false);
    // The same user's next run shares their machine's store.
    expect(await sim.launch().clientStorage.getAsync('id')).toBe('me');
  });

  it('lets a test pause the plugin at its Nth call of an async API method, before it takes effect, while others go on', async () => {
    const sim = freshSim();
    const a = sim.addImage(await makeImage(8, 8, 'png'));
    const layer = sim.rect('One', [imageFill(a)]);
    sim.place(layer);
    const figma = sim.launch();
    const paused = sim.pauseAt('setFillsAsync', 1);
    const node = (await figma.getNodeByIdAsync(layer.id)) as RectangleNode;
    let done = false;
    const change = node.setFillsAsync([]).then(() => (done = true));
    await paused.reached;
    await new Promise((r) => setTimeout(r, 20));
    expect([done, layer.fills]).toEqual([false, [imageFill(a)]]);
    paused.release();
    await change;
    expect(layer.fills).toEqual([]);
  });
});

describe('layers deleted while the plugin holds them', () => {
  it('a removed layer answers `removed` and `id`; any other read, write or call throws, an async one rejects — also one paused before the layer went', async () => {
    const sim = freshSim();
    const a = sim.addImage(await makeImage(8, 8, 'png'));
    const [one, two] = ['One', 'Two'].map((n) => sim.rect(n, [imageFill(a)]));
    const inFrame = sim.rect('In frame', [imageFill(a)]);
    const frame = sim.frame('Frame', [inFrame]);
    sim.place(one!, two!, frame);
    sim.select(one!, two!, frame);
    const figma = sim.launch();
    const [held, paused, heldFrame] = figma.currentPage.selection as unknown as FrameNode[];
    const heldBelow = heldFrame!.children[0] as unknown as FrameNode;
    const pause = sim.pauseAt('setFillsAsync', 1);
    const pending = paused!.setFillsAsync([]);
    await pause.reached;
    // Deleted meanwhile by the user or another (multiplayer): a frame's layers go with it.
    for (const n of [one!, two!, frame]) n.remove();
    pause.release();
    await expect(pending).rejects.toThrow(/does not exist/);
    expect(two!.fills).toEqual([imageFill(a)]);
    const touches: ((n: FrameNode) => unknown)[] = [
      (n) => n.visible, (n) => n.parent, (n) => n.name, (n) => n.type, (n) => n.fills, (n) => n.getPluginData('k'), (n) => n.setPluginData('k', 'v'),
      (n) => n.getPluginDataKeys(), (n) => n.setRelaunchData({}), (n) => n.remove(), (n) => n.clone(), (n) => (n.name = 'x'), (n) => (n.fills = []), (n) => 'fills' in n, (n) => Object.keys(n),
    ];
    for (const node of [held!, heldFrame!, heldBelow]) {
      expect([node.removed, node.id]).toEqual([true, expect.any(String)]);
      for (const touch of touches) expect(() => touch(node)).toThrow(/does not exist/);
      await expect(node.setFillsAsync([])).rejects.toThrow(/does not exist/);
      expect(await figma.getNodeByIdAsync(node.id)).toBeNull();
    }
    expect(() => figma.currentPage.selection.length).not.toThrow();
    expect(() => (figma.currentPage as PageNode).appendChild(held!)).toThrow(/does not exist/);
  });

  it('a page\'s selection keeps each layer once and only those directly selected; a removed layer or one of another page is refused', async () => {
    const sim = freshSim();
    const inFrame = sim.rect('In frame', []);
    const frame = sim.frame('Frame', [inFrame]);
    const [gone, elsewhere] = [sim.rect('Gone', []), sim.rect('Elsewhere', [])];
    sim.place(frame, gone);
    sim.addPage('Page 2').appendChild(elsewhere as unknown as SceneNode);
    const figma = sim.launch();
    const [heldFrame, heldGone, heldElsewhere] = await Promise.all([frame, gone, elsewhere].map((n) => figma.getNodeByIdAsync(n.id) as Promise<SceneNode>));
    gone.remove();
    const held = (heldFrame as FrameNode).children[0]!;
    figma.currentPage.selection = [held, heldFrame!, heldFrame!];
    expect(figma.currentPage.selection.map((n) => n.name)).toEqual(['Frame']);
    figma.currentPage.selection = [held, held];
    expect(figma.currentPage.selection.map((n) => n.name)).toEqual(['In frame']);
    expect(() => (figma.currentPage.selection = [heldGone!])).toThrow(/does not exist/);
    expect(() => (figma.currentPage.selection = [heldElsewhere!])).toThrow(/not on page "Page 1"/);
    expect(figma.currentPage.selection.map((n) => n.name)).toEqual(['In frame']);
  });
});

describe('a file closed and opened again', () => {
  it('keeps the images a paint references anywhere in the document — hidden, in an instance, on another page, in a text\'s characters — and drops the others', async () => {
    const sim = freshSim();
    const colours = await Promise.all([...Array(9).keys()].map((i) => makeImage(8, 8, 'png', { r: i * 25, g: 0, b: 0 })));
    const [shown, hiddenPaint, hiddenLayer, inInstance, onPage2, inText, staged, ofRemoved, replaced] = colours.map((bytes) => sim.addImage(bytes)) as [string, string, string, string, string, string, string, string, string];
    const hidden = sim.rect('Hidden', [imageFill(hiddenLayer)]);
    hidden.visible = false;
    const card = sim.frame('Card', [sim.rect('Photo', [imageFill(inInstance)])], [], 'COMPONENT');
    const instance = card.createInstance();
    const caption = sim.text('Caption', [imageFill(inText)]);
    const gone = sim.rect('Gone', [imageFill(ofRemoved)]);
    const solid = sim.rect('Solid', [imageFill(replaced)]);
    sim.place(sim.rect('Shown', [imageFill(shown), imageFill(hiddenPaint, { visible: false })]), sim.frame('Hidden frame', [hidden]), card, instance, caption, gone, solid);
    const page2 = sim.addPage('Page 2');
    sim.showPage(page2);
    sim.place(sim.rect('Elsewhere', [imageFill(onPage2)]));
    sim.showPage(sim.page);
    // Only the instance still shows the component's image; part of the caption is given another fill.
    card.remove();
    caption.fillPartOfText();
    gone.remove();
    solid.fills = [];
    // A result the plugin handed over and never put on a layer.
    const handedOver = sim.launch().createImage(await makeImage(8, 8, 'png', { r: 0, g: 0, b: 255 })).hash;

    sim.reopenFile();
    const figma = sim.launch();
    const kept = [shown, hiddenPaint, hiddenLayer, inInstance, onPage2, inText].map((h) => figma.getImageByHash(h)?.hash);
    expect(kept).toEqual([shown, hiddenPaint, hiddenLayer, inInstance, onPage2, inText]);
    expect([staged, handedOver, ofRemoved, replaced].map((h) => figma.getImageByHash(h))).toEqual([null, null, null, null]);
  });

  it('ends everyone\'s plugin run, undo history and selection; keeps the nodes with their plugin data and relaunch data, and clientStorage', async () => {
    const sim = freshSim();
    const photo = sim.rect('Photo', []);
    sim.place(photo);
    sim.select(photo);
    const other = sim.otherUser();
    const theirs = other.launch();
    const figma = sim.launch();
    const node = figma.currentPage.selection[0] as RectangleNode;
    node.setPluginData('k', 'v');
    node.setRelaunchData({ restore: 'Put it back' });
    node.name = 'Renamed';
    figma.commitUndo();
    await figma.clientStorage.setAsync('id', 'me');
    expect(sim.undoSteps).toHaveLength(1);

    sim.reopenFile();
    expect([sim.closed, other.closed]).toEqual([true, true]);
    expect(() => figma.root).toThrow(/plugin is closed/);
    expect(() => theirs.root).toThrow(/plugin is closed/);
    expect([sim.undoSteps, sim.page.selection]).toEqual([[], []]);
    const again = sim.launch();
    const same = (await again.getNodeByIdAsync(photo.id)) as RectangleNode;
    expect([same.name, same.getPluginData('k'), same.getRelaunchData()]).toEqual(['Renamed', 'v', { restore: 'Put it back' }]);
    expect(await again.clientStorage.getAsync('id')).toBe('me');
  });
});
