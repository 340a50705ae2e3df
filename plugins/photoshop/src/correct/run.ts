/**
 * One press of a button: for each target, read its pixels, send them to the
 * backend, and bring the result back, one document after another. A failing
 * document is reported and the next one goes on; cancelling stops the run and
 * leaves the current document as it was.
 */
import {
  AuthenticationError, ConnectionError, JobFailedError, LOST_JOB_ATTEMPTS, ParameterError, PermissionDeniedError, progressWithWaits, RateLimitError, readAll, UserAbortError,
  type CorrectionBackend, type CorrectionProgress, type PfcParams,
} from '@pfc/core';
import type { Host, PsDocument, PsExecutionContext } from '../host/types';
import { decodeImage, type Rgba } from '../image/codec';
import { type AddedLayer, applyLayerResult, type AsRead, type Canvas, fitResult, type LayerResult, newResultDocument, type ReadAgain, refuseLockedBeforeSending } from '../ps/apply';
import { activateDocument, activeAsPanelLeftIt, findDocument, findLayer, hasVectorMask, panelActivated } from '../ps/commands';
import { earlierResults, isResultName, readWithout } from '../ps/earlier-results';
import { editMark } from '../ps/history';
import { depthNote, exportPixels, type ExportedImage, unsupportedReason } from '../ps/export';
import { CancelledError, inModal, type ModalWait, PhotoshopBusyError, readingWait } from '../ps/modal';
import { refuseSelectionBeforeSending, sameSelection, selectionDigest, type SelectionDigest } from '../ps/masks';
import { ResultNotAddedError } from '../ps/not-added';
import { describeCorrection, isResize } from './options';
import type { Target } from './targets';

export type Phase = 'reading' | CorrectionProgress['phase'] | 'applying';

export interface RunProgress {
  /** 0-based index of the target being worked on. */
  index: number;
  total: number;
  title: string;
  phase: Phase;
  /**
   * The service made the document wait (a 429's `Retry-After`, a 503…): why and how long is left
   * (core's `retryWaitText`), said instead of the phase. Absent again once the request is made again.
   */
  waiting?: string;
  /** Overall progress of the run, 0 to 1. */
  fraction: number;
}

export interface Outcome {
  title: string;
  status: 'done' | 'failed' | 'cancelled';
  /** What happened, for the user. */
  message: string;
  /** Conversions, ignored parameters, resampling: things the user should know. */
  notes: string[];
  /** The new layer's id (layer results). */
  layerId?: number;
  /**
   * A paid result that Photoshop stayed too busy to take (a dialog left open): kept in memory for the session, and
   * placed by calling this once Photoshop is free, with the same checks as the first time; its outcome then.
   */
  placeAgain?: (signal?: AbortSignal) => Promise<Outcome>;
}

export interface RunOptions {
  signal?: AbortSignal;
  /** Strength of the correction, 1–100 %: the new layer's opacity. Default 100. */
  strength?: number;
  /** Mask each result to its document's active selection, when it has one. */
  selectionOnly?: boolean;
  onProgress?: (p: RunProgress) => void;
}

/** Tells the panel a target's phase, and while the service makes it wait, why and for how long. */
type Report = (phase: Phase, waiting?: string) => void;

/** Share of one target's progress reached at the start of each phase. */
const PHASE_AT: Record<Phase, number> = {
  reading: 0, validating: 0.05, uploading: 0.1, queued: 0.3, processing: 0.4, downloading: 0.8, applying: 0.9, done: 1,
};

/**
 * Correct `targets` with `params` on `backend`. Rejects only when the
 * parameters are invalid (before anything is read or sent); every other
 * failure becomes that target's `Outcome`.
 */
