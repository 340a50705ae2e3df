/**
 * The selection walk: every image fill in the selected layers and their
 * descendants (frames, groups, components, instances, several fills per
 * layer), grouped by image hash so each distinct image is corrected once.
 */
import type { CropRegion } from '../shared/crop';
import { planResize, type ResizeChoice } from '../shared/fit';
import { readImageHeader } from '../shared/image-header';
import type { ImageJob, Placement, SelectionSummary, Skip } from '../shared/messages';
import { recordedOriginal, type RecordedOriginal } from './fills';
import { keeperIndices } from './keepers';
import { fillLayersBelow, hasFills, ImageUnreadable, instanceAround, isInsideInstance, mainComponentAround, readImage, readingHiddenLayers, type FigmaApi, type FillNode } from './host';

/** One distinct image and the layers whose fills use it. */
export interface CollectedImage {
  hash: string;
  /** Ids of layers with at least one fill using the image. */
  nodeIds: Set<string>;
  nodeNames: string[];
  fillCount: number;
  /** The original this plugin corrected the image from, as the first of its layers with a record says. */
  recorded?: RecordedOriginal;
}

export interface Collection {
  images: Map<string, CollectedImage>;
  skipped: Skip[];
  /** Ids of the selected layers the run works on, and the images under each (for insert-as-copy). */
  roots: { id: string; hashes: Set<string> }[];
  layers: number;
  /** Main components whose layers the run would change in place. */
  components: ComponentNode[];
}

function skip(node: SceneNode, reason: string): Skip {
  return { nodeId: node.id, nodeName: node.name, reason };
}

function hasSelectedAncestor(node: BaseNode, selected: ReadonlySet<string>): boolean {
  for (let p = node.parent; p; p = p.parent) if (selected.has(p.id)) return true;
  return false;
}

/** The layer and every descendant that has fills, each once. */
function layersWithFills(root: SceneNode): SceneNode[] {
  return [root, ...fillLayersBelow(root)];
}

/** The hidden layer that keeps `node` from being seen: itself or its nearest hidden ancestor, if any. */
function hiddenLayerOver(node: BaseNode): SceneNode | undefined {
  for (let n: BaseNode | null = node; n && n.type !== 'PAGE'; n = n.parent) if ('visible' in n && !n.visible) return n;
  return undefined;
}

/** Why a selected layer is left out of the run, or undefined when it is walked ('' when it is left out silently). */
function rootSkipReason(root: SceneNode, placement: Placement, includeHidden: boolean, selectedIds: ReadonlySet<string>): string | undefined {
  // A layer selected together with a frame around it is copied as part of the frame's copy:
  // a copy of its own would be inserted into the original frame, changing it.
  if (placement === 'copy' && hasSelectedAncestor(root, selectedIds)) return '';
  if (placement === 'copy' && isInsideInstance(root)) return 'is inside an instance, where a copy cannot be inserted; use "Replace in place" for it';
  const main = placement === 'copy' ? mainComponentAround(root) : undefined;
  if (main) return `is inside the main component "${main.name}", where a copy would appear in every instance; select the component to copy it whole, or use "Replace in place"`;
  const hidden = includeHidden ? undefined : hiddenLayerOver(root);
  return hidden && hiddenReason(root, hidden);
}

const NOT_SENT = 'hidden layers are not sent (tick "Include hidden layers and fills" to correct them)';

/** Why a selected layer that cannot be seen is left out: `hidden` is the layer itself or the hidden layer it is in (and which instance that is in). */
function hiddenReason(root: SceneNode, hidden: SceneNode): string {
  const instance = instanceAround(hidden);
  if (hidden === root) return `is hidden${instance ? ` inside the instance "${instance.name}"` : ''}; ${NOT_SENT}`;
  return `is inside the hidden layer "${hidden.name}"${instance ? ` of the instance "${instance.name}"` : ''}, so it cannot be seen; ${NOT_SENT}`;
}

/**
 * The selected layers the walk takes, and those it leaves out, with why.
 * Decided with the invisible layers inside instances readable (host.ts
 * `readingHiddenLayers`): the user can select one in the layers panel, and
 * whether a layer is hidden is known only by reading it. Such a layer counts
 * as hidden, so it is left out unless hidden layers are included, and a run
 * that includes them walks with those layers readable: every layer taken can
 * be read during the walk.
 */
