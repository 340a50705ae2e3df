/**
 * Live DOM objects of the simulated Photoshop, like the real ones: a `Layer`
 * or `Document` is a handle by id whose properties read the current state.
 */
import type { PsBounds, PsDocument, PsHistoryState, PsLayer, PsSelection } from '../../src/host/types';
import { boundsOf, heldLocks, joinsClipping, locate, lockedGroupAround, ownLocks, selectionBoundsOf, type DocState, type HistoryEntry, type LayerNode } from './state';
import type { SimPhotoshopCore } from './photoshop';

export class SimLayer implements PsLayer {
  constructor(
    private readonly core: SimPhotoshopCore,
    private readonly docId: number,
    readonly id: number,
  ) {}

  private get found() {
    const doc = this.core.doc(this.docId);
    const found = locate(doc.layers, this.id);
    if (!found) throw new Error(`simulator: layer ${this.id} no longer exists`);
    return { doc, ...found };
  }
  get name(): string {
    return this.found.node.name;
  }
  get kind() {
    return this.found.node.kind;
  }
  get visible(): boolean {
    return this.found.node.visible;
  }
  /**
   * Lock All "prevents edits to pixels and properties of this layer" (classes/layer.md:37) and names no exception for
   * visibility, so hiding or showing a locked layer is refused too (the stricter reading).
   */
  set visible(value: boolean) {
    this.checkNotAllLocked('visibility');
    this.core.mutate(this.docId, value ? 'Show Layer' : 'Hide Layer', () => {
      this.found.node.visible = value;
    });
  }
  get blendMode(): string {
    return this.found.node.blendMode ?? 'normal';
  }
  /** Photoshop 24.2 and later throw for the Background rather than converting it (classes/layer.md:38). */
  set blendMode(mode: string) {
    if (this.found.node.isBackground) throw new Error('The blend mode of the background layer cannot be changed');
    this.checkNotAllLocked('blend mode');
    this.core.mutate(this.docId, 'Blending Change', () => {
      this.found.node.blendMode = mode;
    });
  }
  get opacity(): number {
    return this.found.node.opacity ?? 100;
  }
  set opacity(value: number) {
    if (!(value >= 0 && value <= 100)) throw new Error('opacity must be between 0 and 100');
    // "You cannot change … a background layer['s] … opacity" (Photoshop Help, "Convert background and layers").
    if (this.found.node.isBackground) throw new Error('The opacity of the background layer cannot be changed');
    this.checkNotAllLocked('opacity');
    this.core.mutate(this.docId, 'Opacity Change', () => {
      this.found.node.opacity = value;
    });
  }
  get fillOpacity(): number {
    return this.found.node.fillOpacity ?? 100;
  }
  set fillOpacity(value: number) {
    if (!(value >= 0 && value <= 100)) throw new Error('fillOpacity must be between 0 and 100');
    if (this.found.node.isBackground) throw new Error('The background layer has no fill opacity');
    this.checkNotAllLocked('fill opacity');
    this.core.mutate(this.docId, 'Fill Opacity Change', () => {
      this.found.node.fillOpacity = value;
    });
  }
  get isClippingMask(): boolean {
    return this.found.node.clipped === true;
  }
  /**
   * Clip to the layer below (Layer > Create Clipping Mask), which needs one and is not done to the Background;
   * releasing "will also release the layers above" (classes/layer.md `isClippingMask`): the clipped run above it.
   * Clipping is a property, which Lock All keeps (classes/layer.md:37): of this layer, and of those it releases.
   */
  set isClippingMask(clipped: boolean) {
    const { doc, node, siblings } = this.found;
    const at = siblings.indexOf(node);
    if (clipped && (node.isBackground || at === siblings.length - 1)) throw new Error('Create Clipping Mask is not available for this layer');
    this.checkNotAllLocked('clipping');
    const released = clipped || !node.clipped ? [] : clippedRunAbove(siblings, at);
    const locked = released.find((l) => heldLocks(doc.layers, l.id).all);
    if (locked) throw new Error(`Could not release the clipping mask because "${locked.name}" is locked`);
    this.core.mutate(this.docId, clipped ? 'Create Clipping Mask' : 'Release Clipping Mask', () => {
      node.clipped = clipped;
      for (const layer of released) layer.clipped = false;
    });
  }
  get layerMaskDensity(): number {
    return this.withMask().maskDensity ?? 100;
  }
  set layerMaskDensity(value: number) {
    this.setMaskProperty('layerMaskDensity', 'maskDensity', value, 100);
  }
  get layerMaskFeather(): number {
    return this.withMask().maskFeather ?? 0;
  }
  set layerMaskFeather(value: number) {
    this.setMaskProperty('layerMaskFeather', 'maskFeather', value, 1000);
  }
  /** A layer without a user mask has no density or feather to read or set. */
  private withMask() {
    const { node } = this.found;
    if (!node.mask) throw new Error(`The layer "${node.name}" has no layer mask`);
    return node;
  }
  /** Density (0–100 %) and feather (0.0–1000.0 px) of the user mask, as classes/layer.md gives their ranges. */
  private setMaskProperty(property: string, key: 'maskDensity' | 'maskFeather', value: number, max: number): void {
    if (!(value >= 0 && value <= max)) throw new Error(`${property} must be between 0 and ${max}`);
    const node = this.withMask();
    this.checkNotAllLocked(property);
    this.core.mutate(this.docId, 'Layer Mask Properties', () => {
      node[key] = value;
    });
  }
  /**
   * Lock All "prevents edits to pixels and properties of this layer" (classes/layer.md:37), its own or a group's around
   * it (see `heldLocks`). Photoshop's wording for the refusal is not documented.
   */
  private checkNotAllLocked(what: string): void {
    const { doc, node } = this.found;
    if (heldLocks(doc.layers, this.id).all) throw new Error(`Could not change the ${what} of "${node.name}" because the layer is locked`);
  }
  /**
   * The layer's own locks (classes/layer.md:37, :57, :58, :60; the Background's are in `ownLocks`). Whether a layer in
   * a locked group answers its group's lock is not documented: the simulator answers its own, so that the panel must
   * look at the groups around a layer itself.
   */
  get allLocked(): boolean {
    return ownLocks(this.found.node).all;
  }
  get pixelsLocked(): boolean {
    return ownLocks(this.found.node).pixels;
  }
  get positionLocked(): boolean {
    return ownLocks(this.found.node).position;
  }
  get transparentPixelsLocked(): boolean {
    return ownLocks(this.found.node).transparentPixels;
  }
  get isBackgroundLayer(): boolean {
    return this.found.node.isBackground;
  }
  /**
   * With effects: Photoshop widens a layer's `bounds` by what its style draws outside it (a drop shadow); the
   * simulator draws no effects but widens the bounds of a layer with a layer style by EFFECT_SPREAD, so code
   * that takes `bounds` for the region of the layer's pixels is caught.
   */
  get bounds(): PsBounds {
    const b = this.boundsNoEffects;
    const spread = this.found.node.effects && b.width > 0 ? EFFECT_SPREAD : 0;
    return box({ left: b.left - spread, top: b.top - spread, right: b.right + spread, bottom: b.bottom + spread });
  }
  /** The layer's own pixels (what `getPixels` reads). */
  get boundsNoEffects(): PsBounds {
    const { doc, node } = this.found;
    return box(boundsOf(doc, node));
  }
  get layers(): readonly PsLayer[] | null {
    const { node } = this.found;
    return node.children ? node.children.map((c) => new SimLayer(this.core, this.docId, c.id)) : null;
  }
  get parent(): PsLayer | null {
    const { parent } = this.found;
    return parent ? new SimLayer(this.core, this.docId, parent.id) : null;
  }