export async function runCorrections(
  host: Host,
  backend: CorrectionBackend,
  targets: readonly Target[],
  params: PfcParams,
  options: RunOptions = {},
): Promise<Outcome[]> {
  const check = backend.validate(params);
  if (check.errors.length > 0) throw new ParameterError(check.errors);
  checkStrength(options.strength);
  const { signal, onProgress } = options;
  const name = describeCorrection(params);
  const startedOn = host.ps.app.activeDocument?.id;
  // The user's own choice as the run starts: until the panel switches away, the user has not switched either.
  if (startedOn !== undefined) panelActivated(host, startedOn);
  const outcomes: Outcome[] = [];
  for (const [index, target] of targets.entries()) {
    if (signal?.aborted || outcomes.some((o) => o.status === 'cancelled')) {
      outcomes.push({ title: target.title, status: 'cancelled', message: 'not started: the run was cancelled', notes: [] });
      continue;
    }
    const report: Report = (phase, waiting) =>
      onProgress?.({ index, total: targets.length, title: target.title, phase, ...(waiting === undefined ? {} : { waiting }), fraction: (index + PHASE_AT[phase]) / targets.length });
    const one = { signal, strength: options.strength ?? 100, selectionOnly: options.selectionOnly === true };
    outcomes.push(await outcomeOf(target, signal, () => correctOne(host, backend, target, params, name, check.warnings, one, report)));
  }
  if (targets.length > 1 && startedOn !== undefined && findDocument(host, startedOn) && activeAsPanelLeftIt(host)) {
    // Give the user back the document they were looking at, unless they have since switched to another one themselves.
    await inModal(host, 'Perfectly Clear', () => activateDocument(host, startedOn)).catch(() => undefined);
  }
  return outcomes;
}

/** What `work` on `target` came to: its outcome, or its failure or cancellation said for the user. */
async function outcomeOf(target: Target, signal: AbortSignal | undefined, work: () => Promise<Outcome>): Promise<Outcome> {
  try {
    return await work();
  } catch (err) {
    const cancelled = err instanceof CancelledError || err instanceof UserAbortError || signal?.aborted === true;
    return {
      title: target.title,
      status: cancelled ? 'cancelled' : 'failed',
      message: cancelled ? 'cancelled: the document was left unchanged' : messageOf(err),
      notes: [],
    };
  }
}

/** How long a finished result waits for Photoshop's modal state (a dialog open, another plug-in working) before it is kept for later. */
const RESULT_MODAL_WAIT_S = 120;

/** The panel's button that places a kept result (see {@link Outcome.placeAgain}). */
export const PLACE_KEPT_BUTTON = 'Add Kept Result';

interface OneOptions {
  signal: AbortSignal | undefined;
  strength: number;
  selectionOnly: boolean;
}

/** One target: read it, send it, and bring the result back as a layer (a new document for a resize, or when the document can no longer take it). */
async function correctOne(
  host: Host,
  backend: CorrectionBackend,
  target: Target,
  params: PfcParams,
  name: string,
  warnings: readonly string[],
  options: OneOptions,
  report: Report,
): Promise<Outcome> {
  report('reading');
  const source = await readSource(host, backend, target, params, options.selectionOnly, options.signal);
  if (options.signal?.aborted) throw new CancelledError();
  const corrected = await sendToService(backend, target, params, source.exported, options.signal, report);
  if (options.signal?.aborted) throw new CancelledError();
  const notes = [source.exported.conversion, source.exported.reduction, resultAsSource(target)].filter((n): n is string => n !== undefined);
  notes.push(...corrected.sentAgain, ...warnings, ...corrected.warnings);

  report('applying');
  const image = decodeImage(corrected.bytes);
  const place = (signal: AbortSignal | undefined): Promise<Outcome> => {
    const wait = { seconds: RESULT_MODAL_WAIT_S, signal, toDo: `the result is kept: close the dialog, then press ${PLACE_KEPT_BUTTON}` };
    // A copy of the notes: a result placed again does not repeat them.
    return isResize(params)
      ? openResized(host, image, target, source, name, wait, [...notes])
      : addLayer(host, image, target, params, source, name, wait, { ...options, signal }, [...notes]);
  };
  const outcome = await placeOrKeep(target, place, options.signal);
  report('done');
  return outcome;
}

/**
 * The result placed by `place`; when Photoshop stays busy all the while a result waits for it, the result, done and
 * paid for, is kept instead of dropped, and the outcome offers to place it again (the same way, once more kept if
 * Photoshop is still busy then).
 */
async function placeOrKeep(target: Target, place: (signal: AbortSignal | undefined) => Promise<Outcome>, signal: AbortSignal | undefined): Promise<Outcome> {
  try {
    return await place(signal);
  } catch (err) {
    if (!(err instanceof PhotoshopBusyError)) throw err;
    // Cancelled while it waits for Photoshop again, it stays kept.
    const placeAgain = async (again?: AbortSignal): Promise<Outcome> => {
      const outcome = await outcomeOf(target, again, () => placeOrKeep(target, place, again));
      return outcome.status !== 'cancelled' ? outcome : { ...outcome, message: `${outcome.message}; the result is still kept (${PLACE_KEPT_BUTTON})`, placeAgain };
    };
    return { title: target.title, status: 'failed', message: err.message, notes: [], placeAgain };
  }
}

