/**
 * Photoshop state changes, each one function around one descriptor from
 * `descriptors.ts` or one host call. All of them must run inside
 * `executeAsModal` (see `modal.ts`); none touches an existing layer's pixels.
 */
import type { Host, PsDescriptor, PsDocument, PsLayer } from '../host/types';
import { getLayerProperty, makePixelLayer, selectDocument, selectLayer, type LayerProperty, type PanelDescriptor } from './descriptors';
import { makeSpot } from './locks';

/** Photoshop refused a command; carries its message and result code. */
export class PhotoshopCommandError extends Error {
  override name = 'PhotoshopCommandError';
  constructor(
    readonly command: string,
    message: string,
    readonly resultCode: number | undefined,
  ) {
    super(`Photoshop could not ${command}: ${message}`);
  }
}

/**
 * Play one descriptor. batchPlay reports a failed command as an `error`
 * descriptor in its result instead of rejecting, so the result is checked.
 */
export async function play(host: Host, what: string, descriptor: PanelDescriptor): Promise<PsDescriptor> {
  const [result] = await host.ps.action.batchPlay([descriptor], {});
  if (result && result._obj === 'error') {
    const code = typeof result.result === 'number' ? result.result : undefined;
    throw new PhotoshopCommandError(what, typeof result.message === 'string' ? result.message : 'unknown error', code);
  }
  return result ?? { _obj: descriptor._obj };
}

/** The open document with this id, read afresh (DOM objects describe live state). */
export function findDocument(host: Host, documentId: number): PsDocument | undefined {
  return host.ps.app.documents.find((d) => d.id === documentId);
}

/** Depth-first search of a document's layer tree. */
export function findLayer(layers: readonly PsLayer[], layerId: number): PsLayer | undefined {
  for (const layer of layers) {
    if (layer.id === layerId) return layer;
    const inner = layer.layers ? findLayer(layer.layers, layerId) : undefined;
    if (inner) return inner;
  }
  return undefined;
}

/** Make a document the active one, unless it already is. */
export async function activateDocument(host: Host, documentId: number): Promise<void> {
  panelActivated(host, documentId);
  if (host.ps.app.activeDocument?.id === documentId) return;
  await play(host, 'switch to the document', selectDocument(documentId));
}

/**
 * The document the panel last made active itself, per host: one it switched to (`activateDocument`), or the one in
 * front after it opened a document (`newResultDocument`). Another active document is one the user chose, which a run
 * leaves be.
 */
const lastActivated = new WeakMap<Host, number>();

/** Note that the panel made `documentId` active (or relies on it being active). */
export function panelActivated(host: Host, documentId: number): void {
  lastActivated.set(host, documentId);
}

/** Whether the active document is the one the panel last made active, i.e. the user has not switched away since. */
export function activeAsPanelLeftIt(host: Host): boolean {
  const active = host.ps.app.activeDocument?.id;
  return active !== undefined && active === lastActivated.get(host);
}

/**
 * Create an empty pixel layer named `name` directly above `anchor` (in the
 * active document) and return it. When `anchor` is a group Photoshop creates
 * the layer inside it, so the new layer is moved back next to the anchor; a
 * locked group takes no new layer, so it is made beside another layer of the
 * anchor's level first (see `makeSpot`).
 */
export async function createLayerAbove(host: Host, documentId: number, anchor: PsLayer, name: string): Promise<PsLayer> {
  const spot = makeSpot(anchor, anchor.parent?.layers ?? findDocument(host, documentId)?.layers ?? []);
  if (!spot) throw new PhotoshopCommandError('create a layer', `every layer beside "${anchor.name}" is a locked group`, undefined);
  await play(host, 'select the layer to make the new one above', selectLayer(spot.id));
  await play(host, 'create a layer', makePixelLayer(name));
  const doc = findDocument(host, documentId);
  const created = doc?.activeLayers[0];
  if (!doc || !created || created.id === spot.id) throw new PhotoshopCommandError('create a layer', 'no new layer was selected', undefined);
  const siblings = anchor.parent?.layers ?? doc.layers;
  const at = siblings.findIndex((l) => l.id === anchor.id);
  // Awaited: the DOM call is synchronous in Photoshop 25 and returns a promise in earlier versions.
  if (at <= 0 || siblings[at - 1]?.id !== created.id) await created.move(anchor, host.ps.constants.ElementPlacement.PLACEBEFORE);
  return created;
}

