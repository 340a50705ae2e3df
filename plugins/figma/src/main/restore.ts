/**
 * "Restore original": puts back the images a correction replaced, on the
 * selected layers and everything below them. Each corrected layer carries, in
 * its plugin data, which original image each corrected image replaced and the
 * original paint of each fill it changed (fills.ts, original-paints.ts), so
 * this works in any later session, after the file was closed and reopened.
 *
 * A fill still as the plugin wrote it gets its original paint back whole:
 * image, scale mode, imageTransform, scalingFactor, rotation, filters. What the
 * user did since is theirs and stays:
 * - properties a correction does not change (opacity, filters, blend mode,
 *   visibility) keep the user's values;
 * - a fill the user reframed gets the original image in the user's framing,
 *   re-expressed for it (framing.ts) — or, when that framing cannot show the
 *   original undistorted, is left as it is;
 * - a fill showing another image is left as it is.
 * The notification names what was left and why. Layers corrected by versions
 * without paint records have their fills refitted (framing.ts).
 * A layer's keeper of an original (keepers.ts) goes in the same change once no
 * fill of the layer leads back to that original any more; a fill left as it
 * is still does, and keeps it.
 * All of the selection's layers change, or none.
 */
import { invertRegion } from '../shared/crop';
import { commitChanges, imagesShown, keepRecordsOf, ORIGINALS_KEY, readCrop, readOriginals, type FillChange } from './fills';
import { imageSwap, refitPaint, type ImageSwap } from './framing';
import { hasFills, imageSize, ImageUnreadable, layersWithData, withHiddenInstanceLayers, type FigmaApi } from './host';
import { withoutUnneededKeepers } from './keepers';
import { originalPaint, readPaintRecords, takeRecord, type PaintRecord } from './original-paints';
import { replacedSince } from './records';
import { OPTIONS_KEY } from './relaunch';

export interface RestoreResult {
  layers: number;
  fills: number;
  /** Originals no longer in the file (cannot be put back). */
  missing: number;
  /** Cropped fills from older records whose framing could not be worked out, set to Fill instead (framing.ts). */
  framingLost: number;
  /** Fills the user reframed after the correction: the original image is back, in the user's framing. */
  reframed: number;
  /**
   * Names of layers left as they are because the user changed them after the correction: another image, a framing
   * the original cannot take, or a text layer given another fill on part of its characters (its fills then read as
   * `figma.mixed`, one list no longer: nothing in it can be put back without flattening the user's colours); and
   * those whose image Figma could not read (`unread`: the framing of a fill the user reframed needs the images'
   * sizes), to restore again later.
   */
  left: { replaced: string[]; reframed: string[]; mixed: string[]; unread: string[] };
  /** Those layers, to select: the notification has room for their number, not always their names. */
  leftLayers: SceneNode[];
  /** Corrected layers deleted while the restore worked (by the user, or another in multiplayer): left out. */
  deleted: number;
}

/** What a restore does on one layer, beyond its fills change. */
interface Tally {
  missing: number;
  reframed: number;
  left: RestoreResult['left'];
  leftLayers: SceneNode[];
}

const emptyTally = (): Tally => ({ missing: 0, reframed: 0, left: { replaced: [], reframed: [], mixed: [], unread: [] }, leftLayers: [] });

/** Add one layer's tally to the restore's. */
function addTally(into: Tally, one: Tally): void {
  into.missing += one.missing;
  into.reframed += one.reframed;
  for (const why of ['replaced', 'reframed', 'mixed', 'unread'] as const) into.left[why].push(...one.left[why]);
  into.leftLayers.push(...one.leftLayers);
}

/** The corrected layers of the selection: each selected layer and those below it with originals recorded, hidden ones included. */
function correctedLayers(roots: readonly SceneNode[]): Map<string, SceneNode> {
  const layers = new Map<string, SceneNode>();
  for (const root of roots) {
    for (const n of [root, ...layersWithData(root, ORIGINALS_KEY)]) if (n.getPluginData(ORIGINALS_KEY)) layers.set(n.id, n);
  }
  return layers;
}

/** The way back from `corrected` to `original` on `node`: the inverse of the crop recorded for it. */
async function swapBack(figma: FigmaApi, node: BaseNode, corrected: string, original: string): Promise<ImageSwap | undefined> {
  const crop = readCrop(node, corrected);
  const [from, to] = [await imageSize(figma, corrected), await imageSize(figma, original)];
  return from && to ? imageSwap(from, to, crop && invertRegion(crop)) : undefined;
}

/**
 * What becomes of one corrected fill: its original back, refitted (older record or reframed), or left as it is —
 * because the original cannot be shown undistorted in the user's framing, or Figma could not read an image's size.
 */