/** What is read of a target before anything is sent: its pixels, and what its result needs should the document be closed meanwhile. */
interface SourceRead {
  exported: ExportedImage;
  resolution: number;
  /** The note for a 16/32-bit document, whose result is an 8-bit correction. */
  widened: string | undefined;
  /** The canvas and the source layer's bounds as read (the kept document's size); a result whose place moved since is not added (apply.ts). */
  asRead: AsRead;
}

async function readSource(host: Host, backend: CorrectionBackend, target: Target, params: PfcParams, selectionOnly: boolean, signal: AbortSignal | undefined): Promise<SourceRead> {
  const doc = findDocument(host, target.documentId);
  if (!doc) throw new Error('the document was closed');
  const unsupported = unsupportedReason(doc, target.layerId);
  if (unsupported) throw new Error(unsupported);
  // Read now: the document may be closed by the time the result arrives.
  const resolution = doc.resolution;
  const widened = depthNote(doc);
  const { read, asRead } = await inModal(host, 'Reading pixels for Perfectly Clear', async (context) => {
    if (target.layerId !== undefined) await layerCheck(host, doc.id, target.layerId, target.layerName ?? target.title);
    // A lock that keeps the result out is refused now, not after a paid job.
    await refuseLockedBeforeSending(host, doc, target.layerId);
    // Read outside the read's own suspension, which adds no state: an edit made after it is one the result lacks (history.ts).
    const editMarkAt = editMark(doc);
    const read = await readPixels(host, context, doc, target, backend, params);
    // A resize opens a new document, unmasked: the selection is not used.
    const masked = selectionOnly && !isResize(params);
    const selection = masked ? await refuseSelectionBeforeSending(host, doc, read.rect, target.layerId === undefined ? `"${target.title}"` : `"${target.layerName ?? target.title}"`) : undefined;
    // Where the pixels were, read in the same scope: the result is added only where they still are (apply.ts).
    const bounds = target.layerId === undefined ? undefined : findLayer(doc.layers, target.layerId)?.boundsNoEffects;
    const layerBounds = bounds && { left: bounds.left, top: bounds.top, right: bounds.right, bottom: bounds.bottom };
    const readAgain = readingAgain(host, doc, target, backend, params, read, selection);
    return { read, asRead: { canvas: { width: doc.width, height: doc.height }, ...(layerBounds ? { layerBounds } : {}), editMark: editMarkAt, readAgain } satisfies AsRead };
  }, readingWait(signal));
  return { exported: read, resolution, widened, asRead };
}

/** The target's pixels for the upload: the layer, or the composite as it was before the panel's earlier results on top of it (earlier-results.ts). */
function readPixels(host: Host, context: PsExecutionContext, doc: PsDocument, target: Target, backend: CorrectionBackend, params: PfcParams): Promise<ExportedImage> {
  const hidden = target.layerId === undefined ? earlierResults(doc, undefined) : [];
  return readWithout(context, doc.id, hidden, () => exportPixels(host, doc, target.layerId, { backend: backend.kind, removeBackground: params.removeBackground === true, keepSize: isResize(params) }));
}

/**
 * How the result's scope reads the target again when History steps were added since `read` (apply.ts): the same read
 * (`readPixels`), compared with `read`; with Selection only, the selection too, compared with its digest taken before
 * sending (`selection`), since the result is masked to the selection it was asked for: one made or changed while the
 * service worked (for the next task, or a Deselect) is not it, and the result then opens as a document of its own.
 */
function readingAgain(host: Host, doc: PsDocument, target: Target, backend: CorrectionBackend, params: PfcParams, read: ExportedImage, selection: SelectionDigest | undefined): ReadAgain {
  return async (context) => {
    if (!read.samePixelsAs(await readPixels(host, context, doc, target, backend, params))) return 'pixels';
    if (selection !== undefined && !sameSelection(selection, await selectionDigest(host, doc, read.rect))) return 'selection';
    return undefined;
  };
}

