/**
 * The simulated imaging API. Documents hold 8-bit sRGB pixels; what a
 * request asks for is checked as Photoshop would (bit depth of `putPixels`
 * data must match the document, `getPixels` without a conversion returns the
 * document's own depth) and recorded for assertions.
 *
 * Reads (`getPixels`, `getLayerMask`, `getSelection`) are refused outside a
 * modal scope. Adobe's docs do not settle it: imaging.md documents them
 * (:132-177, :206-237, :268-294) without a word on modal scopes;
 * executeasmodal.md:10 requires one "when a plugin wants to make
 * modifications", which reads are not; yet Adobe's imaging sample
 * (media/assets/imaging.psjs:15-41) reads inside executeAsModal. Unsure, the
 * simulator is the stricter host.
 */
import type { PsGetPixelsOptions, PsImageData, PsImaging, PsRect } from '../../src/host/types';
import type { SimPhotoshopCore } from './photoshop';
import { native } from './native';
import { boundsOf, compositeOf, heldLocks, locate, selectionBoundsOf } from './state';

const DEPTH: Record<string, 8 | 16 | 32> = { bitDepth8: 8, bitDepth16: 16, bitDepth32: 32 };

export class SimImageData implements PsImageData {
  disposed = false;
  readonly hasAlpha: boolean;
  readonly componentSize: 8 | 16 | 32;
  constructor(
    readonly width: number,
    readonly height: number,
    readonly components: number,
    readonly data: Uint8Array | Uint16Array | Float32Array,
    readonly colorSpace: 'RGB' | 'Grayscale' | 'Lab' = 'RGB',
    readonly colorProfile = 'sRGB IEC61966-2.1',
  ) {
    if (data.length !== width * height * components) throw new Error('The number of elements in imageData must be width * height * components');
    this.hasAlpha = components === 4 || components === 2;
    this.componentSize = data instanceof Uint16Array ? 16 : data instanceof Float32Array ? 32 : 8;
  }
  async getData(options: { chunky?: boolean }) {
    if (this.disposed) throw new Error('image data was disposed');
    if (options.chunky === false) throw new Error('simulator: planar data is not simulated');
    return this.data;
  }
  dispose(): void {
    this.disposed = true;
  }
}

export class SimImaging implements PsImaging {
  readonly getPixelsLog: PsGetPixelsOptions[] = [];
  readonly putPixelsLog: { documentID?: number; layerID: number; targetBounds?: unknown; componentSize: number }[] = [];
  /** The layers whose user mask was read, in order (a whole mask is a large read on a large layer). */
  readonly getLayerMaskLog: number[] = [];
  /** Image data handed out and not disposed (a leak if the panel forgets `dispose`). */
  readonly live = new Set<SimImageData>();

  constructor(private readonly core: SimPhotoshopCore) {}

  private docOf(documentID?: number) {
    const id = documentID === undefined || documentID < 0 ? this.core.activeId : documentID;
    if (id === undefined) throw new Error('no document');
    return this.core.doc(id);
  }

  private track(img: SimImageData): SimImageData {
    this.live.add(img);
    const dispose = img.dispose.bind(img);
    img.dispose = () => {
      dispose();
      this.live.delete(img);
    };
    return img;
  }

