/**
 * The simulated Photoshop's document model: layer trees holding real RGBA
 * pixels (one canvas-sized buffer per pixel layer), compositing, bounds, and a
 * History panel with snapshots, so tests can check exactly what changed,
 * how many history steps it took and what undo brings back.
 */
import type { PsBitsPerChannel, PsDocumentMode, PsLayerKind } from '../../src/host/types';

export interface LayerNode {
  id: number;
  name: string;
  kind: PsLayerKind;
  visible: boolean;
  isBackground: boolean;
  /** Canvas-sized straight RGBA (pixel-like layers); null for groups. */
  pixels: Uint8Array | null;
  /** Children, topmost first (groups); null otherwise. */
  children: LayerNode[] | null;
  /** `constants.BlendMode` value; compositing draws multiply, and every other mode as normal. Default normal. */
  blendMode?: string;
  /** Percent. Default 100. */
  opacity?: number;
  /** Fill opacity, percent: scales the layer's own pixels, not its effects (classes/layer.md `fillOpacity`). Default 100. */
  fillOpacity?: number;
  /** Clipped to the layer below it, which bounds it (classes/layer.md `isClippingMask`). Default false. */
  clipped?: boolean;
  /** Canvas-sized user mask (0 hides, 255 shows); none when absent. */
  mask?: Uint8Array | null;
  /** The user mask is on (Shift-click in the Layers panel switches it off). Default true. */
  maskEnabled?: boolean;
  /** The user mask's density, percent (classes/layer.md `layerMaskDensity`). Default 100. */
  maskDensity?: number;
  /** The user mask's feather, pixels 0–1000 (classes/layer.md `layerMaskFeather`); drawn as a box blur. Default 0. */
  maskFeather?: number;
  /** The `blendRange` list of its Blend If (not rendered by the simulator); none when it has the full ranges. */
  blendRange?: Record<string, unknown>[];
  /** The `layerEffects` descriptor of its layer style (not rendered by the simulator); none when absent. */
  effects?: Record<string, unknown>;
  /** Whether it has a vector mask (not rendered by the simulator). */
  vectorMask?: boolean;
  /** Its own locks, set in the Layers panel (see {@link Locks}); none when absent. */
  locks?: Locks;
  /** A group that is an artboard (Layer > New > Artboard): listed by `document.artboards`. Top level only. */
  artboard?: boolean;
}

/**
 * The four locks of the Layers panel, as the DOM names them (classes/layer.md:37, :57, :58, :60): `all` "prevents
 * edits to pixels and properties of this layer", `pixels` "prevents the pixels of this layer from being edited",
 * `position` "prevents the layer from being moved", `transparentPixels` "prevents the transparent pixels from being
 * edited". What each refuses is decided where the operation is simulated (`dom.ts`, `imaging.ts`, `photoshop.ts`).
 */
export interface Locks {
  all?: boolean;
  pixels?: boolean;
  position?: boolean;
  transparentPixels?: boolean;
}

export type LockName = keyof Locks;
const LOCK_NAMES: readonly LockName[] = ['all', 'pixels', 'position', 'transparentPixels'];

export interface HistoryEntry {
  /**
   * The state's id: "This history ID, along with its document ID can be used to represent this history state for the
   * lifetime of this document" (classes/historystate.md:29), so each new state gets one of its own.
   */
  id: number;
  name: string;
  layers: LayerNode[];
  active: number[];
  /** The selection in this state: a selection is part of the document's history (Undo brings the previous one back). */
  selection?: Uint8Array;
}

export interface DocState {
  id: number;
  title: string;
  width: number;
  height: number;
  resolution: number;
  mode: PsDocumentMode;
  bits: PsBitsPerChannel;
  /**
   * The colour profile's name, or null for a document that is not colour managed (Edit > Assign Profile > Don't
   * Color Manage This Document; `colorProfileType` NONE, constants.md:470-480), whose numbers Photoshop takes to be
   * in the working RGB space: sRGB IEC61966-2.1 in its default colour settings, as the simulator's pixels are. A
   * document on the working profile carries that profile's name.
   */
  profile: string | null;
  /** Top-level layers, topmost first. */
  layers: LayerNode[];
  activeLayerIds: number[];
  /** The History panel up to its active state (the last); each entry holds the state after its step. */
  history: HistoryEntry[];
  /**
   * States undone (Edit > Undo), nearest first: Photoshop keeps listing them after the active one until the next edit
   * replaces them (Redo brings them back). See `record` and `undo`.
   */
  undone?: HistoryEntry[];
  suspension?: { id: number; name: string; before: HistoryEntry };
  /** Canvas-sized selection (0 unselected – 255 selected); none when nothing is selected. */
  selection?: Uint8Array;
}

