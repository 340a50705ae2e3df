/**
 * "Restore original": puts back the images a correction replaced, on the
 * selected layers and everything below them. Each corrected layer carries, in
 * its plugin data, which original image each corrected image replaced and
 * which part of it a cropped result shows (fills.ts), so this works in any
 * later session, after the file was closed and reopened, and a cropped fill
 * gets its framing back. All of the selection's layers change, or none.
 */
import { invertRegion } from '../shared/crop';
import { commitChanges, CROPS_KEY, ORIGINALS_KEY, readCrop, readOriginals, swapPaints, type FillChange } from './fills';
import { imageSwap, type ImageSwap } from './framing';
import { hasFills, imageSize, layersWithData, withHiddenInstanceLayers, type FigmaApi } from './host';
import { OPTIONS_KEY } from './apply';

export interface RestoreResult {
  layers: number;
  fills: number;
  /** Originals no longer in the file (cannot be put back). */
  missing: number;
  /** Cropped fills whose framing could not be worked out, set to Fill instead (framing.ts). */
  framingLost: number;
}

/** The corrected layers of the selection: each selected layer and those below it with originals recorded, hidden ones included. */
function correctedLayers(figma: FigmaApi): Map<string, SceneNode> {
  const layers = new Map<string, SceneNode>();
  for (const root of figma.currentPage.selection) {
    for (const n of [root, ...layersWithData(root, ORIGINALS_KEY)]) if (n.getPluginData(ORIGINALS_KEY)) layers.set(n.id, n);
  }
  return layers;
}

/** The way back from `corrected` to `original` on `node`: the inverse of the crop recorded for it. */
async function swapBack(figma: FigmaApi, node: BaseNode, corrected: string, original: string): Promise<ImageSwap | undefined> {
  const [from, to] = [await imageSize(figma, corrected), await imageSize(figma, original)];
  const crop = readCrop(node, corrected);
  return from && to ? imageSwap(from, to, crop && invertRegion(crop)) : undefined;
}

/** One layer's fills with every recorded original put back, or null when there is none to put back. */
async function planRestore(figma: FigmaApi, node: SceneNode, missing: { count: number }): Promise<FillChange | null> {
  if (!hasFills(node) || node.fills === figma.mixed) return null;
  const before = node.fills;
  let after: ReadonlyArray<Paint> = before;
  let count = 0;
  let framingLost = 0;
  for (const [corrected, original] of Object.entries(readOriginals(node))) {
    if (!figma.getImageByHash(original)) {
      missing.count += 1;
      continue;
    }
    const swapped = swapPaints(after, corrected, original, await swapBack(figma, node, corrected, original), true);
    after = swapped.after;
    count += swapped.count;
    framingLost += swapped.framingLost;
  }
  return count > 0 ? { node, before, after: [...after], count, framingLost } : null;
}

/**
 * Restore every corrected layer in the selection; one undo step. Hidden
 * layers inside instances are reached too: a run that included hidden layers
 * may have corrected them.
 */
export function restoreSelection(figma: FigmaApi): Promise<RestoreResult> {
  return withHiddenInstanceLayers(figma, true, async () => {
    const changes: FillChange[] = [];
    const missing = { count: 0 };
    for (const node of correctedLayers(figma).values()) {
      const change = await planRestore(figma, node, missing);
      if (change) changes.push(change);
    }
    await commitChanges(changes);
    for (const c of changes) {
      for (const key of [ORIGINALS_KEY, CROPS_KEY, OPTIONS_KEY]) c.node.setPluginData(key, '');
      c.node.setRelaunchData({});
    }
    figma.commitUndo();
    const sum = (pick: (c: FillChange) => number) => changes.reduce((s, c) => s + pick(c), 0);
    return { layers: changes.length, fills: sum((c) => c.count), missing: missing.count, framingLost: sum((c) => c.framingLost) };
  });
}

/** The notification after a restore. */
export function restoreMessage(r: RestoreResult): string {
  if (r.layers === 0) return r.missing > 0 ? 'The original images are no longer in this file' : 'Nothing to restore: the selection has no layers corrected by Perfectly Clear';
  const parts = [`Restored the original image on ${r.layers} layer${r.layers === 1 ? '' : 's'}`];
  if (r.missing > 0) parts.push(`${r.missing} original${r.missing === 1 ? ' is' : 's are'} no longer in this file`);
  if (r.framingLost > 0) parts.push(`${r.framingLost} cropped fill${r.framingLost === 1 ? ' is' : 's are'} set to Fill (not stretched), as the part of the original shown is not known; crop again if needed`);
  return parts.join('; ');
}
