/**
 * Pixels out of Photoshop for upload: the document composite or one layer,
 * converted by Photoshop on the way out to sRGB at 8 or 16 bits (the service
 * takes JPEG or PNG in RGB/RGBA), so the document itself is never converted.
 * The service's limits are checked from the document's or layer's bounds
 * before any pixel is read.
 */
import { formatBytes, imageSizeIssue, sameBytes, type BackendKind } from '@pfc/core';
import type { Host, PsDocument, PsGetPixelsOptions, PsRect } from '../host/types';
import { decodeImage, encodeJpeg, encodePng, encodePngWithin, hasTransparency, type Rgba } from '../image/codec';
import { alphaOf, toRgba } from '../image/pixels';
import { findLayer } from './commands';

export const SRGB_PROFILE = 'sRGB IEC61966-2.1';

/**
 * Background removal on the Web API: "output longer side at most 5000 pixels (about 14 megapixels); larger output
 * is resized automatically" (web-api-v2.md, Limits). An upload larger than this gains nothing.
 */
const BG_REMOVAL_LONG_SIDE = 5000;

/**
 * Background removal on the Web API takes "input below 30 MB" (web-api-v2.md, Limits). Core's client refuses only
 * what exceeds the binary reading (`INPUT_BYTE_LIMITS`), so that it never refuses a file the service would take;
 * the panel makes its own upload and keeps it below the decimal reading too, which the service may mean.
 */
const BG_REMOVAL_INPUT_BELOW = 30_000_000;

/** JPEG quality of a background removal's upload that does not fit as PNG. */
const BG_REMOVAL_JPEG_QUALITY = 95;

export interface ExportedImage {
  bytes: Uint8Array;
  contentType: 'image/png' | 'image/jpeg';
  /** Where the source's pixels sit in the document (pixels); the result is fitted to it. */
  rect: PsRect;
  /** Size of the upload, which is smaller than `rect` when it was scaled down. */
  width: number;
  height: number;
  /** The source's alpha (the size of `rect`), when it has transparent pixels (to keep a layer's shape). */
  alpha?: Uint8Array;
  /** Said to the user when Photoshop converted the pixels for the upload. */
  conversion?: string;
  /** Said to the user when a background removal's upload was made smaller to fit the service's limits. */
  reduction?: string;
  /** The upload as the service decodes it: 8-bit RGBA, `width`×`height`. */
  sentPixels(): Rgba;
  /** The source's own pixels, 8-bit RGBA the size of `rect` (the same image as `sentPixels` when the upload is lossless and full-size). */
  sourcePixels(): Rgba;
  /**
   * Whether `again`, the same source read again the same way (see {@link exportPixels}), holds exactly the pixels this
   * read holds. Compared with what this read keeps anyway for the result (the lossless upload, whose bytes are the
   * pixels; a background removal's full-size source), so a read that is never compared costs nothing more.
   */
  samePixelsAs(again: ExportedImage): boolean;
}

export interface ExportOptions {
  /** The backend the upload goes to, whose size limits are checked before anything is read. Default the Web API. */
  backend?: BackendKind;
  /** The correction removes the background: on the Web API the upload is made to fit its limits (see {@link exportForBackgroundRemoval}). */
  removeBackground?: boolean;
  /**
   * The result's size is asked for (a resize): the upload keeps the source's size, since a `scale` is taken of the
   * input's size and a smaller input would be enlarged (AI upscaling) to an asked width or height.
   */
  keepSize?: boolean;
}

const MODE_NAMES: Record<string, string> = {
  CMYKColorMode: 'CMYK',
  labColorMode: 'Lab',
  grayscaleMode: 'Grayscale',
  duotoneMode: 'Duotone',
  multichannelMode: 'Multichannel',
  RGBColorMode: 'RGB',
};
const BITS: Record<string, number> = { bitDepth1: 1, bitDepth8: 8, bitDepth16: 16, bitDepth32: 32 };

/** Photoshop's bit depth of a document as a number. */
export function documentBits(doc: PsDocument): 8 | 16 | 32 {
  const bits = BITS[doc.bitsPerChannel];
  return bits === 16 || bits === 32 ? bits : 8;
}

/** Why the document cannot be corrected, or undefined when it can. */
export function unsupportedReason(doc: PsDocument, layerId: number | undefined): string | undefined {
  const refused: Record<string, string> = { bitmapMode: 'Bitmap', indexedColorMode: 'Indexed Color', multichannelMode: 'Multichannel' };
  const mode = refused[doc.mode];
  // Bitmap and Indexed documents have no layers; Multichannel ones have no composite RGB the result could go back into.
  if (mode) return `"${doc.title}" is in ${mode} mode, which cannot hold the result layer: convert it to RGB (Image > Mode) first; nothing was sent`;
  if (layerId === undefined && doc.artboards.length > 0) return artboardsReason(doc);
  return undefined;
}

