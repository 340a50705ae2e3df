/**
 * "Restore original": puts back the images a correction replaced, on the
 * selected layers and everything below them. Each corrected layer carries, in
 * its plugin data, which original image each corrected image replaced
 * (fills.ts), so this works in any later session, after the file was closed
 * and reopened. All of the selection's layers change, or none.
 */
import { commitChanges, ORIGINALS_KEY, readOriginals, swapPaints, type FillChange } from './fills';
import { hasChildren, hasFills, type FigmaApi } from './host';
import { OPTIONS_KEY } from './apply';

export interface RestoreResult {
  layers: number;
  fills: number;
  /** Originals no longer in the file (cannot be put back). */
  missing: number;
}

async function widthOf(figma: FigmaApi, hash: string): Promise<number | undefined> {
  const image = figma.getImageByHash(hash);
  return image ? (await image.getSizeAsync()).width : undefined;
}

/** Restore every corrected layer in the selection; one undo step. */
export async function restoreSelection(figma: FigmaApi): Promise<RestoreResult> {
  const layers = new Map<string, SceneNode>();
  for (const root of figma.currentPage.selection) {
    for (const n of [root, ...(hasChildren(root) ? root.findAll((c) => hasFills(c)) : [])]) layers.set(n.id, n);
  }
  const changes: FillChange[] = [];
  let missing = 0;
  for (const node of layers.values()) {
    if (!hasFills(node) || node.fills === figma.mixed) continue;
    const before = node.fills;
    let after: ReadonlyArray<Paint> = before;
    let count = 0;
    for (const [corrected, original] of Object.entries(readOriginals(node))) {
      if (!figma.getImageByHash(original)) {
        missing += 1;
        continue;
      }
      const [from, to] = [await widthOf(figma, corrected), await widthOf(figma, original)];
      const swapped = swapPaints(after, corrected, original, from && to ? from / to : 1, true);
      after = swapped.after;
      count += swapped.count;
    }
    if (count > 0) changes.push({ node, before, after: [...after], count });
  }
  await commitChanges(changes);
  for (const c of changes) {
    c.node.setPluginData(ORIGINALS_KEY, '');
    c.node.setPluginData(OPTIONS_KEY, '');
    c.node.setRelaunchData({});
  }
  figma.commitUndo();
  return { layers: changes.length, fills: changes.reduce((s, c) => s + c.count, 0), missing };
}

/** The notification after a restore. */
export function restoreMessage(r: RestoreResult): string {
  if (r.layers === 0) return r.missing > 0 ? 'The original images are no longer in this file' : 'Nothing to restore: the selection has no layers corrected by Perfectly Clear';
  const text = `Restored the original image on ${r.layers} layer${r.layers === 1 ? '' : 's'}`;
  return r.missing > 0 ? `${text}; ${r.missing} original${r.missing === 1 ? ' is' : 's are'} no longer in this file` : text;
}
