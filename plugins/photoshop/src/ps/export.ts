/**
 * Pixels out of Photoshop for upload: the document composite or one layer,
 * converted by Photoshop on the way out to 8-bit sRGB (the service takes JPEG
 * or PNG in RGB/RGBA), so the document itself is never converted.
 */
import type { Host, PsDocument, PsRect } from '../host/types';
import { encodePng, hasTransparency, stripAlpha } from '../image/codec';
import { alphaOf } from '../image/pixels';

export const SRGB_PROFILE = 'sRGB IEC61966-2.1';

export interface ExportedImage {
  bytes: Uint8Array;
  contentType: 'image/jpeg' | 'image/png';
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
  if (doc.mode === 'bitmapMode' || doc.mode === 'indexedColorMode') {
    const mode = doc.mode === 'bitmapMode' ? 'Bitmap' : 'Indexed Color';
    return `"${doc.title}" is in ${mode} mode, which has no layers for the result: convert it to RGB (Image > Mode) first`;
  }
  return undefined;
}

/** What the user is told when the upload is a conversion of the document. */
export function conversionNote(doc: PsDocument): string | undefined {
  const mode = MODE_NAMES[doc.mode] ?? doc.mode;
  const bits = BITS[doc.bitsPerChannel] ?? 8;
  if (mode === 'RGB' && bits === 8) {
    const profile = doc.colorProfileName;
    if (!profile || profile === SRGB_PROFILE) return undefined;
    return `"${doc.title}" uses ${profile}: its pixels were sent as sRGB, and the result was converted back into ${profile}`;
  }
  return `"${doc.title}" is ${mode} ${bits}-bit: its pixels were sent as 8-bit sRGB, and the result was converted back into the document's mode`;
}

/**
 * Read the composite (no `layerId`) or one layer's pixels as 8-bit sRGB and
 * encode them: JPEG (Photoshop's encoder) when opaque, PNG when any pixel is
 * transparent. Runs inside `executeAsModal`.
 */
export async function exportPixels(host: Host, doc: PsDocument, layerId?: number): Promise<ExportedImage> {
  const { imaging } = host.ps;
  const got = await imaging.getPixels({
    documentID: doc.id,
    ...(layerId !== undefined ? { layerID: layerId } : {}),
    colorSpace: 'RGB',
    colorProfile: SRGB_PROFILE,
    componentSize: 8,
  });
  const { imageData, sourceBounds: rect } = got;
  try {
    const { width, height, components } = imageData;
    if (width === 0 || height === 0) throw new Error(layerId !== undefined ? 'the layer has no pixels' : 'the document has no pixels');
    const data = (await imageData.getData({ chunky: true })) as Uint8Array;
    const base = { rect, width, height, conversion: conversionNote(doc) };
    if (hasTransparency(data, components)) {
      return { ...base, bytes: encodePng(width, height, data, 4), contentType: 'image/png', alpha: alphaOf(data) };
    }
    let opaque = imageData;
    if (components === 4) {
      opaque = await imaging.createImageDataFromBuffer(stripAlpha(data), {
        width, height, components: 3, chunky: true, colorSpace: 'RGB', colorProfile: SRGB_PROFILE,
      });
    }
    try {
      const jpeg = await imaging.encodeImageData({ imageData: opaque });
      const bytes = typeof jpeg === 'string' ? base64ToBytes(jpeg) : Uint8Array.from(jpeg);
      return { ...base, bytes, contentType: 'image/jpeg' };
    } finally {
      if (opaque !== imageData) await opaque.dispose();
    }
  } finally {
    await imageData.dispose();
  }
}

function base64ToBytes(text: string): Uint8Array {
  const bin = atob(text);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}
