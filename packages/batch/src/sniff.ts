/**
 * Content sniffing of files on disk: what a file is, from its first bytes
 * rather than its name, and the pixel size of images from their headers (a
 * few small positional reads, never the whole file), so planning a folder of
 * large photos is cheap. The byte-level rules are core's `sniffMedia`, shared
 * with every other host.
 */
import { closeSync, readSync } from 'node:fs';
import { extname } from 'node:path';
import { MAX_JPEG_SEGMENTS, scanJpegFrame, sniffMedia, type SniffedFormat, type SniffedMedia } from '@pfc/core';
import { openInputSync } from '@pfc/node-io';
import { isReportPage } from './report-path';

/** The formats the service corrects. */
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
  /** A greyscale JPEG or PNG (core's `SniffedMedia.grey`), which the Web API does not take as it is. */
  grey?: true;
  /** An animated PNG (APNG): correcting it keeps only the first frame. Undefined when the header did not tell. */
  animated?: boolean;
}

const CONTENT_TYPES: Record<MediaFormat, string> = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  mp4: 'video/mp4',
  mov: 'video/quicktime',
};

/** MIME type of a format. */
export function contentTypeOf(format: MediaFormat): string {
  return CONTENT_TYPES[format];
}

/** Recognise a format the service corrects from the first bytes of a file (at least 16 are needed). */
export function sniffBytes(head: Uint8Array): MediaFormat | undefined {
  const media = sniffMedia(head);
  return media?.supported ? (media.format as MediaFormat) : undefined;
}

/**
 * Sniff a file on disk: its format and, for images, its pixel size.
 * Returns undefined for anything that is not a JPEG, PNG, MP4 or MOV file.
 */
export async function sniffFile(path: string): Promise<MediaInfo | undefined> {
  return sniffFileSync(path);
}

/**
 * `sniffFile` without the thread pool: a few small reads of the page cache
 * cost microseconds, while each asynchronous call (open, read, close) waited
 * its turn in libuv's four threads; planning 10,000 files spent a third of a
 * rerun there. Throws what `openSync` throws (missing, unreadable), and
 * `NotRegularFileError` for a pipe or device (never read).
 */
export function sniffFileSync(path: string, whyNot?: (reason: string) => void): MediaInfo | undefined {
  const fd = openInputSync(path);
  try {
    const head = readAt(fd, 0, HEAD_BYTES);
    const media = sniffMedia(head);
    if (!media?.supported) {
      // An interrupted download or copy, or a sync tool's placeholder, leaves a photo's name on no bytes.
      whyNot?.(head.length === 0 ? EMPTY_FILE : !media && /\.html?$/i.test(path) && isReportPage(head) ? REPORT_PAGE : unsupportedReason(media, path));
      return undefined;
    }
    const format = media.format as MediaFormat;
    const info: MediaInfo = { format, fileType: media.kind, contentType: CONTENT_TYPES[format] };
    const frame = media.jpegScanFrom === undefined ? media : head.length === HEAD_BYTES ? jpegFrameBeyond(fd, media.jpegScanFrom) : ENDED;
    const noImage = noImageReason(format, frame);
    if (noImage) {
      whyNot?.(noImage);
      return undefined;
    }
    if (frame.width !== undefined) info.width = frame.width;
    if (frame.height !== undefined) info.height = frame.height;
    if (frame.components !== undefined) info.components = frame.components;
    if (media.grey || frame.components === 1) info.grey = true;
    if (media.animated !== undefined) info.animated = media.animated;
    return info;
  } finally {
    closeSync(fd);
  }
}

/** Why a file that is no JPEG, PNG, MP4 or MOV is left out, when nothing more is known of it. */
export const NOT_SUPPORTED = 'not a JPEG, PNG, MP4 or MOV file (judged by content)';

/**
 * What a report page pfc wrote (`--report` inside an input folder) is: pfc's own file, as its results are, so
 * planning does not list it as left out (a later run said "r.html: not a JPEG, PNG, MP4 or MOV file").
 */
export const REPORT_PAGE = 'a report page pfc wrote, not a photo or video (open it in a web browser)';

/** Why a file of no bytes is left out. */
export const EMPTY_FILE = 'empty file (0 bytes): nothing to correct';

/** The formats of real folders the service does not take, as their users know them. */
const FORMAT_NAMES: Partial<Record<SniffedFormat, string>> = {
  gif: 'GIF', webp: 'WebP', tiff: 'TIFF', bmp: 'BMP', heif: 'HEIC/HEIF', avif: 'AVIF', avi: 'AVI', webm: 'WebM', mkv: 'Matroska (MKV)',
};

