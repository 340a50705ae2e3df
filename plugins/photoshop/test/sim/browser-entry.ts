/**
 * Loaded into the e2e page before the built panel: `require('photoshop')` and
 * `require('uxp')` resolve to the simulated host, and `window.__sim` lets the
 * test open documents (real photos, decoded by the browser) and read back
 * layers, pixels, history and the recorded batchPlay descriptors.
 */
import { native } from './native';
import { browserCodec } from './browser-codec';
import { createSimHost } from './index';
import { locate, type DocState, type LayerNode } from './state';
import { installSpectrum } from './spectrum';
import { restrictToUxpGlobals } from './strict-globals';

/** The built manifest's `requiredPermissions.network.domains`, put in by the bundler (`e2e-page.ts`). */
declare const __PANEL_NETWORK_DOMAINS__: string[] | 'all';

const { host, sim } = createSimHost(browserCodec);

function summary(doc: DocState) {
  const walk = (layers: LayerNode[]): unknown[] =>
    layers.map((l) => ({ id: l.id, name: l.name, kind: l.kind, opacity: l.opacity ?? 100, children: l.children ? walk(l.children) : undefined }));
  return { id: doc.id, title: doc.title, width: doc.width, height: doc.height, layers: walk(doc.layers), history: doc.history.map((h) => h.name), active: doc.activeLayerIds };
}

function toBase64(bytes: Uint8Array): string {
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return native.btoa(bin);
}

/** The real clock, kept before a test speeds the page's up (`clockSpeed`). */
const realNow = Date.now.bind(Date);
let clock = { realAt: realNow(), shownAt: realNow(), factor: 1 };
/** The page's time: running on from where it was at each change of speed, never back. */
const shownNow = () => clock.shownAt + (realNow() - clock.realAt) * clock.factor;

