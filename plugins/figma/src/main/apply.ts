/**
 * Putting a corrected image back: swap the image in every fill that used the
 * original (keeping scale mode, transform, filters, opacity and every other
 * fill, through a copied fills array), or into a duplicate of each selected
 * layer placed beside it.
 */
import { FIGMA_MAX_SIDE, figmaAccepts, readImageHeader } from '../shared/image-header';
import type { ApplyResult, Placement } from '../shared/messages';
import { hasChildren, hasFills, type FigmaApi } from './host';

/** The relaunch button's command in manifest.json ("Correct again"). */
export const RELAUNCH_COMMAND = 'correct';
/** Space between an original and its copy (canvas units). */
export const COPY_GAP = 40;

/** What the main thread remembers about a run between the UI's requests. */
export interface RunState {
  runId: string;
  placement: Placement;
  /** Layers using each image (replace in place). */
  nodesByHash: Map<string, Set<string>>;
  /** Selected layers and the images under each (insert as copy). */
  roots: { id: string; hashes: Set<string> }[];
  /** Original layer id → id of its copy, made on the first result that needs it. */
  copies: Map<string, string>;
  changed: Set<string>;
}

/** Replace `oldHash` by `newHash` in the node's fills; returns how many fills changed. */
export function swapImage(figma: Pick<FigmaApi, 'mixed'>, node: BaseNode, oldHash: string, newHash: string): number {
  if (!hasFills(node)) return 0;
  const fills = node.fills;
  if (fills === figma.mixed) return 0;
  let count = 0;
  // Fills are read-only: build a new array from copies, keeping each paint's other properties.
  const next = fills.map((paint) => {
    if (paint.type !== 'IMAGE' || paint.imageHash !== oldHash) return paint;
    count += 1;
    return { ...paint, imageHash: newHash };
  });
  if (count > 0) node.fills = next;
  return count;
}

function setRelaunch(node: BaseNode, note: string, warnings: string[]): void {
  try {
    node.setRelaunchData({ [RELAUNCH_COMMAND]: note.slice(0, 1000) });
  } catch (err) {
    // Not every layer takes relaunch data (e.g. some instance sublayers); the image is in place regardless.
    warnings.push(`"${node.name}": no "Correct again" button (${err instanceof Error ? err.message : String(err)})`);
  }
}

/** Refuse results `createImage` would reject, with a message saying why. */
export function checkResult(bytes: Uint8Array): void {
  const h = readImageHeader(bytes);
  if (figmaAccepts(h)) return;
  if (h.format !== 'png' && h.format !== 'jpeg' && h.format !== 'gif') {
    throw new Error(`the result is not a PNG, JPEG or GIF (${h.format}), which Figma cannot take`);
  }
  throw new Error(`the result is ${h.width ?? '?'}×${h.height ?? '?'} px; Figma takes images up to ${FIGMA_MAX_SIDE}×${FIGMA_MAX_SIDE} px`);
}

function copyBeside(original: SceneNode, note: string, warnings: string[]): SceneNode {
  const parent = original.parent;
  if (!parent || !('insertChild' in parent)) throw new Error(`"${original.name}" has no parent to put a copy in`);
  const copy = original.clone();
  copy.name = `${original.name} (corrected)`;
  const index = parent.children.findIndex((c) => c.id === original.id);
  parent.insertChild(index + 1, copy);
  // In an auto-layout frame the position follows from the order; elsewhere put it to the right.
  const autoLayout = 'layoutMode' in parent && parent.layoutMode !== 'NONE';
  if (!autoLayout) {
    copy.x = original.x + original.width + COPY_GAP;
    copy.y = original.y;
  }
  setRelaunch(copy, note, warnings);
  return copy;
}

async function findNode(figma: FigmaApi, id: string): Promise<SceneNode | null> {
  const node = await figma.getNodeByIdAsync(id);
  return node && !node.removed && 'visible' in node ? (node as SceneNode) : null;
}

/** Put one corrected image into the document. */
export async function applyResult(figma: FigmaApi, run: RunState, oldHash: string, bytes: Uint8Array, note: string): Promise<ApplyResult> {
  checkResult(bytes);
  const newHash = figma.createImage(bytes).hash;
  const warnings: string[] = [];
  let fillsChanged = 0;
  let nodesChanged = 0;
  let copiesCreated = 0;
  const swapIn = (node: BaseNode, relaunch: boolean) => {
    const n = swapImage(figma, node, oldHash, newHash);
    if (n === 0) return;
    fillsChanged += n;
    nodesChanged += 1;
    run.changed.add(node.id);
    if (relaunch) setRelaunch(node, note, warnings);
  };

  if (run.placement === 'replace') {
    for (const id of run.nodesByHash.get(oldHash) ?? []) {
      const node = await findNode(figma, id);
      if (!node) warnings.push(`a layer using this image was deleted during the run`);
      else swapIn(node, true);
    }
  } else {
    for (const root of run.roots) {
      if (!root.hashes.has(oldHash)) continue;
      let copy = run.copies.has(root.id) ? await findNode(figma, run.copies.get(root.id) ?? '') : null;
      if (!copy) {
        const original = await findNode(figma, root.id);
        if (!original) {
          warnings.push('a selected layer was deleted during the run');
          continue;
        }
        copy = copyBeside(original, note, warnings);
        run.copies.set(root.id, copy.id);
        copiesCreated += 1;
      }
      for (const node of [copy, ...(hasChildren(copy) ? copy.findAll((n) => hasFills(n)) : [])]) swapIn(node, false);
    }
  }
  return { newHash, fillsChanged, nodesChanged, copiesCreated, warnings };
}
