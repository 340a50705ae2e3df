/**
 * Changing image fills safely: the new fills of each layer are worked out
 * first and then set with `setFillsAsync` — "the only way to set pattern
 * fills" (typings `MinimalFillsMixin.setFillsAsync`), so a layer that also has
 * a pattern fill is not refused — and a change across several layers is all
 * or nothing: when one layer refuses, the layers already changed get their
 * fills back before the error is reported.
 *
 * Every changed layer records, in its plugin data, which original image each
 * corrected image replaced, the original paint of each changed fill
 * (original-paints.ts) and, when the result is a crop, which part of the
 * original it shows, so "Restore original" works in any later session and
 * puts each fill back as it was. The records are written around each layer's
 * change (records.ts), so the plugin stopped between two layers leaves none
 * without them. The original itself stays in the file in a keeper, a hidden
 * paint of it added to the same change (keepers.ts).
 */
import { isWholeImage, regionWithin, WHOLE_IMAGE, type CropRegion } from '../shared/crop';
import { refitPaint, type ImageSwap } from './framing';
import type { FigmaApi, FillNode } from './host';
import { hasFills } from './host';
import { keeperIndices, keeperPaint, keepKeepersOf, keeps } from './keepers';
import { readJson } from './plugin-data';

/** Plugin data key: JSON `{ [current image hash]: original image hash }`. */
export const ORIGINALS_KEY = 'pfc.originals';
/** Plugin data key: JSON `{ [current image hash]: CropRegion }`, the part of the original a cropped result shows. */
export const CROPS_KEY = 'pfc.crops';
/** Plugin data key: JSON `{ [current image hash]: PaintRecord[] }`, the original paint of each fill showing it (original-paints.ts). */
export const PAINTS_KEY = 'pfc.paints';
/** The plugin data keys of a correction's records, each a JSON object by image hash. */
export const RECORD_KEYS = [ORIGINALS_KEY, CROPS_KEY, PAINTS_KEY] as const;

/** One layer's planned fills change. */
export interface FillChange {
  node: FillNode;
  before: ReadonlyArray<Paint>;
  after: Paint[];
  /**
   * Positions of the fills that change, the same in `before` and `after`: a keeper a correction adds goes after
   * them all (keepers.ts). (A restore's `after` may have a keeper taken out; only their number counts there.)
   */
  indices: number[];
  /** How many of them were CROP fills that became FILL, their framing lost (see framing.ts). */
  framingLost: number;
  /** The original a keeper is added for, at the end of `after` (keepers.ts). */
  keeper?: string;
}

/** Whether a paint or layer counts: hidden ones are left alone unless the user asked for them. */
export function isShown(thing: { visible?: boolean }, includeHidden: boolean): boolean {
  return includeHidden || thing.visible !== false;
}

/**
 * The fills of `node` with the image `from` replaced by `to`, each fill
 * refitted to show what it showed before (framing.ts), and a keeper of the
 * original added when the layer has none (keepers.ts); `swap` is undefined
 * when the image sizes are unknown.
 */
export function planSwap(figma: Pick<FigmaApi, 'mixed' | 'getImageByHash'>, node: BaseNode, from: string, to: string, swap: ImageSwap | undefined, includeHidden: boolean): FillChange | null {
  if (!hasFills(node)) return null;
  const fills = node.fills;
  if (fills === figma.mixed) return null;
  const { after, indices, framingLost } = swapPaints(fills, keeperIndices(node, fills), from, to, swap, includeHidden);
  if (indices.length === 0) return null;
  const keeper = keeperDue(figma, node, fills, from, to);
  if (keeper) after.push(keeperPaint(keeper));
  return { node, before: fills, after, indices, framingLost, ...(keeper ? { keeper } : {}) };
}

/**
 * The original to keep in a new keeper when `to` replaces `from` on the layer: the one `from` was corrected from,
 * or `from` itself. None when the layer keeps it already (a correction corrected again), when `to` is that original
 * (nothing left to lead back to), or when the file no longer has it (a fill naming no image of the file is refused).
 */
