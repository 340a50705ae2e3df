/**
 * Content sniffing: what a file is, from its first bytes rather than its name,
 * and the pixel size of images from their headers (a few small positional
 * reads, never the whole file), so planning a folder of large photos is cheap.
 */
import { open, type FileHandle } from 'node:fs/promises';

export type MediaFormat = 'jpeg' | 'png' | 'mp4' | 'mov';

/** What a file holds, as far as correction is concerned. */
export interface MediaInfo {
  format: MediaFormat;
  /** The Web API's `fileType` for this file. */
  fileType: 'image' | 'video';
  /** MIME type sent with the upload. */
  contentType: string;
  /** Pixel width, for images whose header could be read. */
  width?: number;
  /** Pixel height, for images whose header could be read. */
  height?: number;
  /** Colour components of a JPEG frame (1 grey, 3 YCbCr/RGB, 4 CMYK). */
  components?: number;
}

const CONTENT_TYPES: Record<MediaFormat, string> = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  mp4: 'video/mp4',
  mov: 'video/quicktime',
};

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
/** ISO-BMFF brands that are images or audio, not video (HEIC, AVIF, M4A…). */
const NON_VIDEO_BRANDS = new Set(['heic', 'heix', 'heim', 'heis', 'hevc', 'hevx', 'mif1', 'msf1', 'avif', 'avis', 'M4A ', 'M4B ', 'M4P ', 'crx ', 'jp2 ', 'jpx ']);
/** QuickTime files without an `ftyp` box start with one of these atoms. */
const QUICKTIME_FIRST_ATOMS = new Set(['moov', 'mdat', 'wide', 'free', 'skip', 'pnot']);
/** Give up looking for a JPEG frame header after this many segments (corrupt files). */
const MAX_JPEG_SEGMENTS = 256;

/** MIME type of a format. */
export function contentTypeOf(format: MediaFormat): string {
  return CONTENT_TYPES[format];
}

/** Recognise a format from the first bytes of a file (at least 16 are needed). */
export function sniffBytes(head: Uint8Array): MediaFormat | undefined {
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'jpeg';
  if (head.length >= 8 && PNG_SIGNATURE.every((b, i) => head[i] === b)) return 'png';
  if (head.length >= 12) {
    const type = ascii(head, 4, 8);
    if (type === 'ftyp') {
      const brand = ascii(head, 8, 12);
      if (NON_VIDEO_BRANDS.has(brand)) return undefined;
      return brand === 'qt  ' ? 'mov' : 'mp4';
    }
    if (QUICKTIME_FIRST_ATOMS.has(type)) return 'mov';
  }
  return undefined;
}

/**
 * Sniff a file on disk: its format and, for images, its pixel size.
 * Returns undefined for anything that is not a JPEG, PNG, MP4 or MOV file.
 */
export async function sniffFile(path: string): Promise<MediaInfo | undefined> {
  const fh = await open(path, 'r');
  try {
    const head = await readAt(fh, 0, HEAD_BYTES);
    const format = sniffBytes(head);
    if (!format) return undefined;
    const info: MediaInfo = { format, fileType: format === 'jpeg' || format === 'png' ? 'image' : 'video', contentType: CONTENT_TYPES[format] };
    if (format === 'png' && head.length >= 24 && ascii(head, 12, 16) === 'IHDR') {
      info.width = readU32(head, 16);
      info.height = readU32(head, 20);
    } else if (format === 'jpeg') {
      Object.assign(info, await jpegFrame(fh, head));
    }
    return info;
  } finally {
    await fh.close();
  }
}

/**
 * Bytes read at once from the start of a file: the signature and, in most JPEGs,
 * every segment up to the frame header (one read instead of one per segment,
 * which made planning a folder of photos wait on ~6 reads a file).
 */
const HEAD_BYTES = 16 * 1024;

/** Walk JPEG segments to the first SOFn marker, which holds the frame size. `head` holds the file's first bytes. */
async function jpegFrame(fh: FileHandle, head: Uint8Array): Promise<{ width?: number; height?: number; components?: number }> {
  let pos = 2;
  // 10 bytes at `pos`: from `head` while they lie in it, else read from the file.
  const at = (p: number): Promise<Uint8Array> | Uint8Array =>
    p + 10 <= head.length || head.length < HEAD_BYTES ? head.subarray(p, p + 10) : readAt(fh, p, 10);
  for (let i = 0; i < MAX_JPEG_SEGMENTS; i++) {
    const b = await at(pos);
    if (b.length < 4 || b[0] !== 0xff) return {};
    const marker = b[1]!;
    if (marker === 0xff) {
      pos += 1; // fill byte
      continue;
    }
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      pos += 2; // markers without a length
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) return {}; // end of image / start of scan before any frame
    const length = (b[2]! << 8) | b[3]!;
    const isSof = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isSof && b.length >= 10) {
      return { height: (b[5]! << 8) | b[6]!, width: (b[7]! << 8) | b[8]!, components: b[9]! };
    }
    if (length < 2) return {};
    pos += 2 + length;
  }
  return {};
}

async function readAt(fh: FileHandle, position: number, length: number): Promise<Uint8Array> {
  const buf = Buffer.alloc(length);
  const { bytesRead } = await fh.read(buf, 0, length, position);
  return buf.subarray(0, bytesRead);
}

function ascii(b: Uint8Array, from: number, to: number): string {
  return String.fromCharCode(...b.subarray(from, to));
}

function readU32(b: Uint8Array, at: number): number {
  return ((b[at]! << 24) >>> 0) + ((b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!);
}