function triageSelection(figma: FigmaApi, placement: Placement, includeHidden: boolean): { taken: SceneNode[]; skipped: Skip[] } {
  return readingHiddenLayers(figma, () => {
    const selection = figma.currentPage.selection;
    const selectedIds = new Set(selection.map((n) => n.id));
    const taken: SceneNode[] = [];
    const skipped: Skip[] = [];
    for (const root of selection) {
      const reason = rootSkipReason(root, placement, includeHidden, selectedIds);
      if (reason === undefined) taken.push(root);
      else if (reason) skipped.push(skip(root, reason));
    }
    return { taken, skipped };
  });
}

/** The image paints of a layer the run would change: visible ones, or all with `includeHidden`; never a keeper (keepers.ts). */
function countedImagePaints(node: FillNode, fills: ReadonlyArray<Paint>, includeHidden: boolean): ImagePaint[] {
  const keepers = keeperIndices(node, fills);
  return fills.filter((p, i): p is ImagePaint => p.type === 'IMAGE' && (includeHidden || p.visible !== false) && !keepers.has(i));
}

/**
 * What the run does with a layer: the image paints it changes, and what it
 * leaves alone and why (reported once per layer).
 */
function examineLayer(figma: FigmaApi, node: FillNode, placement: Placement, includeHidden: boolean): { paints: ImagePaint[]; notes: string[] } {
  const fills = node.fills;
  if (fills === figma.mixed) return { paints: [], notes: ['has mixed fills (text with several fill styles); left unchanged'] };
  const notes = fills.some((p) => p.type === 'VIDEO') ? ['has a video fill; only images can be corrected'] : [];
  const counted = countedImagePaints(node, fills, includeHidden);
  if (counted.some((p) => !p.imageHash)) notes.push('has an image fill without image data');
  const paints = counted.filter((p) => p.imageHash);
  if (placement === 'replace' && paints.length > 0 && linkedToStyle(node)) {
    const style = 'takes its fills from a paint style; replacing them would detach it from the style, so it is left unchanged (correct the image where the style is defined, or detach the style first; "Insert as copy" works too)';
    return { paints: [], notes: [...notes, style] };
  }
  return { paints, notes };
}

/** Count one image fill of `node` under its image. */
function addFill(images: Map<string, CollectedImage>, hash: string, node: SceneNode): void {
  let entry = images.get(hash);
  if (!entry) {
    entry = { hash, nodeIds: new Set(), nodeNames: [], fillCount: 0 };
    images.set(hash, entry);
  }
  entry.fillCount += 1;
  entry.recorded ??= recordedOriginal(node, hash);
  if (!entry.nodeIds.has(node.id)) {
    entry.nodeIds.add(node.id);
    if (entry.nodeNames.length < 3) entry.nodeNames.push(node.name);
  }
}

/**
 * Walk the selection. A layer that cannot be seen — hidden itself or inside a
 * hidden frame or group — is left out unless `includeHidden`. With
 * `placement: 'copy'`, selected layers inside an instance are skipped (a
 * duplicate cannot be added there), and so are those inside a main component
 * (a duplicate would appear in all its instances).
 */
export function collectSelection(figma: FigmaApi, placement: Placement = 'replace', includeHidden = false): Collection {
  const images = new Map<string, CollectedImage>();
  const { taken, skipped } = triageSelection(figma, placement, includeHidden);
  const roots: Collection['roots'] = [];
  const seen = new Set<string>();
  const components = new Map<string, ComponentNode>();
  for (const root of taken) {
    const hashes = new Set<string>();
    roots.push({ id: root.id, hashes });
    for (const node of layersWithFills(root)) {
      if (!hasFills(node)) continue;
      if (!includeHidden && !shownBelow(node, root)) continue;
      // A layer selected on its own and inside a selected frame is corrected once,
      // but its images still count for the frame's copy.
      const first = !seen.has(node.id);
      seen.add(node.id);
      const { paints, notes } = examineLayer(figma, node, placement, includeHidden);
      for (const paint of paints) hashes.add(paint.imageHash ?? '');
      if (!first) continue;
      skipped.push(...notes.map((reason) => skip(node, reason)));
      if (paints.length > 0 && placement === 'replace') noteComponent(node, components);
      for (const paint of paints) addFill(images, paint.imageHash ?? '', node);
    }
  }
  return { images, skipped, roots, layers: seen.size, components: [...components.values()] };
}