/** How a camera raw file's reason starts (hosts group them by it). */
export const CAMERA_RAW = 'camera raw photo';

/**
 * Camera raw formats by extension. Most are TIFF inside (CR2, NEF, ARW, DNG, …), others a maker's own (CR3, RAF,
 * ORF, RW2): a photographer knows them as raw photos, not as TIFF images or unknown files.
 */
const RAW_EXTENSIONS = new Set([
  '.3fr', '.ari', '.arw', '.bay', '.braw', '.cr2', '.cr3', '.crw', '.dcr', '.dng', '.erf', '.fff', '.iiq', '.kdc', '.mef',
  '.mos', '.mrw', '.nef', '.nrw', '.orf', '.pef', '.raf', '.raw', '.rw2', '.rwl', '.sr2', '.srf', '.srw', '.x3f',
]);

/**
 * Why a file `sniffFileSync` did not take is left out: what it is by content, when that is a format of
 * photos or videos (an iPhone's HEIC, a downloaded WebP), and what to do; a camera raw file by its name, when
 * its content is TIFF or not known; otherwise {@link NOT_SUPPORTED}.
 */
function unsupportedReason(media: SniffedMedia | undefined, path: string): string {
  const extension = extname(path);
  if (RAW_EXTENSIONS.has(extension.toLowerCase()) && (!media || media.format === 'tiff')) {
    return `${CAMERA_RAW} (${extension.slice(1)}): the service corrects JPEG and PNG images only; export it as JPEG or PNG from your raw editor to correct it`;
  }
  const name = media && FORMAT_NAMES[media.format];
  if (!media || !name) return NOT_SUPPORTED;
  return media.kind === 'image'
    ? `${name} image: the service corrects JPEG and PNG images only; save it as JPEG or PNG to correct it`
    : `${name} video: the service corrects MP4 and MOV videos only; convert it to MP4 to correct it`;
}

/**
 * Bytes read at once from the start of a file: the signature and, in most JPEGs,
 * every segment up to the frame header (one read instead of one per segment,
 * which made planning a folder of photos wait on ~6 reads a file).
 */
const HEAD_BYTES = 16 * 1024;

/** Continue the JPEG segment walk past the head, 10 bytes per segment (large EXIF or ICC blocks). */
/** A JPEG's frame, or that the file ended before it (`ended`). */
type JpegFrame = Pick<SniffedMedia, 'width' | 'height' | 'components'> & { ended?: true };

/** The file ended before a JPEG's frame header. */
const ENDED: JpegFrame = { ended: true };

/**
 * Why a JPEG or PNG holds no image at all (an interrupted download or copy), or undefined: a PNG without the
 * header every PNG starts with (IHDR), a JPEG that ends before its frame header. Left out before any upload,
 * as an empty file is; a file whose header is merely beyond what is read is sent, for the service to decide.
 */
function noImageReason(format: MediaFormat, frame: JpegFrame): string | undefined {
  if (format === 'png' && frame.width === undefined) return 'PNG without its image header (IHDR): the file holds no image (an interrupted download or copy?)';
  if (format === 'jpeg' && frame.ended) return 'JPEG that ends before its image header: the file holds no image (an interrupted download or copy?)';
  return undefined;
}

function jpegFrameBeyond(fd: number, from: number): JpegFrame {
  let pos = from;
  for (let i = 0; i < MAX_JPEG_SEGMENTS; i++) {
    const bytes = readAt(fd, pos, 10);
    if (bytes.length < 10) return ENDED;
    const scan = scanJpegFrame(bytes, pos, pos);
    if ('width' in scan) return scan;
    if (scan.continueAt === undefined || scan.continueAt <= pos) return {};
    pos = scan.continueAt;
  }
  return {};
}

/**
 * One buffer for every head read (reads are synchronous, so never shared by two
 * files at once): a fresh 16 KiB per file made planning 100,000 files allocate 1.6 GB.
 */
const SHARED = Buffer.allocUnsafe(HEAD_BYTES);

/** Bytes at `position`, in the shared buffer: valid until the next read. */
function readAt(fd: number, position: number, length: number): Uint8Array {
  const bytesRead = readSync(fd, SHARED, 0, length, position);
  return SHARED.subarray(0, bytesRead);
}