  /**
   * `Layer.move`: only `placeBefore` (above) is simulated. Lock Position "prevents the layer from being moved"
   * (classes/layer.md:58), and Lock All keeps everything; whether restacking counts as moving is not said, so both
   * refuse it here (the stricter reading), as does a locked group the layer would leave or enter (`lockedGroupAround`).
   */
  move(relativeObject: PsLayer, insertLocation: string): void {
    if (insertLocation !== 'placeBefore') throw new Error(`simulator: move(${insertLocation}) is not simulated`);
    this.core.mutate(this.docId, 'Move Layer', (doc) => {
      const from = locate(doc.layers, this.id);
      const to = locate(doc.layers, relativeObject.id);
      if (!from || !to) throw new Error('simulator: move to a layer of another document');
      if (from.node.isBackground) throw new Error('The background layer cannot be moved');
      const held = heldLocks(doc.layers, this.id);
      if (held.all || held.position) throw new Error(`Could not move "${from.node.name}" because the layer is locked`);
      const group = lockedGroupAround(doc.layers, to.parent) ?? lockedGroupAround(doc.layers, from.parent);
      if (group) throw new Error(`Could not move "${from.node.name}" because "${group.name}" is locked`);
      from.siblings.splice(from.siblings.indexOf(from.node), 1);
      to.siblings.splice(to.siblings.indexOf(to.node), 0, from.node);
      from.node.clipped = joinsClipping(to.siblings, from.node, this.core.clipsLayersOverClipped);
    });
  }
}

