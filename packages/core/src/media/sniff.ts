/**
 * What a file is, from its first bytes rather than its name or a claimed MIME
 * type: the one format sniffer of every host (batch engine, emulator, clients,
 * Figma, Photoshop). Pure: bytes in, facts out; no I/O, so it runs in Node, a
 * browser iframe and UXP alike. Hosts read as many bytes as they can cheaply
 * (16 KiB covers the headers of almost every photo) and, for the rare JPEG
 * whose frame header lies further in, continue with {@link scanJpegFrame}.
 */

import { i32le, u16be, u16le, u32be } from './bytes';
import { PNG_SIGNATURE } from './png';

/** Formats recognised. The service reads `jpeg`, `png`, `mp4` and `mov` (see {@link SniffedMedia.supported}). */
export type SniffedFormat = 'jpeg' | 'png' | 'gif' | 'webp' | 'tiff' | 'bmp' | 'heif' | 'avif' | 'mp4' | 'mov' | 'avi' | 'webm' | 'mkv';

/** What the first bytes of a file say. */
export interface SniffedMedia {
  format: SniffedFormat;
  kind: 'image' | 'video';
  /** MIME type of the format (`image/jpeg`, `video/quicktime`…). */
  mimeType: string;
  /** Whether the correction service accepts this format (JPEG, PNG, MP4, MOV). */
  supported: boolean;
  /** Pixel width, when the header lies within the bytes given (PNG, JPEG, GIF, BMP, extended WebP). */
  width?: number;
  /** Pixel height, as `width`. */
  height?: number;
  /** Colour components of a JPEG frame (1 grey, 3 YCbCr/RGB, 4 CMYK). */
  components?: number;
  /**
   * Whether the image is greyscale (a one-component JPEG frame; a PNG of
   * colour type 0 or 4), when the header lies within the bytes given. The Web
   * API takes RGB or RGBA only (web-api-v2.md, Limits).
   */
  grey?: boolean;
  /**
   * Whether the image has more than one frame (APNG, animated GIF or WebP):
   * `true`/`false` when the bytes given tell, undefined when they end first.
   * Correcting an animated image flattens it to its first frame.
   */
  animated?: boolean;
  /** JPEG only: the frame header was not within the bytes given; continue with {@link scanJpegFrame} at this offset. */
  jpegScanFrom?: number;
}

const MIME: Record<SniffedFormat, string> = {
  jpeg: 'image/jpeg', png: 'image/png', gif: 'image/gif', webp: 'image/webp', tiff: 'image/tiff', bmp: 'image/bmp',
  heif: 'image/heif', avif: 'image/avif', mp4: 'video/mp4', mov: 'video/quicktime', avi: 'video/x-msvideo', webm: 'video/webm', mkv: 'video/x-matroska',
};
const SUPPORTED = new Set<SniffedFormat>(['jpeg', 'png', 'mp4', 'mov']);
const VIDEO = new Set<SniffedFormat>(['mp4', 'mov', 'avi', 'webm', 'mkv']);

/** ISO-BMFF brands of still images (HEIF, AVIF). */
const HEIF_BRANDS = new Set(['heic', 'heix', 'heim', 'heis', 'hevc', 'hevx', 'mif1', 'msf1']);
const AVIF_BRANDS = new Set(['avif', 'avis']);
/** ISO-BMFF brands that are neither video nor an image this API names (audio, JPEG 2000, raw). */
const OTHER_BRANDS = new Set(['M4A ', 'M4B ', 'M4P ', 'crx ', 'jp2 ', 'jpx ']);
/** QuickTime files without an `ftyp` box start with one of these atoms. */
const QUICKTIME_FIRST_ATOMS = new Set(['moov', 'mdat', 'wide', 'free', 'skip', 'pnot']);
/** Give up looking for a JPEG frame header after this many segments (corrupt files). */
export const MAX_JPEG_SEGMENTS = 256;

/**
 * Recognise a file from its first bytes (16 tell the format; more give size
 * and animation). Undefined for anything not listed in {@link SniffedFormat}.
 *
 * @example
 * const media = sniffMedia(new Uint8Array(await file.slice(0, 16384).arrayBuffer()));
 * if (!media?.supported) throw new Error('send a JPEG, PNG, MP4 or MOV file');
 */