let nextId = 1;
export function newId(): number {
  return nextId++;
}

export function cloneLayers(layers: LayerNode[]): LayerNode[] {
  return layers.map((l) => ({
    ...l, pixels: l.pixels ? l.pixels.slice() : null, children: l.children ? cloneLayers(l.children) : null,
    ...(l.mask ? { mask: l.mask.slice() } : {}), ...(l.locks ? { locks: { ...l.locks } } : {}),
  }));
}

export function snapshot(doc: DocState, name: string): HistoryEntry {
  return { id: newId(), name, layers: cloneLayers(doc.layers), active: [...doc.activeLayerIds], ...(doc.selection ? { selection: doc.selection.slice() } : {}) };
}

/** A new state in the History panel, now the active one: the states undone before it are gone (no Redo after an edit). */
export function record(doc: DocState, name: string): void {
  doc.history.push(snapshot(doc, name));
  doc.undone = [];
}

/** Edit > Undo: the previous state becomes the active one; the undone one stays listed after it. */
export function undo(doc: DocState): void {
  if (doc.history.length < 2) throw new Error('simulator: nothing to undo');
  (doc.undone ??= []).unshift(doc.history.pop()!);
  restore(doc, doc.history.at(-1)!);
}

export function restore(doc: DocState, entry: HistoryEntry): void {
  doc.layers = cloneLayers(entry.layers);
  doc.activeLayerIds = [...entry.active];
  doc.selection = entry.selection?.slice();
}

/** Find a layer and the array that holds it. */
export function locate(layers: LayerNode[], id: number): { node: LayerNode; siblings: LayerNode[]; parent: LayerNode | null } | undefined {
  for (const node of layers) {
    if (node.id === id) return { node, siblings: layers, parent: null };
    if (node.children) {
      const inner = locate(node.children, id);
      if (inner) return inner.parent ? inner : { ...inner, parent: node };
    }
  }
  return undefined;
}

/** The groups holding layer `id`, outermost first; undefined when there is no such layer. */
export function ancestorsOf(layers: LayerNode[], id: number): LayerNode[] | undefined {
  for (const node of layers) {
    if (node.id === id) return [];
    const inner = node.children ? ancestorsOf(node.children, id) : undefined;
    if (inner) return [node, ...inner];
  }
  return undefined;
}

/**
 * A layer's own locks. The Background is always opaque and stays at the bottom ("You cannot change the stacking order
 * of a background layer, its blending mode, or its opacity", Photoshop Help, "Convert background and layers"), so it
 * answers with its position and transparency locked, whatever else it has.
 */
export function ownLocks(node: LayerNode): Required<Locks> {
  const l = node.locks ?? {};
  return {
    all: l.all === true,
    pixels: l.pixels === true,
    position: l.position === true || node.isBackground,
    transparentPixels: l.transparentPixels === true || node.isBackground,
  };
}

/**
 * The locks that hold layer `id`: its own and those of every group around it. The docs do not say whether a group's
 * lock reaches its layers (Photoshop's Layers panel shows them locked too); the simulator, the stricter host, lets it.
 */
export function heldLocks(layers: LayerNode[], id: number): Required<Locks> {
  const found = locate(layers, id);
  if (!found) throw new Error(`simulator: layer ${id} no longer exists`);
  const held = ownLocks(found.node);
  for (const group of ancestorsOf(layers, id) ?? []) {
    const own = ownLocks(group);
    for (const name of LOCK_NAMES) held[name] ||= own[name];
  }
  return held;
}

/**
 * The outermost locked group that a layer put inside `group` (null: the top level) would be in. Whether Photoshop adds
 * or moves a layer into a group with a lock is not documented (classes/layer.md `move`, batchplay.md): the simulator
 * refuses any lock, as the stricter host.
 */
export function lockedGroupAround(layers: LayerNode[], group: LayerNode | null): LayerNode | undefined {
  if (!group) return undefined;
  return [...(ancestorsOf(layers, group.id) ?? []), group].find((g) => LOCK_NAMES.some((name) => ownLocks(g)[name]));
}

