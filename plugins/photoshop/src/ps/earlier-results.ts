/**
 * Layers this panel added before, met by a new correction of the same
 * source. Left as they are, a second Correct Layer would put its result
 * directly above the source, under the earlier result, where it cannot be
 * seen; a second Correct Document would read the composite with the earlier
 * result in it and correct that result once more (sharpening, contrast and
 * colour twice over). So they are hidden while the pixels are read (in a
 * history suspension that is dropped, so the document is left as it was),
 * and hidden, never deleted, in the history step that adds the new layer:
 * the new result replaces them, and showing one again compares.
 *
 * They are known by the name the panel gives its layers (`Perfectly Clear: …`):
 * a plug-in has no other mark to put on a layer (classes/layer.md lists no
 * plug-in data). Only the visible run of such layers where the panel puts its
 * results counts: directly above the source layer (Correct Layer), at the top
 * of the stack (Correct Document). Such a layer elsewhere is the user's, part
 * of what the composite shows.
 */
import type { PsDocument, PsExecutionContext, PsLayer } from '../host/types';
import { findLayer } from './commands';

/** The start of every result layer's name (`describeCorrection`). */
export const RESULT_LAYER_PREFIX = 'Perfectly Clear: ';

/** Whether a layer's name is one the panel gives its results. */
export function isResultName(name: string): boolean {
  return name.startsWith(RESULT_LAYER_PREFIX);
}

/**
 * The earlier results a new result for `sourceLayerId` (undefined: the whole document) replaces: the visible
 * layers named as results directly above the source, in its group, or at the top of the document, nearest first.
 */
export function earlierResults(doc: PsDocument, sourceLayerId: number | undefined): PsLayer[] {
  const source = sourceLayerId === undefined ? undefined : findLayer(doc.layers, sourceLayerId);
  const siblings = source ? (source.parent?.layers ?? doc.layers) : doc.layers;
  // Layers are listed top first: those above the source come before it, the nearest last.
  const outward = source ? siblings.slice(0, siblings.findIndex((l) => l.id === source.id)).reverse() : siblings;
  const found: PsLayer[] = [];
  for (const layer of outward) {
    if (!layer.visible || !isResultName(layer.name)) break;
    found.push(layer);
  }
  return found;
}

/**
 * `read()` with `layers` hidden, in a history suspension of `documentID` that is then dropped: the pixels read are
 * the document's without them, and the document is left exactly as it was, with no history step. Runs inside
 * `executeAsModal`.
 */
export async function readWithout<T>(context: PsExecutionContext, documentID: number, layers: readonly PsLayer[], read: () => Promise<T>): Promise<T> {
  if (layers.length === 0) return read();
  const suspension = await context.hostControl.suspendHistory({ documentID, name: 'Reading pixels for Perfectly Clear' });
  try {
    for (const layer of layers) layer.visible = false;
    return await read();
  } finally {
    await context.hostControl.resumeHistory(suspension, false);
  }
}

/** Hide the earlier results a new layer replaces (inside its history step); the notes that say so. */
export function hideReplaced(layers: readonly PsLayer[]): string[] {
  return layers.map((layer) => {
    layer.visible = false;
    return `"${layer.name}", an earlier result, was hidden: the new layer replaces it (show it again to compare)`;
  });
}
