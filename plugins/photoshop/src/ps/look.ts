/**
 * The result layer's look: what it takes over from its source so that the
 * document shows "the source, corrected", and what it cannot take over,
 * which the user is told rather than left to find.
 *
 * Carried over with the DOM (classes/layer.md, Photoshop 23.0): blend mode,
 * opacity and fill opacity, the user mask's pixels (imaging.md getLayerMask /
 * putLayerMask) with its density and feather, and the clipping state
 * (`isClippingMask`). Read with batchPlay's `get` but not settable through a
 * documented API, so said in the notes: layer effects, a user mask that is
 * switched off, and Blend If.
 */
import type { Host, PsDocument, PsLayer, PsRect } from '../host/types';
import { layerStyle } from './commands';
import { combineMasks, layerMaskOver, type Mask } from './masks';

export interface SourceLook {
  name: string;
  blendMode: string;
  opacity: number;
  fillOpacity: number;
  /** Clipped to the layer below it. */
  clipped: boolean;
  /** The layers clipped to the source (it is their base), bottom first; they are to clip to the result. */
  clippedToIt: readonly PsLayer[];
  /** Its user mask over the result's rectangle, when it has one that is on. */
  mask?: { pixels: Mask; density: number; feather: number };
  /** It has a user mask that is switched off (it hides nothing). */
  maskOff: boolean;
  effects: boolean;
  blendIf: boolean;
}

/** Read the source layer's look, before the result is created next to it (which may change the clipping above). */
export async function readSourceLook(host: Host, doc: PsDocument, source: PsLayer, rect: PsRect): Promise<SourceLook> {
  const style = await layerStyle(host, doc.id, source.id);
  const pixels = style.userMaskEnabled === false ? undefined : await layerMaskOver(host, doc.id, source.id, rect, style.userMaskEnabled === true);
  const clipped = source.isClippingMask;
  return {
    name: source.name,
    blendMode: source.blendMode,
    opacity: source.opacity,
    fillOpacity: source.fillOpacity,
    clipped,
    clippedToIt: clippedToLayer(doc, source),
    ...(pixels ? { mask: { pixels, density: source.layerMaskDensity, feather: source.layerMaskFeather } } : {}),
    maskOff: style.userMaskEnabled === false,
    effects: style.effects,
    blendIf: style.blendIf,
  };
}

/** The layers clipped to `layer` (none when it is itself clipped to the layer below), bottom first. */
export function clippedToLayer(doc: PsDocument, layer: PsLayer): PsLayer[] {
  return layer.isClippingMask ? [] : clippedAbove(layer, layer.parent?.layers ?? doc.layers);
}

/** The run of clipped layers directly above `layer` among its siblings (topmost first), bottom first. */
function clippedAbove(layer: PsLayer, siblings: readonly PsLayer[]): PsLayer[] {
  const run: PsLayer[] = [];
  for (let i = siblings.findIndex((l) => l.id === layer.id) - 1; i >= 0 && siblings[i]!.isClippingMask; i--) run.push(siblings[i]!);
  return run;
}

/**
 * Whether the result must take its source's place rather than cover it. A
 * Normal layer at full opacity and fill is covered exactly by a result above
 * it, so the source stays shown (hiding the result compares). Any other blend
 * mode, opacity or fill, or a mask shown at less than full density, would
 * count twice, source and result each blended in (a Multiply layer darker,
 * one at 50 % opacity three-quarters opaque, the uncorrected source showing
 * through): the result takes them over, and the source is hidden (in the same
 * history step; shown again, it compares).
 */
export function takesOver(look: SourceLook): boolean {
  return look.blendMode !== 'normal' || look.opacity !== 100 || look.fillOpacity !== 100 || (look.mask !== undefined && look.mask.density < 100);
}

/** The result's layer mask, and the density and feather to give it. */
export interface ResultMask {
  pixels?: Mask;
  density: number;
  feather: number;
  /** The source's mask was feathered but had to be combined with other masks, which a feather would blur too. */
  featherLost: boolean;
}

/**
 * The source's user mask, alone, goes over with its density and feather as they are (still editable in the
 * Properties panel). Combined with the selection or a cut-out, they would act on those too (a cut-out's background
 * shown at the density): its density is then put into its pixels (shown = 100 % − density × hidden), and its
 * feather, which has no exact equivalent in pixels, is left out and the user told.
 */
