/**
 * Whether a document was edited since its pixels were read, told by its History panel: Photoshop records each edit
 * as a history state of its own (painting, a transform, a fill, a filter, on any layer), and a state's `id` "can be
 * used to represent this history state for the lifetime of this document" (classes/historystate.md:29). Reading
 * `activeHistoryState` (classes/document.md:86) costs nothing, where comparing pixels reads them all again: so the
 * history is asked first, and only when it lists steps since the read are the pixels read again and compared (a step
 * may touch nothing that was read: a selection, another layer; apply.ts `refuseEditedSince`).
 *
 * The panel's own steps do not count: each is named after its result (`Perfectly Clear: …`, earlier-results.ts), and
 * the read adds none (its suspension is rolled back, and "the document returns to the state when `suspendHistory` was
 * invoked", objects/options/executioncontext.md:27; "Photoshop only creates a history state if the document was
 * modified", executeasmodal.md:267). The history is read outside any suspension, where the docs do not say what it
 * answers. Each user edit being a state is Photoshop's History panel as users know it; the docs describe the states,
 * not which commands make one, so what makes none (if anything) goes unseen.
 */
import type { PsDocument } from '../host/types';
import { isResultName } from './earlier-results';

/** The document's active history state, to compare with later (see {@link editedSince}). Outside a history suspension only. */
export function historyMark(doc: PsDocument): number {
  return doc.activeHistoryState.id;
}

/**
 * What the user did to `doc` since its active history state was `mark`, for the user; undefined when nothing (or only
 * the panel's own results were added). Undoing back to `mark` counts as nothing: the document is again as it was read.
 */
export function editedSince(doc: PsDocument, mark: number): string | undefined {
  const states = doc.historyStates;
  const active = doc.activeHistoryState.id;
  if (active === mark) return undefined;
  const from = states.findIndex((s) => s.id === mark);
  const to = states.findIndex((s) => s.id === active);
  // The state read is no longer listed (the History panel keeps a limited number, a revert), or lies after the active one.
  if (from === -1 || to === -1) return 'edited (the History panel no longer lists the state it was read in)';
  if (from > to) return 'stepped back in its history past the state it was read in (Undo or the History panel)';
  const steps = states.slice(from + 1, to + 1).map((s) => s.name).filter((name) => !isResultName(name));
  return steps.length === 0 ? undefined : `edited (History: ${steps.join(', ')})`;
}
