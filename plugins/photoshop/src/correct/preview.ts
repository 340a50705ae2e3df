/**
 * Before/after preview of the active document or its active layer (whatever Apply would correct), as Photoshop intends its imaging
 * API to be used for previews: a small `getPixels` (with `targetSize`, which lets
 * Photoshop read a cached pyramid level), sent to the service with the chosen
 * options, and both images shown through `encodeImageData` (base64 JPEG) in an
 * `<img>` (ImagingModule.d.ts "encodeImageData" example). Nothing is written to
 * the document: no layer, no history step.
 *
 * A preview is a real job on the service (the panel says so next to the button).
 */
import { IMAGE_SIZE_LIMITS, ParameterError, progressWithWaits, readAll, type CorrectionBackend, type CorrectionProgress, type PfcParams } from '@pfc/core';
import type { Host, PsImageData } from '../host/types';
import { decodeImage, encodePng, type Rgba } from '../image/codec';
import { refuseLockedBeforeSending } from '../ps/apply';
import { earlierResults, readWithout } from '../ps/earlier-results';
import { checkedUpload, longSide, readRgba, SRGB_PROFILE, unsupportedReason } from '../ps/export';
import { CancelledError, inModal, readingWait } from '../ps/modal';
import { isResize } from './options';
import { resolveTargets } from './targets';

/** Long edge of the preview, in pixels: enough for the panel, small enough to be a cheap job. */
export const PREVIEW_LONG_EDGE = 400;

export interface Preview {
  /** Title of the previewed document, with the layer's name for a layer preview. */
  title: string;
  /** `data:image/jpeg;base64,…` of the document as it is. */
  before: string;
  /** `data:image/jpeg;base64,…` of the service's result. */
  after: string;
  width: number;
  height: number;
  /** Parameters the service ignored, conversions. */
  notes: string[];
}

/**
 * Preview `params` on the active document's composite (`document`) or on its active layer (`layer`, the pixels
 * Correct Layer would send). Rejects with `ParameterError` before anything is read when the options are invalid,
 * `NothingToCorrectError` when there is nothing to preview (no document; no correctable layer selected),
 * `CancelledError` when `signal` aborts.
 */
export async function makePreview(
  host: Host,
  backend: CorrectionBackend,
  params: PfcParams,
  scope: 'document' | 'layer',
  signal?: AbortSignal,
  onPhase?: (phase: CorrectionProgress['phase'], waiting?: string) => void,
): Promise<Preview> {
  const check = backend.validate(params);
  if (check.errors.length > 0) throw new ParameterError(check.errors);
  // The same checks as Correct Document / Correct Layer, so the preview shows what Apply would correct.
  const [target] = resolveTargets(host, scope);
  const doc = host.ps.app.activeDocument!;
  const unsupported = unsupportedReason(doc, target!.layerId);
  if (unsupported) throw new Error(unsupported);
  const layer = target!.layerId !== undefined ? doc.activeLayers.find((l) => l.id === target!.layerId) : undefined;
  // What Apply would refuse for its size, the preview refuses too, before reading anything.
  const { region } = checkedUpload(doc, layer?.id, { backend: backend.kind, removeBackground: params.removeBackground === true, keepSize: isResize(params) });

  // As Correct Document reads it: without the panel's earlier results on top (earlier-results.ts).
  const hidden = layer ? [] : earlierResults(doc, undefined);
  // A dialog open or another plug-in at work when Preview is pressed is waited for, as when reading for a correction.
  const { image: small } = await inModal(host, 'Perfectly Clear preview', async (context) => {
    // A preview is a job too: what a lock would keep Apply from adding is refused before it is sent.
    await refuseLockedBeforeSending(host, doc, layer?.id);
    return readWithout(context, doc.id, hidden, () => readRgba(host, doc.id, layer?.id, longSide(region.width, region.height, previewLongEdge(region))));
  }, readingWait(signal));
  if (signal?.aborted) throw new CancelledError();
  // Each phase, and the waits the service asks for counted down (core's `progressWithWaits`).
  const service = progressWithWaits((phase, waiting) => onPhase?.(phase, waiting));
  const result = await backend.correct(encodePng(small.width, small.height, small.data, 4), params, {
    signal,
    contentType: 'image/png',
    fileName: 'preview.png',
    onProgress: service.onProgress,
    onRetry: service.onRetry,
  }).finally(service.stop);
  const bytes = await readAll(result.body);
  if (signal?.aborted) throw new CancelledError();
  const after = decodeImage(bytes);
  return {
    title: layer ? `${doc.title}, layer "${layer.name}"` : doc.title,
    before: await jpegDataUrl(host, small),
    after: await jpegDataUrl(host, after),
    width: after.width,
    height: after.height,
    notes: [...check.warnings, ...result.warnings],
  };
}

/**
 * The preview's longer side: PREVIEW_LONG_EDGE, or more for a narrow source, whose shorter side would otherwise
 * shrink to 32 px or less, which the service refuses ("larger than 32x32 pixels", web-api-v2.md Limits).
 */
function previewLongEdge(region: { width: number; height: number }): number {
  const aspect = Math.max(region.width, region.height) / Math.min(region.width, region.height);
  return Math.max(PREVIEW_LONG_EDGE, Math.ceil((IMAGE_SIZE_LIMITS.minSide + 1) * aspect));
}

/** RGBA over white as 8-bit RGB (a JPEG has no alpha; Photoshop's own previews show transparency on white too). */
function overWhite(image: Rgba): Uint8Array {
  const out = new Uint8Array(image.width * image.height * 3);
  for (let p = 0; p < image.width * image.height; p++) {
    const a = image.data[p * 4 + 3]!;
    for (let c = 0; c < 3; c++) out[p * 3 + c] = Math.round((image.data[p * 4 + c]! * a + 255 * (255 - a)) / 255);
  }
  return out;
}

/** Photoshop's encoder (`imaging.encodeImageData`, 8-bit RGB → JPEG) as a data URL for an `<img>`. */
async function jpegDataUrl(host: Host, image: Rgba): Promise<string> {
  let imageData: PsImageData | undefined;
  try {
    imageData = await host.ps.imaging.createImageDataFromBuffer(overWhite(image), {
      width: image.width, height: image.height, components: 3, chunky: true, colorSpace: 'RGB', colorProfile: SRGB_PROFILE,
    });
    const base64 = await host.ps.imaging.encodeImageData({ imageData, base64: true });
    if (typeof base64 !== 'string') throw new Error('Photoshop returned no base64 text for the preview');
    return `data:image/jpeg;base64,${base64}`;
  } finally {
    await imageData?.dispose();
  }
}