/** Whether the layer's fills are a paint style's (typings: MinimalFillsMixin.fillStyleId, '' when none). */
function linkedToStyle(node: FillNode): boolean {
  const id = 'fillStyleId' in node ? node.fillStyleId : '';
  return typeof id === 'string' && id !== '';
}

/** Whether a layer found below `root` is shown: it and every ancestor up to `root`. */
function shownBelow(node: BaseNode, root: BaseNode): boolean {
  for (let n: BaseNode | null = node; n && n !== root; n = n.parent) if ('visible' in n && !n.visible) return false;
  return true;
}

/** The main component a layer belongs to (itself or an ancestor), if any. */
function noteComponent(node: BaseNode, into: Map<string, ComponentNode>): void {
  for (let n: BaseNode | null = node; n; n = n.parent) {
    if (n.type === 'INSTANCE') return; // an instance's layers are overrides, local to it
    if (n.type === 'COMPONENT') {
      into.set(n.id, n);
      return;
    }
  }
}

/**
 * Warnings for replacing images in main components: the change shows in
 * every instance that does not override the image.
 */
export async function componentWarnings(components: readonly ComponentNode[]): Promise<string[]> {
  const out: string[] = [];
  for (const c of components) {
    const instances = await instanceCount(c);
    if (instances > 0) out.push(`"${c.name}" is a main component: replacing its images changes its ${instances} instance${instances === 1 ? '' : 's'} as well. Use "Insert as copy" to leave them as they are.`);
  }
  return out;
}

/**
 * How many instances a main component has: none once it is deleted. Each lookup waits on Figma, while the user (or
 * another, in multiplayer) may delete one, and asking then fails: "check that the nodes haven't been removed"
 * (typings `BaseNodeMixin.removed`).
 */
async function instanceCount(c: ComponentNode): Promise<number> {
  try {
    return (await c.getInstancesAsync()).length;
  } catch (err) {
    if (c.removed) return 0;
    throw err;
  }
}

/** Counts for the header; reads no image bytes. */
export function summarise(figma: FigmaApi): SelectionSummary {
  const c = collectSelection(figma);
  let fills = 0;
  for (const img of c.images.values()) fills += img.fillCount;
  return { layers: figma.currentPage.selection.length, images: c.images.size, fills };
}

function where(img: CollectedImage): string {
  const more = img.nodeIds.size - img.nodeNames.length;
  return img.nodeNames.join(', ') + (more > 0 ? ` and ${more} more` : '');
}

/** Progress of planning, and a way to stop it (set by the UI's Cancel). */
export interface PlanControl {
  cancelled(): boolean;
  progress(done: number, total: number): void;
}

/**
 * What a run sends for an image it changes: the image itself or, for an image
 * this plugin corrected before, that image's original, so a second correction
 * (other options, "Correct again") replaces the first instead of correcting
 * its result once more (sharpening, contrast and colour twice over).
 */
export interface Source {
  /** The image whose bytes are sent. */
  hash: string;
  /** Where an original is sent in place of its corrected image: the part of it the corrected image shows. */
  shown?: CropRegion;
  /** What the user should know, for the image's row. */
  note?: string;
}

function sourceOf(figma: FigmaApi, img: CollectedImage): Source {
  const recorded = img.recorded;
  if (!recorded) return { hash: img.hash };
  if (!figma.getImageByHash(recorded.hash)) {
    return { hash: img.hash, note: 'corrected before, and its original is no longer in this file: the corrected image is corrected once more' };
  }
  if (!recorded.region) {
    return { hash: img.hash, note: 'corrected before with a crop the service did not report, so its original cannot be framed like it: the corrected image is corrected once more (restore the original first to correct from it)' };
  }
  return { hash: recorded.hash, shown: recorded.region, note: 'corrected before: corrected again from its original, replacing the earlier correction' };
}

