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
  readonly currentPage: Pick<PageNode, 'selection'>;
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

/**
 * The main component (or component set) a layer sits inside, if any. A layer
 * added there, next to it, appears in every instance of the component (and,
 * in a set, a clone of a variant becomes a new variant).
 */
export function mainComponentAround(node: BaseNode): BaseNode | undefined {
  for (let p = node.parent; p; p = p.parent) if (p.type === 'COMPONENT' || p.type === 'COMPONENT_SET') return p;
  return undefined;
}

/** Whether the node is an instance's sublayer, where layers cannot be added (only overrides made). */
export function isInsideInstance(node: BaseNode): boolean {
  for (let p = node.parent; p; p = p.parent) if (p.type === 'INSTANCE') return true;
  return false;
}
