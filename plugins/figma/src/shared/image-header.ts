/**
 * Format and pixel size of an encoded image, read from its first bytes. Both
 * threads use it: the main thread to skip GIFs and to refuse results Figma's
 * `createImage` would reject (over 4096 px), the UI to decide whether a result
 * must be resized before it goes back.
 */

export type ImageFormat = 'png' | 'jpeg' | 'gif' | 'webp' | 'unknown';

export interface ImageHeader {
  format: ImageFormat;
  /** Pixels; undefined when the header could not be read. */
  width?: number;
  height?: number;
}

/** Figma's limit on each side of an image passed to `createImage` (pixels). */
export const FIGMA_MAX_SIDE = 4096;

/** MIME type of a format the correction service accepts, else undefined. */
export function mimeOf(format: ImageFormat): string | undefined {
  return format === 'png' ? 'image/png' : format === 'jpeg' ? 'image/jpeg' : undefined;
}

function u16be(b: Uint8Array, at: number): number {
  return ((b[at] ?? 0) << 8) | (b[at + 1] ?? 0);
}

function u32be(b: Uint8Array, at: number): number {
  return u16be(b, at) * 0x10000 + u16be(b, at + 2);
}

function u16le(b: Uint8Array, at: number): number {
  return (b[at] ?? 0) | ((b[at + 1] ?? 0) << 8);
}

function startsWith(b: Uint8Array, sig: readonly number[], at = 0): boolean {
  return sig.every((v, i) => b[at + i] === v);
}

/** SOF markers carry the frame size; DHT (C4), JPG (C8) and DAC (CC) share the range but do not. */
function isStartOfFrame(marker: number): boolean {
  return marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
}

function jpegSize(b: Uint8Array): { width: number; height: number } | undefined {
  let at = 2;
  while (at + 9 < b.length) {
    if (b[at] !== 0xff) return undefined;
    const marker = b[at + 1] ?? 0;
    // Fill bytes and stand-alone markers (RSTn, TEM) have no length field.
    if (marker === 0xff) {
      at += 1;
      continue;
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += 2;
      continue;
    }
    const length = u16be(b, at + 2);
    if (isStartOfFrame(marker)) return { height: u16be(b, at + 5), width: u16be(b, at + 7) };
    at += 2 + length;
  }
  return undefined;
}

/** Read the format and size; never throws. */
export function readImageHeader(bytes: Uint8Array): ImageHeader {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) {
    // IHDR is the first chunk: length(4) type(4) width(4) height(4).
    return bytes.length >= 24 ? { format: 'png', width: u32be(bytes, 16), height: u32be(bytes, 20) } : { format: 'png' };
  }
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return { format: 'jpeg', ...jpegSize(bytes) };
  if (startsWith(bytes, [0x47, 0x49, 0x46, 0x38])) {
    return bytes.length >= 10 ? { format: 'gif', width: u16le(bytes, 6), height: u16le(bytes, 8) } : { format: 'gif' };
  }
  if (startsWith(bytes, [0x52, 0x49, 0x46, 0x46]) && startsWith(bytes, [0x57, 0x45, 0x42, 0x50], 8)) return { format: 'webp' };
  return { format: 'unknown' };
}

/** Whether Figma's `createImage` takes this header: PNG, JPEG or GIF, each side at most 4096 px. */
export function figmaAccepts(h: ImageHeader): boolean {
  return (h.format === 'png' || h.format === 'jpeg' || h.format === 'gif') && h.width !== undefined && h.height !== undefined && h.width <= FIGMA_MAX_SIDE && h.height <= FIGMA_MAX_SIDE && h.width > 0 && h.height > 0;
}
