/**
 * A JPEG or PNG tagged as sRGB without sharp's colour transform. For pixels
 * that are already sRGB, `withMetadata()` runs libvips' `icc_transform` from
 * sRGB to the same sRGB profile over every pixel (an identity on all 2²⁴
 * 8-bit colours, yet about as much CPU as a JPEG encode, a fifth of a PNG
 * one) only to attach the profile. Here the pixels are encoded without
 * metadata, and the header sharp writes (EXIF with the resolution and the
 * pixel dimensions, the ICC profile; for PNG also the resolution chunk) is
 * taken from a 1×1 encode with the same metadata options, with the EXIF's
 * pixel dimensions set to the image's: the same bytes as the `withMetadata`
 * encode (`test/srgb-tag.test.ts`). Should sharp's header ever have another
 * shape, the encode falls back to `withMetadata`.
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

const EXIF_ID = Buffer.from('Exif\0\0', 'latin1');
const TAG_EXIF_IFD = 0x8769;
const TAG_PIXEL_X = 0xa002;
const TAG_PIXEL_Y = 0xa003;
const TYPE_LONG = 4;
const PNG_SIGNATURE_AND_IHDR = 8 + 12 + 13;

type Size = { width: number; height: number };
type Format = 'jpeg' | 'png';

/** The header of a 1×1 `withMetadata` encode and where its EXIF keeps the pixel dimensions. */
interface Template {
  /** JPEG: the APPn segments after SOI; PNG: the chunks between IHDR and IDAT. */
  header: Buffer;
  /** Offsets in `header` of the EXIF block (TIFF header on) and of its PixelXDimension and PixelYDimension values (u32). */
  tiff: { start: number; end: number };
  pixelX: number;
  pixelY: number;
  littleEndian: boolean;
}

const templates = new Map<string, Promise<Template | undefined>>();

/**
 * Encodes `pipeline` (sRGB pixels of `size`, no metadata of their own) as
 * JPEG with the file `pipeline.withMetadata({ density }).jpeg(jpeg)` gives.
 */
export async function encodeSrgbJpeg(pipeline: Sharp, size: Size, jpeg: JpegOptions, density?: number): Promise<Buffer> {
  const template = await headerTemplate('jpeg', density);
  if (!template) return withMetadata(pipeline, density).jpeg(jpeg).toBuffer();
  const plain = await pipeline.jpeg(jpeg).toBuffer();
  return Buffer.concat([plain.subarray(0, 2), sizedHeader(template, size), plain.subarray(2)]);
}

/**
 * Encodes `pipeline` (as for {@link encodeSrgbJpeg}) as PNG with the file
 * `pipeline.withMetadata({ density }).png(png)` gives: the plain encode's
 * IHDR and image data around the template's chunks (its pHYs replacing the
 * plain encode's).
 */
export async function encodeSrgbPng(pipeline: Sharp, size: Size, png: { compressionLevel: number }, density?: number): Promise<Buffer> {
  const template = await headerTemplate('png', density);
  const plain = template && (await pipeline.png(png).toBuffer());
  const data = plain && firstChunk(plain, 'IDAT');
  if (!template || !plain || data === undefined) return withMetadata(pipeline, density).png(png).toBuffer();
  const header = sizedHeader(template, size);
  // The EXIF chunk's CRC covers its type and data, so it follows the new dimensions.
  const exifChunk = template.tiff.start - 8;
  header.writeUInt32BE(crc32(header.subarray(exifChunk + 4, template.tiff.end)), template.tiff.end);
  return Buffer.concat([plain.subarray(0, PNG_SIGNATURE_AND_IHDR), header, plain.subarray(data)]);
}

function withMetadata(pipeline: Sharp, density: number | undefined): Sharp {
  return pipeline.withMetadata(density ? { density } : {});
}

/** A copy of the template's header with the image's pixel dimensions in its EXIF. */
function sizedHeader(template: Template, size: Size): Buffer {
  const header = Buffer.from(template.header);
  const write = template.littleEndian ? header.writeUInt32LE.bind(header) : header.writeUInt32BE.bind(header);
  write(size.width, template.pixelX);
  write(size.height, template.pixelY);
  return header;
}

function headerTemplate(format: Format, density: number | undefined): Promise<Template | undefined> {
  const key = `${format} ${density}`;
  let t = templates.get(key);
  if (!t) {
    const one = withMetadata(sharp(Buffer.alloc(3), { raw: { width: 1, height: 1, channels: 3 } }), density);
    t = (format === 'jpeg' ? one.jpeg() : one.png()).toBuffer().then(format === 'jpeg' ? jpegTemplate : pngTemplate);
    templates.set(key, t);
  }
  return t;
}

/** The APPn segments after SOI, with the EXIF block's place. */
function jpegTemplate(file: Buffer): Template | undefined {
  let at = 2;
  let tiff: { start: number; end: number } | undefined;
  while (file[at] === 0xff && file[at + 1]! >= 0xe0 && file[at + 1]! <= 0xef) {
    const end = at + 2 + file.readUInt16BE(at + 2);
    if (file[at + 1] === 0xe1 && file.subarray(at + 4, at + 4 + EXIF_ID.length).equals(EXIF_ID)) tiff = { start: at + 4 + EXIF_ID.length - 2, end: end - 2 };
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

/** The template with the offsets of its EXIF's PixelXDimension and PixelYDimension (LONG values); undefined if absent. */
function withDimensions(header: Buffer, tiffAt: { start: number; end: number }): Template | undefined {
  const tiff = header.subarray(tiffAt.start, tiffAt.end);
  const littleEndian = tiff.toString('latin1', 0, 2) === 'II';
  const u16 = (o: number) => (littleEndian ? tiff.readUInt16LE(o) : tiff.readUInt16BE(o));
  const u32 = (o: number) => (littleEndian ? tiff.readUInt32LE(o) : tiff.readUInt32BE(o));
  /** Offset of a one-value LONG tag's value in the IFD at `ifd`, if present. */
  const longValue = (ifd: number, tag: number): number | undefined => {
    for (let k = 0, n = u16(ifd); k < n; k++) {
      const e = ifd + 2 + 12 * k;
      if (u16(e) === tag) return u16(e + 2) === TYPE_LONG && u32(e + 4) === 1 ? e + 8 : undefined;
    }
    return undefined;
  };
  try {
    const exifIfd = longValue(u32(4), TAG_EXIF_IFD);
    const x = exifIfd === undefined ? undefined : longValue(u32(exifIfd), TAG_PIXEL_X);
    const y = exifIfd === undefined ? undefined : longValue(u32(exifIfd), TAG_PIXEL_Y);
    if (x === undefined || y === undefined) return undefined;
    return { header, tiff: tiffAt, pixelX: tiffAt.start + x, pixelY: tiffAt.start + y, littleEndian };
  } catch {
    return undefined;
  }
}
