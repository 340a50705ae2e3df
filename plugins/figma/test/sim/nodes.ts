/**
 * In-memory layers of the simulated document. Each class implements the
 * members the plugin uses, picked from the real `@figma/plugin-typings`
 * interfaces, so the compiler checks every one of them against Figma's types.
 * Behaviour follows Figma's documentation where the plugin relies on it, and
 * is stricter where the documentation leaves room:
 * - fills arrays and paints are frozen (they must be copied to change), an
 *   image fill must name an image the file has;
 * - pattern paints can only be set through `setFillsAsync` ("In order to set
 *   pattern fills, you must use the setFillsAsync method", typings
 *   `MinimalFillsMixin.fills`);
 * - a main component's change shows in every instance whose layer has no
 *   override of its own (component → instance propagation);
 * - auto-layout frames place their children themselves (inserting one moves
 *   the siblings after it) unless a child is `layoutPositioning: 'ABSOLUTE'`;
 * - with `figma.skipInvisibleInstanceChildren`, invisible layers inside
 *   instances are left out of `children`/`findAll`/`findAllWithCriteria`
 *   (typings `PluginAPI.skipInvisibleInstanceChildren`), and the plugin can
 *   touch no property of one it holds (`hiddenFromPlugin`, enforced on the
 *   plugin's view of the API: session.ts);
 * - `findAll` calls back into the plugin for every node below and
 *   `findAllWithCriteria` does not ("hundreds of times faster in large
 *   documents", typings `ChildrenMixin.findAllWithCriteria`): the document
 *   counts those calls, the cost a walk has in Figma;
 * - `setRelaunchData` takes only commands the manifest's `relaunchButtons`
 *   declare; a plugin data entry "(`pluginId`, `key`, `value`) cannot exceed
 *   100 kB" (typings `PluginDataMixin.setPluginData`;
 *   https://developers.figma.com/docs/plugins/api/properties/nodes-setplugindata),
 *   counted here in UTF-8 bytes and 1 kB = 1000 bytes, the stricter reading;
 * - a node removed itself, or with a layer around it, reads `removed` true (typings `BaseNodeMixin.removed`), cannot
 *   be put back in the document, and the plugin can use nothing of it but `removed` and `id` (figma.ts, session.ts);
 * - the document is a root (`figma.root`, type DOCUMENT) holding pages; with
 *   the manifest's `"documentAccess": "dynamic-page"` a page's content is
 *   reachable only once loaded (enforced on the plugin's view: figma.ts,
 *   session.ts), and `loadAsync` loads it (typings `PageNode.loadAsync`).
 */
import { asScene, type SimDocument } from './document';
import { checkImagePaint, freezePaints } from './paints';
import type { SimPage } from './pages';

/** Size of one plugin data entry Figma accepts (plugin id + key + value), in bytes. */
export const PLUGIN_DATA_LIMIT = 100_000;

type NodeMembers =
  | 'id' | 'name' | 'removed' | 'visible' | 'x' | 'y' | 'width' | 'height'
  | 'setRelaunchData' | 'getRelaunchData' | 'remove' | 'setPluginData' | 'getPluginData' | 'getPluginDataKeys';

export abstract class SimNode implements Pick<RectangleNode, NodeMembers> {
  abstract readonly type: NodeType;
  readonly id: string;
  parent: SimContainer | null = null;
  /** `remove()` was called on this node itself (see `removed`). */
  private deleted = false;
  visible = true;
  x = 0;
  y = 0;
  width = 100;
  height = 100;
  private positioning: 'AUTO' | 'ABSOLUTE' = 'AUTO';
  private relaunch: { [command: string]: string } = {};
  private pluginData = new Map<string, string>();

  constructor(
    readonly doc: SimDocument,
    private nodeName: string,
  ) {
    this.id = doc.nextId();
    doc.register(this);
  }

  get name(): string {
    return this.nodeName;
  }

  /** Removed itself, or with a layer around it (typings `BaseNodeMixin.removed`; the plugin's view of one: figma.ts). */
  get removed(): boolean {
    return this.deleted || ((this.parent as SimNode | null)?.removed ?? false);
  }

