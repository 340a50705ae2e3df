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
  /** Canvas-sized user mask (0 hides, 255 shows); none when absent. */
  mask?: Uint8Array | null;
  /** The `layerEffects` descriptor of its layer style (not rendered by the simulator); none when absent. */
  effects?: Record<string, unknown>;
  /** Whether it has a vector mask (not rendered by the simulator). */
  vectorMask?: boolean;
}

export interface HistoryEntry {
  name: string;
  layers: LayerNode[];
  active: number[];
}

export interface DocState {
  id: number;
  title: string;
  width: number;
  height: number;
  resolution: number;
  mode: PsDocumentMode;
  bits: PsBitsPerChannel;
  profile: string;
  /** Top-level layers, topmost first. */
  layers: LayerNode[];
  activeLayerIds: number[];
  /** The History panel; each entry holds the state after its step. */
  history: HistoryEntry[];
  suspension?: { id: number; name: string; before: HistoryEntry };
  /** Canvas-sized selection (0 unselected – 255 selected); none when nothing is selected. */
  selection?: Uint8Array;
}

let nextId = 1;
export function newId(): number {
  return nextId++;
}

export function cloneLayers(layers: LayerNode[]): LayerNode[] {
  return layers.map((l) => ({ ...l, pixels: l.pixels ? l.pixels.slice() : null, children: l.children ? cloneLayers(l.children) : null, ...(l.mask ? { mask: l.mask.slice() } : {}) }));
}

export function snapshot(doc: DocState, name: string): HistoryEntry {
  return { name, layers: cloneLayers(doc.layers), active: [...doc.activeLayerIds] };
}

export function restore(doc: DocState, entry: HistoryEntry): void {
  doc.layers = cloneLayers(entry.layers);
  doc.activeLayerIds = [...entry.active];
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

/** Straight-alpha "normal" compositing of layers (topmost first) onto a transparent canvas. */
export function compositeOf(doc: DocState, layers: LayerNode[], includeHidden = false): Uint8Array {
  const out = new Uint8Array(doc.width * doc.height * 4);
  for (let i = layers.length - 1; i >= 0; i--) {
    const layer = layers[i]!;
    if (!layer.visible && !includeHidden) continue;
    const src = layer.children ? compositeOf(doc, layer.children, includeHidden) : layer.pixels;
    if (!src) continue;
    const opacity = (layer.opacity ?? 100) / 100;
    for (let p = 0; p < out.length; p += 4) {
      const sa = (src[p + 3]! / 255) * opacity * (layer.mask ? layer.mask[p >> 2]! / 255 : 1);
      if (sa === 0) continue;
      const da = out[p + 3]! / 255;
      const a = sa + da * (1 - sa);
      for (let c = 0; c < 3; c++) {
        // Multiply over what is below (where something is); other modes are drawn as normal.
        const top = layer.blendMode === 'multiply' && da > 0 ? (src[p + c]! * out[p + c]!) / 255 : src[p + c]!;
        out[p + c] = Math.round((top * sa + out[p + c]! * da * (1 - sa)) / a);
      }
      out[p + 3] = Math.round(a * 255);
    }
  }
  return out;
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
  profile?: string;
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
    mode: init.mode ?? 'RGBColorMode', bits: init.bits ?? 'bitDepth8', profile: init.profile ?? 'sRGB IEC61966-2.1',
    layers: [background], activeLayerIds: [background.id], history: [],
  };
  doc.history.push(snapshot(doc, 'Open'));
  return doc;
}