/**
 * A document of artboards has no one picture to correct: the composite spans every artboard and the canvas between
 * them, and its result would be a layer outside them all, which an artboard's export (File > Export > Artboards to
 * Files) leaves out. Each artboard's photo is corrected on its own with Correct Layer, its result inside the artboard.
 */
function artboardsReason(doc: PsDocument): string {
  return `"${doc.title}" has artboards, and a result of the whole canvas would be a layer outside them, which exporting an artboard leaves out: select the photo's layer inside an artboard and use Correct Layer; nothing was sent`;
}

/** How the upload was encoded, for the user. */
interface SentAs {
  bits: 8 | 16;
  format: 'png' | 'jpeg';
}

function describeSent({ bits, format }: SentAs): string {
  return format === 'png' ? `a lossless ${bits}-bit PNG` : `an 8-bit JPEG (quality ${BG_REMOVAL_JPEG_QUALITY})`;
}

/** What the user is told when the upload is a conversion of the document, or its colours had to be assumed (nothing when it is lossless). */
export function conversionNote(doc: PsDocument, sent: SentAs = { bits: uploadBits(doc), format: 'png' }): string | undefined {
  const notes = [convertedNote(doc, sent), untaggedNote(doc)].filter((n): n is string => n !== undefined);
  return notes.length > 0 ? notes.join('; ') : undefined;
}

/** What `colorProfileName` answers for a document that is not colour managed (classes/document.md:94). */
const NO_PROFILE = 'None';

/** The document's colour profile (custom or the working one), or undefined when it has none. */
function profileOf(doc: PsDocument): string | undefined {
  return doc.colorProfileName === NO_PROFILE ? undefined : doc.colorProfileName;
}

/** Which conversions Photoshop made for the upload (mode, profile, depth), or nothing when it made none. */
function convertedNote(doc: PsDocument, sent: SentAs): string | undefined {
  const mode = MODE_NAMES[doc.mode] ?? doc.mode;
  const bits = BITS[doc.bitsPerChannel] ?? 8;
  const profile = profileOf(doc);
  const changes: string[] = [];
  if (mode !== 'RGB') changes.push(`${mode} to RGB`);
  if (mode === 'RGB' && profile !== undefined && profile !== SRGB_PROFILE) changes.push(`${profile} to sRGB`);
  if (bits === 32) changes.push(`32-bit to ${sent.bits}-bit`);
  if (changes.length === 0) return undefined;
  return `"${doc.title}" was converted for the upload only (${changes.join(', ')}), sent as ${describeSent(sent)}; the result was converted back into the document's mode`;
}

/** The working space (Edit > Color Settings) Photoshop takes an untagged document's colours to be in, by mode. */
const WORKING_SPACES: Record<string, string> = { RGBColorMode: 'RGB', CMYKColorMode: 'CMYK', grayscaleMode: 'Gray' };

/**
 * An untagged document's numbers have no profile of their own: "When working with untagged documents, Photoshop
 * uses the current working space profile that is specified in the color settings to display and edit colors"
 * (Photoshop Help, "Embedding a profile in a document"). The upload is read as sRGB (`getPixels` `colorProfile`)
 * and the result written as sRGB (`putPixels`), so both pass through that working space, which the panel cannot
 * read: the user is told, since the service sees the colours only as right as that assumption.
 */
function untaggedNote(doc: PsDocument): string | undefined {
  const space = WORKING_SPACES[doc.mode];
  if (profileOf(doc) !== undefined || space === undefined) return undefined;
  const unchangedWhen = space === 'RGB' ? ', which changes nothing when that space is sRGB' : '';
  return `"${doc.title}" has no colour profile, so Photoshop took its colours to be in your working ${space} space (Edit > Color Settings) to convert them to sRGB for the upload and the result back${unchangedWhen}; if they belong to another profile, assign it (Edit > Assign Profile) and correct again`;
}

/**
 * What the user is told when the document is deeper than the result: the service's results are 8-bit, and the
 * panel widens them to the document's depth, so a 16/32-bit document gets an 8-bit correction (its own layers keep
 * their full depth).
 */
