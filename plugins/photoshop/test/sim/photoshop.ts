/**
 * A simulated `photoshop` module: app/documents, `core.executeAsModal` with
 * history suspension, `action.batchPlay` (every descriptor recorded; the few
 * the panel uses are carried out, anything else answers with an error
 * descriptor, as Photoshop does for an unknown command), and the imaging API
 * (in `imaging.ts`). Changes outside a modal scope throw, as in Photoshop.
 */
import { native } from './native';
import type {
  PhotoshopModule, PsBatchPlayOptions, PsDescriptor, PsDocument, PsDocumentCreateOptions, PsExecutionContext,
} from '../../src/host/types';
import type { SimCodec } from './codec';
import { SimDocument } from './dom';
import { SimImaging } from './imaging';
import { boundsOf, heldLocks, joinsClipping, locate, lockedGroupAround, newDocument, newId, record, restore, snapshot, undo, type DocState, type LayerNode } from './state';

export class SimPhotoshopCore {
  readonly docs = new Map<number, DocState>();
  activeId: number | undefined;
  /** Every batchPlay call, in order, as sent. */
  readonly batchPlayLog: PsDescriptor[][] = [];
  /** Every reportProgress call, with the modal scope's name. */
  readonly progressLog: { command: string; value?: number; commandName?: string }[] = [];
  /** Every executeAsModal command name, in order. */
  readonly modalLog: string[] = [];
  private modalDepth = 0;
  private cancelNext = false;
  /** The running modal scope; Photoshop runs one at a time, for all plug-ins (executeasmodal.md:71). */
  private scope: { cancelled: boolean; autoClose: Set<number> } | undefined;
  /** Another plug-in (or a dialog) holds Photoshop's modal state. */
  heldByOther: string | undefined;
  /**
   * Photoshop 25.10 or later, which retries a refused executeAsModal for its `timeOut` (executeasmodal.md:69-71);
   * false: 25.2 to 25.9 (the panel's floor is 25.2), where the option is not known and a refusal comes at once.
   */
  retriesForTimeOut = true;
  /**
   * A layer made or moved directly above a clipped layer joins its clipping mask. Photoshop's help documents this
   * only for a layer put between layers of a clipping mask (which the simulator always does); above the topmost
   * clipped layer it is not documented, so tests run both ways.
   */
  clipsLayersOverClipped = true;
  /** Called at the start of every modal scope; tests use it to pause or cancel mid-run. */
  onModal: ((commandName: string) => Promise<void> | void) | undefined;
  /**
   * Called as each call into Photoshop starts (batchPlay, an imaging call, a DOM setter, a history suspension…), with
   * its name, before it checks for a cancel; tests press Escape here to cancel at one exact step.
   */
  beforeCall: ((call: string) => void) | undefined;

  constructor(readonly codec: SimCodec) {}

  doc(id: number): DocState {
    const doc = this.docs.get(id);
    if (!doc) throw new Error(`simulator: document ${id} is not open`);
    return doc;
  }

  addDocument(doc: DocState): DocState {
    this.docs.set(doc.id, doc);
    this.activeId = doc.id;
    return doc;
  }

  /** The next modal scope reports `isCancelled` (as if the user pressed Escape). */
  cancelNextModal(): void {
    this.cancelNext = true;
  }

  /** Escape in Photoshop's progress bar, now: `isCancelled` turns true and Photoshop calls throw. */
  cancelCurrentModal(): void {
    if (this.scope) this.scope.cancelled = true;
  }

  /**
   * Photoshop refuses commands in a cancelled scope: "Photoshop APIs such as `batchPlay` will raise an exception if
   * they are invoked from a target function after the user has cancelled the interaction" (executeasmodal.md:104),
   * and "When the user cancels a modal scope, then JavaScript cannot make any further document changes until it
   * returns from the modal scope" (executeasmodal.md:291). Every call into Photoshop checks this: batchPlay, the
   * imaging API, DOM setters (through `mutate`) and `hostControl`'s history and auto-close-unregister calls, whose
   * behaviour after a cancel the docs do not give: the simulator, the stricter host, refuses them too (Photoshop
   * rolls a suspension back itself when the scope then ends by an exception, executeasmodal.md:271).
   */
  checkNotCancelled(call: string, scope = this.scope): void {
    this.beforeCall?.(call);
    if (scope?.cancelled) throw new Error('User cancelled the operation');
  }