/** The result's bytes, and what the user should know of how they were made (pixels sent again, the service's warnings). */
async function sendToService(
  backend: CorrectionBackend,
  target: Target,
  params: PfcParams,
  exported: ExportedImage,
  signal: AbortSignal | undefined,
  report: Report,
): Promise<{ bytes: Uint8Array; sentAgain: string[]; warnings: readonly string[] }> {
  const sentAgain: string[] = [];
  // Each phase, and the waits the service asks for counted down in the panel (core's `progressWithWaits`).
  const service = progressWithWaits((phase, waiting) => report(phase === 'done' ? 'downloading' : phase, waiting));
  const result = await backend.correct(exported.bytes, params, {
    signal,
    contentType: exported.contentType,
    size: exported.bytes.byteLength,
    fileName: `${baseName(target.title)}.${exported.contentType === 'image/jpeg' ? 'jpg' : 'png'}`,
    onProgress: service.onProgress,
    onRetry: service.onRetry,
    // The service lost the job (it restarted): the same pixels are sent again, as a batch does per file.
    lostJobAttempts: LOST_JOB_ATTEMPTS,
    onLostJob: ({ attempt, attempts }) => sentAgain.push(`the service lost the job (it may have restarted), so the pixels were sent again (attempt ${attempt} of ${attempts})`),
  }).finally(service.stop);
  report('downloading');
  const bytes = await readAll(result.body);
  return { bytes, sentAgain, warnings: result.warnings };
}

/** A resize's result is a new document: the source keeps its size. */
async function openResized(host: Host, image: Rgba, target: Target, source: SourceRead, name: string, wait: ModalWait, notes: string[]): Promise<Outcome> {
  const opened = await openAsDocument(host, image, target, source.resolution, name, wait);
  return { title: target.title, status: 'done', message: `resized result opened as a new document, "${opened}"`, notes };
}

/** The result as a new layer over its source; kept as a document of its own when the document can no longer take it. */
async function addLayer(
  host: Host,
  image: Rgba,
  target: Target,
  params: PfcParams,
  source: SourceRead,
  name: string,
  wait: ModalWait,
  { signal, strength, selectionOnly }: OneOptions,
  notes: string[],
): Promise<Outcome> {
  const { exported } = source;
  if (source.widened) notes.push(source.widened);
  const cutout = removesToTransparent(params);
  // Decoded before Photoshop is held: the pixels sent may be a JPEG the size of the service's 5000 px.
  const cutoutOf = cutout ? { source: exported.sourcePixels(), sent: exported.sentPixels() } : undefined;
  const layerResult: LayerResult = {
    documentId: target.documentId,
    sourceLayerId: target.layerId,
    rect: exported.rect,
    image,
    keepShapeOf: params.removeBackground ? undefined : exported.alpha,
    name,
    strength,
    selectionOnly,
    // A transparent background becomes a mask over the layer: the removed background stays editable.
    ...(cutoutOf ? { cutoutOf } : {}),
    sourcePixels: exported.sourcePixels,
    asRead: source.asRead,
  };
  let added: AddedLayer;
  try {
    // The result arrived while the user kept working: a dialog or another plug-in may hold Photoshop for a while.
    added = await applyLayerResult(host, layerResult, wait);
  } catch (err) {
    if (signal?.aborted || err instanceof CancelledError || err instanceof PhotoshopBusyError) throw err;
    return keepAsDocument(host, notAddedBecause(err), layerResult, target, source, name, wait, notes);
  }
  if (added.resampled) {
    notes.push(cutout
      ? `the cut-out came back at ${image.width}×${image.height} px: its mask was scaled to the layer, whose pixels keep their full size`
      : `the result came back at ${image.width}×${image.height} px and was fitted to the source`);
  }
  if (added.sourceHidden) notes.push(`"${target.layerName ?? target.title}" was hidden: the corrected layer took over its blend mode, opacity, fill and mask, which would otherwise count twice (show it again to compare)`);
  notes.push(...added.notes);
  return { title: target.title, status: 'done', message: `added layer "${name}"`, notes, layerId: added.layerId };
}

/**
 * Why the layer was not added. Any failure of that step leaves the document as it was (the step's history is rolled
 * back: modal.ts), so a refusal the panel did not foresee (Photoshop out of memory or scratch disk, a command not
 * available in the document's state) keeps the paid result as a document too, rather than losing it.
 */
function notAddedBecause(err: unknown): ResultNotAddedError {
  return err instanceof ResultNotAddedError ? err : new ResultNotAddedError(`Photoshop could not add the layer (${messageOf(err)})`);
}

/**
 * A paid result the document can no longer take is not thrown away: it opens in place on a canvas of the document's
 * size, so Layer > Duplicate Layer into the document puts it where the source is.
 */
