/**
 * A JPEG or PNG tagged as sRGB without sharp's colour transform. With
 * `withMetadata()`, sharp runs libvips' `icc_transform` over every output
 * pixel, from sRGB to the same sRGB profile (an identity on all 2²⁴ 8-bit
 * colours, yet about as much CPU as a JPEG encode, a fifth of a PNG one),
 * only to attach the profile. Here the pixels are encoded without metadata,
 * and the header sharp would write (EXIF with the resolution and the pixel
 * dimensions, the sRGB profile, what the source kept: XMP, IPTC;
 * for PNG also the resolution chunk) is taken from a 1×1 `withMetadata`
 * encode, with the EXIF's pixel dimensions set to the image's: the same
 * bytes as the `withMetadata` encode (`test/srgb-tag.test.ts`,
 * `test/camera-metadata.test.ts`). Where sharp's header has another shape,
 * the encoders return `undefined` and the caller takes sharp's way.
 */
import { crc32 } from 'node:zlib';
import type { Sharp } from 'sharp';
import sharp from 'sharp';

/** Options of the JPEG encode (the header segments do not depend on them). */
export interface JpegOptions {
  quality: number;
  chromaSubsampling: string;
  optimiseCoding: boolean;
}

/**
 * Where the header comes from: `density` for a source with no metadata of
 * its own (sharp's header for `withMetadata({ density })`, cached per
 * density); `standIn` for a source whose metadata is kept: an image with the
 * source's metadata and a first pixel that is cheap to decode (see
 * `source-header.ts`), whose header is sharp's for
 * `sharp(source).autoOrient()…withMetadata()`.
 */
export type HeaderFrom = { density: number | undefined } | { standIn: Buffer };

const EXIF_ID = Buffer.from('Exif\0\0', 'latin1');
const TAG_EXIF_IFD = 0x8769;
const TAG_PIXEL_X = 0xa002;
const TAG_PIXEL_Y = 0xa003;
const TYPE_SHORT = 3;
const TYPE_LONG = 4;
const PNG_SIGNATURE_AND_IHDR = 8 + 12 + 13;
const JPEG_COM = 0xfe;

type Size = { width: number; height: number };
type Format = 'jpeg' | 'png';

/** Where a pixel dimension's value sits in a header, and its EXIF type (libvips keeps a source's SHORT as SHORT). */
interface DimensionValue {
  at: number;
  type: typeof TYPE_SHORT | typeof TYPE_LONG;
}

/** The header of a 1×1 `withMetadata` encode and where its EXIF keeps the pixel dimensions. */
interface Template {
  /** JPEG: the APPn and COM segments after SOI; PNG: the chunks between IHDR and IDAT. */
  header: Buffer;
  /** Offsets in `header` of the EXIF block (TIFF header on). */
  tiff: { start: number; end: number };
  pixelX: DimensionValue;
  pixelY: DimensionValue;
  littleEndian: boolean;
}

const templates = new Map<string, Promise<Template | undefined>>();

/**
 * Encodes `pipeline` (sRGB pixels of `size`, no metadata of their own) as
 * the JPEG sharp writes for the same pixels with the metadata of `from`;
 * `undefined` (the pipeline untouched) when sharp's header has another shape.
 */
export async function encodeSrgbJpeg(pipeline: Sharp, size: Size, jpeg: JpegOptions, from: HeaderFrom): Promise<Buffer | undefined> {
  const template = await headerTemplate('jpeg', from);
  if (!template || !fits(template, size)) return undefined;
  const plain = await pipeline.jpeg(jpeg).toBuffer();
  return Buffer.concat([plain.subarray(0, 2), sizedHeader(template, size), plain.subarray(2)]);
}

/**
 * Encodes `pipeline` (as for {@link encodeSrgbJpeg}) as the PNG sharp writes
 * with the metadata of `from`: the plain encode's IHDR and image data around
 * the template's chunks (its pHYs replacing the plain encode's);
 * `undefined` when sharp's header has another shape.
 */
export async function encodeSrgbPng(pipeline: Sharp, size: Size, png: { compressionLevel: number }, from: HeaderFrom): Promise<Buffer | undefined> {
  const template = await headerTemplate('png', from);
  if (!template || !fits(template, size)) return undefined;
  const plain = await pipeline.png(png).toBuffer();
  const data = firstChunk(plain, 'IDAT');
  if (data === undefined) return undefined;
  const header = sizedHeader(template, size);
  // The EXIF chunk's CRC covers its type and data, so it follows the new dimensions.
  const exifChunk = template.tiff.start - 8;
  header.writeUInt32BE(crc32(header.subarray(exifChunk + 4, template.tiff.end)), template.tiff.end);
  return Buffer.concat([plain.subarray(0, PNG_SIGNATURE_AND_IHDR), header, plain.subarray(data)]);
}

/** Whether the image's dimensions fit the template's EXIF values (a SHORT holds at most 65,535). */
function fits(template: Template, size: Size): boolean {
  const max = (v: DimensionValue) => (v.type === TYPE_SHORT ? 0xffff : 0xffffffff);
  return size.width <= max(template.pixelX) && size.height <= max(template.pixelY);
}

