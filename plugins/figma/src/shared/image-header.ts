/**
 * Format and pixel size of an encoded image, read from its first bytes. Both
 * threads use it: the main thread to skip GIFs and to refuse results Figma's
 * `createImage` would reject (over 4096 px), the UI to decide whether a result
 * must be resized before it goes back.
 */
import { sniffMedia } from '@pfc/core/media';

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

/** Read the format and size with core's one sniffer; never throws. */
export function readImageHeader(bytes: Uint8Array): ImageHeader {
  const media = sniffMedia(bytes);
  if (!media) return { format: 'unknown' };
  const format: ImageFormat = media.format === 'png' || media.format === 'jpeg' || media.format === 'gif' || media.format === 'webp' ? media.format : 'unknown';
  return media.width !== undefined && media.height !== undefined ? { format, width: media.width, height: media.height } : { format };
}

/** Whether Figma's `createImage` takes this header: PNG, JPEG or GIF, each side at most 4096 px. */
export function figmaAccepts(h: ImageHeader): boolean {
  return (h.format === 'png' || h.format === 'jpeg' || h.format === 'gif') && h.width !== undefined && h.height !== undefined && h.width <= FIGMA_MAX_SIDE && h.height <= FIGMA_MAX_SIDE && h.width > 0 && h.height > 0;
}
