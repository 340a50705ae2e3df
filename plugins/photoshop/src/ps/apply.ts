/**
 * Results back into Photoshop: as a new layer above the source in one
 * history step, taking over the source's look (see `look.ts`), or (resized
 * results, which no longer fit the canvas) as a new untitled document.
 * Existing layers' pixels are never written.
 */
import type { Host, PsDocument, PsExecutionContext, PsLayer, PsRect } from '../host/types';
import type { Rgba } from '../image/codec';
import { applyShape, cutoutParts, maskToDepth, mix, resample, toDepth } from '../image/pixels';
import { activateDocument, createLayerAbove, findDocument, findLayer, panelActivated } from './commands';
import { earlierResults, hideReplaced } from './earlier-results';
import { editedSince, type EditMark } from './history';
import { documentBits, sameRect, SRGB_PROFILE } from './export';
import { refuseBeforeSending, refuseWhileAdding, type ResultChanges } from './locks';
import { clippedToLayer, lookNotes, matchLook, readSourceLook, resultMask, takesOver, type SourceLook } from './look';
import { selectionOver } from './masks';
import { CancelledError, inModal, inOneHistoryStep, type ModalWait } from './modal';
import { ResultNotAddedError } from './not-added';

export interface LayerResult {
  /** The document that receives the layer. */
  documentId: number;
  /** The corrected layer's source; undefined for the whole document (the layer goes on top). */
  sourceLayerId?: number;
  /** Where the source pixels were, in document pixels; the result is fitted to it. */
  rect: PsRect;
  /** The decoded result. */
  image: Rgba;
  /** The source's alpha, to keep a layer's shape (not for background removal, which makes its own). */
  keepShapeOf?: Uint8Array;
  /** Name of the new layer, and of the history step. */
  name: string;
  /** Strength of the correction, 1–100 %: the new layer's opacity (times the source layer's). Default 100. */
  strength?: number;
  /**
   * For a background removal: the source's pixels (same size as `rect`) and the pixels the service was sent
   * (the same image when the upload was the source exactly; else smaller, or a JPEG). The result's alpha then
   * becomes a layer mask over corrected pixels, the removed background kept underneath (see `cutoutParts`).
   */
  cutoutOf?: { source: Rgba; sent: Rgba };
  /** Mask the result to the document's active selection, if there is one. */
  selectionOnly?: boolean;
  /**
   * The source's pixels (same size as `rect`), asked for only when the result takes the source's
   * place (see `takesOver`) at under 100 %: the strength then mixes them with the result.
   */
  sourcePixels?: () => Rgba;
  /**
   * Where things were when the source was read: the canvas size, the source layer's `boundsNoEffects`, the history. The
   * result is fitted to `rect` as it was then; a document resized, cropped or rotated, or a source moved or transformed,
   * since then would get it in the wrong place, and an edit since then would be hidden under pixels made without it, so
   * it is refused (see {@link refuseChangedSince}). Absent: not checked.
   */
  asRead?: AsRead;
}

/** The canvas and the source layer's bounds when the source was read (see {@link LayerResult.asRead}). */
export interface AsRead {
  canvas: { width: number; height: number };
  /** The source layer's `boundsNoEffects`; undefined for the whole document. */
  layerBounds?: PsRect;
  /** The document's active history state and layers' visibility when read (`editMark`): an edit since then is not covered by the result. */
  editMark?: EditMark;
  /**
   * Read the source again the way it was read, when History steps were added since (see {@link refuseChangedSince}): what
   * of it differs from the read the result was made for, or undefined when nothing does. Runs inside `executeAsModal`.
   */
  readAgain?: ReadAgain;
}

/**
 * What a source read again shows changed: `pixels`, those the result was made from; `selection`, the one Selection only
 * masks it to; undefined when neither (the History steps since the read did not touch what was read).
 */
export type ReadAgain = (context: PsExecutionContext) => Promise<'pixels' | 'selection' | undefined>;