type FillRestore = { paint: ImagePaint; framingLost: boolean; reframed: boolean } | 'left' | 'unread';

async function restoreFill(figma: FigmaApi, node: SceneNode, paint: ImagePaint, original: string, records: PaintRecord[] | undefined): Promise<FillRestore> {
  const record = records && takeRecord(records, paint);
  if (record) return { paint: originalPaint(paint, record), framingLost: false, reframed: false };
  const corrected = paint.imageHash ?? '';
  let swap: ImageSwap | undefined;
  try {
    swap = await swapBack(figma, node, corrected, original);
  } catch (err) {
    // One layer whose image Figma cannot read now is left as it is, its record kept; the others are restored.
    if (err instanceof ImageUnreadable) return 'unread';
    throw err;
  }
  const refitted = refitPaint(paint, original, swap);
  // Recorded by a version that kept no paints: refitting is all that can be done.
  if (!records) return { ...refitted, reframed: false };
  // Reframed by the user since: their framing stays, unless the original cannot be shown in it undistorted.
  return refitted.framingLost ? 'left' : { paint: refitted.paint, framingLost: false, reframed: true };
}

/**
 * One layer's fills with every recorded original put back that can be, or null when there is none, or when the
 * layer was deleted while this waited on Figma (then the tally is not to be used).
 */
async function planRestore(figma: FigmaApi, node: SceneNode, tally: Tally): Promise<FillChange | null> {
  if (!hasFills(node)) return null;
  const name = node.name;
  if (node.fills === figma.mixed) {
    tally.left.mixed.push(name);
    tally.leftLayers.push(node);
    return null;
  }
  const before = node.fills;
  const originals = readOriginals(node);
  const records = readPaintRecords(node);
  const shown = imagesShown(node, before);
  const available = (original: string) => figma.getImageByHash(original) !== null;
  for (const [corrected, original] of Object.entries(originals)) if (shown.has(corrected) && !available(original)) tally.missing += 1;
  const replaced = Object.keys(originals).some((corrected) => replacedSince(corrected, originals, shown));
  if (replaced) tally.left.replaced.push(name);
  const after: Paint[] = [];
  const indices: number[] = [];
  let framingLost = 0;
  let reframedHere = false;
  let unreadHere = false;
  for (const [index, paint] of before.entries()) {
    const original = paint.type === 'IMAGE' && paint.imageHash ? originals[paint.imageHash] : undefined;
    if (paint.type !== 'IMAGE' || !original || !available(original)) {
      after.push(paint);
      continue;
    }
    // Each fill's restore may wait on Figma (image sizes), while the layer may be deleted.
    if (node.removed) return null;
    const restored = await restoreFill(figma, node, paint, original, records[paint.imageHash ?? '']);
    if (restored === 'left' || restored === 'unread') {
      if (restored === 'left') reframedHere = true;
      else unreadHere = true;
      after.push(paint);
      continue;
    }
    after.push(restored.paint);
    indices.push(index);
    if (restored.framingLost) framingLost += 1;
    if (restored.reframed) tally.reframed += 1;
  }
  if (reframedHere) tally.left.reframed.push(name);
  if (unreadHere) tally.left.unread.push(name);
  if (replaced || reframedHere || unreadHere) tally.leftLayers.push(node);
  return indices.length > 0 ? { node, before, after: withoutUnneededKeepers(node, after, stillLeadingBack(node, after, originals)), indices, framingLost } : null;
}

/** The originals the layer's fills still lead back to once restored as `after`: those of the corrected images it still shows. */
function stillLeadingBack(node: BaseNode, after: ReadonlyArray<Paint>, originals: Readonly<Record<string, string>>): Set<string> {
  const shown = imagesShown(node, after);
  return new Set(Object.entries(originals).flatMap(([corrected, original]) => (shown.has(corrected) ? [original] : [])));
}

/**
 * Restore every corrected layer in the selection; one undo step. Hidden
 * layers inside instances are reached too: a run that included hidden layers
 * may have corrected them.
 */
export function restoreSelection(figma: FigmaApi): Promise<RestoreResult> {
  return withHiddenInstanceLayers(figma, true, async () => {
    // The layers selected when Restore began: the user may select others, or go to another page, while it works.
    const roots = figma.currentPage.selection;
    const { changes, tally, deleted } = await planRestores(figma, correctedLayers(roots));
    const { made, deleted: deletedDuring } = await commitChanges(changes);
    // A fill left as it is keeps its record (and its keeper), to be restored once the user undoes what they changed.
    for (const c of made) {
      if (keepRecordsOf(c.node, imagesShown(c.node, c.after))) continue;
      c.node.setPluginData(OPTIONS_KEY, '');
      c.node.setRelaunchData({});
    }
    clearButtonsOfRestoredRoots(roots);
    figma.commitUndo();
    const sum = (pick: (c: FillChange) => number) => made.reduce((s, c) => s + pick(c), 0);
    return { layers: made.length, fills: sum((c) => c.indices.length), framingLost: sum((c) => c.framingLost), ...tally, deleted: deleted + deletedDuring.length };
  });
}