/**
 * Whether `layer`, just put among `siblings` (topmost first), is part of a clipping mask: "If you create a layer
 * between layers in a clipping mask, or drag an unclipped layer between layers in a clipping mask, the layer becomes
 * part of the clipping mask" (Photoshop help, "Revealing layers with clipping masks") — the layer above it is
 * clipped; with `overClipped`, also directly above a clipped layer. The Background is never clipped.
 */
export function joinsClipping(siblings: readonly LayerNode[], layer: LayerNode, overClipped: boolean): boolean {
  const at = siblings.indexOf(layer);
  if (layer.isBackground || at === siblings.length - 1) return false;
  return siblings[at - 1]?.clipped === true || (overClipped && siblings[at + 1]?.clipped === true);
}

/** Bounds of the non-transparent pixels of a layer (groups: of their children); right/bottom exclusive. */
export function boundsOf(doc: DocState, node: LayerNode): { left: number; top: number; right: number; bottom: number } {
  const rgba = node.children ? compositeOf(doc, node.children, true) : node.pixels;
  let left = doc.width, top = doc.height, right = 0, bottom = 0;
  if (rgba) {
    for (let y = 0; y < doc.height; y++) {
      for (let x = 0; x < doc.width; x++) {
        if (rgba[(y * doc.width + x) * 4 + 3]! > 0) {
          if (x < left) left = x;
          if (x >= right) right = x + 1;
          if (y < top) top = y;
          if (y >= bottom) bottom = y + 1;
        }
      }
    }
  }
  return right > left ? { left, top, right, bottom } : { left: 0, top: 0, right: 0, bottom: 0 };
}

/** The bounding box of the selected pixels (any value above 0), or null when nothing is selected (classes/selection.md:23). */
export function selectionBoundsOf(doc: DocState): { left: number; top: number; right: number; bottom: number } | null {
  const sel = doc.selection;
  if (!sel) return null;
  let left = doc.width, top = doc.height, right = 0, bottom = 0;
  for (let y = 0; y < doc.height; y++) {
    for (let x = 0; x < doc.width; x++) {
      if (sel[y * doc.width + x] === 0) continue;
      if (x < left) left = x;
      if (x >= right) right = x + 1;
      if (y < top) top = y;
      if (y >= bottom) bottom = y + 1;
    }
  }
  return right > left ? { left, top, right, bottom } : null;
}

/**
 * Straight-alpha compositing of layers (topmost first) onto a transparent canvas, as Photoshop draws them: each
 * layer at its opacity × fill × user mask (its density and feather applied, none when it is switched off), in
 * multiply or else normal; a layer with clipped layers above it draws them inside its own pixels and mask (not
 * its fill: a base at 0 % fill still shows them), the whole then at the base's opacity and blend mode; a hidden base
 * hides what is clipped to it (Photoshop help, "Revealing layers with clipping masks").
 */
export function compositeOf(doc: DocState, layers: LayerNode[], includeHidden = false): Uint8Array {
  const out = new Uint8Array(doc.width * doc.height * 4);
  for (let i = layers.length - 1; i >= 0; i--) {
    const base = layers[i]!;
    let top = i;
    while (top > 0 && layers[top - 1]!.clipped) top--;
    const clippedToIt = layers.slice(top, i).reverse();
    i = top;
    if (!base.visible && !includeHidden) continue;
    const src = base.children ? compositeOf(doc, base.children, includeHidden) : base.pixels;
    if (!src) continue;
    const mask = shownMask(doc, base);
    const shown = clippedToIt.filter((l) => l.visible || includeHidden);
    if (shown.length === 0) {
      draw(out, src, mask, ((base.opacity ?? 100) / 100) * ((base.fillOpacity ?? 100) / 100), base.blendMode);
      continue;
    }
    const group = new Uint8Array(out.length);
    draw(group, src, mask, (base.fillOpacity ?? 100) / 100, 'normal');
    const bound = new Uint8Array(doc.width * doc.height);
    for (let p = 0; p < bound.length; p++) bound[p] = Math.round((src[p * 4 + 3]! * (mask ? mask[p]! : 255)) / 255);
    for (const layer of shown) {
      const pixels = layer.children ? compositeOf(doc, layer.children, includeHidden) : layer.pixels;
      if (!pixels) continue;
      const own = shownMask(doc, layer);
      const inside = own ? bound.map((b, p) => Math.round((b * own[p]!) / 255)) : bound;
      draw(group, pixels, inside, ((layer.opacity ?? 100) / 100) * ((layer.fillOpacity ?? 100) / 100), layer.blendMode);
    }
    draw(out, group, null, (base.opacity ?? 100) / 100, base.blendMode);
  }
  return out;
}

