/**
 * Decoding and re-encoding an image in the browser (the UI iframe): the one
 * place that draws, used to fit results to Figma's limit, to make the
 * review's thumbnails and to turn greyscale inputs into RGB for the Web API.
 */
import { fitWithin, type Size } from '../shared/fit';

export interface Redrawn {
  blob: Blob;
  /** The decoded image's size, and the size drawn (pixels). */
  source: Size;
  target: Size;
}

/**
 * Decode `bytes`, scale them down to fit `max`×`max` px (never up) and encode
 * them as `type` (`quality` 0–1 for lossy types). The decoded full-size
 * bitmap lives only for this call. Decoding without a target size lets the
 * browser apply the image's orientation before it is scaled.
 */
export async function redrawWithin(bytes: Uint8Array, max: number, type: string, quality: number): Promise<Redrawn> {
  const bitmap = await createImageBitmap(new Blob([bytes as BlobPart]));
  try {
    const source = { width: bitmap.width, height: bitmap.height };
    const target = fitWithin(source, max);
    const canvas = new OffscreenCanvas(target.width, target.height);
    const ctx = canvas.getContext('2d');
    if (!ctx) throw new Error('this browser cannot draw images (no 2D canvas)');
    ctx.imageSmoothingQuality = 'high';
    ctx.drawImage(bitmap, 0, 0, target.width, target.height);
    return { blob: await canvas.convertToBlob({ type, quality }), source, target };
  } finally {
    bitmap.close();
  }
}

/** The signature of {@link redrawWithin}, so a host without a browser canvas (tests in Node) can stand in for it. */
export type Redraw = typeof redrawWithin;
