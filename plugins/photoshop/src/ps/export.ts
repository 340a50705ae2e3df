/**
 * Pixels out of Photoshop for upload: the document composite or one layer,
 * converted by Photoshop on the way out to sRGB at 8 or 16 bits (the service
 * takes JPEG or PNG in RGB/RGBA), so the document itself is never converted.
 */
import type { Host, PsDocument, PsRect } from '../host/types';
import { encodePng } from '../image/codec';
import { alphaOf } from '../image/pixels';

export const SRGB_PROFILE = 'sRGB IEC61966-2.1';

export interface ExportedImage {
  bytes: Uint8Array;
  contentType: 'image/png';
  /** Where the pixels sit in the document (pixels). */
  rect: PsRect;
  width: number;
  height: number;
  /** The source's alpha, when it has transparent pixels (to keep a layer's shape). */
  alpha?: Uint8Array;
  /** Said to the user when Photoshop converted the pixels for the upload. */
  conversion?: string;
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
export function unsupportedReason(doc: PsDocument): string | undefined {
  const refused: Record<string, string> = { bitmapMode: 'Bitmap', indexedColorMode: 'Indexed Color', multichannelMode: 'Multichannel' };
  const mode = refused[doc.mode];
  // Bitmap and Indexed documents have no layers; Multichannel ones have no composite RGB the result could go back into.
  if (mode) return `"${doc.title}" is in ${mode} mode, which cannot hold the result layer: convert it to RGB (Image > Mode) first; nothing was sent`;
  return undefined;
}

/** What the user is told when the upload is a conversion of the document (nothing when it is lossless). */
export function conversionNote(doc: PsDocument): string | undefined {
  const mode = MODE_NAMES[doc.mode] ?? doc.mode;
  const bits = BITS[doc.bitsPerChannel] ?? 8;
  const profile = doc.colorProfileName;
  const changes: string[] = [];
  if (mode !== 'RGB') changes.push(`${mode} to RGB`);
  if (mode === 'RGB' && profile && profile !== SRGB_PROFILE) changes.push(`${profile} to sRGB`);
  if (bits === 32) changes.push('32-bit to 16-bit');
  if (changes.length === 0) return undefined;
  return `"${doc.title}" was converted for the upload only (${changes.join(', ')}), sent as a lossless ${uploadBits(doc)}-bit PNG; the result was converted back into the document's mode`;
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
 * Read the composite (no `layerId`) or one layer's pixels as sRGB at the
 * upload depth and encode them as PNG, which is lossless (a JPEG upload
 * would compress the pixels twice and drop 16-bit precision), keeping
 * transparency. Runs inside `executeAsModal`.
 */
export async function exportPixels(host: Host, doc: PsDocument, layerId?: number): Promise<ExportedImage> {
  const bits = uploadBits(doc);
  const got = await host.ps.imaging.getPixels({
    documentID: doc.id,
    ...(layerId !== undefined ? { layerID: layerId } : {}),
    colorSpace: 'RGB',
    colorProfile: SRGB_PROFILE,
    componentSize: bits,
  });
  const { imageData, sourceBounds: rect } = got;
  try {
    const { width, height, components } = imageData;
    if (width === 0 || height === 0) throw new Error(layerId !== undefined ? 'the layer has no pixels' : 'the document has no pixels');
    if (components !== 3 && components !== 4) throw new Error(`Photoshop returned ${components} channels for an RGB read`);
    const data = await imageData.getData({ chunky: true });
    const alpha8 = components === 4 ? alphaAs8(data) : undefined;
    const transparent = alpha8 !== undefined && alpha8.some((a) => a !== 255);
    const samples = bits === 16 ? fullRange16(data as Uint16Array) : (data as Uint8Array);
    const bytes = encodePng(width, height, samples, components);
    return {
      rect, width, height, bytes, contentType: 'image/png', conversion: conversionNote(doc),
      ...(transparent ? { alpha: alpha8 } : {}),
    };
  } finally {
    await imageData.dispose();
  }
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