/** Each layer's restore, and what it tells, but of the layers deleted while it was worked out (their number). */
async function planRestores(figma: FigmaApi, layers: ReadonlyMap<string, SceneNode>): Promise<{ changes: FillChange[]; tally: Tally; deleted: number }> {
  const changes: FillChange[] = [];
  const tally = emptyTally();
  let deleted = 0;
  for (const node of layers.values()) {
    // Found before planning began, which waits on Figma: "check that the nodes haven't been removed by the user" (typings `BaseNodeMixin.removed`).
    if (node.removed) {
      deleted += 1;
      continue;
    }
    const mine = emptyTally();
    const change = await planRestore(figma, node, mine);
    if (node.removed) {
      deleted += 1;
      continue;
    }
    addTally(tally, mine);
    if (change) changes.push(change);
  }
  return { changes, tally, deleted };
}

/** The selected layers' relaunch buttons (a frame that held corrected photos) go once nothing below them is left to restore. */
function clearButtonsOfRestoredRoots(roots: readonly SceneNode[]): void {
  for (const root of roots) {
    if (root.removed) continue;
    if (root.getPluginData(ORIGINALS_KEY) || layersWithData(root, ORIGINALS_KEY).length > 0) continue;
    if (Object.keys(root.getRelaunchData()).length > 0) root.setRelaunchData({});
  }
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** The most a toast shows (typings `PluginAPI.notify`: "It is limited to 100 characters. Longer messages will be truncated"). */
export const TOAST_CHARACTERS = 100;

/**
 * What a restore did, one statement each, most important first: how many layers were restored, how many were left
 * as they are (selected, so their names need not be read), how many originals are gone; then each left layer's name
 * and why, and what became of reframed and cropped fills.
 */
export function restoreStatements(r: RestoreResult): string[] {
  const { replaced, reframed, mixed, unread } = r.left;
  const left = replaced.length + reframed.length + mixed.length;
  if (r.layers === 0 && left === 0 && unread.length === 0 && r.deleted === 0) {
    return [r.missing > 0 ? 'The original images are no longer in this file' : 'Nothing to restore: the selection has no layers corrected by Perfectly Clear'];
  }
  const parts = [r.layers > 0 ? `Restored the original image on ${plural(r.layers, 'layer', 'layers')}` : 'Nothing restored'];
  if (left > 0) parts.push(`${plural(left, 'layer changed since is', 'layers changed since are')} left as ${left === 1 ? 'it is' : 'they are'}, selected`);
  if (unread.length > 0) parts.push(`${plural(unread.length, "layer's image", "layers' images")} could not be read: left as ${unread.length === 1 ? 'it is' : 'they are'}, selected`);
  if (r.missing > 0) parts.push(`${plural(r.missing, 'original is', 'originals are')} no longer in this file`);
  if (r.deleted > 0) parts.push(`${plural(r.deleted, 'layer was', 'layers were')} deleted during the restore`);
  for (const name of replaced) parts.push(`"${name}": another image`);
  for (const name of reframed) parts.push(`"${name}": reframed so the original would be distorted`);
  for (const name of mixed) parts.push(`"${name}": part of the text has another fill (give the text one fill to restore it)`);
  for (const name of unread) parts.push(`"${name}": Figma could not read its image (restore it again later)`);
  if (r.reframed > 0) parts.push(`${plural(r.reframed, 'fill you reframed keeps', 'fills you reframed keep')} your framing`);
  if (r.framingLost > 0) parts.push(`${plural(r.framingLost, 'cropped fill is', 'cropped fills are')} set to Fill (its crop is not known)`);
  return parts;
}

/**
 * The notification after a restore: every statement when they fit in a toast; otherwise the leading ones that fit
 * whole (the first always: a toast cuts it), and `more` says the rest are in the Why window (plugin.ts).
 */
export function restoreMessage(r: RestoreResult): { text: string; more: boolean } {
  const parts = restoreStatements(r);
  let text = parts[0]!;
  let shown = 1;
  while (shown < parts.length && `${text}; ${parts[shown]}`.length <= TOAST_CHARACTERS) text = `${text}; ${parts[shown++]}`;
  return { text, more: shown < parts.length };
}
