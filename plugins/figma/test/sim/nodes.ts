/**
 * In-memory layers of the simulated document. Each class implements the
 * members the plugin uses, picked from the real `@figma/plugin-typings`
 * interfaces, so the compiler checks every one of them against Figma's types.
 * Behaviour follows Figma's documentation where the plugin relies on it:
 * fills arrays and paints are frozen (they must be copied to change), an
 * image fill must name an image the file has, `clone()` parents the duplicate
 * under the current page, and `insertChild` moves a node from its old parent.
 */

/** What a simulated node reports to the document (for undo steps and lookups). */
export interface SimDocument {
  readonly mixed: PluginAPI['mixed'];
  nextId(): string;
  register(node: SimNode): void;
  changed(what: string): void;
  hasImage(hash: string): boolean;
  readonly page: SimPage;
}

/** Cast at the boundary: the plugin receives full `SceneNode`s; ours implement the members it uses. */
export function asScene(node: SimNode): SceneNode {
  return node as unknown as SceneNode;
}

type NodeMembers = 'id' | 'name' | 'removed' | 'visible' | 'x' | 'y' | 'width' | 'height' | 'setRelaunchData' | 'getRelaunchData' | 'remove';

export abstract class SimNode implements Pick<RectangleNode, NodeMembers> {
  abstract readonly type: NodeType;
  readonly id: string;
  parent: SimContainer | null = null;
  removed = false;
  visible = true;
  x = 0;
  y = 0;
  width = 100;
  height = 100;
  private relaunch: { [command: string]: string } = {};

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
  set name(v: string) {
    this.nodeName = v;
    this.doc.changed(`rename ${this.id}`);
  }

  setRelaunchData(data: { [command: string]: string }): void {
    for (const description of Object.values(data)) {
      if (description.length > 1000) throw new Error('relaunch description exceeds 1000 characters');
    }
    this.relaunch = { ...data };
    this.doc.changed(`relaunch ${this.id}`);
  }

  getRelaunchData(): { [command: string]: string } {
    return { ...this.relaunch };
  }

  remove(): void {
    this.parent?.detach(this);
    this.removed = true;
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
    return into;
  }

  clone(): SceneNode {
    const c = this.copy();
    this.doc.page.appendChild(asScene(c));
    return asScene(c);
  }
}

function freezePaints(paints: ReadonlyArray<Paint>): ReadonlyArray<Paint> {
  return Object.freeze(paints.map((p) => Object.freeze({ ...p })));
}

/** Layers with fills: rectangles, ellipses, text, and (through SimFrame) frames, components, instances. */
export class SimShape extends SimNode implements Pick<RectangleNode, 'fills'> {
  private paints: ReadonlyArray<Paint> | PluginAPI['mixed'] = Object.freeze([]);

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
    if (value === this.doc.mixed) throw new Error('cannot set fills to figma.mixed');
    const paints = value as ReadonlyArray<Paint>;
    for (const p of paints) {
      if (p.type === 'IMAGE' && p.imageHash && !this.doc.hasImage(p.imageHash)) throw new Error(`no image with hash ${p.imageHash} in this file`);
    }
    this.paints = freezePaints(paints);
    this.doc.changed(`fills ${this.id}`);
  }

  copy(): SimNode {
    return this.copyBase(new SimShape(this.doc, this.name, this.type, this.paints));
  }
}

type ChildMembers = 'appendChild' | 'insertChild' | 'findAll';

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
  constructor(private readonly owner: SimContainer & { readonly doc: SimDocument }) {}

  /** `building`: the simulator itself assembling a document (an instance gets its sublayers this way). */
  insert(index: number, child: SceneNode, building = false): void {
    const node = child as unknown as SimNode;
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
  }

  findAll(callback?: (node: SceneNode) => boolean): SceneNode[] {
    const out: SceneNode[] = [];
    const visit = (n: SimNode) => {
      if (!callback || callback(asScene(n))) out.push(asScene(n));
      if (n instanceof SimFrame || n instanceof SimGroup) for (const c of n.kids.list) visit(c);
    };
    for (const c of this.list) visit(c);
    return out;
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
    return this.kids.list.map(asScene);
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
  detach(node: SimNode): void {
    this.kids.list.splice(this.kids.list.indexOf(node), 1);
    node.parent = null;
  }
  }
  return Parent;
}

export class SimFrame extends withChildren(SimShape) implements Pick<FrameNode, 'layoutMode'> {
  layoutMode: FrameNode['layoutMode'] = 'NONE';

  /** Add a sublayer while building the document (allowed for instances too). */
  adopt(child: SimNode): void {
    this.kids.insert(this.kids.list.length, asScene(child), true);
  }
  override copy(): SimNode {
    const c = new SimFrame(this.doc, this.name, this.type, this.fills);
    c.layoutMode = this.layoutMode;
    for (const k of this.kids.list) c.adopt(k.copy());
    return this.copyBase(c);
  }
}

/** Groups have children but no fills of their own. */
export class SimGroup extends withChildren(SimNode) {
  constructor(
    doc: SimDocument,
    name: string,
    readonly type: 'GROUP' | 'PAGE' = 'GROUP',
  ) {
    super(doc, name);
  }

  copy(): SimNode {
    const c = new SimGroup(this.doc, this.name);
    for (const k of this.kids.list) c.appendChild(asScene(k.copy()));
    return this.copyBase(c);
  }
}

export class SimPage extends SimGroup implements Pick<PageNode, 'selection'> {
  private selected: SimNode[] = [];

  get selection(): ReadonlyArray<SceneNode> {
    return this.selected.filter((n) => !n.removed).map(asScene);
  }
  set selection(nodes: ReadonlyArray<SceneNode>) {
    this.selected = nodes.map((n) => n as unknown as SimNode);
  }
}
