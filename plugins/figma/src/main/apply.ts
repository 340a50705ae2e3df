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
import { commitChanges, imagesShownNow, isShown, planSwap, type FillChange } from './fills';
import { imageSwap, type ImageSwap } from './framing';
import { errorText, fillLayersBelow, hasFills, imageSize, ImageUnreadable, pageOf, withHiddenInstanceLayers, type FigmaApi } from './host';
import { endLease, holdPage, newHolding, renewLease, type Holding } from './leases';
import type { WrittenFill } from './original-paints';
import { changedFills, finishRecords, putRecordsBack, recordAhead, type Correction, type Finish, type RecordsBefore } from './records';
import { finishLayer } from './relaunch';
import { clearButtonsAhead, giveButtons, markButtonsAhead, type ButtonsAhead } from './unfinished';

/** The warning for a layer of the image deleted while the apply worked (by the user, or another in multiplayer). */
export const LAYER_DELETED = 'a layer using this image was deleted during the run';

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
  /** This client's id, which each apply's entry carries (leases.ts). */
  client: string;
}

/** One result going into its layers: what it makes, and marks ahead of each change (unfinished.ts), on the way. */
interface Applying {
  figma: FigmaApi;
  run: RunState;
  newHash: string;
  /** The description under the relaunch buttons. */
  note: string;
  warnings: string[];
  /** The copies made for it. */
  made: SceneNode[];
  /** Its entry on the document: the pages it marks, renewed while it runs (leases.ts). */
  holding: Holding;
}

/** Before anything is written ahead on `node`: its page in the apply's entry, so a start finds it should the window close. */
function notePage(a: Applying, node: BaseNode): void {
  const page = pageOf(node);
  if (page) holdPage(a.figma, a.holding, page.id);
}

/**
 * The node `id`, looked up as the apply goes, which may wait on Figma: the
 * apply's entry is renewed first, so another session's start sees it still
 * running (leases.ts).
 */
function lookUp(a: Applying, id: string): Promise<SceneNode | null> {
  renewLease(a.figma, a.holding);
  return findNode(a.figma, id);
}

/** Relaunch buttons due on `node` once a layer in it shows the result: marked ahead, given after the changes (`giveButtons`). */
function buttonsAhead(a: Applying, node: SceneNode, copy?: ButtonsAhead['copy']): void {
  notePage(a, node);
  markButtonsAhead(node, { to: a.newHash, note: a.note, ...(copy ? { copy } : {}), apply: a.holding.apply });
}

/**
 * The layers the user selected that hold a changed layer below them (a frame
 * of photos), to carry relaunch buttons too: Figma shows a relaunch button
 * only when the node carrying it is selected (typings `setRelaunchData`), so
 * selecting the frame again offers "Correct again" and "Restore original" for
 * what is in it. Best effort: a layer that takes none (some instance
 * sublayers) needs no warning, its changed layers carry their own.
 */