/** Draw straight RGBA `src` over `out` at `opacity` (0–1) times `mask` (0–255 a pixel; null: shown), in `mode`. */
function draw(out: Uint8Array, src: Uint8Array, mask: Uint8Array | null, opacity: number, mode: string | undefined): void {
  for (let p = 0; p < out.length; p += 4) {
    const sa = (src[p + 3]! / 255) * opacity * (mask ? mask[p >> 2]! / 255 : 1);
    if (sa === 0) continue;
    const da = out[p + 3]! / 255;
    const a = sa + da * (1 - sa);
    for (let c = 0; c < 3; c++) {
      // Multiply over what is below (where something is); other modes are drawn as normal.
      const top = mode === 'multiply' && da > 0 ? (src[p + c]! * out[p + c]!) / 255 : src[p + c]!;
      out[p + c] = Math.round((top * sa + out[p + c]! * da * (1 - sa)) / a);
    }
    out[p + 3] = Math.round(a * 255);
  }
}

/**
 * A layer's user mask as it shows: null without one or when it is switched off; feathered (a box blur of the
 * feather's radius, standing in for Photoshop's smoother blur) and at its density (100 % − density × hidden).
 */
export function shownMask(doc: DocState, layer: LayerNode): Uint8Array | null {
  if (!layer.mask || layer.maskEnabled === false) return null;
  const radius = Math.round(layer.maskFeather ?? 0);
  const feathered = radius > 0 ? boxBlur(layer.mask, doc.width, doc.height, radius) : layer.mask;
  const density = (layer.maskDensity ?? 100) / 100;
  return density === 1 ? feathered : feathered.map((v) => Math.round(255 - (255 - v) * density));
}

/** A separable box blur of a grey image, edges extended. */
function boxBlur(grey: Uint8Array, width: number, height: number, radius: number): Uint8Array {
  const pass = (src: Uint8Array, along: number, across: number, at: (i: number, j: number) => number) => {
    const out = new Uint8Array(src.length);
    for (let j = 0; j < across; j++) {
      for (let i = 0; i < along; i++) {
        let sum = 0;
        for (let k = -radius; k <= radius; k++) sum += src[at(Math.min(along - 1, Math.max(0, i + k)), j)]!;
        out[at(i, j)] = Math.round(sum / (2 * radius + 1));
      }
    }
    return out;
  };
  const across = pass(grey, width, height, (x, y) => y * width + x);
  return pass(across, height, width, (y, x) => y * width + x);
}

/** A new document with one opaque Background layer holding `rgb` or `rgba` pixels. */
export function newDocument(init: {
  title: string;
  width: number;
  height: number;
  pixels: Uint8Array;
  channels: 3 | 4;
  mode?: PsDocumentMode;
  bits?: PsBitsPerChannel;
  /** Default sRGB IEC61966-2.1; null: untagged. */
  profile?: string | null;
  resolution?: number;
}): DocState {
  const { width, height, pixels, channels } = init;
  const rgba = new Uint8Array(width * height * 4);
  for (let i = 0; i < width * height; i++) {
    rgba[i * 4] = pixels[i * channels]!;
    rgba[i * 4 + 1] = pixels[i * channels + 1]!;
    rgba[i * 4 + 2] = pixels[i * channels + 2]!;
    rgba[i * 4 + 3] = channels === 4 ? pixels[i * channels + 3]! : 255;
  }
  const background: LayerNode = {
    id: newId(), name: channels === 3 ? 'Background' : 'Layer 0', kind: 'pixel', visible: true,
    isBackground: channels === 3, pixels: rgba, children: null,
  };
  const doc: DocState = {
    id: newId(), title: init.title, width, height, resolution: init.resolution ?? 72,
    mode: init.mode ?? 'RGBColorMode', bits: init.bits ?? 'bitDepth8', profile: init.profile === undefined ? 'sRGB IEC61966-2.1' : init.profile,
    layers: [background], activeLayerIds: [background.id], history: [],
  };
  doc.history.push(snapshot(doc, 'Open'));
  return doc;
}
