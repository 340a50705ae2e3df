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
 * not which commands make one. A layer hidden or shown makes none by default: each layer's visibility is noted too.
 */
import type { PsDocument, PsLayer } from '../host/types';
import { isResultName } from './earlier-results';

/**
 * What a later {@link editedSince} compares with: the document's active history state, and whether each layer is shown.
 * A layer's eye clicked in the Layers panel changes the composite with no History state, as in Photoshop by default:
 * "By default, turning layer visibility on or off is not recorded as a history step and therefore can't be undone"
 * (Photoshop User Guide, History options, *Make Layer Visibility Changes Undoable*). Outside a history suspension only.
 */
export interface EditMark {
  history: number;
  /** Each layer's `visible` (classes/layer.md), groups' layers included, by id. */
  shown: ReadonlyMap<number, boolean>;
}

export function editMark(doc: PsDocument): EditMark {
  const shown = new Map<number, boolean>();
  const visit = (layers: readonly PsLayer[]) => {
    for (const l of layers) {
      shown.set(l.id, l.visible);
      if (l.layers) visit(l.layers);
    }
  };
  visit(doc.layers);
  return { history: doc.activeHistoryState.id, shown };
}

/**
 * What the user did to `doc` since `mark`, for the user; undefined when nothing (or only the panel's own results were
 * added). Undoing back to the state read counts as nothing: the document is again as it was read.
 */
export function editedSince(doc: PsDocument, mark: EditMark): string | undefined {
  const history = historySince(doc, mark.history);
  if (typeof history === 'string') return history;
  const toggled = visibilityChanges(doc, mark.shown);
  const parts = [...(history?.length ? [`History: ${history.join(', ')}`] : []), ...(toggled.length > 0 ? [`Layers panel: ${toggled.join(', ')}`] : [])];
  return parts.length === 0 ? undefined : `edited (${parts.join('; ')})`;
}

/** The History steps since the state `mark` (the panel's own left out), or what makes them unknown, for the user. */
function historySince(doc: PsDocument, mark: number): string[] | string | undefined {
  const states = doc.historyStates;
  const active = doc.activeHistoryState.id;
  if (active === mark) return undefined;
  const from = states.findIndex((s) => s.id === mark);
  const to = states.findIndex((s) => s.id === active);
  // The state read is no longer listed (the History panel keeps a limited number, a revert), or lies after the active one.
  if (from === -1 || to === -1) return 'edited (the History panel no longer lists the state it was read in)';
  if (from > to) return 'stepped back in its history past the state it was read in (Undo or the History panel)';
  return states.slice(from + 1, to + 1).map((s) => s.name).filter((name) => !isResultName(name));
}

/** The layers read then and still there, hidden or shown since: `"Layer 2" hidden`. */
function visibilityChanges(doc: PsDocument, shown: ReadonlyMap<number, boolean>): string[] {
  const changes: string[] = [];
  const visit = (layers: readonly PsLayer[]) => {
    for (const l of layers) {
      const was = shown.get(l.id);
      if (was !== undefined && was !== l.visible) changes.push(`"${l.name}" ${l.visible ? 'shown' : 'hidden'}`);
      if (l.layers) visit(l.layers);
    }
  };
  visit(doc.layers);
  return changes;
}