export function depthNote(doc: PsDocument): string | undefined {
  const bits = documentBits(doc);
  if (bits === 8) return undefined;
  return `the result is an 8-bit correction widened to the document's ${bits} bits per channel (the service returns 8-bit images); the original layers keep their full ${bits}-bit precision`;
}

/** Bits per channel of the upload: 16 for 16- and 32-bit documents (PNG has no floats), else 8. */
export function uploadBits(doc: PsDocument): 8 | 16 {
  return documentBits(doc) === 8 ? 8 : 16;
}

/**
 * Read the composite (no `layerId`) or one layer's pixels as sRGB and encode
 * them for the upload, once the service's size limits allow it. Runs inside
 * `executeAsModal`.
 *
 * Usually the upload is a PNG at the upload depth, which is lossless (a JPEG
 * upload would compress the pixels twice and drop 16-bit precision), keeping
 * transparency; a background removal on the Web API is made to fit that
 * service's limits instead (see {@link exportForBackgroundRemoval}).
 */
export async function exportPixels(host: Host, doc: PsDocument, layerId?: number, options: ExportOptions = {}): Promise<ExportedImage> {
  const { sent, fitted } = checkedUpload(doc, layerId, options);
  if (fitted) return exportForBackgroundRemoval(host, doc, layerId, sent);
  return exportLossless(host, doc, layerId);
}

interface Size {
  width: number;
  height: number;
}

/**
 * What Correct would send for the composite (no `layerId`) or one layer, refused (before any pixel is read) when the
 * service would refuse it for its size: `region` is the source's size, `sent` the upload's, smaller when `fitted`
 * (a background removal made to fit the Web API's limits).
 */
export function checkedUpload(doc: PsDocument, layerId: number | undefined, options: ExportOptions = {}): { region: Size; sent: Size; fitted: boolean } {
  const backend = options.backend ?? 'web';
  const region = regionOf(doc, layerId);
  const fitted = options.removeBackground === true && backend === 'web';
  const sent = fitted && !options.keepSize ? scaledToFit(region) : region;
  refuseOutsideLimits(doc, layerId, region, sent, backend);
  return { region, sent, fitted };
}

/** The size of what `getPixels` reads: the document, or the layer's own pixels (without effects). */
function regionOf(doc: PsDocument, layerId: number | undefined): Size {
  if (layerId === undefined) return { width: doc.width, height: doc.height };
  const layer = findLayer(doc.layers, layerId);
  if (!layer) throw new Error('the layer was deleted');
  const { width, height } = layer.boundsNoEffects;
  return { width, height };
}

/** The region scaled down so that its longer side is at most the background removal's output. */
function scaledToFit({ width, height }: Size): Size {
  const scale = Math.min(1, BG_REMOVAL_LONG_SIDE / Math.max(width, height));
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}

/**
 * Refuse, before any pixel is read, a source the service would refuse for its pixel size (core's `imageSizeIssue`,
 * the documented limits of each backend). The upload is what the service sees: a background removal scaled down to
 * 5000 px escapes the limits on large images. The user is told about the source's own size.
 */
function refuseOutsideLimits(doc: PsDocument, layerId: number | undefined, region: Size, sent: Size, backend: BackendKind): void {
  const what = sourceName(doc, layerId);
  if (region.width === 0 || region.height === 0) throw new Error(`${what} has no pixels`);
  const issue = imageSizeIssue(sent.width, sent.height, backend);
  if (!issue) return;
  throw new Error(`${what} cannot be sent to the service: ${imageSizeIssue(region.width, region.height, backend) ?? issue}; nothing was sent`);
}

/** The source as the user knows it: the document's title, or the layer's name. */
function sourceName(doc: PsDocument, layerId: number | undefined): string {
  return layerId === undefined ? `"${doc.title}"` : `the layer "${findLayer(doc.layers, layerId)?.name ?? ''}"`;
}

/** The lossless upload: a PNG at the upload depth, the source's own pixels exactly. */
async function exportLossless(host: Host, doc: PsDocument, layerId: number | undefined): Promise<ExportedImage> {
  const bits = uploadBits(doc);
  return withPixels(host, { documentID: doc.id, layerID: layerId, bits }, ({ width, height, components, data, rect }) => {
    const alpha8 = components === 4 ? alphaAs8(data) : undefined;
    const transparent = alpha8 !== undefined && alpha8.some((a) => a !== 255);
    const samples = bits === 16 ? fullRange16(data as Uint16Array) : (data as Uint8Array);
    const bytes = encodePng(width, height, samples, components);
    const decoded = once(() => decodeImage(bytes));
    return {
      rect, width, height, bytes, contentType: 'image/png', conversion: conversionNote(doc),
      ...(transparent ? { alpha: alpha8 } : {}),
      sentPixels: decoded,
      sourcePixels: decoded,
      // The PNG holds the pixels exactly, and the same pixels encode to the same bytes: equal bytes, equal pixels.
      samePixelsAs: (again) => sameRect(rect, again.rect) && sameBytes(bytes, again.bytes),
    };
  });
}