export function sniffMedia(bytes: Uint8Array): SniffedMedia | undefined {
  const format = formatOf(bytes);
  if (!format) return undefined;
  const media: SniffedMedia = { format, kind: VIDEO.has(format) ? 'video' : 'image', mimeType: MIME[format], supported: SUPPORTED.has(format) };
  switch (format) {
    case 'png':
      return { ...media, ...pngFacts(bytes) };
    case 'jpeg': {
      const scan = scanJpegFrame(bytes);
      if ('width' in scan) return { ...media, width: scan.width, height: scan.height, components: scan.components, grey: scan.components === 1 };
      return scan.continueAt !== undefined ? { ...media, jpegScanFrom: scan.continueAt } : media;
    }
    case 'gif':
      return { ...media, ...gifFacts(bytes) };
    case 'webp':
      return { ...media, ...webpFacts(bytes) };
    case 'bmp':
      return bytes.length >= 26 ? { ...media, width: Math.abs(i32le(bytes, 18)), height: Math.abs(i32le(bytes, 22)) } : media;
    default:
      return media;
  }
}

function formatOf(b: Uint8Array): SniffedFormat | undefined {
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'jpeg';
  if (b.length >= 8 && PNG_SIGNATURE.every((v, i) => b[i] === v)) return 'png';
  const first4 = ascii(b, 0, 4);
  if (first4 === 'GIF8') return 'gif';
  if (first4 === 'RIFF' && ascii(b, 8, 12) === 'WEBP') return 'webp';
  if (first4 === 'RIFF' && ascii(b, 8, 12) === 'AVI ') return 'avi';
  if (first4 === 'II*\0' || first4 === 'MM\0*') return 'tiff';
  if (b.length >= 14 && ascii(b, 0, 2) === 'BM') return 'bmp';
  if (b.length >= 4 && u32be(b, 0) === 0x1a45dfa3) return containsAscii(b, 'webm') ? 'webm' : 'mkv';
  if (b.length >= 12) {
    const box = ascii(b, 4, 8);
    if (box === 'ftyp') {
      const brand = ascii(b, 8, 12);
      if (HEIF_BRANDS.has(brand)) return 'heif';
      if (AVIF_BRANDS.has(brand)) return 'avif';
      if (OTHER_BRANDS.has(brand)) return undefined;
      return brand === 'qt  ' ? 'mov' : 'mp4';
    }
    if (QUICKTIME_FIRST_ATOMS.has(box)) return 'mov';
  }
  return undefined;
}

/** Size from IHDR (always the first chunk); animation: an `acTL` chunk before the first `IDAT` (APNG). */
/** PNG colour types without colour: 0 greyscale, 4 greyscale with alpha (PNG specification, 11.2.2 IHDR). */
const PNG_GREY_TYPES = new Set([0, 4]);

function pngFacts(b: Uint8Array): Pick<SniffedMedia, 'width' | 'height' | 'animated' | 'grey'> {
  const facts: Pick<SniffedMedia, 'width' | 'height' | 'animated' | 'grey'> = {};
  if (b.length >= 24 && ascii(b, 12, 16) === 'IHDR') {
    facts.width = u32be(b, 16);
    facts.height = u32be(b, 20);
    if (b.length >= 26) facts.grey = PNG_GREY_TYPES.has(b[25]!);
  }
  for (let at = 8; at + 8 <= b.length; ) {
    const type = ascii(b, at + 4, at + 8);
    if (type === 'acTL') return { ...facts, animated: true };
    if (type === 'IDAT' || type === 'IEND') return { ...facts, animated: false };
    at += 12 + u32be(b, at);
  }
  return facts;
}

/** Size from the logical screen; animation: a second image, or a NETSCAPE loop block, within the bytes given. */
function gifFacts(b: Uint8Array): Pick<SniffedMedia, 'width' | 'height' | 'animated'> {
  if (b.length < 13) return {};
  const facts = { width: u16le(b, 6), height: u16le(b, 8) };
  const skipSubBlocks = (at: number): number => {
    while (at < b.length && b[at] !== 0) at += 1 + b[at]!;
    return at + 1;
  };
  let at = 13 + colourTableBytes(b[10]!);
  let images = 0;
  while (at < b.length) {
    const block = b[at];
    if (block === 0x3b) return { ...facts, animated: images > 1 };
    if (block === 0x21) {
      if (b[at + 1] === 0xff && ascii(b, at + 3, at + 14) === 'NETSCAPE2.0') return { ...facts, animated: true };
      at = skipSubBlocks(at + 2);
    } else if (block === 0x2c) {
      if (++images > 1) return { ...facts, animated: true };
      if (at + 10 > b.length) break;
      at = skipSubBlocks(at + 10 + colourTableBytes(b[at + 9]!) + 1);
    } else {
      return { ...facts, animated: images > 1 };
    }
  }
  return facts;
}