export function resultMask(look: SourceLook | undefined, others: readonly (Mask | undefined)[]): ResultMask {
  const own = look?.mask;
  const present = others.filter((m): m is Mask => m !== undefined);
  if (own && present.length === 0) return { pixels: own.pixels, density: own.density, feather: own.feather, featherLost: false };
  const pixels = combineMasks([own ? atDensity(own.pixels, own.density) : undefined, ...present]);
  return { ...(pixels ? { pixels } : {}), density: 100, feather: 0, featherLost: own !== undefined && own.feather > 0 };
}

/** A mask as its density shows it: hidden parts hidden by `density` percent. */
function atDensity(mask: Mask, density: number): Mask {
  if (density >= 100) return mask;
  return mask.map((v) => Math.round(255 - ((255 - v) * density) / 100));
}

/**
 * Give the new layer its source's look (inside `executeAsModal`): blend mode, opacity times `strength` (100 when
 * it takes over: the strength is then in the pixels), fill, its mask's density and feather, and the source's
 * place in a clipping mask. A whole-document result (no source) is Normal, at the strength, and clipped to nothing.
 */
export function matchLook(layer: PsLayer, look: SourceLook | undefined, mask: ResultMask, strength: number): void {
  const blendMode = look?.blendMode ?? 'normal';
  if (layer.blendMode !== blendMode) layer.blendMode = blendMode;
  const opacity = Math.round(((look?.opacity ?? 100) * strength) / 100);
  if (layer.opacity !== opacity) layer.opacity = opacity;
  const fill = look?.fillOpacity ?? 100;
  if (layer.fillOpacity !== fill) layer.fillOpacity = fill;
  if (mask.pixels && mask.density !== 100) layer.layerMaskDensity = mask.density;
  if (mask.pixels && mask.feather !== 0) layer.layerMaskFeather = mask.feather;
  matchClipping(layer, look);
}

/**
 * A layer made between layers of a clipping mask becomes part of it (Photoshop help, "Revealing layers with
 * clipping masks"), and one made above a clipped layer may be too. The result is clipped exactly when its source
 * is: over a clipped source it is bounded by the same base; over a source that is a base it must not be clipped
 * to it (the source may be hidden, which hides everything clipped to it, and a soft edge would be thinned twice),
 * so it becomes the base instead. Releasing it releases the layers above it too (classes/layer.md
 * `isClippingMask`), so those that were clipped to the source are clipped again, now to the result.
 */
function matchClipping(layer: PsLayer, look: SourceLook | undefined): void {
  const clipped = look?.clipped ?? false;
  if (layer.isClippingMask !== clipped) layer.isClippingMask = clipped;
  for (const above of look?.clippedToIt ?? []) if (!above.isClippingMask) above.isClippingMask = true;
}

/** What the user is told about the parts of the source's look the result could not take over. */
export function lookNotes(look: SourceLook, { takeOver, mask, narrowed }: { takeOver: boolean; mask: ResultMask; narrowed: boolean }): string[] {
  const name = `"${look.name}"`;
  const notes: string[] = [];
  if (look.effects) {
    notes.push(takeOver
      ? `the effects (layer style) of ${name} are hidden with it and were not copied to the result: to show them, copy them onto it (Layer > Layer Style > Copy Layer Style, then Paste Layer Style)`
      : `the effects (layer style) of ${name} stay on that layer below the result and were not copied to it; effects drawn inside the layer (overlays, inner shadow, bevel) are covered by the result`);
  }
  if (look.maskOff) notes.push(`the layer mask of ${name} is switched off, so the result was not masked by it; the mask stays on ${name}`);
  if (look.blendIf) notes.push(`${name} uses Blend If (Layer Style > Blending Options), which was not copied: the result shows the pixels it hid; set the same ranges on the result to match`);
  if (mask.featherLost) notes.push(`the feather of the layer mask of ${name} (${look.mask?.feather ?? 0} px) was not carried over: the result's mask combines that mask with the selection or cut-out, and a feather would soften those too`);
  if (narrowed && look.clippedToIt.length > 0) notes.push(`the layers clipped to ${name} now clip to the result, so they show only where it does (inside the selection or cut-out)`);
  return notes;
}
