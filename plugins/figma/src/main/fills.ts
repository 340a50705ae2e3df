/**
 * Changing image fills safely: the new fills of each layer are worked out
 * first and then set with `setFillsAsync` — "the only way to set pattern
 * fills" (typings `MinimalFillsMixin.setFillsAsync`), so a layer that also has
 * a pattern fill is not refused — and a change across several layers is all
 * or nothing: when one layer refuses, the layers already changed get their
 * fills back before the error is reported.
 *
 * Every changed layer records, in its plugin data, which original image each
 * corrected image replaced, so "Restore original" works in any later session.
 */
import type { FigmaApi, FillNode } from './host';
import { hasFills } from './host';

/** Plugin data key: JSON `{ [current image hash]: original image hash }`. */
export const ORIGINALS_KEY = 'pfc.originals';

/** One layer's planned fills change. */
export interface FillChange {
  node: FillNode;
  before: ReadonlyArray<Paint>;
  after: Paint[];
  /** How many of its fills change. */
  count: number;
}

/** Whether a paint or layer counts: hidden ones are left alone unless the user asked for them. */
export function isShown(thing: { visible?: boolean }, includeHidden: boolean): boolean {
  return includeHidden || thing.visible !== false;
}

/**
 * The fills of `node` with `from` replaced by `to`. A TILE fill keeps its
 * size on the canvas when the image's pixel size changes: its
 * `scalingFactor` is multiplied by `ratio` (old width / new width).
 */
export function planSwap(figma: Pick<FigmaApi, 'mixed'>, node: BaseNode, from: string, to: string, ratio: number, includeHidden: boolean): FillChange | null {
  if (!hasFills(node)) return null;
  const fills = node.fills;
  if (fills === figma.mixed) return null;
  const { after, count } = swapPaints(fills, from, to, ratio, includeHidden);
  return count > 0 ? { node, before: fills, after, count } : null;
}

/** The paints with the image `from` replaced by `to` (see planSwap). */
export function swapPaints(fills: ReadonlyArray<Paint>, from: string, to: string, ratio: number, includeHidden: boolean): { after: Paint[]; count: number } {
  let count = 0;
  // Fills are read-only: build a new array from copies, keeping each paint's other properties.
  const after = fills.map((paint): Paint => {
    if (paint.type !== 'IMAGE' || paint.imageHash !== from || !isShown(paint, includeHidden)) return paint;
    count += 1;
    if (paint.scaleMode === 'TILE' && ratio !== 1) return { ...paint, imageHash: to, scalingFactor: (paint.scalingFactor ?? 1) * ratio };
    return { ...paint, imageHash: to };
  });
  return { after, count };
}

/** Set every change, or none: on a failure the layers already changed are put back and the error rethrown. */
export async function commitChanges(changes: readonly FillChange[]): Promise<void> {
  const done: FillChange[] = [];
  try {
    for (const c of changes) {
      await c.node.setFillsAsync(c.after);
      done.push(c);
    }
  } catch (err) {
    for (const c of done.reverse()) {
      try {
        await c.node.setFillsAsync(c.before);
      } catch {
        // The layer refuses its own previous fills only if it was deleted meanwhile; nothing left to restore.
      }
    }
    throw err;
  }
}

/** The originals recorded on a layer. */
export function readOriginals(node: BaseNode): Record<string, string> {
  try {
    const v: unknown = JSON.parse(node.getPluginData(ORIGINALS_KEY) || '{}');
    return v && typeof v === 'object' ? (v as Record<string, string>) : {};
  } catch {
    return {};
  }
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