/** Bytes of a GIF colour table announced by a packed flags byte (0 when absent). */
function colourTableBytes(flags: number): number {
  return flags & 0x80 ? 3 * 2 ** ((flags & 0x07) + 1) : 0;
}

/** Extended WebP (`VP8X`): canvas size and the animation flag; simple WebP is one still frame. */
function webpFacts(b: Uint8Array): Pick<SniffedMedia, 'width' | 'height' | 'animated'> {
  const chunk = ascii(b, 12, 16);
  if (chunk === 'VP8X' && b.length >= 30) return { animated: (b[20]! & 0x02) !== 0, width: 1 + u24le(b, 24), height: 1 + u24le(b, 27) };
  return chunk === 'VP8 ' || chunk === 'VP8L' ? { animated: false } : {};
}

/** Result of {@link scanJpegFrame}. */
export type JpegFrameScan =
  | { width: number; height: number; components: number }
  /** No frame header in these bytes: `continueAt` is the file offset of the next segment when the bytes ended first; absent when the file has none (corrupt). */
  | { continueAt?: number };

/**
 * Walk JPEG segments to the first SOFn marker, which holds the frame size.
 * `bytes` holds the file from offset `base`; the walk starts at file offset
 * `from` (2: after the SOI marker). When a segment lies beyond `bytes`, the
 * result says where to continue (read ≥ 10 bytes there and call again).
 */
export function scanJpegFrame(bytes: Uint8Array, from = 2, base = 0): JpegFrameScan {
  let pos = from;
  for (let i = 0; i < MAX_JPEG_SEGMENTS; i++) {
    const at = pos - base;
    if (at + 10 > bytes.length) return { continueAt: pos };
    if (bytes[at] !== 0xff) return {};
    const marker = bytes[at + 1]!;
    if (marker === 0xff) {
      pos += 1; // fill byte
      continue;
    }
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      pos += 2; // markers without a length
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) return {}; // end of image, or start of scan before any frame
    if (isStartOfFrame(marker)) return { height: u16be(bytes, at + 5), width: u16be(bytes, at + 7), components: bytes[at + 9]! };
    const length = u16be(bytes, at + 2);
    if (length < 2) return {};
    pos += 2 + length;
  }
  return {};
}

/** SOF markers carry the frame size; DHT (C4), JPG (C8) and DAC (CC) share the range but do not. */
function isStartOfFrame(marker: number): boolean {
  return marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
}

function ascii(b: Uint8Array, from: number, to: number): string {
  return String.fromCharCode(...b.subarray(from, to));
}

function containsAscii(b: Uint8Array, text: string): boolean {
  const codes = [...text].map((c) => c.charCodeAt(0));
  for (let i = 0; i + codes.length <= b.length; i++) if (codes.every((c, j) => b[i + j] === c)) return true;
  return false;
}




function u24le(b: Uint8Array, at: number): number {
  return u16le(b, at) + (b[at + 2] ?? 0) * 0x10000;
}


// The `@pfc/core/media` entry is this file: what hosts need of media without the clients.
export { greyJpegAsYcc, type GreyJpegOptions } from './grey-jpeg';
export { rgbProfileForGrey } from './grey-icc';
export { yccJpegAsGrey } from './ycc-jpeg-grey';
export { greyProfileForRgb } from './grey-icc-from-rgb';
export { greyPngAsRgb, type GreyPngOptions } from './grey-png';
export { NotGreyError, rgbPngAsGrey } from './rgb-png-grey';
export { sameBytes } from './bytes';
export { crc32, CRC_START, crcValue, PNG_FILTER, PNG_SIGNATURE, pngChunk, unfilterPngRow } from './png';