/**
 * A background removal's upload on the Web API, within its limits (web-api-v2.md): at most 5000 px on the longer
 * side (`size`, read by Photoshop with `targetSize`, which may use a cached pyramid level), since the service's
 * cut-out is no larger; at 8 bits, since the mask it gives is 8-bit; and below 30 MB: a PNG, or for an opaque source
 * a JPEG when the PNG is too large (a transparent source must keep its alpha, and is refused). The source's own
 * pixels are read at full size too: the layer keeps them, and only the mask comes from the smaller result.
 */
async function exportForBackgroundRemoval(host: Host, doc: PsDocument, layerId: number | undefined, size: Size): Promise<ExportedImage> {
  const source = await readRgba(host, doc.id, layerId);
  const { width, height } = source.image;
  const scaled = size.width < width || size.height < height;
  const what = sourceName(doc, layerId);
  const upload = fitUnderLimit(what, scaled ? (await readRgba(host, doc.id, layerId, longSide(width, height, BG_REMOVAL_LONG_SIDE))).image : source.image);
  const alpha = hasTransparency(source.image.data, 4) ? alphaOf(source.image.data) : undefined;
  const sentAs: SentAs = { bits: 8, format: upload.contentType === 'image/jpeg' ? 'jpeg' : 'png' };
  return {
    ...upload,
    rect: source.rect,
    ...(alpha ? { alpha } : {}),
    conversion: conversionNote(doc, sentAs),
    reduction: reductionNote(doc, upload, scaled, sentAs),
    sentPixels: once(() => decodeImage(upload.bytes)),
    sourcePixels: () => source.image,
    // The full-size pixels, not the upload: a change that scaling or JPEG hides from the upload still shows in the
    // source's pixels, which the result keeps under its mask.
    samePixelsAs: (again) => sameRect(source.rect, again.rect) && sameBytes(source.image.data, again.sourcePixels().data),
  };
}

/**
 * The most faithful upload of `image` below the background removal's 30 MB: an 8-bit PNG, else for an opaque
 * image a high-quality JPEG; refused (before anything is sent) when neither fits.
 */
function fitUnderLimit(what: string, image: Rgba): Pick<ExportedImage, 'bytes' | 'contentType' | 'width' | 'height'> {
  const { width, height } = image;
  const transparent = hasTransparency(image.data, 4);
  // Below the limit means at most one byte less than it.
  const png = transparent ? encodePngWithin(width, height, image.data, 4, BG_REMOVAL_INPUT_BELOW - 1) : encodePngWithin(width, height, rgbOf(image.data), 3, BG_REMOVAL_INPUT_BELOW - 1);
  if (png) return { bytes: png, contentType: 'image/png', width, height };
  const limit = `the service takes inputs below ${formatBytes(BG_REMOVAL_INPUT_BELOW)} for background removal; nothing was sent`;
  if (transparent) {
    throw new Error(`${what} is too large to remove its background: at ${width}×${height} px its PNG, which keeps its transparency, comes to ${formatBytes(BG_REMOVAL_INPUT_BELOW)} or more, and ${limit}`);
  }
  const jpeg = encodeJpeg(image, BG_REMOVAL_JPEG_QUALITY);
  if (jpeg.byteLength < BG_REMOVAL_INPUT_BELOW) return { bytes: jpeg, contentType: 'image/jpeg', width, height };
  throw new Error(`${what} is too large to remove its background: at ${width}×${height} px it is ${formatBytes(jpeg.byteLength)} even as a JPEG (quality ${BG_REMOVAL_JPEG_QUALITY}), and ${limit}`);
}

/** What the user is told when a background removal's upload is not the source exactly (scaled, 8 bits, JPEG). */
function reductionNote(doc: PsDocument, upload: Size, scaled: boolean, sentAs: SentAs): string | undefined {
  if (!scaled && sentAs.format === 'png' && documentBits(doc) === 8) return undefined;
  const at = scaled ? ` at ${upload.width}×${upload.height} px` : '';
  const as = sentAs.format === 'png' ? 'an 8-bit PNG' : describeSent(sentAs);
  return `for the background removal, "${doc.title}" was sent${at} as ${as}, within the service's limits (cut-outs of at most ${BG_REMOVAL_LONG_SIDE} px, inputs below ${formatBytes(BG_REMOVAL_INPUT_BELOW)})`;
}