export interface AddedLayer {
  layerId: number;
  /** True when the result came back at another size and was fitted to the source. */
  resampled: boolean;
  /** True when the source was hidden because the result takes over its blend mode, opacity and fill (see `takesOver`). */
  sourceHidden: boolean;
  /** What of the source's look the result could not take over, for the user (see `lookNotes`). */
  notes: string[];
}

/** A result's pixels fitted to its source's rectangle, and for a cut-out the mask. */
export interface FittedResult {
  image: Rgba;
  cutoutMask?: Uint8Array;
  /** True when the result came back at another size than the source's. */
  resampled: boolean;
  /** `image` mixed with the source's pixels at the strength, for a result that takes its source's place (see {@link applyLayerResult}). */
  mixed?: Rgba;
}

/**
 * Fit `result` to its source's rectangle: a cut-out split into corrected
 * pixels and a mask (`cutoutParts`), else the result resampled and given the
 * source's shape. Pure work on pixels, seconds on a large cut-out: callers do
 * it before `executeAsModal`, under which "Photoshop enters a modal user
 * interaction state, affecting much of the UI" and where a synchronous loop
 * cannot even be cancelled with Escape (executeasmodal.md:14, :128).
 */
export function fitResult(result: Pick<LayerResult, 'rect' | 'image' | 'cutoutOf' | 'keepShapeOf'>): FittedResult {
  const { rect } = result;
  const width = rect.right - rect.left;
  const height = rect.bottom - rect.top;
  const resampled = result.image.width !== width || result.image.height !== height;
  const cutout = result.cutoutOf;
  if (cutout && cutout.source.width === width && cutout.source.height === height) {
    // The result and the pixels sent are fitted to the source inside, row by row.
    const { pixels, mask } = cutoutParts(result.image, cutout.source, cutout.sent);
    return { image: pixels, cutoutMask: mask, resampled };
  }
  let image = resample(result.image, width, height);
  if (result.keepShapeOf && result.keepShapeOf.length === width * height) image = applyShape(image, result.keepShapeOf);
  return { image, resampled };
}

/** The short modal scope that reads whether a result takes its source's place. */
const READING_LOOK = 'Reading the layer for Perfectly Clear';

/**
 * Add `result` as a layer (see {@link addResultLayer}), with Photoshop held only to read and write: the result is
 * fitted first, and when it takes its source's place at under 100 % strength, mixed with the source's pixels too.
 * Whether it takes over depends on the source's look, mask included, which is read in a short modal scope of its
 * own: the imaging API's reads (getLayerMask, imaging.md:206-237) are documented without saying whether they need
 * one, and Adobe's own imaging sample reads inside executeAsModal. The final scope reads the look again (see
 * {@link mixedPixels}).
 */
export async function applyLayerResult(host: Host, result: LayerResult, wait: ModalWait): Promise<AddedLayer> {
  let fitted = fitResult(result);
  if (mayBeMixed(result) && (await inModal(host, READING_LOOK, () => takesOverSource(host, result), wait))) fitted = withStrengthMix(result, fitted);
  return inModal(host, result.name, (context) => addResultLayer(host, context, result, wait.signal, fitted), wait);
}

/** Whether the strength could go into the result's pixels: under 100 %, for a source layer whose pixels are at hand. */
function mayBeMixed(result: LayerResult): boolean {
  return (result.strength ?? 100) < 100 && result.sourceLayerId !== undefined && result.sourcePixels !== undefined;
}

/** Whether the result takes its source layer's place (see `takesOver`). Runs inside `executeAsModal`. */
async function takesOverSource(host: Host, result: LayerResult): Promise<boolean> {
  const doc = requireDocument(host, result.documentId);
  return takesOver(await readSourceLook(host, doc, anchorLayer(doc, result.sourceLayerId), result.rect));
}