export class SimDocument implements PsDocument {
  constructor(
    private readonly core: SimPhotoshopCore,
    readonly id: number,
  ) {}

  private get state(): DocState {
    return this.core.doc(this.id);
  }
  get title(): string {
    return this.state.title;
  }
  get width(): number {
    return this.state.width;
  }
  get height(): number {
    return this.state.height;
  }
  get resolution(): number {
    return this.state.resolution;
  }
  get mode() {
    return this.state.mode;
  }
  get bitsPerChannel() {
    return this.state.bits;
  }
  /**
   * "Valid only when colorProfileType is CUSTOM or WORKING, returns "None" otherwise" (classes/document.md:94,
   * @types/photoshop dom/Document.d.ts:204-210): a custom or working profile answers its name, an untagged document "None".
   */
  get colorProfileName(): string {
    return this.state.profile ?? 'None';
  }
  get layers(): readonly PsLayer[] {
    return this.state.layers.map((l) => new SimLayer(this.core, this.id, l.id));
  }
  get activeLayers(): readonly PsLayer[] {
    return this.state.activeLayerIds.map((id) => new SimLayer(this.core, this.id, id));
  }
  /** "The artboards in the document" (classes/document.md:88): artboards are top-level groups. */
  get artboards(): readonly PsLayer[] {
    return this.state.layers.filter((l) => l.artboard).map((l) => new SimLayer(this.core, this.id, l.id));
  }
  /** `document.selection` (classes/document.md:74-78): its `bounds` are null when nothing is selected (classes/selection.md:23). */
  get selection(): PsSelection {
    const b = selectionBoundsOf(this.state);
    return { bounds: b && { ...b, width: b.right - b.left, height: b.bottom - b.top } };
  }
  /**
   * The History panel's states, oldest first (classes/historystates.md): those up to the active one, then those undone,
   * which Photoshop lists until the next edit. What it answers while the document's history is suspended
   * (executeasmodal.md:217-218: changes are "coalesced" into a state not made yet) is not documented: the simulator
   * refuses to answer then.
   */
  get historyStates(): readonly PsHistoryState[] {
    this.checkHistoryNotSuspended();
    return [...this.state.history, ...(this.state.undone ?? [])].map((h) => historyState(h));
  }
  /** "Currently active history state of the document" (classes/document.md:86): the last one not undone. */
  get activeHistoryState(): PsHistoryState {
    this.checkHistoryNotSuspended();
    return historyState(this.state.history.at(-1)!);
  }
  private checkHistoryNotSuspended(): void {
    if (this.state.suspension) throw new Error('simulator: the history of a document is not read while it is suspended (not documented)');
  }
}

/** A HistoryState's documented fields (classes/historystate.md:28-33) the panel reads. */
function historyState(entry: HistoryEntry): PsHistoryState {
  return { id: entry.id, name: entry.name };
}

/** The run of clipped layers directly above index `at` among `siblings` (topmost first), nearest first. */
function clippedRunAbove(siblings: readonly LayerNode[], at: number): LayerNode[] {
  const run: LayerNode[] = [];
  for (let i = at - 1; i >= 0 && siblings[i]!.clipped; i--) run.push(siblings[i]!);
  return run;
}

/** How far the simulator's layer styles reach outside a layer's pixels, pixels. */
const EFFECT_SPREAD = 10;

function box(r: { left: number; top: number; right: number; bottom: number }): PsBounds {
  return { ...r, width: r.right - r.left, height: r.bottom - r.top };
}