interface Pixels {
  width: number;
  height: number;
  components: 3 | 4;
  /** Chunky samples: 8-bit, or 16-bit in Photoshop's 0–32768 range. */
  data: Uint8Array | Uint16Array;
  /** `sourceBounds`: in the document for a full-size read; relative to a pyramid level for a `targetSize` read. */
  rect: PsRect;
}

/**
 * Read the composite (no `layerID`) or one layer as sRGB at `bits` per channel, scaled down to `targetSize` when
 * given, and hand the samples to `use` before Photoshop's image data is disposed (their buffer is not the caller's
 * to keep).
 */
async function withPixels<T>(
  host: Host,
  request: { documentID: number; layerID: number | undefined; bits: 8 | 16; targetSize?: PsGetPixelsOptions['targetSize'] },
  use: (pixels: Pixels) => T,
): Promise<Awaited<T>> {
  const { documentID, layerID, bits, targetSize } = request;
  const { imageData, sourceBounds } = await host.ps.imaging.getPixels({
    documentID,
    ...(layerID !== undefined ? { layerID } : {}),
    ...(targetSize ? { targetSize } : {}),
    colorSpace: 'RGB',
    colorProfile: SRGB_PROFILE,
    componentSize: bits,
  });
  try {
    const { width, height, components } = imageData;
    if (width === 0 || height === 0) throw new Error(layerID !== undefined ? 'the layer has no pixels' : 'the document has no pixels');
    if (components !== 3 && components !== 4) throw new Error(`Photoshop returned ${components} channels for an RGB read`);
    const data = (await imageData.getData({ chunky: true })) as Uint8Array | Uint16Array;
    return await use({ width, height, components, data, rect: sourceBounds });
  } finally {
    await imageData.dispose();
  }
}

/** `getPixels`'s `targetSize` for a longer side of at most `edge`: one side given, Photoshop keeps the aspect ratio. */
export function longSide(width: number, height: number, edge: number): { width: number } | { height: number } {
  return width >= height ? { width: Math.min(width, edge) } : { height: Math.min(height, edge) };
}

/**
 * The composite or one layer as 8-bit sRGB RGBA (a copy), scaled down by Photoshop to `targetSize` when given; `rect`
 * is its `sourceBounds` (see {@link Pixels}).
 */
export function readRgba(host: Host, documentID: number, layerID: number | undefined, targetSize?: PsGetPixelsOptions['targetSize']): Promise<{ rect: PsRect; image: Rgba }> {
  return withPixels(host, { documentID, layerID, bits: 8, targetSize }, (px) => ({ rect: px.rect, image: toRgba(px.width, px.height, px.data as Uint8Array, px.components) }));
}

/** Whether two rectangles are the same, side by side. */
export function sameRect(a: PsRect, b: PsRect): boolean {
  return a.left === b.left && a.top === b.top && a.right === b.right && a.bottom === b.bottom;
}


/** Computed on first use, then kept. */
function once<T>(make: () => T): () => T {
  let value: { v: T } | undefined;
  return () => (value ??= { v: make() }).v;
}

/** The RGB samples of opaque RGBA. */
function rgbOf(rgba: Uint8Array): Uint8Array {
  const out = new Uint8Array((rgba.length / 4) * 3);
  for (let i = 0, o = 0; i < rgba.length; i += 4, o += 3) {
    out[o] = rgba[i]!;
    out[o + 1] = rgba[i + 1]!;
    out[o + 2] = rgba[i + 2]!;
  }
  return out;
}

/** Photoshop's 16-bit range is 0–32768; PNG's is 0–65535. */
function fullRange16(data: Uint16Array): Uint16Array {
  const out = new Uint16Array(data.length);
  for (let i = 0; i < data.length; i++) out[i] = Math.min(65535, Math.round((data[i]! * 65535) / 32768));
  return out;
}

/** The alpha channel of chunky RGBA samples, as 8-bit. */
function alphaAs8(data: Uint8Array | Uint16Array | Float32Array): Uint8Array {
  if (data instanceof Uint8Array) return alphaOf(data);
  const out = new Uint8Array(data.length / 4);
  const scale = data instanceof Uint16Array ? 255 / 32768 : 255;
  for (let i = 0; i < out.length; i++) out[i] = Math.min(255, Math.round(data[i * 4 + 3]! * scale));
  return out;
}