const api = {
  /** Open a photo (fetched from the test server) as a document with one Background layer. */
  async openPhoto(url: string, title: string, options: { mode?: DocState['mode']; bits?: DocState['bits'] } = {}) {
    const bytes = new Uint8Array(await (await native.fetch(url)).arrayBuffer());
    const { width, height, data } = await browserCodec.decode(bytes);
    const doc = sim.openDocument({ title, width, height, pixels: data, channels: 4, ...options });
    return summary(flattenToBackground(doc));
  },
  /** Copy the left half of the Background into a new layer above it and select it (a cut-out). */
  addLeftHalfLayer(docId: number, name: string) {
    const doc = sim.core.doc(docId);
    const bg = doc.layers[doc.layers.length - 1]!;
    const px = new Uint8Array(bg.pixels!.length);
    for (let y = 0; y < doc.height; y++) px.set(bg.pixels!.subarray(y * doc.width * 4, (y * doc.width + (doc.width >> 1)) * 4), y * doc.width * 4);
    const node: LayerNode = { id: 100000 + docId, name, kind: 'pixel', visible: true, isBackground: false, pixels: px, children: null };
    doc.layers.unshift(node);
    doc.activeLayerIds = [node.id];
    return summary(doc);
  },
  /**
   * Put an opaque layer with the Background's colours inverted on top, leaving the Background the active layer:
   * the composite then shows the inverted layer, and the active layer differs from it everywhere.
   */
  addInvertedLayerOnTop(docId: number, name: string) {
    const doc = sim.core.doc(docId);
    const bg = doc.layers[doc.layers.length - 1]!;
    const px = bg.pixels!.map((v, i) => ((i & 3) === 3 ? v : 255 - v));
    doc.layers.unshift({ id: 200000 + docId, name, kind: 'pixel', visible: true, isBackground: false, pixels: px, children: null });
    return summary(doc);
  },
  /** Put a copy of the Background into a new group with Lock All above it, and select the copy. */
  addLayerInLockedGroup(docId: number, groupName: string, layerName: string) {
    const doc = sim.core.doc(docId);
    const bg = doc.layers[doc.layers.length - 1]!;
    const layer: LayerNode = { id: 300000 + docId, name: layerName, kind: 'pixel', visible: true, isBackground: false, pixels: bg.pixels!.slice(), children: null };
    doc.layers.unshift({ id: 310000 + docId, name: groupName, kind: 'group', visible: true, isBackground: false, pixels: null, children: [layer], locks: { all: true } });
    doc.activeLayerIds = [layer.id];
    return summary(doc);
  },
  activate(docId: number) {
    sim.core.activeId = docId;
  },
  documents: () => [...sim.core.docs.values()].map(summary),
  document: (id: number) => summary(sim.core.doc(id)),
  /** A layer's canvas-sized RGBA, base64. */
  layerPixels(docId: number, layerId: number): string {
    const found = locate(sim.core.doc(docId).layers, layerId);
    if (!found?.node.pixels) throw new Error('no such pixel layer');
    return toBase64(found.node.pixels);
  },
  /** A layer's canvas-sized user mask, base64; empty when it has none. */
  layerMask(docId: number, layerId: number): string {
    const found = locate(sim.core.doc(docId).layers, layerId);
    return found?.node.mask ? toBase64(found.node.mask) : '';
  },
  /** Edit > Undo: back to the previous history state. */
  undo(docId: number) {
    sim.core.userUndoes(docId);
    return summary(sim.core.doc(docId));
  },
  /** Press Escape in Photoshop's progress bar during the next modal scope whose name starts with `prefix`. */
  escapeDuringModal(prefix: string) {
    sim.core.onModal = (name) => {
      if (!name.startsWith(prefix)) return;
      sim.core.onModal = undefined;
      sim.core.cancelCurrentModal();
    };
  },
  /** The user opens a dialog in Photoshop as the panel starts reading (a modal scope named `prefix`), and leaves it open. */
  openDialogWhileReading(prefix: string) {
    sim.core.onModal = (name) => {
      if (!name.startsWith(prefix)) return;
      sim.core.onModal = undefined;
      sim.core.heldByOther = 'a dialog';
    };
  },
  closeDialog() {
    sim.core.heldByOther = undefined;
  },
  /** The page's clock running `factor` times faster from now on (1: real time again): a long wait passes in a moment. */
  clockSpeed(factor: number) {
    clock = { realAt: realNow(), shownAt: shownNow(), factor };
    Date.now = shownNow;
  },
  batchPlayLog: () => sim.core.batchPlayLog,
  modalLog: () => sim.core.modalLog,
  getPixelsLog: () => sim.imaging.getPixelsLog,
  liveImageData: () => sim.imaging.live.size,
  tempFiles: () => [...sim.temp.files.keys()],
  secureKeys: () => [...sim.secureStorage.items.keys()],
};

/** Documents opened from photos start as a single opaque Background layer, as Photoshop opens a JPEG. */
function flattenToBackground(doc: DocState): DocState {
  const layer = doc.layers[0]!;
  layer.isBackground = true;
  layer.name = 'Background';
  doc.history = [{ id: doc.history[0]!.id, name: 'Open', layers: native.structuredClone(doc.layers), active: [...doc.activeLayerIds] }];
  return doc;
}

const modules: Record<string, unknown> = { photoshop: host.ps, uxp: host.uxp };
const removedGlobals: string[] = [];
// The Spectrum widgets exist before the panel's markup is parsed, as UXP's do.
const spectrumViolations = installSpectrum(customElements);
Object.assign(globalThis, {
  require: (id: string) => {
    if (!(id in modules)) throw new Error(`Cannot find module '${id}'`);
    return modules[id];
  },
  __sim: { ...api, removedGlobals: () => removedGlobals, spectrumViolations },
});
// Last: from here on the page has only what a UXP panel has.
removedGlobals.push(...restrictToUxpGlobals(__PANEL_NETWORK_DOMAINS__));

export type SimApi = typeof api & { removedGlobals: () => string[]; spectrumViolations: () => string[] };