/**
 * `fitted` with its mix into the source's pixels at the strength: a result that takes its source's place shows at
 * the source's own opacity, so the strength goes into its pixels. The source's pixels are those read for the upload,
 * the image the result corrects. Pure work on pixels, done before `executeAsModal` like {@link fitResult}.
 */
function withStrengthMix(result: LayerResult, fitted: FittedResult): FittedResult {
  return { ...fitted, mixed: mix(result.sourcePixels!(), fitted.image, (result.strength ?? 100) / 100) };
}

/**
 * Add `result` as a new pixel layer directly above its source (or above the
 * top layer for a whole-document result), aligned to the source rectangle,
 * as one history step named after the correction. Runs inside
 * `executeAsModal`; on any failure or cancellation the step is rolled back.
 */
export async function addResultLayer(host: Host, context: PsExecutionContext, result: LayerResult, signal?: AbortSignal, fitted: FittedResult = fitResult(result)): Promise<AddedLayer> {
  const { rect } = result;
  const width = rect.right - rect.left;
  const height = rect.bottom - rect.top;
  const { cutoutMask, resampled } = fitted;

  const doc = requireDocument(host, result.documentId);
  // In the scope that adds the layer, so that no edit of the user's comes between the check and the layer: the user
  // cannot act while the panel holds Photoshop (executeasmodal.md:14).
  await refuseChangedSince(context, doc, result);
  await activateDocument(host, doc.id);
  return inOneHistoryStep(context, doc.id, result.name, signal, async () => {
    // Photoshop's own progress bar, shown when a modal step takes over two seconds (executeasmodal.md:170-178).
    context.reportProgress({ value: 0.1, commandName: result.name });
    const anchor = anchorLayer(doc, result.sourceLayerId);
    const source = result.sourceLayerId === undefined ? undefined : anchor;
    const look = source ? await readSourceLook(host, doc, source, rect) : undefined;
    const strength = result.strength ?? 100;
    const takeOver = look !== undefined && takesOver(look) && result.sourcePixels !== undefined;
    // Found before the new layer, which is named as the earlier results are; a lock set on them meanwhile is refused
    // before anything changes (Photoshop would refuse it halfway).
    const changes = resultChanges(doc, source, takeOver);
    refuseWhileAdding(doc, changes);
    // Taken over, the strength is a mix of the pixels: the result's opacity is the source's own.
    const image = takeOver && strength < 100 ? mixedPixels(fitted, look) : fitted.image;
    const layer = await createLayerAbove(host, doc.id, anchor, result.name);
    context.reportProgress({ value: 0.4 });
    const bits = documentBits(doc);
    const imageData = await host.ps.imaging.createImageDataFromBuffer(toDepth(image.data, bits), {
      width, height, components: 4, chunky: true, colorSpace: 'RGB', colorProfile: SRGB_PROFILE,
    });
    try {
      await host.ps.imaging.putPixels({
        documentID: doc.id,
        layerID: layer.id,
        imageData,
        replace: true,
        targetBounds: { left: rect.left, top: rect.top, width, height },
        commandName: result.name,
      });
    } finally {
      await imageData.dispose();
    }
    context.reportProgress({ value: 0.8 });
    const selection = result.selectionOnly ? await selectionOver(host, doc.id, rect, doc.selection.bounds !== null) : undefined;
    const layerMask = resultMask(look, [cutoutMask, selection]);
    if (layerMask.pixels) await putMask(host, doc.id, layer.id, maskToDepth(layerMask.pixels, bits), rect);
    matchLook(layer, look, layerMask, takeOver ? 100 : strength);
    if (takeOver) source!.visible = false;
    const notes = look ? lookNotes(look, { takeOver, mask: layerMask, narrowed: selection !== undefined || cutoutMask !== undefined }) : [];
    notes.push(...hideReplaced(changes.replaced));
    return { layerId: layer.id, resampled, sourceHidden: takeOver, notes };
  });
}