/** A copy of the template's header with the image's pixel dimensions in its EXIF. */
function sizedHeader(template: Template, size: Size): Buffer {
  const header = Buffer.from(template.header);
  const write = (v: DimensionValue, value: number) => {
    if (v.type === TYPE_SHORT) {
      if (template.littleEndian) header.writeUInt16LE(value, v.at);
      else header.writeUInt16BE(value, v.at);
    } else if (template.littleEndian) header.writeUInt32LE(value, v.at);
    else header.writeUInt32BE(value, v.at);
  };
  write(template.pixelX, size.width);
  write(template.pixelY, size.height);
  return header;
}

function headerTemplate(format: Format, from: HeaderFrom): Promise<Template | undefined> {
  if ('standIn' in from) {
    // Whatever sharp makes of the source's metadata (a profile or EXIF it cannot read) is left to its own way.
    const one = sharp(from.standIn).autoOrient().extract({ left: 0, top: 0, width: 1, height: 1 }).withMetadata();
    return oneByOne(format, one).catch(() => undefined);
  }
  const key = `${format} ${from.density}`;
  let t = templates.get(key);
  if (!t) {
    const one = sharp(Buffer.alloc(3), { raw: { width: 1, height: 1, channels: 3 } }).withMetadata(from.density ? { density: from.density } : {});
    t = oneByOne(format, one);
    templates.set(key, t);
  }
  return t;
}

/** The template of a 1×1 pipeline's encode. */
function oneByOne(format: Format, one: Sharp): Promise<Template | undefined> {
  return format === 'jpeg' ? one.jpeg().toBuffer().then(jpegTemplate) : one.png().toBuffer().then(pngTemplate);
}

/** The APPn and COM segments after SOI, with the EXIF block's place. */
function jpegTemplate(file: Buffer): Template | undefined {
  let at = 2;
  let tiff: { start: number; end: number } | undefined;
  while (file[at] === 0xff && ((file[at + 1]! >= 0xe0 && file[at + 1]! <= 0xef) || file[at + 1] === JPEG_COM)) {
    const end = at + 2 + file.readUInt16BE(at + 2);
    if (!tiff && file[at + 1] === 0xe1 && file.subarray(at + 4, at + 4 + EXIF_ID.length).equals(EXIF_ID)) tiff = { start: at + 4 + EXIF_ID.length - 2, end: end - 2 };
    at = end;
  }
  return tiff && withDimensions(file.subarray(2, at), tiff);
}

/** The chunks between IHDR and the first IDAT, with the eXIf chunk's data as the EXIF block. */
function pngTemplate(file: Buffer): Template | undefined {
  const end = firstChunk(file, 'IDAT');
  if (end === undefined || file.toString('latin1', 12, 16) !== 'IHDR') return undefined;
  const header = file.subarray(PNG_SIGNATURE_AND_IHDR, end);
  const exif = chunkAt(header, 0, 'eXIf');
  return exif && withDimensions(header, exif);
}

/** Offset of the first chunk of `type` in a PNG file. */
function firstChunk(png: Buffer, type: string): number | undefined {
  const chunk = chunkAt(png, 8, type);
  return chunk === undefined ? undefined : chunk.start - 8;
}

/** The data of the first chunk of `type` in `bytes` (chunks from `from` on). */
function chunkAt(bytes: Buffer, from: number, type: string): { start: number; end: number } | undefined {
  for (let at = from; at + 12 <= bytes.length; ) {
    const length = bytes.readUInt32BE(at);
    if (bytes.toString('latin1', at + 4, at + 8) === type) return { start: at + 8, end: at + 8 + length };
    at += 12 + length;
  }
  return undefined;
}

/** The template with the places of its EXIF's PixelXDimension and PixelYDimension (one SHORT or LONG each); undefined if absent. */
function withDimensions(header: Buffer, tiffAt: { start: number; end: number }): Template | undefined {
  const tiff = header.subarray(tiffAt.start, tiffAt.end);
  const littleEndian = tiff.toString('latin1', 0, 2) === 'II';
  const u16 = (o: number) => (littleEndian ? tiff.readUInt16LE(o) : tiff.readUInt16BE(o));
  const u32 = (o: number) => (littleEndian ? tiff.readUInt32LE(o) : tiff.readUInt32BE(o));
  /** Where a one-value SHORT or LONG tag's value sits in the IFD at `ifd` (offset in `tiff`), if present. */
  const value = (ifd: number, tag: number): DimensionValue | undefined => {
    for (let k = 0, n = u16(ifd); k < n; k++) {
      const e = ifd + 2 + 12 * k;
      const type = u16(e + 2);
      if (u16(e) !== tag) continue;
      return (type === TYPE_SHORT || type === TYPE_LONG) && u32(e + 4) === 1 ? { at: e + 8, type } : undefined;
    }
    return undefined;
  };
  try {
    const exifIfd = value(u32(4), TAG_EXIF_IFD);
    const ifd = exifIfd?.type === TYPE_LONG ? u32(exifIfd.at) : undefined;
    const x = ifd === undefined ? undefined : value(ifd, TAG_PIXEL_X);
    const y = ifd === undefined ? undefined : value(ifd, TAG_PIXEL_Y);
    if (x === undefined || y === undefined) return undefined;
    const inHeader = (v: DimensionValue): DimensionValue => ({ at: tiffAt.start + v.at, type: v.type });
    return { header, tiff: tiffAt, pixelX: inHeader(x), pixelY: inHeader(y), littleEndian };
  } catch {
    return undefined;
  }
}
