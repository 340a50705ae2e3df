/**
 * The part of Figma's plugin API the main thread uses, as types picked from
 * `@figma/plugin-typings`. The real `figma` global satisfies it, and so does the
 * test simulator, which the compiler checks against the same picks.
 */
// The node and API types are the globals declared by `@figma/plugin-typings`
// (listed in `types` of every tsconfig that compiles this file).

/** The `figma` members the plugin touches, and nothing else. */
export type FigmaApi = Pick<
  PluginAPI,
  | 'command'
  | 'mixed'
  | 'showUI'
  | 'ui'
  | 'notify'
  | 'commitUndo'
  | 'closePlugin'
  | 'createImage'
  | 'getImageByHash'
  | 'getNodeByIdAsync'
  | 'clientStorage'
  | 'skipInvisibleInstanceChildren'
> & {
  readonly currentPage: Pick<PageNode, 'selection' | 'id'>;
  /** The document: its plugin data only (reading its pages' content needs them loaded, unfinished.ts). */
  readonly root: Pick<DocumentNode, 'getPluginData' | 'setPluginData' | 'getPluginDataKeys'>;
  on(type: 'selectionchange', callback: () => void): void;
};

/** A node with image-capable fills. */
export type FillNode = Extract<SceneNode, { fills: unknown }>;
/** A node with children that may be searched. */
export type ParentNode = Extract<SceneNode, { findAll: unknown }>;

export function hasFills(node: BaseNode): node is FillNode {
  return 'fills' in node;
}

export function hasChildren(node: BaseNode): node is ParentNode {
  return 'findAll' in node && 'children' in node;
}

/** Every node type with fills (those of {@link FillNode}; the check below fails to compile when the typings add one). */
const FILL_TYPES = [
  'FRAME', 'COMPONENT_SET', 'COMPONENT', 'INSTANCE', 'BOOLEAN_OPERATION', 'VECTOR', 'STAR', 'LINE', 'ELLIPSE', 'POLYGON', 'RECTANGLE',
  'TEXT', 'TEXT_PATH', 'STICKY', 'SHAPE_WITH_TEXT', 'STAMP', 'SECTION', 'HIGHLIGHT', 'WASHI_TAPE', 'TABLE', 'SLIDE', 'SLOT',
] as const satisfies readonly FillNode['type'][];
type Holds<T extends true> = T;
type _EveryFillTypeListed = Holds<[Exclude<FillNode['type'], (typeof FILL_TYPES)[number]>] extends [never] ? true : false>;

/**
 * The layers with fills below `root` (not `root` itself), in document order.
 * `findAllWithCriteria` by type runs inside Figma without calling back into
 * the plugin for every node: "hundreds of times faster in large documents"
 * than `findAll` with a callback (typings `ChildrenMixin.findAllWithCriteria`).
 */
export function fillLayersBelow(root: BaseNode): FillNode[] {
  return hasChildren(root) ? (root.findAllWithCriteria({ types: [...FILL_TYPES] }) as FillNode[]) : [];
}

/** The layers below `root` that hold this plugin's data under `key` (found inside Figma, as above). */
export function layersWithData(root: BaseNode, key: string): SceneNode[] {
  return hasChildren(root) ? root.findAllWithCriteria({ pluginData: { keys: [key] } }) : [];
}

/** The page a node is on, if any. */
export function pageOf(node: BaseNode): PageNode | undefined {
  for (let n: BaseNode | null = node; n; n = n.parent) if (n.type === 'PAGE') return n;
  return undefined;
}

/** The text of whatever was thrown. */
export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Figma could not read an image. Its bytes and size come by promise "because
 * the image may still need to be downloaded (images in Figma are loaded
 * separately from the rest of the document)" (typings `Image.getBytesAsync`,
 * `getSizeAsync`), and a download can fail: a flaky connection, an image
 * that did not load. That is the one image's failure; the others go on.
 */
export class ImageUnreadable extends Error {
  /** What Figma said. */
  readonly detail: string;
  constructor(cause: unknown) {
    super(`Figma could not read the image (${errorText(cause)})`, { cause });
    this.detail = errorText(cause);
  }
}

/** `read` of an image, its failure an `ImageUnreadable` saying so. */
export async function readImage<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    throw new ImageUnreadable(err);
  }
}

/** An image's pixel size, or undefined when the file no longer has it; throws `ImageUnreadable` when Figma cannot read it. */
export async function imageSize(figma: Pick<FigmaApi, 'getImageByHash'>, hash: string): Promise<{ width: number; height: number } | undefined> {
  const image = figma.getImageByHash(hash);
  return image ? readImage(() => image.getSizeAsync()) : undefined;
}

/**
 * Run `walk` with the invisible layers inside instances reachable or not.
 * Leaving them out makes every walk faster (typings
 * `PluginAPI.skipInvisibleInstanceChildren`), but a run that includes hidden
 * layers must reach them, and so must a restore; with the flag set they
 * cannot even be read. The previous setting comes back afterwards.
 */
export async function withHiddenInstanceLayers<T>(figma: Pick<FigmaApi, 'skipInvisibleInstanceChildren'>, reach: boolean, walk: () => T | Promise<T>): Promise<T> {
  const before = figma.skipInvisibleInstanceChildren;
  figma.skipInvisibleInstanceChildren = !reach;
  try {
    return await walk();
  } finally {
    figma.skipInvisibleInstanceChildren = before;
  }
}

/**
 * `read`, with the invisible layers inside instances readable for its
 * duration. While `skipInvisibleInstanceChildren` is on, "accessing a
 * property on an existing node object for an invisible node will throw an
 * error" (typings `PluginAPI.skipInvisibleInstanceChildren`), yet the user can
 * select such a layer in the layers panel: whether a selected layer is one, or
 * what it is called, is known only by reading it. Synchronous, so no other
 * handler runs meanwhile; the previous setting comes back afterwards.
 */
export function readingHiddenLayers<T>(figma: Pick<FigmaApi, 'skipInvisibleInstanceChildren'>, read: () => T): T {
  const before = figma.skipInvisibleInstanceChildren;
  figma.skipInvisibleInstanceChildren = false;
  try {
    return read();
  } finally {
    figma.skipInvisibleInstanceChildren = before;
  }
}

/**
 * The main component (or component set) a layer sits inside, if any. A layer
 * added there, next to it, appears in every instance of the component (and,
 * in a set, a clone of a variant becomes a new variant).
 */
export function mainComponentAround(node: BaseNode): BaseNode | undefined {
  for (let p = node.parent; p; p = p.parent) if (p.type === 'COMPONENT' || p.type === 'COMPONENT_SET') return p;
  return undefined;
}

/** The instance a layer is a sublayer of (the nearest), if any. */
export function instanceAround(node: BaseNode): InstanceNode | undefined {
  for (let p = node.parent; p; p = p.parent) if (p.type === 'INSTANCE') return p;
  return undefined;
}

/** Whether the node is an instance's sublayer, where layers cannot be added (only overrides made). */
export function isInsideInstance(node: BaseNode): boolean {
  return instanceAround(node) !== undefined;
}