async function selectedRootsAround(a: Applying, oldHash: string, changes: readonly FillChange[]): Promise<SceneNode[]> {
  const changed = new Set(changes.map((c) => c.node.id));
  const shown = [oldHash, ...(a.run.alsoShown.get(oldHash) ?? [])];
  const roots: SceneNode[] = [];
  for (const root of a.run.roots) {
    if (changed.has(root.id) || !shown.some((h) => root.hashes.has(h))) continue;
    const node = await lookUp(a, root.id);
    if (node) roots.push(node);
  }
  // Those found before the last lookup may have been deleted while it waited.
  return roots.filter((r) => !r.removed);
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

/**
 * The swap of the image `hash` for the image `newHash`, which shows `crop` of it when the service said so; or, when
 * Figma cannot read their sizes now, why: only a layer whose fills need them fails then (see {@link needsSizes}).
 */
async function swapTo(figma: FigmaApi, hash: string, newHash: string, crop: CropRegion | undefined): Promise<ImageSwap | undefined | ImageUnreadable> {
  try {
    const [from, to] = await Promise.all([imageSize(figma, hash), imageSize(figma, newHash)]);
    return from && to ? imageSwap(from, to, crop) : undefined;
  } catch (err) {
    if (err instanceof ImageUnreadable) return err;
    throw err;
  }
}

/**
 * Whether a fill of `node` that shows `hash` and will change is framed by the images' sizes: a Crop or Tile fill is
 * (framing.ts `refitPaint`); Fill and Fit scale any image to the layer, so the new one goes in without them.
 */
function needsSizes(figma: Pick<FigmaApi, 'mixed'>, node: BaseNode, hash: string, includeHidden: boolean): boolean {
  if (!hasFills(node) || node.fills === figma.mixed) return false;
  return node.fills.some((p) => p.type === 'IMAGE' && p.imageHash === hash && isShown(p, includeHidden) && (p.scaleMode === 'CROP' || p.scaleMode === 'TILE'));
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

/**
 * The layers whose fills use `oldHash` for this run: the originals (replace)
 * or their copies, made as needed (copy). A copy is marked as soon as it is
 * made: should the window close before anything in it is corrected, the next
 * start removes it (unfinished.ts).
 */
async function targets(a: Applying, oldHash: string): Promise<SceneNode[]> {
  const { run, warnings } = a;
  const out: SceneNode[] = [];
  if (run.placement === 'replace') {
    for (const id of run.nodesByHash.get(oldHash) ?? []) {
      const node = await lookUp(a, id);
      if (!node) warnings.push(LAYER_DELETED);
      else out.push(node);
    }
    return out;
  }
  for (const root of run.roots) {
    if (!root.hashes.has(oldHash)) continue;
    let copy = run.copies.has(root.id) ? await lookUp(a, run.copies.get(root.id) ?? '') : null;
    if (!copy) {
      const original = await lookUp(a, root.id);
      if (!original) {
        warnings.push('a selected layer was deleted during the run');
        continue;
      }
      copy = copyBeside(original, warnings);
      buttonsAhead(a, copy, { of: original.id, name: copy.name });
      run.copies.set(root.id, copy.id);
      a.made.push(copy);
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
  let newHash: string;
  try {
    newHash = figma.createImage(bytes).hash;
  } catch (err) {
    // checkResult reads only the header: a result cut short or corrupt after it passes, and Figma's decoder refuses
    // it ("Invalid images will throw an error", typings `createImage`). Nothing is on the canvas yet; this image fails.
    throw new Error(`the corrected image could not be read: Figma refused it as an image (${errorText(err)})`, { cause: err });
  }
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

/** Each layer's change to the new image: every image the job replaces (alsoShown), one change per layer. */
async function planChanges(a: Applying, oldHash: string, crop: CropRegion | undefined): Promise<LayerChange[]> {
  const { figma, run, newHash } = a;
  const changes: LayerChange[] = [];
  const twice: string[] = [];
  for (const shown of [oldHash, ...(run.alsoShown.get(oldHash) ?? [])]) {
    renewLease(figma, a.holding);
    const framing = await swapTo(figma, shown, newHash, cropOfShown(run.sources.get(shown), crop));
    // Sizes Figma could not read: only a layer whose fills are framed by them fails (see needsSizes).
    const swap = framing instanceof ImageUnreadable ? undefined : framing;
    for (const node of await targets(a, shown)) {
      // Found before targets' last lookup, a layer may have been deleted while it waited.
      if (node.removed) {
        a.warnings.push(LAYER_DELETED);
        continue;
      }
      if (framing instanceof ImageUnreadable && needsSizes(figma, node, shown, run.includeHidden)) throw framing;
      const change = planSwap(figma, node, shown, newHash, swap, run.includeHidden);
      if (!change) continue;
      // A layer whose fills show both the original and its earlier result: one change per layer, the first image's
      // (its records lead one image back), and the user is told which layer keeps a fill as it was.
      if (changes.some((c) => c.node.id === node.id)) twice.push(node.name);
      else changes.push({ ...change, shown, swap });
    }
  }
  if (twice.length > 0) a.warnings.push(`${layerNames(twice)} ${twice.length === 1 ? 'shows' : 'show'} both the original and an earlier result: one fill was corrected, the other left as it was`);
  return changes;
}

const correctionOf = (c: LayerChange, newHash: string): Correction => ({ from: c.shown, to: newHash, region: c.swap?.region, ...(c.keeper ? { keeper: c.keeper } : {}) });

/**
 * Set the fills of every layer, each with its records and what finishes them
 * written just before (records.ts): should the plugin be stopped between two
 * layers, those changed already lead back to their originals, and the next
 * start finishes them (unfinished.ts). Each change made, with the layer's
 * records as they were, to finish them; a layer deleted meanwhile is left out
 * with a warning (fills.ts `commitChanges`).
 */
async function commitRecorded(a: Applying, changes: readonly LayerChange[], finish: Finish): Promise<{ change: LayerChange; before: RecordsBefore }[]> {
  const recorded: { change: LayerChange; before: RecordsBefore }[] = [];
  const { made, deleted } = await commitChanges(changes, (change) => {
    notePage(a, change.node);
    const before = recordAhead(change.node, correctionOf(change, a.newHash), changedFills(change, change.after), finish, a.holding.apply);
    recorded.push({ change, before });
    return () => putRecordsBack(change.node, before);
  });
  a.warnings.push(...deleted.map(() => LAYER_DELETED));
  return recorded.filter((r) => made.includes(r.change));
}

/**
 * Plan, mark and commit every change, then finish each: nothing after the
 * commit waits on Figma, so a window closed during an apply stops it at a
 * layer's change, with every change made so far marked for the next start.
 */
async function applyToLayers(figma: FigmaApi, run: RunState, oldHash: string, note: string, crop: CropRegion | undefined): Promise<ApplyResult> {
  const a: Applying = { figma, run, newHash: stagedImage(figma, run, oldHash), note, warnings: [], made: [], holding: newHolding(run.client) };
  const roots: SceneNode[] = [];
  try {
    const changes = await planChanges(a, oldHash, crop);
    if (run.placement === 'replace') roots.push(...(await selectedRootsAround(a, oldHash, changes)));
    for (const root of roots) buttonsAhead(a, root);
    const finish: Finish = { optionsJson: run.optionsJson, note, buttons: run.placement === 'replace' };
    const committed = await commitRecorded(a, changes, finish);
    for (const { change, before } of committed) {
      finishRecords(change.node, correctionOf(change, a.newHash), before, writtenFills(figma, change), imagesShownNow(figma, change.node));
      finishLayer(change.node, finish, a.warnings);
      run.changed.add(change.node.id);
    }
    const made = committed.map((r) => r.change);
    a.warnings.push(...framingWarning(made));
    // Nothing has waited on Figma since the commit: what is there now is there to the end.
    const copies = a.made.filter((copy) => !copy.removed);
    for (const copy of copies) giveButtons(copy, note, a.warnings);
    for (const root of roots) if (!root.removed) giveButtons(root, note, []);
    endLease(figma, a.holding);
    const fillsChanged = made.reduce((sum, c) => sum + c.indices.length, 0);
    return { newHash: a.newHash, fillsChanged, nodesChanged: made.length, copiesCreated: copies.length, warnings: a.warnings };
  } catch (err) {
    // All or nothing: copies made for this image go again; changed fills and their records were put back by commitChanges.
    // The entry stays: a start settles whatever is left marked (this client's next at once, another's once the lease ran out).
    for (const root of roots) clearButtonsAhead(root);
    // A copy the user deleted meanwhile is gone already, and refuses remove(): the others still go.
    for (const copy of a.made) if (!copy.removed) copy.remove();
    for (const [rootId, copyId] of run.copies) if (a.made.some((m) => m.id === copyId)) run.copies.delete(rootId);
    throw err;
  }
}