  get inModal(): boolean {
    return this.modalDepth > 0;
  }

  /** Refuse what Photoshop (or, where its docs are silent, the simulator) allows in a modal scope only. */
  checkModal(): void {
    if (!this.inModal) throw new Error('Photoshop is not in a modal state: call executeAsModal first');
  }

  /** Apply a change to a document: in a modal scope only, one history step unless history is suspended. */
  mutate(docId: number, stepName: string, change: (doc: DocState) => void): void {
    this.checkModal();
    this.checkNotCancelled(stepName);
    const doc = this.doc(docId);
    change(doc);
    if (!doc.suspension) record(doc, stepName);
  }

  async executeAsModal<T>(fn: (context: PsExecutionContext) => Promise<T>, options: { commandName: string; timeOut?: number }): Promise<T> {
    if (typeof options?.commandName !== 'string') throw new Error('executeAsModal needs options.commandName');
    if (options.timeOut !== undefined && !(typeof options.timeOut === 'number' && options.timeOut >= 0)) throw new Error('executeAsModal: timeOut must be a number of seconds');
    // timeOut (25.10+): "If an existing modal state is encountered at execution, this request will retry until
    // this duration of seconds has passed" (ps_reference/objects/returnobjects/executeasmodaloptions). Without it, at once.
    const until = Date.now() + (this.retriesForTimeOut ? options.timeOut ?? 0 : 0) * 1000;
    while ((this.heldByOther !== undefined || this.modalDepth > 0) && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    if (this.heldByOther !== undefined || this.modalDepth > 0) throw modalBusyError(this.heldByOther);
    this.modalLog.push(options.commandName);
    const scope = { cancelled: this.cancelNext, autoClose: new Set<number>() };
    this.cancelNext = false;
    this.scope = scope;
    const context: PsExecutionContext = {
      get isCancelled() {
        return scope.cancelled;
      },
      reportProgress: (p) => {
        if (p.value !== undefined && !(p.value >= 0 && p.value <= 1)) throw new Error('reportProgress: value must be between 0 and 1');
        this.progressLog.push({ command: options.commandName, ...p });
      },
      hostControl: {
        suspendHistory: async ({ documentID, name }) => {
          this.checkNotCancelled('suspendHistory', scope);
          const doc = this.doc(documentID);
          if (doc.suspension) throw new Error('history is already suspended on this document');
          const id = newId();
          doc.suspension = { id, name, before: snapshot(doc, name) };
          return { historySuspensionID: id };
        },
        // Allowed after a cancel: it is how "proper clean up of temporary documents" is ensured (executeasmodal.md:291),
        // and a document made just before the cancel could otherwise be closed by nobody.
        registerAutoCloseDocument: async (documentID) => {
          this.doc(documentID);
          scope.autoClose.add(documentID);
        },
        unregisterAutoCloseDocument: async (documentID) => {
          this.checkNotCancelled('unregisterAutoCloseDocument', scope);
          scope.autoClose.delete(documentID);
        },
        resumeHistory: async ({ historySuspensionID }, commit = true) => {
          this.checkNotCancelled('resumeHistory', scope);
          const doc = [...this.docs.values()].find((d) => d.suspension?.id === historySuspensionID);
          if (!doc?.suspension) throw new Error('unknown history suspension');
          const { name, before } = doc.suspension;
          doc.suspension = undefined;
          if (commit) record(doc, name);
          else restore(doc, before);
        },
      },
    };
    this.modalDepth++;
    let threw = false;
    try {
      await this.onModal?.(options.commandName);
      return await fn(context);
    } catch (err) {
      threw = true;
      throw err;
    } finally {
      this.modalDepth--;
      this.scope = undefined;
      // executeasmodal.md "Automatic document closing": closed without saving when the scope fails or is cancelled.
      if (threw || scope.cancelled) for (const id of scope.autoClose) this.closeDocument(id);
      // executeasmodal.md:271: an unresumed suspension is committed when the scope returns, rolled back when it throws.
      for (const doc of this.docs.values()) if (doc.suspension && !this.inModal) {
        if (threw) restore(doc, doc.suspension.before);
        else record(doc, doc.suspension.name);
        doc.suspension = undefined;
      }
    }
  }

  async batchPlay(commands: PsDescriptor[], _options: PsBatchPlayOptions): Promise<PsDescriptor[]> {
    this.batchPlayLog.push(native.structuredClone(commands));
    this.checkNotCancelled(`batchPlay ${commands.map((d) => d._obj).join(', ')}`);
    const results: PsDescriptor[] = [];
    for (const d of commands) {
      try {
        results.push(this.playOne(d));
      } catch (err) {
        results.push({ _obj: 'error', message: (err as Error).message, result: -25920 });
        break;
      }
    }
    return results;
  }

  private playOne(d: PsDescriptor): PsDescriptor {
    const target = d._target?.[0];
    if (d._obj === 'select' && target?._ref === 'document') {
      this.doc(target._id);
      if (!this.inModal) throw new Error('Photoshop is not in a modal state');
      this.activeId = target._id;
      return { _obj: 'select' };
    }
    if (d._obj === 'get') return this.getProperty(d);
    const docId = this.activeId;
    if (docId === undefined) throw new Error('no document is open');
    if (d._obj === 'select' && target?._ref === 'layer' && typeof target._id === 'number') {
      if (!locate(this.doc(docId).layers, target._id)) throw new Error(`The layer ${target._id} is not available`);
      // Selecting a layer is not a history step in Photoshop (by default), but still needs the modal scope.
      if (!this.inModal) throw new Error('Photoshop is not in a modal state');
      this.doc(docId).activeLayerIds = [target._id];
      return { _obj: 'select', layerID: [target._id] };
    }
    if (d._obj === 'make' && target?._ref === 'layer' && d.using?._obj === 'layer') {
      const id = newId();
      this.mutate(docId, 'New Layer', (doc) => {
        const node: LayerNode = {
          id, name: String(d.using.name ?? 'Layer'), kind: 'pixel', visible: true, isBackground: false,
          pixels: new Uint8Array(doc.width * doc.height * 4), children: null,
        };
        const active = doc.activeLayerIds[0] !== undefined ? locate(doc.layers, doc.activeLayerIds[0]) : undefined;
        // Like Photoshop: above the selected layer, or at the top inside a selected group (or artboard)…
        const parent = !active ? null : active.node.children ? active.node : active.parent;
        // …unless that is inside a locked group: refused as Photoshop answers a Make it cannot do
        // (adobe-photoshop/spaces-design#1399: -25920 "The command “Make” is not currently available.").
        if (lockedGroupAround(doc.layers, parent)) throw new Error('The command “Make” is not currently available.');
        const siblings = !active ? doc.layers : active.node.children ?? active.siblings;
        siblings.splice(!active || active.node.children ? 0 : siblings.indexOf(active.node), 0, node);
        node.clipped = joinsClipping(siblings, node, this.clipsLayersOverClipped);
        doc.activeLayerIds = [id];
      });
      return { _obj: 'make', layerID: id };
    }
    throw new Error(`simulator: "${d._obj}" is not simulated`);
  }

  /**
   * "get" with a property reference, then layer and document id references (batchplay.md:226-240). Only the
   * layer properties the panel reads are simulated: `hasVectorMask` is always answered; `layerEffects`,
   * `userMaskEnabled` and `blendRange` only when the layer has effects, a user mask, Blend If (an empty answer otherwise).
   */
  private getProperty(d: PsDescriptor): PsDescriptor {
    const [prop, layer, doc] = (d._target ?? []) as { _property?: string; _ref?: string; _id?: number }[];
    if (!prop?._property || layer?._ref !== 'layer' || doc?._ref !== 'document' || typeof layer._id !== 'number' || typeof doc._id !== 'number') {
      throw new Error('simulator: only "get" of a layer property by layer and document id is simulated');
    }
    const found = locate(this.doc(doc._id).layers, layer._id);
    if (!found) throw new Error(`The layer ${layer._id} is not available`);
    // A "get" answer carries the properties only, no _obj (batchplay.md:241-244); PsDescriptor types it with one.
    if (prop._property === 'hasVectorMask') return { hasVectorMask: found.node.vectorMask === true } as unknown as PsDescriptor;
    if (prop._property === 'layerEffects') return (found.node.effects ? { layerEffects: native.structuredClone(found.node.effects) } : {}) as PsDescriptor;
    // Without a user mask there is nothing to answer (the layer descriptor has no userMaskEnabled then).
    if (prop._property === 'userMaskEnabled') return (found.node.mask ? { userMaskEnabled: found.node.maskEnabled !== false } : {}) as PsDescriptor;
    if (prop._property === 'blendRange') return (found.node.blendRange ? { blendRange: native.structuredClone(found.node.blendRange) } : {}) as PsDescriptor;
    throw new Error(`simulator: the layer property "${prop._property}" is not simulated`);
  }

  /** `documents.add` (modal scope only): an RGB document with one empty (transparent) layer. */
  async addNewDocument(o: PsDocumentCreateOptions): Promise<PsDocument> {
    if (!this.inModal) throw new Error('Photoshop is not in a modal state');
    this.checkNotCancelled('documents.add');
    if (o.mode !== 'RGBColorMode' || o.fill !== 'transparent') throw new Error('simulator: only transparent RGB documents are simulated');
    const width = o.width ?? 0;
    const height = o.height ?? 0;
    if (!(width >= 1 && height >= 1)) throw new Error('documents.add: width and height must be at least 1 pixel');
    const doc = newDocument({
      title: o.name ?? 'Untitled-1', width, height, pixels: new Uint8Array(width * height * 4), channels: 4,
      bits: o.depth === 16 ? 'bitDepth16' : o.depth === 32 ? 'bitDepth32' : 'bitDepth8', profile: o.profile, resolution: o.resolution,
    });
    doc.layers[0]!.name = 'Layer 1';
    doc.history = [{ ...doc.history[0]!, name: 'New' }];
    return new SimDocument(this, this.addDocument(doc).id);
  }

  /**
   * The user, between the panel's modal scopes, drags a layer with the Move tool by (dx, dy) pixels: its pixels and
   * its user mask go along (linked, as Photoshop links a new mask), one history step. Refused while a modal scope
   * runs: "Photoshop enters a modal user interaction state" then (executeasmodal.md:14), so no test can do for the
   * user what the user cannot do. Pixels leaving the canvas are dropped: the simulator keeps none outside it.
   */
  userMovesLayer(docId: number, layerId: number, dx: number, dy: number): void {
    this.userEdits(docId, 'Move', (doc) => {
      const node = this.userPixelLayer(doc, layerId);
      if (heldLocks(doc.layers, layerId).position || heldLocks(doc.layers, layerId).all) throw new Error('simulator: a locked layer cannot be moved');
      node.pixels = shifted(node.pixels!, doc.width, doc.height, 4, dx, dy, 0);
      if (node.mask) node.mask = shifted(node.mask, doc.width, doc.height, 1, dx, dy, 255);
    });
  }

  /** The user crops the canvas to `rect` (Image > Crop with a selection, or the Crop tool), between modal scopes: one history step. */
  userCrops(docId: number, rect: { left: number; top: number; right: number; bottom: number }): void {
    this.userEdits(docId, 'Crop', (doc) => this.crop(doc, rect));
  }

  private crop(doc: DocState, rect: { left: number; top: number; right: number; bottom: number }): void {
    if (!(rect.left >= 0 && rect.top >= 0 && rect.right <= doc.width && rect.bottom <= doc.height && rect.right > rect.left && rect.bottom > rect.top)) {
      throw new Error('simulator: a crop inside the canvas only');
    }
    const [width, height] = [rect.right - rect.left, rect.bottom - rect.top];
    const cut = (data: Uint8Array, components: number) => {
      const out = new Uint8Array(width * height * components);
      for (let y = 0; y < height; y++) out.set(data.subarray(((rect.top + y) * doc.width + rect.left) * components, ((rect.top + y) * doc.width + rect.right) * components), y * width * components);
      return out;
    };
    const visit = (layers: LayerNode[]) => {
      for (const l of layers) {
        if (l.pixels) l.pixels = cut(l.pixels, 4);
        if (l.mask) l.mask = cut(l.mask, 1);
        if (l.children) visit(l.children);
      }
    };
    visit(doc.layers);
    doc.selection = undefined;
    doc.width = width;
    doc.height = height;
  }

  /**
   * The user paints `rgba` (one colour) over `rect` of a pixel layer with the Brush tool, between modal scopes: one
   * history step. Inside the layer's pixels its bounds stay as they were, so only the history tells it changed.
   */
  userPaints(docId: number, layerId: number, rect: { left: number; top: number; right: number; bottom: number }, rgba: readonly number[]): void {
    this.userEdits(docId, 'Brush Tool', (doc) => {
      const node = this.userPixelLayer(doc, layerId, 'painted');
      for (let y = rect.top; y < rect.bottom; y++) for (let x = rect.left; x < rect.right; x++) node.pixels!.set(rgba, (y * doc.width + x) * 4);
    });
  }

  /** The user flips a pixel layer horizontally (Edit > Transform > Flip Horizontal) about its own bounds, which stay the same: one history step. */
  userFlipsLayer(docId: number, layerId: number): void {
    this.userEdits(docId, 'Flip Horizontal', (doc) => {
      const node = this.userPixelLayer(doc, layerId, 'transformed');
      const { left, right } = boundsOf(doc, node);
      const flipped = node.pixels!.slice();
      for (let y = 0; y < doc.height; y++) {
        for (let x = left; x < right; x++) flipped.set(node.pixels!.subarray((y * doc.width + x) * 4, (y * doc.width + x) * 4 + 4), (y * doc.width + (left + right - 1 - x)) * 4);
      }
      node.pixels = flipped;
    });
  }

  /**
   * The user selects `rect` with the Rectangular Marquee tool, between modal scopes (executeasmodal.md:14), changing no
   * pixel. A History state of its own, as Photoshop lists selection changes in the History panel and Undo takes them
   * back; the docs do not list which commands make a state (classes/historystate.md), and recording one is the stricter
   * host: the panel must then tell, by reading again, that nothing it read changed.
   */
  userSelects(docId: number, rect: { left: number; top: number; right: number; bottom: number }): void {
    this.userEdits(docId, 'Rectangular Marquee', (doc) => {
      const selection = new Uint8Array(doc.width * doc.height);
      for (let y = rect.top; y < rect.bottom; y++) selection.fill(255, y * doc.width + rect.left, y * doc.width + rect.right);
      doc.selection = selection;
    });
  }

  /** The user brings another open document to the front (its tab, or the Window menu), between modal scopes: no history step. */
  userSwitchesTo(docId: number): void {
    this.checkUserCanAct();
    this.doc(docId);
    this.activeId = docId;
  }

  /** Edit > Undo, between modal scopes: the document goes back to the previous history state. */
  userUndoes(docId: number): void {
    this.checkUserCanAct();
    undo(this.doc(docId));
  }

  /**
   * An edit the user makes in Photoshop, between the panel's modal scopes: Photoshop records each as a state of its own
   * in the History panel (a new id, classes/historystate.md:29), named after the command. Refused while a modal scope
   * runs: "Photoshop enters a modal user interaction state" then (executeasmodal.md:14), so no test can do for the user
   * what the user cannot do.
   */
  private userEdits(docId: number, stepName: string, change: (doc: DocState) => void): void {
    this.checkUserCanAct();
    const doc = this.doc(docId);
    change(doc);
    record(doc, stepName);
  }

  /**
   * The user clicks a layer's eye in the Layers panel, between modal scopes (executeasmodal.md:14): the layer is hidden
   * or shown, and no History state is added, as in Photoshop by default — "By default, turning layer visibility on or
   * off is not recorded as a history step and therefore can't be undone" (Photoshop User Guide, History options, *Make
   * Layer Visibility Changes Undoable*). What changes the composite without a state is the stricter host for a panel
   * that tells edits by the History panel.
   */
  userTogglesVisibility(docId: number, layerId: number): void {
    this.checkUserCanAct();
    const node = locate(this.doc(docId).layers, layerId)?.node;
    if (!node) throw new Error(`simulator: no layer ${layerId} in document ${docId}`);
    node.visible = !node.visible;
  }

  /** A pixel layer the user can change `how`: Lock All and Lock Image Pixels keep its pixels (classes/layer.md:37, :57). */
  private userPixelLayer(doc: DocState, layerId: number, how?: string): LayerNode {
    const node = locate(doc.layers, layerId)?.node;
    if (!node?.pixels) throw new Error(`simulator: layer ${layerId} is not a pixel layer of document ${doc.id}`);
    const held = heldLocks(doc.layers, layerId);
    if (how && (held.all || held.pixels)) throw new Error(`simulator: a locked layer cannot be ${how}`);
    return node;
  }

  /** What the user does in Photoshop waits for the modal state to end (executeasmodal.md:14), as does a dialog. */
  private checkUserCanAct(): void {
    if (this.inModal) throw new Error('simulator: the user cannot work in Photoshop while a plug-in holds its modal state');
  }

  closeDocument(id: number): void {
    this.docs.delete(id);
    if (this.activeId === id) this.activeId = [...this.docs.keys()].at(-1);
  }
}

/** A canvas-sized image of `components` per pixel shifted by (dx, dy), what is uncovered filled with `fill`. */
function shifted(data: Uint8Array, width: number, height: number, components: number, dx: number, dy: number, fill: number): Uint8Array {
  const out = new Uint8Array(data.length).fill(fill);
  for (let y = 0; y < height; y++) {
    const ty = y + dy;
    if (ty < 0 || ty >= height) continue;
    for (let x = 0; x < width; x++) {
      const tx = x + dx;
      if (tx < 0 || tx >= width) continue;
      for (let c = 0; c < components; c++) out[(ty * width + tx) * components + c] = data[(y * width + x) * components + c]!;
    }
  }
  return out;
}

/**
 * executeAsModal's refusal while Photoshop is in a modal state. Adobe documents the check `e.number == 9`
 * (executeasmodal.md:87-94) and English texts ("host is in a modal state", from 25.10 "Plugin: <id> is running a
 * modal command": executeasmodal.md:71-73); the text is Photoshop's UI language, so the simulator answers as a
 * German Photoshop would (its own wording: the German text is not documented), and only the number can tell.
 */
function modalBusyError(heldBy: string | undefined): Error & { number: number } {
  const byWhom = heldBy ? ` (Zusatzmodul ${heldBy} führt einen modalen Befehl aus)` : '';
  return Object.assign(new Error(`Photoshop befindet sich in einem modalen Zustand${byWhom}`), { number: 9 });
}

/** The module object the panel gets from `require('photoshop')`. */
export function createSimPhotoshop(core: SimPhotoshopCore): PhotoshopModule {
  return {
    app: {
      get documents() {
        const list = [...core.docs.keys()].map((id) => new SimDocument(core, id));
        return Object.assign(list, { add: (o: PsDocumentCreateOptions) => core.addNewDocument(o) });
      },
      get activeDocument() {
        return core.activeId !== undefined && core.docs.has(core.activeId) ? new SimDocument(core, core.activeId) : null;
      },
    },
    core: { executeAsModal: (fn, options) => core.executeAsModal(fn, options) },
    action: { batchPlay: (commands, options) => core.batchPlay(commands, options) },
    imaging: new SimImaging(core),
    constants: { ElementPlacement: { PLACEBEFORE: 'placeBefore' } },
  };
}