function keeperDue(figma: Pick<FigmaApi, 'getImageByHash'>, node: BaseNode, fills: ReadonlyArray<Paint>, from: string, to: string): string | undefined {
  const original = readOriginals(node)[from] ?? from;
  if (to === from || to === original || keeps(node, fills, original)) return undefined;
  return figma.getImageByHash(original) ? original : undefined;
}

/** The paints with the image `from` replaced by `to`, keepers (at `keepers`) left as they are (see planSwap). */
function swapPaints(fills: ReadonlyArray<Paint>, keepers: ReadonlySet<number>, from: string, to: string, swap: ImageSwap | undefined, includeHidden: boolean): { after: Paint[]; indices: number[]; framingLost: number } {
  const indices: number[] = [];
  let framingLost = 0;
  // Fills are read-only: build a new array from copies, keeping each paint's other properties.
  const after = fills.map((paint, index): Paint => {
    if (paint.type !== 'IMAGE' || paint.imageHash !== from || !isShown(paint, includeHidden) || keepers.has(index)) return paint;
    const refitted = refitPaint(paint, to, swap);
    indices.push(index);
    if (refitted.framingLost) framingLost += 1;
    return refitted.paint;
  });
  return { after, indices, framingLost };
}

/**
 * What is written on a layer just before its fills change, and how to take it
 * back (called should the commit fail). The plugin may be stopped at any
 * `await` — the user closes its window — so what a changed layer needs must be
 * on it before the change, not after the last layer's.
 */
export type BeforeChange<C extends FillChange> = (change: C) => () => void;

/** What a commit did: the changes made, and those whose layer was deleted meanwhile (before its change, or after). */
export interface Committed<C extends FillChange> {
  made: C[];
  deleted: C[];
}

/**
 * Set every change, or none: on a failure the layers already changed are put
 * back, then what `beforeChange` wrote on each layer, and the error rethrown.
 * A layer deleted while the commit waits on Figma is no failure: "Someone else
 * deleted the node using multiplayer", or "The user simply deleted the node",
 * and Figma answers any use of it with an error, so "write your code
 * defensively and check that the nodes haven't been removed" (typings
 * `BaseNodeMixin.removed`). Its change is dropped, nothing is written on it,
 * and the other layers still change.
 */
export async function commitChanges<C extends FillChange>(changes: readonly C[], beforeChange: BeforeChange<C> = () => () => undefined): Promise<Committed<C>> {
  const done: C[] = [];
  const takeBack: (() => void)[] = [];
  try {
    for (const c of changes) {
      if (c.node.removed) continue;
      takeBack.push(beforeChange(c));
      if (await setFillsUnlessDeleted(c)) done.push(c);
    }
  } catch (err) {
    await putFillsBack(done);
    // After the fills: a layer still showing a changed fill keeps what leads back from it until it shows its old fills again.
    for (const undo of takeBack.reverse()) {
      try {
        undo();
      } catch {
        // Only a layer deleted meanwhile refuses; nothing left to put back.
      }
    }
    throw err;
  }
  return { made: done.filter((c) => !c.node.removed), deleted: changes.filter((c) => c.node.removed) };
}

/** Set a layer's new fills: false when the layer was deleted before they took (the call then fails), the error otherwise. */
async function setFillsUnlessDeleted(c: FillChange): Promise<boolean> {
  try {
    await c.node.setFillsAsync(c.after);
    return true;
  } catch (err) {
    if (c.node.removed) return false;
    throw err;
  }
}

async function putFillsBack(done: readonly FillChange[]): Promise<void> {
  for (const c of [...done].reverse()) {
    try {
      await c.node.setFillsAsync(c.before);
    } catch {
      // The layer refuses its own previous fills only if it was deleted meanwhile; nothing left to restore.
    }
  }
}

/** The originals recorded on a layer. */
export function readOriginals(node: BaseNode): Record<string, string> {
  return readJson<string>(node, ORIGINALS_KEY);
}

/**
 * The part of its original that `hash` shows on this layer: the whole image
 * when no crop was recorded for it, undefined when it is not known.
 */