  async getPixels(options: PsGetPixelsOptions) {
    this.getPixelsLog.push({ ...options });
    this.core.checkModal();
    this.core.checkNotCancelled('getPixels');
    const doc = this.docOf(options.documentID);
    const docDepth = DEPTH[doc.bits] ?? 8;
    const size = options.componentSize === undefined || options.componentSize === -1 ? docDepth : options.componentSize;
    if (options.colorSpace !== 'RGB' && doc.mode !== 'RGBColorMode') {
      throw new Error(`simulator: pixels of a ${doc.mode} document are only simulated converted to RGB`);
    }
    if (size === 32) throw new Error('simulator: 32-bit reads are not simulated');
    // Refused rather than ignored: a caller asking for a region must not get the whole layer without notice.
    if (options.sourceBounds) throw new Error('simulator: getPixels sourceBounds is not simulated');
    let rgba: Uint8Array;
    let rect: PsRect;
    let opaque: boolean;
    if (options.layerID !== undefined) {
      const found = locate(doc.layers, options.layerID);
      if (!found) throw new Error(`layer ${options.layerID} not found`);
      rgba = found.node.children ? compositeOf(doc, found.node.children) : found.node.pixels!;
      rect = boundsOf(doc, found.node);
      opaque = found.node.isBackground;
    } else {
      rgba = compositeOf(doc, doc.layers);
      rect = { left: 0, top: 0, right: doc.width, bottom: doc.height };
      opaque = doc.layers.some((l) => l.isBackground);
    }
    const width = rect.right - rect.left;
    const height = rect.bottom - rect.top;
    const components = opaque ? 3 : 4;
    // Documents store 8-bit samples; a 16-bit read widens them to Photoshop's 0–32768 range (imaging.md "componentSize").
    const out = size === 16 ? new Uint16Array(width * height * components) : new Uint8Array(width * height * components);
    const widen = size === 16 ? (v: number) => Math.round((v * 32768) / 255) : (v: number) => v;
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const s = ((rect.top + y) * doc.width + rect.left + x) * 4;
        const o = (y * width + x) * components;
        for (let c = 0; c < components; c++) out[o + c] = widen(rgba[s + c]!);
      }
    }
    if (options.targetSize) {
      // Photoshop's sourceBounds are then "relative to the bounds of the source cache level (not relative to the
      // full resolution bounds)" (ImagingModule.d.ts, getPixels); the simulator answers the scaled image's own
      // rectangle, so a caller that takes them for document coordinates misplaces its result here at every level.
      const small = scaleDown(out, width, height, components, options.targetSize);
      return { imageData: this.track(new SimImageData(small.width, small.height, components, small.data)), sourceBounds: { left: 0, top: 0, right: small.width, bottom: small.height }, level: small.level };
    }
    return { imageData: this.track(new SimImageData(width, height, components, out)), sourceBounds: rect, level: 0 };
  }

  async putPixels(options: Parameters<PsImaging['putPixels']>[0]): Promise<void> {
    const doc = this.docOf(options.documentID);
    const img = options.imageData as SimImageData;
    this.putPixelsLog.push({ documentID: options.documentID, layerID: options.layerID, targetBounds: options.targetBounds, componentSize: img.componentSize });
    if (img.disposed) throw new Error('image data was disposed');
    this.core.checkNotCancelled('putPixels');
    const depth = DEPTH[doc.bits] ?? 8;
    if (img.componentSize !== depth) throw new Error(`putPixels: ${img.componentSize}-bit data into a ${depth}-bit document`);
    if (img.colorSpace !== 'RGB' || img.components !== 4) throw new Error('simulator: putPixels takes RGBA data');
    const found = locate(doc.layers, options.layerID);
    if (!found || found.node.kind !== 'pixel' || !found.node.pixels) throw new Error('The target layer must be a pixel layer');
    // Lock All and Lock Image Pixels keep the layer's pixels (classes/layer.md:37, :57). How putPixels treats a layer
    // whose transparent pixels are locked (:60) is not documented (imaging.md:181-201): refused too, as the stricter host.
    const held = heldLocks(doc.layers, options.layerID);
    if (held.all || held.pixels || held.transparentPixels) throw new Error(`Could not put pixels into "${found.node.name}" because the layer is locked`);
    const left = options.targetBounds?.left ?? 0;
    const top = options.targetBounds?.top ?? 0;
    this.core.mutate(doc.id, options.commandName ?? 'Put Pixels', () => {
      const px = found.node.pixels!;
      if (options.replace !== false) px.fill(0);
      for (let y = 0; y < img.height; y++) {
        const dy = top + y;
        if (dy < 0 || dy >= doc.height) continue;
        for (let x = 0; x < img.width; x++) {
          const dx = left + x;
          if (dx < 0 || dx >= doc.width) continue;
          const s = (y * img.width + x) * 4;
          const o = (dy * doc.width + dx) * 4;
          for (let c = 0; c < 4; c++) px[o + c] = to8(img.data[s + c]!, depth, c === 3);
        }
      }
    });
  }

  /** `getLayerMask` (imaging.md:206-226): the user mask as grey data; a layer without one is refused. */
  async getLayerMask(options: { documentID?: number; layerID: number; kind?: 'user' }) {
    this.core.checkModal();
    this.core.checkNotCancelled('getLayerMask');
    const doc = this.docOf(options.documentID);
    const found = locate(doc.layers, options.layerID);
    if (!found) throw new Error(`layer ${options.layerID} not found`);
    if (!found.node.mask) throw new Error('The layer has no user mask');
    this.getLayerMaskLog.push(options.layerID);
    const img = new SimImageData(doc.width, doc.height, 1, found.node.mask.slice(), 'Grayscale', 'Gray Gamma 2.2');
    return { imageData: this.track(img), sourceBounds: { left: 0, top: 0, right: doc.width, bottom: doc.height } };
  }

  /**
   * `getSelection` (imaging.md:268-286): the selection as grey data; refused when nothing is selected. Without
   * `sourceBounds`, "pixels from the entire selection are returned" and the answer's `sourceBounds` are "the actual
   * bounds used" (:277, :286): the selection's own bounds, not the canvas, so a caller must place the data at them
   * and fill the rest of its rectangle as unselected.
   */
  async getSelection(options: { documentID?: number }) {
    this.core.checkModal();
    this.core.checkNotCancelled('getSelection');
    const doc = this.docOf(options.documentID);
    const sel = doc.selection;
    const b = selectionBoundsOf(doc);
    if (!sel || !b) throw new Error('There is no selection');
    const width = b.right - b.left;
    const data = new Uint8Array(width * (b.bottom - b.top));
    for (let y = b.top; y < b.bottom; y++) data.set(sel.subarray(y * doc.width + b.left, y * doc.width + b.right), (y - b.top) * width);
    const img = new SimImageData(width, b.bottom - b.top, 1, data, 'Grayscale', 'Gray Gamma 2.2');
    return { imageData: this.track(img), sourceBounds: b };
  }

  /** `putLayerMask` (imaging.md:241-255): single-component grey data only. */
  async putLayerMask(options: { documentID?: number; layerID: number; imageData: PsImageData; replace?: boolean; targetBounds?: { left: number; top: number } }) {
    this.core.checkNotCancelled('putLayerMask');
    const doc = this.docOf(options.documentID);
    const img = options.imageData as SimImageData;
    if (img.components !== 1 || img.colorSpace !== 'Grayscale') throw new Error('putLayerMask takes image data with a single grayscale component');
    // As putPixels: the document's own depth (16-bit: 0–32768; 32-bit: 0–1), kept by the simulator as 8-bit.
    const depth = DEPTH[doc.bits] ?? 8;
    if (img.componentSize !== depth) throw new Error(`putLayerMask: ${img.componentSize}-bit data into a ${depth}-bit document`);
    const found = locate(doc.layers, options.layerID);
    if (!found) throw new Error(`layer ${options.layerID} not found`);
    // A Background has no layer mask (it must become a regular layer first). Lock All keeps the layer's pixels
    // (classes/layer.md:37); whether Lock Image Pixels (:57) keeps its mask too is not documented: refused, the stricter host.
    if (found.node.isBackground) throw new Error('The background layer cannot have a layer mask');
    const held = heldLocks(doc.layers, options.layerID);
    if (held.all || held.pixels) throw new Error(`Could not change the layer mask of "${found.node.name}" because the layer is locked`);
    const left = options.targetBounds?.left ?? 0;
    const top = options.targetBounds?.top ?? 0;
    this.core.mutate(doc.id, 'Add Layer Mask', () => {
      const mask = options.replace === false && found.node.mask ? found.node.mask : new Uint8Array(doc.width * doc.height).fill(255);
      for (let y = 0; y < img.height; y++) {
        for (let x = 0; x < img.width; x++) {
          const dx = left + x, dy = top + y;
          if (dx >= 0 && dy >= 0 && dx < doc.width && dy < doc.height) mask[dy * doc.width + dx] = to8(img.data[y * img.width + x]!, depth, true);
        }
      }
      found.node.mask = mask;
    });
  }

  async createImageDataFromBuffer(buffer: Uint8Array | Uint16Array | Float32Array, options: Parameters<PsImaging['createImageDataFromBuffer']>[1]) {
    if (options.colorSpace === 'Grayscale' && options.components === 1) {
      return this.track(new SimImageData(options.width, options.height, 1, buffer, 'Grayscale', options.colorProfile ?? ''));
    }
    if (options.colorSpace !== 'RGB') throw new Error('simulator: only RGB and one-component Grayscale image data are simulated');
    return this.track(new SimImageData(options.width, options.height, options.components, buffer, 'RGB', options.colorProfile ?? ''));
  }

  async encodeImageData(options: { imageData: PsImageData; base64?: boolean }): Promise<number[] | string> {
    const img = options.imageData as SimImageData;
    if (img.disposed) throw new Error('image data was disposed');
    if (img.componentSize !== 8 || img.components !== 3) throw new Error('simulator: encodeImageData takes 8-bit RGB data');
    const jpeg = await this.core.codec.encodeJpeg(img.data as Uint8Array, img.width, img.height);
    if (options.base64) {
      let bin = '';
      for (const b of jpeg) bin += String.fromCharCode(b);
      return native.btoa(bin);
    }
    return Array.from(jpeg);
  }
}

