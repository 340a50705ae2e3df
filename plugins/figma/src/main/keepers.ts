/**
 * The keeper: what keeps an original image in the file while a correction
 * shows in its place.
 *
 * After a correction in place the original is on no layer any more: the
 * layer's records name it by hash (fills.ts), and Restore asks for it with
 * `figma.getImageByHash` — "If there is no image with this hash, returns
 * null" (typings `PluginAPI.getImageByHash`). An `Image` is "a handle to an
 * image stored in Figma" (https://developers.figma.com/docs/plugins/api/Image);
 * how long Figma keeps one no layer uses, the documentation does not say, and
 * a file closed and reopened may have let it go (the simulator lets it go:
 * test/sim/reopen.ts). So the layer itself keeps it: a
 * hidden image paint of the original (`visible: false`: it draws nothing),
 * set in the same fills change as the correction, so one undo step and one
 * all-or-nothing change carry both.
 *
 * It goes at the end of the fills (the top of the Fill panel's list): the
 * positions of the other fills stay as they were, which is how a change's
 * changed fills are found again in the fills Figma reads back
 * (`FillChange.indices`, records.ts `changedFills`).
 *
 * Which paints are keepers the layer records under `KEEPERS_KEY` (the
 * originals it keeps, by hash) — never by the paint's numbers, which Figma
 * re-reads as 32-bit floats, and never by "hidden": a hidden image fill of
 * the user's own is theirs. Of the paints of a kept original, the keeper is
 * the last hidden one: it was appended after every fill the layer had, and
 * the plugin's later changes keep it there. A keeper is never corrected, sent
 * or counted (collect.ts, fills.ts); Restore takes it away with the last fill
 * that needs it (restore.ts).
 */
import { readJson } from './plugin-data';

/** Plugin data key: JSON `{ [original image hash]: true }`, the originals the layer keeps in a keeper paint. */
export const KEEPERS_KEY = 'pfc.keepers';

/** The originals a layer records keepers of. */
export function readKeepers(node: BaseNode): Set<string> {
  return new Set(Object.keys(readJson<unknown>(node, KEEPERS_KEY)));
}

/** The keeper of `original`: a hidden paint of it, framed the simplest way (it is never drawn). */
export function keeperPaint(original: string): ImagePaint {
  return { type: 'IMAGE', imageHash: original, scaleMode: 'FILL', visible: false };
}

function isHiddenPaintOf(paint: Paint, hash: string): boolean {
  return paint.type === 'IMAGE' && paint.imageHash === hash && paint.visible === false;
}

/** The positions of the layer's keepers in `fills`: of each original it records, the last hidden paint of it. */
export function keeperIndices(node: BaseNode, fills: ReadonlyArray<Paint>): Set<number> {
  const indices = new Set<number>();
  for (const original of readKeepers(node)) {
    const at = fills.findLastIndex((p) => isHiddenPaintOf(p, original));
    if (at !== -1) indices.add(at);
  }
  return indices;
}

/** Whether the layer keeps `original` in a keeper among `fills`. */
export function keeps(node: BaseNode, fills: ReadonlyArray<Paint>, original: string): boolean {
  return readKeepers(node).has(original) && fills.some((p) => isHiddenPaintOf(p, original));
}

function writeKeepers(node: BaseNode, originals: ReadonlySet<string>): void {
  const json = originals.size > 0 ? JSON.stringify(Object.fromEntries([...originals].map((hash) => [hash, true]))) : '';
  if (json !== node.getPluginData(KEEPERS_KEY)) node.setPluginData(KEEPERS_KEY, json);
}

/** Record that the layer keeps `original` in a keeper. */
export function recordKeeper(node: BaseNode, original: string): void {
  writeKeepers(node, readKeepers(node).add(original));
}

/** Forget the keeper of `original` (a change that was to add it never happened). */
export function forgetKeeper(node: BaseNode, original: string): void {
  const kept = readKeepers(node);
  if (kept.delete(original)) writeKeepers(node, kept);
}

/** Keep, of the layer's keeper records, those of the originals a correction on it still leads back to (`needed`). */
export function keepKeepersOf(node: BaseNode, needed: ReadonlySet<string>): void {
  writeKeepers(node, new Set([...readKeepers(node)].filter((hash) => needed.has(hash))));
}

/** `fills` without the layer's keepers of the originals no longer `needed`. */
export function withoutUnneededKeepers(node: BaseNode, fills: ReadonlyArray<Paint>, needed: ReadonlySet<string>): Paint[] {
  const unneeded = [...keeperIndices(node, fills)].filter((i) => !needed.has((fills[i] as ImagePaint).imageHash ?? ''));
  return fills.filter((_, i) => !unneeded.includes(i));
}
