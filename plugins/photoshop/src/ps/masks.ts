/**
 * Masks of the result layer: the source layer's user mask (so correcting a
 * masked layer does not reveal what it hid), the active selection ("selection
 * only": the correction shows inside it), and a background removal's cut-out.
 * Each is read as 8-bit grey over the result's rectangle and multiplied into
 * one layer mask (imaging.md "getLayerMask", "getSelection", "putLayerMask").
 */
import { crc32, CRC_START } from '@pfc/core';
import type { Host, PsDocument, PsImageData, PsRect } from '../host/types';
import { ResultNotAddedError } from './not-added';

/** Values 0 (hidden) – 255 (shown), one per pixel of `rect`, row by row. */
export type Mask = Uint8Array;

/**
 * The source layer's user mask over `rect`; undefined when it has none. Outside its bounds: shown.
 * `known`: the layer's descriptor says it has one (`userMaskEnabled` is there only then). A mask known
 * to be there that cannot be read is an error: read as "no mask", the result would show what it hides.
 * Without the descriptor's word, a failed read is taken for no mask (imaging.md:206-237 does not say
 * what getLayerMask does for a layer without one).
 */
export async function layerMaskOver(host: Host, documentID: number, layerID: number, rect: PsRect, known: boolean): Promise<Mask | undefined> {
  let got: { imageData: PsImageData; sourceBounds: PsRect };
  try {
    got = await host.ps.imaging.getLayerMask({ documentID, layerID, kind: 'user' });
  } catch (err) {
    if (known) throw new Error(`its layer mask could not be read (${(err as Error).message}); nothing was changed`);
    return undefined;
  }
  return placed(got, rect, 255);
}

/**
 * The active selection over `rect`; undefined when nothing is selected. Outside it: hidden. `known`: the
 * document's `selection.bounds` says there is one (null without one, classes/selection.md:23). A selection known
 * to be there that cannot be read keeps the result out of the document (it would cover the whole layer, not the
 * selection asked for): the paid result is kept as a document of its own instead (`ResultNotAddedError`).
 * Without a selection known, a failed read is taken for none (imaging.md does not say what getSelection does then).
 */
export async function selectionOver(host: Host, documentID: number, rect: PsRect, known: boolean): Promise<Mask | undefined> {
  let got: { imageData: PsImageData; sourceBounds: PsRect };
  try {
    got = await host.ps.imaging.getSelection({ documentID });
  } catch (err) {
    if (known) throw new ResultNotAddedError(`the selection could not be read (${(err as Error).message})`);
    return undefined;
  }
  return placed(got, rect, 0);
}

/**
 * A selection over a rectangle told apart from another without keeping it: one CRC-32 per row (core's, as PNG chunks
 * use), 4 bytes per row where the mask holds one per pixel. A change escapes it only if every row it touches keeps its
 * CRC (about 1 in 2^32 for each). `none`: nothing selected.
 */
export type SelectionDigest = Uint32Array | 'none';

/** The digest of the selection over `rect` as `selectionOver` reads it (see {@link SelectionDigest}). Runs inside `executeAsModal`. */
export async function selectionDigest(host: Host, doc: PsDocument, rect: PsRect): Promise<SelectionDigest> {
  return digestOf(await selectionOver(host, doc.id, rect, doc.selection.bounds !== null), rect.right - rect.left);
}

/** Whether two digests are of the same selection (nothing selected in both counts as the same). */
export function sameSelection(a: SelectionDigest, b: SelectionDigest): boolean {
  if (a === 'none' || b === 'none') return a === b;
  return a.length === b.length && a.every((crc, row) => crc === b[row]);
}

function digestOf(mask: Mask | undefined, width: number): SelectionDigest {
  if (mask === undefined) return 'none';
  const rows = new Uint32Array(mask.length / width);
  for (let y = 0; y < rows.length; y++) rows[y] = crc32(CRC_START, mask.subarray(y * width, (y + 1) * width));
  return rows;
}

/**
 * Selection only, before anything is sent: a selection the document says it has (`selection.bounds`) must be readable
 * and must cover part of `rect`, the pixels to be sent. Otherwise the paid result could only be kept as a document of
 * its own, or added as a layer its mask hides entirely. Runs inside `executeAsModal` (imaging.md reads need it).
 * The selection is read again when the result is added: it may change meanwhile, which its digest, returned, tells.
 */
export async function refuseSelectionBeforeSending(host: Host, doc: PsDocument, rect: PsRect, what: string): Promise<SelectionDigest> {
  if (doc.selection.bounds === null) return 'none';
  let mask: Mask | undefined;
  try {
    mask = await selectionOver(host, doc.id, rect, true);
  } catch (err) {
    const reason = err instanceof ResultNotAddedError ? err.reason : (err as Error).message;
    throw new Error(`Selection only: ${reason}; nothing was sent: select again, or clear Selection only`);
  }
  if (mask === undefined || !mask.some((v) => v > 0)) {
    throw new Error(`Selection only: the selection covers none of ${what}, so its result would not show; nothing was sent: select part of it, or clear Selection only`);
  }
  return digestOf(mask, rect.right - rect.left);
}

/** Grey image data placed at its bounds into a `rect`-sized 8-bit mask filled with `outside`. */
async function placed(got: { imageData: PsImageData; sourceBounds: PsRect }, rect: PsRect, outside: number): Promise<Mask | undefined> {
  const { imageData, sourceBounds: b } = got;
  try {
    if (imageData.width === 0 || imageData.height === 0) return undefined;
    const data = await imageData.getData({ chunky: true });
    const scale = imageData.componentSize === 16 ? 255 / 32768 : imageData.componentSize === 32 ? 255 : 1;
    const width = rect.right - rect.left;
    const height = rect.bottom - rect.top;
    const out = new Uint8Array(width * height).fill(outside);
    for (let y = 0; y < imageData.height; y++) {
      const ty = b.top + y - rect.top;
      if (ty < 0 || ty >= height) continue;
      for (let x = 0; x < imageData.width; x++) {
        const tx = b.left + x - rect.left;
        if (tx < 0 || tx >= width) continue;
        out[ty * width + tx] = Math.min(255, Math.round(data[y * imageData.width + x]! * scale));
      }
    }
    return out;
  } finally {
    await imageData.dispose();
  }
}

/** The product of the masks given (all the same size); undefined when none is, the mask itself when one is. */
export function combineMasks(masks: readonly (Mask | undefined)[]): Mask | undefined {
  const present = masks.filter((m): m is Mask => m !== undefined);
  if (present.length <= 1) return present[0];
  const out = present[0]!.slice();
  for (const m of present.slice(1)) for (let i = 0; i < out.length; i++) out[i] = Math.round((out[i]! * m[i]!) / 255);
  return out;
}