/**
 * Plan each distinct image without reading its bytes (its pixel size comes
 * from `getSizeAsync`): a resize that keeps the output within Figma's
 * 4096 px. The bytes are read once, when the image's turn comes
 * (`image/read`), which is also where GIFs and other formats are skipped.
 */
export async function planImages(figma: FigmaApi, collection: Collection, resize: ResizeChoice, control: PlanControl): Promise<ImagePlan> {
  const plan: ImagePlan = { images: [], skipped: [], sources: new Map(), alsoShown: new Map() };
  const bySource = new Map<string, ImageJob>();
  const total = collection.images.size;
  let done = 0;
  for (const img of collection.images.values()) {
    if (control.cancelled()) throw new Error('Cancelled');
    const source = sourceOf(figma, img);
    if (source.hash !== img.hash) plan.sources.set(img.hash, source);
    const joined = bySource.get(source.hash);
    if (joined) {
      joinJob(joined, img, source);
      plan.alsoShown.set(joined.hash, [...(plan.alsoShown.get(joined.hash) ?? []), img.hash]);
    } else {
      const job = await planJob(figma, img, source, resize);
      if ('reason' in job) plan.skipped.push(job);
      else {
        plan.images.push(job);
        bySource.set(source.hash, job);
      }
    }
    control.progress(++done, total);
  }
  return plan;
}

/**
 * The images a run corrects, and what it knows of the others: images corrected before, by hash, with the
 * original sent in their place (`sources`); and where an original and images corrected from it are all in
 * the selection (a layer showing the original beside one showing its earlier result), the one job they share,
 * by the hash it goes under, with the other images its result replaces (`alsoShown`): the original is sent once.
 */
export interface ImagePlan {
  images: ImageJob[];
  skipped: Skip[];
  sources: Map<string, Source>;
  alsoShown: Map<string, string[]>;
}

/** The job of one image, sending `source`'s bytes; a skip where they are not in the file. */
async function planJob(figma: FigmaApi, img: CollectedImage, source: Source, resize: ResizeChoice): Promise<ImageJob | Skip> {
  const image = figma.getImageByHash(source.hash);
  const skipped = (reason: string): Skip => ({ nodeId: img.nodeIds.values().next().value ?? '', nodeName: where(img), reason });
  if (!image) return skipped('image data is not available in this file');
  let size: { width: number; height: number };
  try {
    size = await readImage(() => image.getSizeAsync());
  } catch (err) {
    // One image Figma cannot read is skipped, saying so; the selection's other images are still corrected.
    if (!(err instanceof ImageUnreadable)) throw err;
    return skipped(`could not be read from Figma (${err.detail}), so it was left unchanged; run the plugin again to correct it`);
  }
  const plan = planResize(resize, size);
  return {
    hash: img.hash,
    width: size.width,
    height: size.height,
    fillCount: img.fillCount,
    nodeCount: img.nodeIds.size,
    nodeNames: img.nodeNames,
    resize: plan.request,
    expected: plan.expected,
    notes: source.note ? [source.note, ...plan.notes] : plan.notes,
  };
}

/** Count `img`, which sends the same original, in `job`: its fills and layers take the same result. */
function joinJob(job: ImageJob, img: CollectedImage, source: Source): void {
  job.fillCount += img.fillCount;
  job.nodeCount += img.nodeIds.size;
  job.nodeNames = [...job.nodeNames, ...img.nodeNames].slice(0, 3);
  if (source.note && !job.notes.includes(source.note)) job.notes.unshift(source.note);
}

/** An image's bytes and format for correction, or why it is skipped (GIF, other formats). */
export async function readForCorrection(figma: FigmaApi, hash: string): Promise<{ bytes: Uint8Array; format: 'png' | 'jpeg' } | { skip: string }> {
  const image = figma.getImageByHash(hash);
  if (!image) throw new Error('the image is no longer in this file');
  const bytes = await readImage(() => image.getBytesAsync());
  const header = readImageHeader(bytes);
  if (header.format === 'gif') return { skip: 'is a GIF; the correction service takes JPEG and PNG only, so it was left unchanged' };
  if (header.format !== 'png' && header.format !== 'jpeg') return { skip: `is in a format the correction service does not take (${header.format}); JPEG and PNG only` };
  return { bytes, format: header.format };
}
