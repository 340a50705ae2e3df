/**
 * A stand-in for a source whose metadata an output keeps: an image that
 * sharp reads the same metadata from (EXIF, XMP, IPTC, ICC profile,
 * comments, resolution) but whose pixels cost nothing to decode, so that
 * the header sharp writes for `sharp(source).autoOrient()…withMetadata()`
 * can be had from a 1×1 encode (`srgb-tag.ts`) instead of a pipeline over
 * the source. A camera photo with EXIF orientation 6 would otherwise be
 * decoded and turned whole just to reach its first pixel.
 *
 * For a JPEG this is the source's own metadata segments, byte for byte and
 * in their order, in front of the tables and scan of a 1×1 JPEG. Only
 * segments whose effect on libvips is metadata alone are moved: JFIF,
 * EXIF, XMP (with its extension), ICC profile, Photoshop/IPTC and comments.
 * A JPEG with any other APPn segment (an Adobe colour-transform marker, an
 * MPF index of a gain map or second image, a maker's own) and every PNG are
 * their own stand-in: still right, only their first rows are decoded
 * (all of it when the EXIF orientation turns the image).
 */
import sharp from 'sharp';

const SOI = 0xd8;
const APP0 = 0xe0;
const APP15 = 0xef;
const COM = 0xfe;

/** The APPn segments moved into a stand-in, by marker and the identifier their data starts with. */
const METADATA_SEGMENTS: [number, string][] = [
  [0xe0, 'JFIF\0'],
  [0xe1, 'Exif\0\0'],
  [0xe1, 'http://ns.adobe.com/xap/1.0/\0'],
  [0xe1, 'http://ns.adobe.com/xmp/extension/\0'],
  [0xe2, 'ICC_PROFILE\0'],
  [0xed, 'Photoshop 3.0\0'],
];

let scanOfOnePixel: Promise<Buffer> | undefined;

/**
 * An image sharp reads the metadata of `source` from as it does from
 * `source` itself, cheap to decode where that can be had (a JPEG whose
 * segments are all metadata); otherwise `source`.
 */
export async function metadataStandIn(source: Buffer, format: string | undefined): Promise<Buffer> {
  const segments = format === 'jpeg' ? metadataSegments(source) : undefined;
  if (!segments) return source;
  return Buffer.concat([source.subarray(0, 2), segments, await onePixelScan()]);
}

/**
 * The segments between SOI and the first non-APPn, non-COM marker, if all
 * of them are metadata (see {@link METADATA_SEGMENTS}) and none lies
 * further on (before the scan, between the tables), where the stand-in
 * would miss it; otherwise `undefined`.
 */
function metadataSegments(jpeg: Buffer): Buffer | undefined {
  if (jpeg[0] !== 0xff || jpeg[1] !== SOI) return undefined;
  let at = 2;
  while (at + 4 <= jpeg.length && jpeg[at] === 0xff && isMetadataMarker(jpeg[at + 1]!)) {
    const end = at + 2 + jpeg.readUInt16BE(at + 2);
    if (end > jpeg.length || !isKeptSegment(jpeg, at, end)) return undefined;
    at = end;
  }
  return nothingFurther(jpeg, at) ? jpeg.subarray(2, at) : undefined;
}

function isMetadataMarker(marker: number): boolean {
  return (marker >= APP0 && marker <= APP15) || marker === COM;
}

function isKeptSegment(jpeg: Buffer, at: number, end: number): boolean {
  const marker = jpeg[at + 1]!;
  if (marker === COM) return true;
  return METADATA_SEGMENTS.some(([m, id]) => m === marker && end - (at + 4) >= id.length && jpeg.toString('latin1', at + 4, at + 4 + id.length) === id);
}

/** Whether no APPn or COM segment follows among the tables before the first scan (SOS). */
function nothingFurther(jpeg: Buffer, from: number): boolean {
  const SOS = 0xda;
  for (let at = from; at + 4 <= jpeg.length && jpeg[at] === 0xff; ) {
    const marker = jpeg[at + 1]!;
    if (marker === SOS) return true;
    if (isMetadataMarker(marker)) return false;
    at += 2 + jpeg.readUInt16BE(at + 2);
  }
  return false;
}

/** The tables, scan and EOI of a 1×1 JPEG (everything after its own APPn segments). */
function onePixelScan(): Promise<Buffer> {
  scanOfOnePixel ??= sharp(Buffer.alloc(3), { raw: { width: 1, height: 1, channels: 3 } })
    .jpeg()
    .toBuffer()
    .then((one) => {
      let at = 2;
      while (one[at] === 0xff && isMetadataMarker(one[at + 1]!)) at += 2 + one.readUInt16BE(at + 2);
      return one.subarray(at);
    });
  return scanOfOnePixel;
}