export function readCrop(node: BaseNode, hash: string): CropRegion | undefined {
  const crops = readJson<CropRegion | null>(node, CROPS_KEY);
  return hash in crops ? (crops[hash] ?? undefined) : WHOLE_IMAGE;
}

/** Remember that `to` replaced `from` on this layer (a second correction keeps pointing at the first original). */
export function recordOriginal(node: BaseNode, from: string, to: string): void {
  // The same bytes back (createImage hashes the content): nothing was replaced, and the record stays.
  if (to === from) return;
  const map = readOriginals(node);
  map[to] = map[from] ?? from;
  delete map[from];
  node.setPluginData(ORIGINALS_KEY, JSON.stringify(map));
}

/** The original a corrected image was made from, as a layer showing it recorded, and the part of that original it shows (undefined: not known). */
export interface RecordedOriginal {
  hash: string;
  region: CropRegion | undefined;
}

/** The original this plugin recorded on `node` for the corrected image `hash`, if it recorded one. */
export function recordedOriginal(node: BaseNode, hash: string): RecordedOriginal | undefined {
  const original = readOriginals(node)[hash];
  return original === undefined ? undefined : { hash: original, region: readCrop(node, hash) };
}

/**
 * Remember which part of the original `to` shows, given the part of `from`
 * it shows (`region`, undefined when unknown), so a restore can keep the
 * framing. Whole images are not recorded (that is what no record means).
 */
export function recordCrop(node: BaseNode, from: string, to: string, region: CropRegion | undefined): void {
  if (to === from) return;
  const crops = readJson<CropRegion | null>(node, CROPS_KEY);
  const outer = from in crops ? crops[from] : WHOLE_IMAGE;
  delete crops[from];
  const shown = outer && region ? regionWithin(outer, region) : null;
  if (!shown || !isWholeImage(shown)) crops[to] = shown;
  const json = Object.keys(crops).length > 0 ? JSON.stringify(crops) : '';
  if (json !== node.getPluginData(CROPS_KEY)) node.setPluginData(CROPS_KEY, json);
}

/** Keep, of the layer's records, those of the images `keep` takes, and the keepers of the originals they lead back to. */
export function filterRecords(node: BaseNode, keep: (hash: string) => boolean): void {
  for (const key of RECORD_KEYS) {
    const kept = Object.entries(readJson<unknown>(node, key)).filter(([hash]) => keep(hash));
    const json = kept.length > 0 ? JSON.stringify(Object.fromEntries(kept)) : '';
    if (json !== node.getPluginData(key)) node.setPluginData(key, json);
  }
  keepKeepersOf(node, new Set(Object.values(readOriginals(node))));
}

/**
 * Forget the corrections of the images no longer among `hashes` (the layer's
 * image fills after a restore); whether any correction is left to restore on
 * the layer.
 */
export function keepRecordsOf(node: BaseNode, hashes: ReadonlySet<string>): boolean {
  filterRecords(node, (hash) => hashes.has(hash));
  return Object.keys(readOriginals(node)).length > 0;
}

/** The images a layer's fills show. */
export function imageHashes(fills: ReadonlyArray<Paint>): Set<string> {
  return new Set(fills.flatMap((p) => (p.type === 'IMAGE' && p.imageHash ? [p.imageHash] : [])));
}

/** The images of `node`'s fills but its keepers: what it shows, or the user put in it (a keeper only keeps an original in the file). */
export function imagesShown(node: BaseNode, fills: ReadonlyArray<Paint>): Set<string> {
  const keepers = keeperIndices(node, fills);
  return imageHashes(fills.filter((_, i) => !keepers.has(i)));
}

/** The images `node` shows as its fills read now (none when it has no fills, or they are mixed); its keepers do not count. */
export function imagesShownNow(figma: Pick<FigmaApi, 'mixed'>, node: BaseNode): Set<string> {
  return hasFills(node) && node.fills !== figma.mixed ? imagesShown(node, node.fills) : new Set();
}