  /** Figma: settable only on children of auto-layout frames; the parent lays out again. */
  get layoutPositioning(): 'AUTO' | 'ABSOLUTE' {
    return this.positioning;
  }
  set layoutPositioning(v: 'AUTO' | 'ABSOLUTE') {
    const parent = this.parent as (SimContainer & { layoutMode?: string; layout?: () => void }) | null;
    if (!parent || !parent.layoutMode || parent.layoutMode === 'NONE') throw new Error('layoutPositioning can only be set on children of auto-layout frames');
    this.positioning = v;
    parent.layout?.();
  }
  set name(v: string) {
    this.nodeName = v;
    this.doc.changed(`rename ${this.id}`);
  }

  /** The page this node is on (null for the document, a page, or a node on none). */
  pageOf(): SimPage | null {
    for (let n = this.parent as SimNode | null; n; n = n.parent as SimNode | null) if (n.type === 'PAGE') return n as SimPage;
    return null;
  }

  /** Whether this layer or an ancestor is an instance sublayer hidden from the plugin by `skipInvisibleInstanceChildren`. */
  hiddenFromPlugin(): boolean {
    if (!this.doc.skipInvisibleInstanceChildren()) return false;
    // An invisible layer (or one below it) with an instance above the invisible one.
    let hidden = !this.visible;
    for (let n: SimNode | null = this.parent as SimNode | null; n && n.type !== 'PAGE'; n = n.parent as SimNode | null) {
      if (n.type === 'INSTANCE' && hidden) return true;
      if (!n.visible) hidden = true;
    }
    return false;
  }

  setRelaunchData(data: { [command: string]: string }): void {
    for (const [command, description] of Object.entries(data)) {
      if (!this.doc.relaunchCommands.has(command)) {
        throw new Error(`setRelaunchData: "${command}" is not a command of the manifest's relaunchButtons`);
      }
      if (description.length > 1000) throw new Error('relaunch description exceeds 1000 characters');
    }
    this.relaunch = { ...data };
    this.doc.changed(`relaunch ${this.id}`);
  }

  getRelaunchData(): { [command: string]: string } {
    return { ...this.relaunch };
  }

  setPluginData(key: string, value: string): void {
    if (typeof value !== 'string') throw new TypeError('setPluginData: value must be a string');
    if (new TextEncoder().encode(this.doc.pluginId + key + value).length > PLUGIN_DATA_LIMIT) throw new Error(`setPluginData: entry "${key}" exceeds 100 kB`);
    if (value === '') this.pluginData.delete(key);
    else this.pluginData.set(key, value);
    this.doc.changed(`plugin data ${this.id}`);
  }

  getPluginData(key: string): string {
    return this.pluginData.get(key) ?? '';
  }

  getPluginDataKeys(): string[] {
    return [...this.pluginData.keys()];
  }

  remove(): void {
    this.parent?.detach(this);
    this.deleted = true;
    this.doc.changed(`remove ${this.id}`);
  }

  /** A deep copy with new ids, not yet parented. */
  abstract copy(): SimNode;

  protected copyBase<T extends SimNode>(into: T): T {
    into.x = this.x;
    into.y = this.y;
    into.width = this.width;
    into.height = this.height;
    into.visible = this.visible;
    into.relaunch = { ...this.relaunch };
    into.pluginData = new Map(this.pluginData);
    return into;
  }

  clone(): SceneNode {
    const c = this.copy();
    this.doc.page().appendChild(asScene(c));
    return asScene(c);
  }
}

/** Layers with fills: rectangles, ellipses, text, and (through SimFrame) frames, components, instances. */
export class SimShape extends SimNode implements Pick<RectangleNode, 'fills' | 'setFillsAsync'> {
  private paints: ReadonlyArray<Paint> | PluginAPI['mixed'] = Object.freeze([]);
  /** The same layer in each instance of the component this layer belongs to. */
  readonly instanceCopies: SimShape[] = [];
  /** An instance layer whose fills were set on it directly (an override) no longer follows its component. */
  overridden = false;
  /** The paint style the fills are linked to ('' for none); see {@link SimShape.fillStyleId}. */
  private styleId = '';
  /** A text layer's fills on the characters that kept theirs when part of it was given another fill ({@link fillPartOfText}). */
  private characterPaints: ReadonlyArray<Paint> = Object.freeze([]);