/**
 * Refuse, before anything is sent, a result that a layer lock would keep out (`locks.ts`), from what adding it would
 * change, read as {@link addResultLayer} reads it (whether the source would be taken over, without a strength mix).
 * Runs inside `executeAsModal`. Whether the source is taken over matters only when it has Lock All, and only then is
 * its look read: that read takes its whole mask, which on a large layer holds Photoshop for a while.
 */
export async function refuseLockedBeforeSending(host: Host, doc: PsDocument, sourceLayerId: number | undefined): Promise<void> {
  const source = sourceLayerId === undefined ? undefined : anchorLayer(doc, sourceLayerId);
  const hidesSource = source?.allLocked === true && takesOver(await readSourceLook(host, doc, source, source.boundsNoEffects));
  refuseBeforeSending(doc, resultChanges(doc, source, hidesSource));
}

/** What adding a result above `source` (undefined: on top of the document) changes besides the new layer. */
function resultChanges(doc: PsDocument, source: PsLayer | undefined, hidesSource: boolean): ResultChanges {
  return { source, hidesSource, clippedToIt: source ? clippedToLayer(doc, source) : [], replaced: earlierResults(doc, source?.id) };
}

/**
 * The pixels of a result that takes over `look`'s layer at under 100 %: the mix made before the scope. A source
 * whose look changed after the mix was decided, so that the result now takes over, has none: refused, rather than
 * mixed while Photoshop is held (the step is rolled back, so the document stays as it was).
 */
function mixedPixels(fitted: FittedResult, look: SourceLook): Rgba {
  if (fitted.mixed) return fitted.mixed;
  const reason = `"${look.name}" changed (blend mode, opacity, fill or mask) while the result was being added`;
  throw new ResultNotAddedError(reason, `${reason}, so the strength could not be applied; nothing was changed: run the correction again`);
}

/**
 * Refuse, before anything changes, a result the document changed under while the service worked. Its place moved: the
 * canvas is no longer the size it was read at (Image Size, Canvas Size, Crop, Rotate), or the source layer's pixels are
 * no longer where they were (the Move tool, Free Transform, painting past its edge); the result is fitted to the
 * rectangle read then, so Photoshop would put it in the wrong place, or cut it off. Or what was read changed (see
 * {@link refuseEditedSince}).
 */
async function refuseChangedSince(context: PsExecutionContext, doc: PsDocument, result: LayerResult): Promise<void> {
  const was = result.asRead;
  if (!was) return;
  const { width, height } = was.canvas;
  if (doc.width !== width || doc.height !== height) {
    throw new ResultNotAddedError(`"${doc.title}" changed size while the service worked (${width}×${height} px when read, ${doc.width}×${doc.height} px now)`);
  }
  const source = result.sourceLayerId === undefined ? undefined : anchorLayer(doc, result.sourceLayerId);
  if (source && was.layerBounds && !sameRect(source.boundsNoEffects, was.layerBounds)) {
    throw new ResultNotAddedError(`"${source.name}" was moved, transformed or painted past its edges while the service worked, so the result would no longer line up with it`);
  }
  await refuseEditedSince(context, doc, was);
}

/**
 * Refuse a result whose source was edited since it was read (painted, flipped, filled, filtered; for a whole document,
 * any layer seen in the composite; or, with Selection only, the selection changed): made from the pixels read before,
 * it would hide that work on top. Only History steps since the read, or layers hidden or shown (which make no step by
 * default: history.ts), make it worth asking, and since they may touch nothing read (a selection, another layer), the
 * source is then read again the same way and compared: the common case, neither, reads nothing more.
 */
async function refuseEditedSince(context: PsExecutionContext, doc: PsDocument, was: AsRead): Promise<void> {
  const edited = was.editMark === undefined ? undefined : editedSince(doc, was.editMark);
  if (!edited) return;
  const changed = was.readAgain ? await was.readAgain(context) : 'pixels';
  if (changed === undefined) return;
  throw new ResultNotAddedError(changed === 'pixels'
    ? `"${doc.title}" was ${edited} while the service worked, and the result, made from the pixels read before, would hide that work`
    : `"${doc.title}" was ${edited} while the service worked, which changed the selection Selection only masks the result to`);
}

