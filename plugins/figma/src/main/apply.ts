/**
 * Putting a corrected image back: swap the image in every fill that used the
 * original (keeping filters, opacity and every other fill, through a copied
 * fills array, and the framing — see framing.ts), or into a duplicate of each
 * selected layer placed beside it — for all the image's layers or, when one
 * refuses, for none (see fills.ts). Each result reaches Figma twice: as
 * bytes when it is made (`stageResult`, an image on no layer), then by hash
 * when the user accepts it (`applyResult`).
 */
import { invertRegion, isWholeImage, regionWithin, WHOLE_IMAGE, type CropRegion } from '../shared/crop';
import { FIGMA_MAX_SIDE, figmaAccepts, readImageHeader } from '../shared/image-header';
import type { ApplyResult, Placement } from '../shared/messages';
import type { Source } from './collect';
import { commitChanges, isShown, planSwap, type FillChange } from './fills';
import { imageSwap, type ImageSwap } from './framing';
import { fillLayersBelow, imageSize, withHiddenInstanceLayers, type FigmaApi } from './host';
import type { WrittenFill } from './original-paints';
import { changedFills, finishRecords, putRecordsBack, recordAhead, type Correction, type RecordsBefore } from './records';

/** The relaunch buttons' commands in manifest.json `relaunchButtons`. */
export const RELAUNCH = { again: 'correct-again', restore: 'restore' } as const;
/** Plugin data key: the options (JSON `RunOptions`) of the correction a layer holds, for "Correct again". */
export const OPTIONS_KEY = 'pfc.options';
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
  /** Images corrected before, by hash: the original sent in their place (collect.ts `Source`). */
  sources: Map<string, Source>;
  /** By the hash a job goes under: the other images sending the same original, which its result replaces too. */
  alsoShown: Map<string, string[]>;
  /** Original layer id → id of its copy, made on the first result that needs it. */
  copies: Map<string, string>;
  /** Original image hash → hash of its corrected image, handed over by `image/stage` and not yet on any layer. */
  staged: Map<string, string>;
  changed: Set<string>;
  /** Whether hidden layers and paints are corrected too (off by default). */
  includeHidden: boolean;
  /** The run's options, recorded on each changed layer for "Correct again". */
  optionsJson: string;
}

function setRelaunch(node: BaseNode, note: string, warnings: string[]): void {
  try {
    node.setRelaunchData({ [RELAUNCH.again]: note.slice(0, 1000), [RELAUNCH.restore]: 'Put the original image back' });
  } catch (err) {
    // Not every layer takes relaunch data (e.g. some instance sublayers); the image is in place regardless.
    warnings.push(`"${node.name}": no "Correct again" button (${err instanceof Error ? err.message : String(err)})`);
  }
}

/**
 * Relaunch buttons on the layers the user selected that hold a changed layer
 * below them (a frame of photos): Figma shows a relaunch button only when the
 * node carrying it is selected (typings `setRelaunchData`), so selecting the
 * frame again offers "Correct again" and "Restore original" for what is in
 * it. Best effort: a layer that takes none (some instance sublayers) needs no
 * warning, its changed layers carry their own.
 */