  constructor(
    doc: SimDocument,
    name: string,
    readonly type: 'RECTANGLE' | 'ELLIPSE' | 'TEXT' | 'FRAME' | 'COMPONENT' | 'INSTANCE',
    fills: ReadonlyArray<Paint> | PluginAPI['mixed'] = [],
  ) {
    super(doc, name);
    this.paints = fills === doc.mixed ? fills : freezePaints(fills as ReadonlyArray<Paint>);
  }

  get fills(): ReadonlyArray<Paint> | PluginAPI['mixed'] {
    return this.paints;
  }
  set fills(value: ReadonlyArray<Paint> | PluginAPI['mixed']) {
    if (value !== this.doc.mixed && (value as ReadonlyArray<Paint>).some((p) => p.type === 'PATTERN')) {
      throw new Error('in set_fills: pattern paints can only be set with setFillsAsync');
    }
    this.writeFills(value);
  }

  /**
   * The paint style the fills are linked to (typings: MinimalFillsMixin.fillStyleId). Read-only under
   * `"documentAccess": "dynamic-page"`, as the plugin's manifest has it; tests link a style with {@link linkStyle}.
   */
  get fillStyleId(): string {
    return this.styleId;
  }
  set fillStyleId(_value: string) {
    throw new Error('Cannot write to node.fillStyleId with "documentAccess": "dynamic-page". Use node.setFillStyleIdAsync instead.');
  }

  /**
   * The user gives part of a text layer another fill in the editor (a test's setup): its fills then read as
   * `figma.mixed` (typings `MinimalFillsMixin.fills`: "can return {@link PluginAPI.mixed} if the node has multiple fills …
   * Text nodes can have multiple fills if some characters are colored differently than others").
   */
  fillPartOfText(): void {
    if (this.type !== 'TEXT') throw new Error('only a text layer has fills per character range');
    // The other characters keep the fills they had: still in the document, though `fills` no longer lists them.
    if (this.paints !== this.doc.mixed) this.characterPaints = this.paints as ReadonlyArray<Paint>;
    this.paints = this.doc.mixed;
    this.doc.changed(`fills ${this.id}`);
  }

  /** Every paint the layer holds: its fills, or those of its characters when they read as `figma.mixed`. */
  heldPaints(): ReadonlyArray<Paint> {
    return this.paints === this.doc.mixed ? this.characterPaints : (this.paints as ReadonlyArray<Paint>);
  }

  /** Link the fills to a paint style (a test's setup). */
  linkStyle(styleId: string): void {
    this.styleId = styleId;
  }

  async setFillsAsync(paints: ReadonlyArray<Paint>): Promise<void> {
    for (const p of paints) {
      if (p.type === 'PATTERN' && !this.doc.hasNode(p.sourceNodeId)) throw new Error(`pattern source node ${p.sourceNodeId} does not exist`);
    }
    this.writeFills(paints);
  }

  private writeFills(value: ReadonlyArray<Paint> | PluginAPI['mixed']): void {
    if (value === this.doc.mixed) throw new Error('cannot set fills to figma.mixed');
    const fault = this.doc.fillsFault(this);
    if (fault) throw fault;
    const paints = value as ReadonlyArray<Paint>;
    for (const p of paints) if (p.type === 'IMAGE') checkImagePaint(p, this.doc);
    this.paints = freezePaints(paints);
    this.characterPaints = Object.freeze([]);
    // Fills set on the layer are its own: it is no longer linked to the style whose paints it showed.
    this.styleId = '';
    this.overridden = true;
    this.doc.changed(`fills ${this.id}`);
    this.propagate();
  }

  /** A component's change reaches every instance layer without an override of its own. */
  private propagate(): void {
    for (const c of this.instanceCopies) {
      if (c.removed || (c.overridden && c.paints !== this.paints)) continue;
      c.paints = this.paints;
      this.doc.changed(`fills ${c.id} (from its component)`);
      c.propagate();
    }
  }

  copy(): SimNode {
    return this.copyBase(new SimShape(this.doc, this.name, this.type, this.paints));
  }

  /** The instance's counterpart of this component layer: same content, following its changes. */
  instanceCopy(): SimShape {
    const c = this.copy() as SimShape;
    c.overridden = false;
    this.instanceCopies.push(c);
    return c;
  }
}