async function keepAsDocument(
  host: Host,
  err: ResultNotAddedError,
  layerResult: LayerResult,
  target: Target,
  source: SourceRead,
  name: string,
  wait: ModalWait,
  notes: string[],
): Promise<Outcome> {
  const { rect } = source.exported;
  const kept = fitResult({ rect, image: layerResult.image, keepShapeOf: layerResult.keepShapeOf });
  const canvas = { ...source.asRead.canvas, left: rect.left, top: rect.top };
  // Photoshop busy for this scope too: the result is kept, as any result Photoshop is too busy to take (placeOrKeep),
  // and placed again the same way: the layer if the document can take it by then, else this document.
  const notDone = `the result could not be opened as a new document (${err.reason}, so it could not be added as a layer)`;
  const opened = await openAsDocument(host, kept.image, target, source.resolution, name, { ...wait, notDone }, canvas).catch((failed: unknown) => {
    if (failed instanceof PhotoshopBusyError) throw failed;
    throw new Error(`${err.message} (nor could the result be opened as a new document: ${messageOf(failed)})`);
  });
  return { title: target.title, status: 'failed', message: keptMessage(err, opened), notes };
}

/** `image` as a new, untitled document named after the target; its title. */
async function openAsDocument(host: Host, image: Rgba, target: Target, resolution: number, name: string, wait: ModalWait, canvas?: Canvas): Promise<string> {
  const title = `${baseName(target.title)} (Perfectly Clear)`;
  return (await inModal(host, name, (context) => newResultDocument(host, context, image, title, resolution, canvas), wait)).title;
}

/**
 * What the user reads when the document changed under a finished job: the result, done and paid for, was kept as a
 * document of its own, and how to bring it back into the document.
 */
function keptMessage(err: ResultNotAddedError, opened: string): string {
  return `${err.reason}, so the result could not be added as a layer; it was opened as a new document, "${opened}", instead (Layer > Duplicate Layer… puts it back in place)`;
}

/** What the user should know when the layer corrected is itself a result of the panel: it was corrected once more. */
function resultAsSource(target: Target): string | undefined {
  if (target.layerId === undefined || !isResultName(target.layerName ?? '')) return undefined;
  return `"${target.layerName}" is a layer Perfectly Clear added, so its correction was corrected once more; to correct from the original, select the layer it was made from`;
}

/**
 * A layer with a vector mask is refused before anything is sent: no documented API copies a vector path to another
 * layer (the DOM has only its density and feather; batchPlay's path commands are not documented), and a result
 * without it would show what the mask hides. The rest of its look is taken over when the result is applied (`look.ts`).
 */
async function layerCheck(host: Host, documentId: number, layerId: number, layerName: string): Promise<void> {
  if (await hasVectorMask(host, documentId, layerId)) {
    throw new Error(
      `"${layerName}" has a vector mask, which the result layer cannot take over: rasterize it first (Layer > Rasterize > Vector Mask) or use Correct Document; nothing was sent`,
    );
  }
}

function removesToTransparent(p: PfcParams): boolean {
  return p.removeBackground === true && (!p.bgColor || p.bgColor.toLowerCase() === 'transparent');
}

/** The strength is checked with the other choices, before anything is read or sent. */
export function checkStrength(strength: number | undefined): void {
  if (strength === undefined) return;
  if (!Number.isInteger(strength) || strength < 1 || strength > 100) {
    throw new RangeError(`strength must be a whole number from 1 to 100 (%), got ${String(strength)}`);
  }
}

function baseName(title: string): string {
  return title.replace(/\.[A-Za-z0-9]{1,5}$/, '').replace(/[\\/:*?"<>|]+/g, '_');
}

/** A one-line message for the user, saying what to do where there is something to do. Core's errors never carry keys. */
export function messageOf(err: unknown): string {
  if (err instanceof JobFailedError) {
    return `the service ${err.status === 'REJECTED' ? 'rejected' : 'could not correct'} it${err.statusText ? `: ${err.statusText}` : ''}`;
  }
  if (err instanceof AuthenticationError || err instanceof PermissionDeniedError) {
    return `the service refused the API key (HTTP ${err.status}): check it under Settings`;
  }
  if (err instanceof ConnectionError) return `${err.message}: check the backend address under Settings`;
  if (err instanceof RateLimitError) return `the service is busy (HTTP 429), try again in a moment`;
  if (err instanceof Error) return err.message;
  return String(err);
}