/**
 * `targetSize` of getPixels (ImagingModule.d.ts:25-33): the region scaled down, aspect kept when one side is
 * given; never scaled up. Photoshop may answer from a pyramid level; the simulator samples the nearest pixel.
 */
function scaleDown<T extends Uint8Array | Uint16Array>(data: T, width: number, height: number, components: number, target: { width?: number; height?: number }) {
  if (target.width === undefined && target.height === undefined) throw new Error('getPixels: targetSize needs a width or a height');
  for (const v of [target.width, target.height]) if (v !== undefined && (!Number.isInteger(v) || v < 1)) throw new Error(`getPixels: invalid targetSize ${String(v)}`);
  const factor = Math.min(1, target.width !== undefined ? target.width / width : Infinity, target.height !== undefined ? target.height / height : Infinity);
  const w = Math.max(1, Math.round(width * factor));
  const h = Math.max(1, Math.round(height * factor));
  const out = new (data.constructor as new (n: number) => T)(w * h * components);
  for (let y = 0; y < h; y++) {
    const sy = Math.min(height - 1, Math.floor(((y + 0.5) * height) / h));
    for (let x = 0; x < w; x++) {
      const sx = Math.min(width - 1, Math.floor(((x + 0.5) * width) / w));
      for (let c = 0; c < components; c++) out[(y * w + x) * components + c] = data[(sy * width + sx) * components + c]!;
    }
  }
  return { width: w, height: h, data: out, level: Math.max(0, Math.floor(Math.log2(1 / factor))) };
}

/** A component of 8-, 16- (0–32768) or 32-bit (linear float) data as 8-bit sRGB. */
function to8(v: number, depth: 8 | 16 | 32, alpha: boolean): number {
  if (depth === 8) return v;
  if (depth === 16) return Math.round((v * 255) / 32768);
  const c = alpha ? v : v <= 0.0031308 ? v * 12.92 : 1.055 * v ** (1 / 2.4) - 0.055;
  return Math.max(0, Math.min(255, Math.round(c * 255)));
}