/**
 * Whether a layer has a vector mask (no DOM property says so; its density and feather are all `Layer` offers,
 * layer.md:62-63). `hasVectorMask` is a boolean Photoshop always answers.
 */
export async function hasVectorMask(host: Host, documentId: number, layerId: number): Promise<boolean> {
  const answer = await play(host, 'read the layer\'s vector mask', getLayerProperty('hasVectorMask', layerId, documentId));
  if (typeof answer.hasVectorMask !== 'boolean') throw new PhotoshopCommandError('read the layer\'s vector mask', 'no hasVectorMask in the answer', undefined);
  return answer.hasVectorMask;
}

/** What of a layer's look no DOM property gives. */
export interface LayerStyle {
  /** At least one enabled layer effect (layer style). */
  effects: boolean;
  /** Whether its user mask is on; undefined when it has no user mask. */
  userMaskEnabled: boolean | undefined;
  /** Blend If ranges other than the full ones (Layer Style > Blending Options). */
  blendIf: boolean;
}

/**
 * Read a layer's effects, user-mask state and Blend If with batchPlay's `get` of a layer property. A property the
 * layer does not have is left out of the answer (or answered with an error descriptor), which is read as its default.
 */
export async function layerStyle(host: Host, documentId: number, layerId: number): Promise<LayerStyle> {
  // One call each: batchPlay stops at a command that fails, and a missing property may be answered with an error.
  const read = async (property: LayerProperty): Promise<unknown> => {
    const [answer] = await host.ps.action.batchPlay([getLayerProperty(property, layerId, documentId)], {});
    return answer && answer._obj !== 'error' ? answer[property] : undefined;
  };
  const enabled = await read('userMaskEnabled');
  return {
    effects: anyEnabled(await read('layerEffects')),
    userMaskEnabled: typeof enabled === 'boolean' ? enabled : undefined,
    blendIf: blendsIf(await read('blendRange')),
  };
}

/** Whether a `layerEffects` descriptor has an enabled effect (single effects are objects, multiple ones arrays). */
function anyEnabled(effects: unknown): boolean {
  if (!effects || typeof effects !== 'object') return false;
  return Object.entries(effects as Record<string, unknown>).some(([key, value]) => {
    if (key === 'scale' || key === '_obj') return false;
    const list = Array.isArray(value) ? value : [value];
    return list.some((e) => !!e && typeof e === 'object' && (e as { enabled?: unknown }).enabled === true);
  });
}

/**
 * The full range of a Blend If slider pair: "This Layer" (src…) and "Underlying Layer" (dest…) from 0 to 255.
 * Photoshop records the last value under `desaturate` (its four-character code is shared), so both names are read.
 */
const FULL_BLEND_RANGE: Record<string, number> = {
  srcBlackMin: 0, srcBlackMax: 0, srcWhiteMin: 255, srcWhiteMax: 255,
  destBlackMin: 0, destBlackMax: 0, destWhiteMin: 255, destWhiteMax: 255, desaturate: 255,
};

/** Whether a `blendRange` list narrows any channel's range (a missing value is the full range). */
function blendsIf(ranges: unknown): boolean {
  if (!Array.isArray(ranges)) return false;
  return ranges.some((range) => !!range && typeof range === 'object'
    && Object.entries(FULL_BLEND_RANGE).some(([key, full]) => {
      const value = (range as Record<string, unknown>)[key];
      return typeof value === 'number' && value !== full;
    }));
}
