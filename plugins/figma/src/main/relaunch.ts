/**
 * What brings the user back to a corrected layer: its relaunch buttons
 * ("Correct again", "Restore original") and the options saved for "Correct
 * again". A correction gives them to each layer once its change is done —
 * right after it (apply.ts) or, when the user closed the window first, at the
 * plugin's next start (unfinished.ts).
 */
import { readKeepers } from './keepers';
import type { Finish } from './records';

/** The relaunch buttons' commands in manifest.json `relaunchButtons`. */
export const RELAUNCH = { again: 'correct-again', restore: 'restore' } as const;
/** Plugin data key: the options (JSON `RunOptions`) of the correction a layer holds, for "Correct again". */
export const OPTIONS_KEY = 'pfc.options';

/** What the restore button says: on a layer keeping its original in a hidden fill (keepers.ts), that the fill is it, so the user leaves it be. */
export function restoreDescription(node: BaseNode): string {
  return readKeepers(node).size > 0 ? 'Put the original image back (kept as a hidden fill)' : 'Put the original image back';
}

/**
 * The relaunch buttons on `node`. Figma shows them only while the node is
 * selected (typings `BaseNodeMixin.setRelaunchData`: "show a button and
 * description when the node is selected") and refuses a description over
 * 1000 characters.
 */
export function setRelaunch(node: BaseNode, note: string, warnings: string[]): void {
  try {
    node.setRelaunchData({ [RELAUNCH.again]: note.slice(0, 1000), [RELAUNCH.restore]: restoreDescription(node) });
  } catch (err) {
    // Not every layer takes relaunch data (e.g. some instance sublayers); the image is in place regardless.
    warnings.push(`"${node.name}": no "Correct again" button (${err instanceof Error ? err.message : String(err)})`);
  }
}

/** A changed layer's options saved, and its buttons when it carries them itself (in place; a copy carries them on the copy). */
export function finishLayer(node: BaseNode, finish: Finish, warnings: string[]): void {
  node.setPluginData(OPTIONS_KEY, finish.optionsJson);
  if (finish.buttons) setRelaunch(node, finish.note, warnings);
}
