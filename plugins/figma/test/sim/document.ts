/**
 * What a simulated node asks of the document it belongs to (nodes.ts): ids, undo steps, the images and nodes it
 * holds, the page in view, and the settings of the run acting on it (figma.ts implements it).
 */
import type { SimNode } from './nodes';
import type { SimPage } from './pages';

/** What a simulated node reports to the document (for undo steps and lookups). */
export interface SimDocument {
  readonly mixed: PluginAPI['mixed'];
  /** The manifest's `id`: part of each plugin data entry's size. */
  readonly pluginId: string;
  nextId(): string;
  register(node: SimNode): void;
  changed(what: string): void;
  hasImage(hash: string): boolean;
  hasNode(id: string): boolean;
  /** The page the user views. */
  page(): SimPage;
  /** The commands of the manifest's `relaunchButtons`. */
  readonly relaunchCommands: ReadonlySet<string>;
  /** `figma.skipInvisibleInstanceChildren`. */
  skipInvisibleInstanceChildren(): boolean;
  /** A test may make the next fills change of a node fail, as a locked or broken layer would. */
  fillsFault(node: SimNode): Error | undefined;
  /** One call of a `findAll` callback: from Figma into the plugin's sandbox. */
  calledBack(): void;
  /** A search (`findAll`, `findAllWithCriteria`) went through `nodes` nodes. */
  walked(nodes: number): void;
  /** The plugin asks to load `page` (`PageNode.loadAsync`): what marks it loaded, once it is, for the run that asked. */
  loadPage(page: SimPage): () => void;
}

/** Cast at the boundary: the plugin receives full `SceneNode`s; ours implement the members it uses. */
export function asScene(node: SimNode): SceneNode {
  return node as unknown as SceneNode;
}
