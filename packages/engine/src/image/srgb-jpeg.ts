/**
 * A JPEG tagged as sRGB without sharp's colour transform. For pixels that
 * are already sRGB, `withMetadata()` runs libvips' `icc_transform` from sRGB
 * to the same sRGB profile over every pixel (an identity on all 2²⁴ 8-bit
 * colours, yet about as much CPU as the JPEG encode itself) only to attach
 * the profile. Here the pixels are encoded without metadata and the header
 * segments sharp writes (EXIF with the resolution and the pixel dimensions,
 * the ICC profile) are taken from a 1×1 encode with the same metadata
 * options and put after SOI, with the EXIF's pixel dimensions set to the
 * image's: the same bytes as the `withMetadata` encode
 * (`test/srgb-jpeg.test.ts`).
 */
import type { Sharp } from 'sharp';
import sharp from 'sharp';

/** Options of the JPEG encode (the header segments do not depend on them). */
export interface JpegOptions {
  quality: number;
  chromaSubsampling: string;
  optimiseCoding: boolean;
}

const EXIF_ID = Buffer.from('Exif\0\0', 'latin1');
const TAG_EXIF_IFD = 0x8769;
const TAG_PIXEL_X = 0xa002;
const TAG_PIXEL_Y = 0xa003;
const TYPE_LONG = 4;

/** Header segments by density (undefined: none given), as sharp writes them for a 1×1 image. */
const templates = new Map<number | undefined, Promise<Template | undefined>>();

interface Template {
  /** The APPn segments between SOI and the first other marker. */
  segments: Buffer;
  /** Byte offsets, within `segments`, of the EXIF's PixelXDimension and PixelYDimension values (u32). */
  pixelX: number;
  pixelY: number;
  littleEndian: boolean;
}

/**
 * Encodes `pipeline` (sRGB pixels of `width` × `height`, with no metadata of
 * its own) as JPEG with the file `pipeline.withMetadata({ density })` would
 * give; falls back to that encode if sharp's header is ever not of the
 * expected shape.
 */
export async function encodeSrgbJpeg(pipeline: Sharp, size: { width: number; height: number }, jpeg: JpegOptions, density?: number): Promise<Buffer> {
  const template = await headerTemplate(density);
  if (!template) return pipeline.withMetadata(density ? { density } : {}).jpeg(jpeg).toBuffer();
  const [plain, header] = [await pipeline.jpeg(jpeg).toBuffer(), Buffer.from(template.segments)];
  const write = template.littleEndian ? header.writeUInt32LE.bind(header) : header.writeUInt32BE.bind(header);
  write(size.width, template.pixelX);
  write(size.height, template.pixelY);
  return Buffer.concat([plain.subarray(0, 2), header, plain.subarray(2)]);
}

function headerTemplate(density: number | undefined): Promise<Template | undefined> {
  let t = templates.get(density);
  if (!t) {
    t = sharp(Buffer.alloc(3), { raw: { width: 1, height: 1, channels: 3 } })
      .withMetadata(density ? { density } : {})
      .jpeg()
      .toBuffer()
      .then(parseTemplate);
    templates.set(density, t);
  }
  return t;
}

/** The template's APPn segments and where its EXIF keeps the pixel dimensions; undefined if not as expected. */
function parseTemplate(file: Buffer): Template | undefined {
  let at = 2;
  let exif: { start: number; end: number } | undefined;
  while (file[at] === 0xff && file[at + 1]! >= 0xe0 && file[at + 1]! <= 0xef) {
    const end = at + 2 + file.readUInt16BE(at + 2);
    if (file[at + 1] === 0xe1 && file.subarray(at + 4, at + 4 + EXIF_ID.length).equals(EXIF_ID)) exif = { start: at + 4 + EXIF_ID.length, end };
    at = end;
  }
  if (!exif) return undefined;
  const tiff = file.subarray(exif.start, exif.end);
  const littleEndian = tiff.toString('latin1', 0, 2) === 'II';
  const u16 = (o: number) => (littleEndian ? tiff.readUInt16LE(o) : tiff.readUInt16BE(o));
  const u32 = (o: number) => (littleEndian ? tiff.readUInt32LE(o) : tiff.readUInt32BE(o));
  /** Offset of a LONG tag's value in the IFD at `ifd`, if present. */
  const longValue = (ifd: number, tag: number): number | undefined => {
    for (let k = 0, n = u16(ifd); k < n; k++) {
      const e = ifd + 2 + 12 * k;
      if (u16(e) === tag) return u16(e + 2) === TYPE_LONG && u32(e + 4) === 1 ? e + 8 : undefined;
    }
    return undefined;
  };
  try {
    const exifIfd = longValue(u32(4), TAG_EXIF_IFD);
    if (exifIfd === undefined) return undefined;
    const [x, y] = [longValue(u32(exifIfd), TAG_PIXEL_X), longValue(u32(exifIfd), TAG_PIXEL_Y)];
    if (x === undefined || y === undefined) return undefined;
    const base = exif.start - 2;
    return { segments: file.subarray(2, at), pixelX: base + x, pixelY: base + y, littleEndian };
  } catch {
    return undefined;
  }
}
