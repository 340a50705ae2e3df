/**
 * The last guard before a result goes back to Figma: `createImage` takes PNG,
 * JPEG or GIF up to 4096×4096. A result that is larger (an AI Art 4k output,
 * say) or in another format is decoded and re-encoded here, in the browser,
 * and the user is told.
 */
import { FIGMA_MAX_SIDE, figmaAccepts, readImageHeader } from '../shared/image-header';
import { redrawWithin } from './redraw';

export interface FittedImage {
  bytes: Uint8Array;
  width: number;
  height: number;
  notes: string[];
}

/** JPEG quality of re-encoded results (0–1). */
export const REENCODE_QUALITY = 0.92;

export async function fitForFigma(bytes: Uint8Array): Promise<FittedImage> {
  const header = readImageHeader(bytes);
  if (figmaAccepts(header) && header.format !== 'gif') {
    return { bytes, width: header.width ?? 0, height: header.height ?? 0, notes: [] };
  }
  // JPEG stays JPEG; everything else becomes PNG so transparency survives.
  const type = header.format === 'jpeg' ? 'image/jpeg' : 'image/png';
  const { blob, source, target } = await redrawWithin(bytes, FIGMA_MAX_SIDE, type, REENCODE_QUALITY);
  const notes: string[] = [];
  if (target.width !== source.width || target.height !== source.height) {
    notes.push(`resized from ${source.width}×${source.height} to ${target.width}×${target.height}: Figma accepts images up to ${FIGMA_MAX_SIDE}×${FIGMA_MAX_SIDE} px`);
  }
  if (header.format !== 'jpeg' && header.format !== 'png') notes.push(`converted from ${header.format} to PNG for Figma`);
  return { bytes: new Uint8Array(await blob.arrayBuffer()), width: target.width, height: target.height, notes };
}