async function buttonsOnSelectedRoots(figma: FigmaApi, run: RunState, oldHash: string, changes: readonly FillChange[], note: string): Promise<void> {
  const changed = new Set(changes.map((c) => c.node.id));
  const shown = [oldHash, ...(run.alsoShown.get(oldHash) ?? [])];
  for (const root of run.roots) {
    if (changed.has(root.id) || !shown.some((h) => root.hashes.has(h))) continue;
    const node = await findNode(figma, root.id);
    if (node) setRelaunch(node, note, []);
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

/**
 * Where a copy goes: 40 px right of the original, in the same parent. In an
 * auto-layout parent the copy is positioned absolutely, so the siblings do
 * not move; in a parent that clips its content it is kept inside the
 * parent's bounds, so it can be seen (over the original if there is no room).
 */
function placeCopy(original: SceneNode, copy: SceneNode, parent: BaseNode & ChildrenMixin, warnings: string[]): void {
  const frame = 'layoutMode' in parent ? (parent as FrameNode) : null;
  if (frame && frame.layoutMode !== 'NONE' && 'layoutPositioning' in copy) copy.layoutPositioning = 'ABSOLUTE';
  let x = original.x + original.width + COPY_GAP;
  let y = original.y;
  if (frame?.clipsContent) {
    const maxX = Math.max(0, frame.width - copy.width);
    const maxY = Math.max(0, frame.height - copy.height);
    if (x > maxX) warnings.push(`"${frame.name}" clips its content: the copy was placed inside it, over part of the original`);
    x = Math.min(Math.max(0, x), maxX);
    y = Math.min(Math.max(0, y), maxY);
  }
  copy.x = x;
  copy.y = y;
}

function copyBeside(original: SceneNode, warnings: string[]): SceneNode {
  const parent = original.parent;
  if (!parent || !('insertChild' in parent)) throw new Error(`"${original.name}" has no parent to put a copy in`);
  const copy = original.clone();
  copy.name = `${original.name} (corrected)`;
  const index = parent.children.findIndex((c) => c.id === original.id);
  parent.insertChild(index + 1, copy);
  placeCopy(original, copy, parent, warnings);
  return copy;
}

async function findNode(figma: FigmaApi, id: string): Promise<SceneNode | null> {
  const node = await figma.getNodeByIdAsync(id);
  return node && !node.removed && 'visible' in node ? (node as SceneNode) : null;
}

/** Whether `node` and every ancestor up to `root` are shown (or hidden ones are included). */
function shownWithin(node: BaseNode, root: BaseNode, includeHidden: boolean): boolean {
  for (let n: BaseNode | null = node; n && n !== root.parent; n = n.parent) {
    if ('visible' in n && !isShown(n, includeHidden)) return false;
    if (n === root) break;
  }
  return true;
}

/** The swap of the image `hash` for the image `newHash`, which shows `crop` of it when the service said so. */
async function swapTo(figma: FigmaApi, hash: string, newHash: string, crop: CropRegion | undefined): Promise<ImageSwap | undefined> {
  const [from, to] = await Promise.all([imageSize(figma, hash), imageSize(figma, newHash)]);
  return from && to ? imageSwap(from, to, crop) : undefined;
}

/**
 * The part of the image the layers show that a result shows, given the part
 * of what was sent that it shows (`crop`): the same, unless an original was
 * sent in place of a corrected image showing a part of it.
 */
function cropOfShown(source: Source | undefined, crop: CropRegion | undefined): CropRegion | undefined {
  if (!source?.shown || isWholeImage(source.shown)) return crop;
  return regionWithin(invertRegion(source.shown), crop ?? WHOLE_IMAGE);
}

/** The first few layer names, for a message (`"A", "B", "C" and 3 more`). */
export function layerNames(names: readonly string[]): string {
  const shown = names.slice(0, 3).map((name) => `"${name}"`);
  return shown.join(', ') + (names.length > 3 ? ` and ${names.length - 3} more` : '');
}

/** What the user should know about CROP fills that became FILL (framing.ts). */
function framingWarning(changes: readonly FillChange[]): string[] {
  const lost = changes.filter((c) => c.framingLost > 0).map((c) => c.node.name);
  if (lost.length === 0) return [];
  return [
    `${layerNames(lost)}: the corrected image has another shape, and the part of the picture the layer showed is not known to be in it, so the fill is set to Fill (the whole image, not stretched); crop it again if needed`,
  ];
}

/**
 * The changed fills of a layer before and after, as Figma reads them back
 * (it may store a paint's numbers otherwise than they were given).
 */
function writtenFills(figma: FigmaApi, change: FillChange): WrittenFill[] {
  const now = change.node.fills;
  return now === figma.mixed ? [] : changedFills(change, now);
}

/** The layers whose fills use `oldHash` for this run: the originals (replace) or their copies, made as needed (copy). */
async function targets(figma: FigmaApi, run: RunState, oldHash: string, warnings: string[], made: SceneNode[]): Promise<SceneNode[]> {
  const out: SceneNode[] = [];
  if (run.placement === 'replace') {
    for (const id of run.nodesByHash.get(oldHash) ?? []) {
      const node = await findNode(figma, id);
      if (!node) warnings.push('a layer using this image was deleted during the run');
      else out.push(node);
    }
    return out;
  }
  for (const root of run.roots) {
    if (!root.hashes.has(oldHash)) continue;
    let copy = run.copies.has(root.id) ? await findNode(figma, run.copies.get(root.id) ?? '') : null;
    if (!copy) {
      const original = await findNode(figma, root.id);
      if (!original) {
        warnings.push('a selected layer was deleted during the run');
        continue;
      }
      copy = copyBeside(original, warnings);
      run.copies.set(root.id, copy.id);
      made.push(copy);
    }
    const scope = copy;
    out.push(copy, ...fillLayersBelow(copy).filter((n) => shownWithin(n, scope, run.includeHidden)));
  }
  return out;
}

/**
 * Take the corrected image for `oldHash` as soon as the UI has it, so the UI
 * need not hold its bytes while the user reviews (a few hundred results
 * would fill the plugin window's memory). `createImage` keeps it with the
 * file's images; no layer uses it yet, so the canvas and the undo history do
 * not change, and a result the user rejects is simply never used.
 */
export function stageResult(figma: Pick<FigmaApi, 'createImage'>, run: RunState, oldHash: string, bytes: Uint8Array): { newHash: string } {
  checkResult(bytes);
  const newHash = figma.createImage(bytes).hash;
  run.staged.set(oldHash, newHash);
  return { newHash };
}

/**
 * Put the corrected image staged for `oldHash` into the document: every
 * layer of the run, or none of them. `crop` is the part of the image sent the
 * result shows, when the service reported one. Hidden layers inside
 * instances are reachable only when the run includes hidden layers.
 */
export function applyResult(figma: FigmaApi, run: RunState, oldHash: string, note: string, crop?: CropRegion): Promise<ApplyResult> {
  return withHiddenInstanceLayers(figma, run.includeHidden, () => applyToLayers(figma, run, oldHash, note, crop));
}

/** The staged result for `oldHash`, still in the file. */
function stagedImage(figma: FigmaApi, run: RunState, oldHash: string): string {
  const newHash = run.staged.get(oldHash);
  if (newHash === undefined) throw new Error('no corrected image was handed over for this image');
  if (!figma.getImageByHash(newHash)) throw new Error('the corrected image is no longer in the file; correct the image again');
  return newHash;
}

/** One layer's planned change, with the image it showed and how the new image is fitted to it. */
type LayerChange = FillChange & { shown: string; swap: ImageSwap | undefined };

/** Each layer's change to `newHash`: every image the job replaces (alsoShown), one change per layer. */
async function planChanges(figma: FigmaApi, run: RunState, oldHash: string, newHash: string, crop: CropRegion | undefined, warnings: string[], made: SceneNode[]): Promise<LayerChange[]> {
  const changes: LayerChange[] = [];
  for (const shown of [oldHash, ...(run.alsoShown.get(oldHash) ?? [])]) {
    const swap = await swapTo(figma, shown, newHash, cropOfShown(run.sources.get(shown), crop));
    for (const node of await targets(figma, run, shown, warnings, made)) {
      // A layer whose fills show both the original and its earlier result: one change per layer, the first image's.
      if (changes.some((c) => c.node.id === node.id)) continue;
      const change = planSwap(figma, node, shown, newHash, swap, run.includeHidden);
      if (change) changes.push({ ...change, shown, swap });
    }
  }
  return changes;
}

const correctionOf = (c: LayerChange, newHash: string): Correction => ({ from: c.shown, to: newHash, region: c.swap?.region });

/**
 * Set the fills of every layer, each with its records written just before
 * (records.ts): should the plugin be stopped between two layers, those
 * changed already lead back to their originals. Each change with the layer's
 * records as they were, to finish them.
 */
async function commitRecorded(changes: readonly LayerChange[], newHash: string): Promise<{ change: LayerChange; before: RecordsBefore }[]> {
  const recorded: { change: LayerChange; before: RecordsBefore }[] = [];
  await commitChanges(changes, (change) => {
    const before = recordAhead(change.node, correctionOf(change, newHash), changedFills(change, change.after));
    recorded.push({ change, before });
    return () => putRecordsBack(change.node, before);
  });
  return recorded;
}

async function applyToLayers(figma: FigmaApi, run: RunState, oldHash: string, note: string, crop: CropRegion | undefined): Promise<ApplyResult> {
  const newHash = stagedImage(figma, run, oldHash);
  const warnings: string[] = [];
  const made: SceneNode[] = [];
  try {
    const changes = await planChanges(figma, run, oldHash, newHash, crop, warnings, made);
    for (const { change, before } of await commitRecorded(changes, newHash)) {
      finishRecords(change.node, correctionOf(change, newHash), before, writtenFills(figma, change));
      change.node.setPluginData(OPTIONS_KEY, run.optionsJson);
      run.changed.add(change.node.id);
    }
    warnings.push(...framingWarning(changes));
    for (const node of run.placement === 'replace' ? changes.map((c) => c.node) : made) setRelaunch(node, note, warnings);
    if (run.placement === 'replace') await buttonsOnSelectedRoots(figma, run, oldHash, changes, note);
    const fillsChanged = changes.reduce((sum, c) => sum + c.indices.length, 0);
    return { newHash, fillsChanged, nodesChanged: changes.length, copiesCreated: made.length, warnings };
  } catch (err) {
    // All or nothing: copies made for this image go again; changed fills and their records were put back by commitChanges.
    for (const copy of made) copy.remove();
    for (const [rootId, copyId] of run.copies) if (made.some((m) => m.id === copyId)) run.copies.delete(rootId);
    throw err;
  }
}