type ChildMembers = 'appendChild' | 'insertChild' | 'findAll' | 'findAllWithCriteria';

/** Anything with children: page, frame, group, component, instance. */
export interface SimContainer extends Pick<FrameNode, ChildMembers> {
  readonly id: string;
  readonly type: NodeType;
  readonly children: ReadonlyArray<SceneNode>;
  detach(node: SimNode): void;
}

/** Shared child handling; `owner` is the node the children belong to. */
class Children {
  readonly list: SimNode[] = [];
  constructor(private readonly owner: SimContainer & SimNode) {}

  /** `building`: the simulator itself assembling a document (an instance gets its sublayers this way). */
  insert(index: number, child: SceneNode, building = false): void {
    const node = child as unknown as SimNode;
    if (node.removed) throw new Error(`The node (with id ${node.id}) does not exist: it was removed`);
    if (index < 0 || index > this.list.length) throw new Error(`insertChild: index ${index} out of range 0…${this.list.length}`);
    if (this.owner.type === 'INSTANCE' && !building) throw new Error('cannot add children to an instance');
    let at = index;
    if (node.parent) {
      const was = node.parent === this.owner ? this.list.indexOf(node) : -1;
      node.parent.detach(node);
      if (was !== -1 && was < at) at -= 1;
    }
    this.list.splice(at, 0, node);
    node.parent = this.owner;
    this.owner.doc.changed(`insert ${node.id} into ${this.owner.id}`);
    if (this.owner instanceof SimFrame) this.owner.layout();
  }

  visible(): SimNode[] {
    return this.list.filter((n) => !n.hiddenFromPlugin());
  }

  /** Every node below, in pre-order ("back-to-front", parents before their children), as the plugin may see them. */
  below(): SimNode[] {
    const out: SimNode[] = [];
    const visit = (n: SimNode) => {
      if (n.hiddenFromPlugin()) return;
      out.push(n);
      if (n instanceof SimFrame || n instanceof SimGroup) for (const c of n.kids.list) visit(c);
    };
    for (const c of this.list) visit(c);
    this.owner.doc.walked(out.length);
    return out;
  }

  findAll(callback?: (node: SceneNode) => boolean): SceneNode[] {
    const matches = (n: SimNode) => {
      if (!callback) return true;
      this.owner.doc.calledBack();
      return callback(asScene(n));
    };
    return this.below().filter(matches).map(asScene);
  }

  /**
   * The nodes below of one of `types` and/or holding this plugin's data (under
   * one of `keys`), in findAll's order, without calling into the plugin (typings
   * `ChildrenMixin.findAllWithCriteria`, `FindAllCriteria`). Shared plugin data
   * is not simulated, so a search by it is refused rather than answered wrongly.
   */
  findAllWithCriteria<T extends NodeType[]>(criteria: FindAllCriteria<T>): Array<{ type: T[number] } & SceneNode> {
    if (criteria.sharedPluginData) throw new Error('findAllWithCriteria: sharedPluginData is not simulated');
    const { types, pluginData } = criteria;
    const hasData = (n: SimNode) => {
      const keys = n.getPluginDataKeys();
      return pluginData?.keys ? keys.some((k) => pluginData.keys?.includes(k)) : keys.length > 0;
    };
    const matches = (n: SimNode) => (!types || types.includes(n.type)) && (!pluginData || hasData(n));
    return this.below().filter(matches).map(asScene) as Array<{ type: T[number] } & SceneNode>;
  }
}

// The TypeScript mixin pattern: a base class whose constructor is not known here.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type NodeClass = abstract new (...args: any[]) => SimNode;

/** The child members every container has (page, frame, group, component, instance), added to a node class. */
function withChildren<Base extends NodeClass>(base: Base) {
  abstract class Parent extends base implements SimContainer {
    readonly kids = new Children(this);

    get children(): ReadonlyArray<SceneNode> {
      return this.kids.visible().map(asScene);
    }
    appendChild(child: SceneNode): void {
      this.kids.insert(this.kids.list.length, child);
    }
    insertChild(index: number, child: SceneNode): void {
      this.kids.insert(index, child);
    }
    findAll(callback?: (node: SceneNode) => boolean): SceneNode[] {
      return this.kids.findAll(callback);
    }
    findAllWithCriteria<T extends NodeType[]>(criteria: FindAllCriteria<T>): Array<{ type: T[number] } & SceneNode> {
      return this.kids.findAllWithCriteria(criteria);
    }
    detach(node: SimNode): void {
      this.kids.list.splice(this.kids.list.indexOf(node), 1);
      node.parent = null;
      if (this instanceof SimFrame) this.layout();
    }
  }
  return Parent;
}