/** Write a grey mask (imaging.md:368-388: one component, Grayscale, Gray Gamma 2.2) as the layer's user mask. */
async function putMask(host: Host, documentID: number, layerID: number, mask: Uint8Array | Uint16Array | Float32Array, rect: PsRect): Promise<void> {
  const imageData = await host.ps.imaging.createImageDataFromBuffer(mask, {
    width: rect.right - rect.left, height: rect.bottom - rect.top, components: 1, chunky: true, colorSpace: 'Grayscale', colorProfile: 'Gray Gamma 2.2',
  });
  try {
    await host.ps.imaging.putLayerMask({ documentID, layerID, kind: 'user', imageData, replace: true, targetBounds: { left: rect.left, top: rect.top } });
  } finally {
    await imageData.dispose();
  }
}

function requireDocument(host: Host, documentId: number): PsDocument {
  const doc = findDocument(host, documentId);
  if (!doc) throw new ResultNotAddedError('the document was closed before the result arrived');
  return doc;
}

/** The layer the result goes above: the source layer, or the document's top layer. */
function anchorLayer(doc: PsDocument, sourceLayerId: number | undefined): PsLayer {
  if (sourceLayerId === undefined) {
    const top = doc.layers[0];
    if (!top) throw new Error('the document has no layers');
    return top;
  }
  const source = findLayer(doc.layers, sourceLayerId);
  if (!source) throw new ResultNotAddedError('the source layer was deleted before the result arrived');
  return source;
}

/** A new document's size, and where in it the image goes (its top-left corner). */
export interface Canvas {
  width: number;
  height: number;
  left: number;
  top: number;
}

/**
 * A result as a new, untitled document holding its pixels (a resized result,
 * or one its document can no longer take: run.ts), at the size of `canvas`
 * when given, else of the image: made with
 * `documents.add` and filled with `putPixels`, so no file is involved (a
 * document opened from a temporary file would save back into the plug-in's
 * hidden folder on Ctrl+S, and the file would stay behind). Registered to be
 * closed if the scope is cancelled or fails before it is complete
 * (executeasmodal.md "Automatic document closing"). Runs inside `executeAsModal`.
 */
export async function newResultDocument(host: Host, context: PsExecutionContext, image: Rgba, name: string, resolution: number, canvas?: Canvas): Promise<PsDocument> {
  const { width, height, left, top } = canvas ?? { width: image.width, height: image.height, left: 0, top: 0 };
  const doc = await host.ps.app.documents.add({
    name, width, height, resolution, mode: 'RGBColorMode', fill: 'transparent', depth: 8, profile: SRGB_PROFILE,
  });
  if (!doc) throw new Error('Photoshop did not create the new document');
  // Whichever document is now in front is the panel's doing (documents.md does not say whether add brings the new one
  // there), not the user's, who cannot act in the modal scope (executeasmodal.md:14).
  const front = host.ps.app.activeDocument;
  if (front) panelActivated(host, front.id);
  await context.hostControl.registerAutoCloseDocument(doc.id);
  const layer = doc.layers[0];
  if (!layer) throw new Error('the new document has no layer');
  const imageData = await host.ps.imaging.createImageDataFromBuffer(image.data, {
    width: image.width, height: image.height, components: 4, chunky: true, colorSpace: 'RGB', colorProfile: SRGB_PROFILE,
  });
  try {
    await host.ps.imaging.putPixels({ documentID: doc.id, layerID: layer.id, imageData, replace: true, targetBounds: { left, top } });
  } finally {
    await imageData.dispose();
  }
  if (context.isCancelled) throw new CancelledError();
  await context.hostControl.unregisterAutoCloseDocument(doc.id);
  return doc;
}
