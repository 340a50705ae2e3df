/**
 * Layer locks met by a result. Adding a result changes more than the new layer: it is made next to its source (in
 * the source's group or artboard), it may hide the source and the earlier results it replaces, and it may re-clip
 * the layers clipped to the source. Photoshop refuses those changes on locked layers, and a refusal while the result
 * is added would come after a paid job. So they are checked before anything is sent, and again, inside the history
 * step, before anything is changed (a layer may have been locked while the service worked).
 *
 * What each lock refuses, from classes/layer.md (the simulator in test/sim refuses the same):
 * - Lock All (`allLocked`, :37) "prevents edits to pixels and properties of this layer": hiding it, its blend
 *   mode, opacity, fill, clipping and mask. A new layer may still be made above it: that edits another layer.
 * - Lock Image Pixels (:57), Lock Position (:58), Lock Transparent Pixels (:60) keep the layer's pixels and place,
 *   which the panel never changes on an existing layer: a source locked so is corrected as any other.
 * - The Background reports position and transparency locks; the result goes above it, as for any source.
 * - A group or artboard with any lock: whether Photoshop makes or moves a layer into it is not documented, so the
 *   panel does not try (the simulator refuses it), and says which one to unlock.
 */
import type { PsDocument, PsLayer } from '../host/types';
import { ResultNotAddedError } from './not-added';

/** Whether a layer has any of the four locks of the Layers panel. */
export function hasLock(layer: PsLayer): boolean {
  return layer.allLocked || layer.pixelsLocked || layer.positionLocked || layer.transparentPixelsLocked;
}

/**
 * The layer to select for Photoshop to make a new layer at `anchor`'s level (it is then moved directly above
 * `anchor`): the anchor itself, unless it is a group with a lock, since Photoshop makes a new layer inside a selected
 * group; then the topmost of `siblings` that is not one. Undefined when every one is a locked group or artboard.
 */
export function makeSpot(anchor: PsLayer, siblings: readonly PsLayer[]): PsLayer | undefined {
  return [anchor, ...siblings].find((layer) => layer.kind !== 'group' || !hasLock(layer));
}

/** What adding a result changes in its document besides the new layer. */
export interface ResultChanges {
  /** The layer corrected, above which the result is made; undefined for a whole-document result (made on top). */
  source?: PsLayer | undefined;
  /** The source is hidden under the result, which takes over its look (`takesOver`). */
  hidesSource: boolean;
  /** The layers clipped to the source, which are clipped to the result instead. */
  clippedToIt: readonly PsLayer[];
  /** The panel's earlier results that the new one hides. */
  replaced: readonly PsLayer[];
}

/** Why a lock keeps the result from being added, naming the layer, and what the user can do. */
export interface LockRefusal {
  problem: string;
  remedy: string;
}

/** How the user unlocks a layer (the lit lock icon at the top of the Layers panel is Lock All's or another lock's). */
const HOW_TO_UNLOCK = 'select it in the Layers panel and click the lit lock icon at the top of the panel';

/** The first lock among `changes` that Photoshop would refuse, or undefined when none would be. */
export function lockRefusal(doc: PsDocument, changes: ResultChanges): LockRefusal | undefined {
  return placeRefusal(doc, changes.source) ?? editRefusal(changes);
}

/** A result that cannot be made where it goes: in a locked group or artboard, or (a whole-document result) above a top of locked groups. */
function placeRefusal(doc: PsDocument, source: PsLayer | undefined): LockRefusal | undefined {
  if (!source) {
    const top = doc.layers[0];
    if (!top || makeSpot(top, doc.layers)) return undefined;
    return {
      problem: `every layer at the top of "${doc.title}" is a locked group, so Photoshop cannot add the result layer above them`,
      remedy: `unlock "${top.name}" (${HOW_TO_UNLOCK})`,
    };
  }
  const locked = lockedGroupsAround(source);
  if (locked.length === 0) return undefined;
  return {
    problem: `"${source.name}" is inside ${listed(locked.map((g) => `the locked ${containerWord(doc, g)} "${g.name}"`))}, where Photoshop cannot add the result layer`,
    // Correct Document is no way out in a document of artboards (export.ts `unsupportedReason`).
    remedy: `unlock ${locked.length > 1 ? 'them' : 'it'} (${HOW_TO_UNLOCK})${doc.artboards.length > 0 ? '' : ', or use Correct Document'}`,
  };
}

/** A change of a layer that Lock All keeps: hiding the source or an earlier result, re-clipping a clipped layer. */
function editRefusal({ source, hidesSource, clippedToIt, replaced }: ResultChanges): LockRefusal | undefined {
  const remedy = `unlock it (${HOW_TO_UNLOCK})`;
  const earlier = replaced.find((l) => l.allLocked);
  if (earlier) return { problem: `"${earlier.name}", the earlier result the new one replaces, is locked, so it cannot be hidden`, remedy: `${remedy} or hide it yourself` };
  const clipped = clippedToIt.find((l) => l.allLocked);
  if (clipped && source) return { problem: `"${clipped.name}" is clipped to "${source.name}" and locked, so it cannot be clipped to the result layer instead`, remedy };
  if (hidesSource && source?.allLocked) {
    return { problem: `"${source.name}" is locked, so it cannot be hidden under the result, which takes over its blend mode, opacity, fill and mask`, remedy };
  }
  return undefined;
}

/** The groups and artboards around `layer` that have a lock, nearest first. */
function lockedGroupsAround(layer: PsLayer): PsLayer[] {
  const locked: PsLayer[] = [];
  for (let group = layer.parent; group; group = group.parent) if (hasLock(group)) locked.push(group);
  return locked;
}

/** An artboard is a group to the DOM (`LayerKind` has no artboard); `document.artboards` tells them apart. */
export function containerWord(doc: PsDocument, group: PsLayer): 'artboard' | 'group' {
  return doc.artboards.some((a) => a.id === group.id) ? 'artboard' : 'group';
}

/** `a`, `a and b`, `a, b and c`. */
function listed(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)!}`;
}

/** Refuse, before anything is sent, a result a lock would keep out. */
export function refuseBeforeSending(doc: PsDocument, changes: ResultChanges): void {
  const refusal = lockRefusal(doc, changes);
  if (refusal) throw new Error(`${refusal.problem}: ${refusal.remedy}, then correct again; nothing was sent`);
}

/**
 * Refuse, inside the result's history step and before anything is changed, a result a lock now keeps out: the check
 * before sending passed, so the lock was set while the service worked.
 */
export function refuseWhileAdding(doc: PsDocument, changes: ResultChanges): void {
  const refusal = lockRefusal(doc, changes);
  if (refusal) {
    const reason = `${refusal.problem} (locked after the pixels were sent)`;
    throw new ResultNotAddedError(reason, `${reason}, so the result could not be added and nothing was changed: ${refusal.remedy}, then run the correction again`);
  }
}
