/**
 * What is left of a file closed and opened again (`SimFigma.reopenFile`).
 *
 * Figma documents an `Image` as "a handle to an image stored in Figma"
 * (https://developers.figma.com/docs/plugins/api/Image), and
 * `getImageByHash`: "If there is no image with this hash, returns null"
 * (typings `PluginAPI.getImageByHash`). How long an image no layer uses stays
 * stored, neither says — not within a session (a result staged with
 * `createImage` and not yet on a layer stays here while the file is open),
 * and not across one. A simulated host is at least as strict as the real one
 * and, when unsure, stricter: so a reopened file keeps only the images a node
 * of the document still references through a paint, and `getImageByHash`
 * answers null for every other.
 *
 * "References" is read widely, so as to drop nothing Figma surely keeps:
 * every node on every page, hidden ones and those inside instances and
 * components included, and every paint of it, hidden ones included; the fills
 * of a text layer's characters when its `fills` read as `figma.mixed`. That is
 * all the simulator's model holds paints in: it has no strokes, paint styles
 * or effects (none of which the plugin writes), so nothing else can hold an
 * image paint here. A node removed from the document references nothing.
 *
 * What a file stores beside its images stays: the nodes with their plugin
 * data ("store custom information on any node", typings
 * `PluginDataMixin.setPluginData`; shared plugin data is not simulated) and
 * relaunch data, and each user's `clientStorage` ("persistent data on the
 * user's local machine", typings `PluginAPI.clientStorage`). What belongs to a
 * session goes: the plugin's run (its window closes with the file), toasts,
 * the selection and the undo history — whether Figma keeps undo steps across
 * a reopen is not documented either, and none are kept here.
 */
import { SimFrame, SimGroup, SimShape, type SimNode } from './nodes';

/** The hashes of the images the paints of `root` and every node below it reference. */
export function imagesInUse(root: SimNode): Set<string> {
  const used = new Set<string>();
  const visit = (node: SimNode) => {
    if (node instanceof SimShape) for (const p of node.heldPaints()) if (p.type === 'IMAGE' && p.imageHash) used.add(p.imageHash);
    if (node instanceof SimFrame || node instanceof SimGroup) for (const child of node.kids.list) visit(child);
  };
  visit(root);
  return used;
}
