/**
 * The before/after pictures of the progress list. They are made once from
 * the full-size bytes and are all the UI keeps of an image while the user
 * reviews: a few kB each instead of the image (1–2 MB for a 4096 px JPEG,
 * tens of MB for a PNG), and nothing full-size left for an `<img>` to decode
 * again.
 */
import { redrawWithin } from './redraw';

/** Longest side of a thumbnail (px): the list shows them at 64 CSS px, sharp on 2× screens. */
export const THUMBNAIL_SIDE = 128;

/** Quality of the thumbnails' WebP encoding (0–1); WebP keeps transparency (background removal) and stays small. */
export const THUMBNAIL_QUALITY = 0.8;

/** Makes a thumbnail from an encoded image. */
export type Thumbnailer = (bytes: Uint8Array) => Promise<Blob>;

/** Decode `bytes` in the browser and scale them down to at most {@link THUMBNAIL_SIDE} px a side. */
export async function makeThumbnail(bytes: Uint8Array): Promise<Blob> {
  return (await redrawWithin(bytes, THUMBNAIL_SIDE, 'image/webp', THUMBNAIL_QUALITY)).blob;
}