export class SimFrame extends withChildren(SimShape) implements Pick<FrameNode, 'layoutMode' | 'clipsContent' | 'itemSpacing'> {
  layoutMode: FrameNode['layoutMode'] = 'NONE';
  itemSpacing = 0;
  /** Frames clip their content by default in Figma's UI; tests set it as their document needs. */
  clipsContent = false;
  /** For a component: its instances (made by `createInstance`). */
  readonly instances: SimFrame[] = [];

  /** Add a sublayer while building the document (allowed for instances too). */
  adopt(child: SimNode): void {
    this.kids.insert(this.kids.list.length, asScene(child), true);
  }

  /** Auto layout: children in flow sit one after another; absolutely positioned ones keep their place. */
  layout(): void {
    if (this.layoutMode === 'NONE' || this.layoutMode === 'GRID') return;
    let at = 0;
    for (const c of this.kids.list) {
      if (c.layoutPositioning === 'ABSOLUTE' || !c.visible) continue;
      if (this.layoutMode === 'HORIZONTAL') c.x = at;
      else c.y = at;
      at += (this.layoutMode === 'HORIZONTAL' ? c.width : c.height) + this.itemSpacing;
    }
  }

  override copy(): SimNode {
    const c = new SimFrame(this.doc, this.name, this.type, this.fills);
    c.layoutMode = this.layoutMode;
    c.itemSpacing = this.itemSpacing;
    c.clipsContent = this.clipsContent;
    for (const k of this.kids.list) c.adopt(copyChild(k));
    return this.copyBase(c);
  }

  /** A component's instance: its layers follow the component's until overridden. */
  createInstance(): SimFrame {
    if (this.type !== 'COMPONENT') throw new Error('createInstance: only components have instances');
    const inst = new SimFrame(this.doc, this.name, 'INSTANCE', this.fills);
    const link = (from: SimNode): SimNode => {
      const to = from instanceof SimFrame ? new SimFrame(this.doc, from.name, from.type === 'COMPONENT' ? 'FRAME' : from.type, from.fills) : from instanceof SimShape ? from.instanceCopy() : from.copy();
      if (from instanceof SimFrame && to instanceof SimFrame) {
        from.instanceCopies.push(to);
        to.overridden = false;
        for (const k of from.kids.list) to.adopt(link(k));
      }
      to.visible = from.visible;
      to.width = from.width;
      to.height = from.height;
      to.x = from.x;
      to.y = from.y;
      return to;
    };
    for (const k of this.kids.list) inst.adopt(link(k));
    this.instanceCopies.push(inst);
    inst.overridden = false;
    inst.width = this.width;
    inst.height = this.height;
    inst.x = this.x;
    inst.y = this.y;
    inst.visible = this.visible;
    this.instances.push(inst);
    return inst;
  }

  async getInstancesAsync(): Promise<SceneNode[]> {
    return this.instances.filter((i) => !i.removed).map(asScene);
  }
}

/** "Nested components will be cloned as instances whose master is the original component" (typings, `FrameNode.clone`). */
function copyChild(k: SimNode): SimNode {
  return k instanceof SimFrame && k.type === 'COMPONENT' ? k.createInstance() : k.copy();
}

/** Groups have children but no fills of their own; so have pages and the document. */
export class SimGroup extends withChildren(SimNode) {
  constructor(
    doc: SimDocument,
    name: string,
    readonly type: 'GROUP' | 'PAGE' | 'DOCUMENT' = 'GROUP',
  ) {
    super(doc, name);
  }

  copy(): SimNode {
    const c = new SimGroup(this.doc, this.name);
    for (const k of this.kids.list) c.appendChild(asScene(copyChild(k)));
    return this.copyBase(c);
  }
}
