/**
 * A page of the simulated document: its selection, and its content loaded on
 * demand as `"documentAccess": "dynamic-page"` has it (figma.ts decides what
 * an unloaded page refuses).
 */
import { asScene } from './document';
import { SimGroup, type SimNode } from './nodes';

export class SimPage extends SimGroup implements Pick<PageNode, 'selection' | 'loadAsync'> {
  private selected: SimNode[] = [];

  /**
   * Figma loads the page's content (typings `PageNode.loadAsync`); with dynamic-page, what the plugin may reach is
   * known to the simulator (figma.ts). Not at once: a page may have to come from Figma's servers, so the load
   * takes a turn of the event loop, and whatever the plugin does meanwhile runs before it.
   */
  async loadAsync(): Promise<void> {
    const loaded = this.doc.loadPage(this);
    await new Promise((resolve) => setTimeout(resolve, 0));
    loaded();
  }

  get selection(): ReadonlyArray<SceneNode> {
    return this.selected.filter((n) => !n.removed).map(asScene);
  }
  /**
   * As the typings describe it (`PageNode.selection`): "the API will de-deduplicate nodes in the selection", and it
   * holds "only directly selected nodes", "never … both a node and one of its descendents". Selecting a removed node,
   * or one on another page, is not documented: refused here, the stricter reading.
   */
  set selection(nodes: ReadonlyArray<SceneNode>) {
    const wanted = nodes.map((n) => n as unknown as SimNode);
    for (const n of wanted) {
      if (n.removed) throw new Error(`in set_selection: the node (with id ${n.id}) does not exist`);
      if (n.pageOf() !== this) throw new Error(`in set_selection: the node with id ${n.id} is not on page "${this.name}"`);
    }
    const unique = new Set(wanted);
    this.selected = [...unique].filter((n) => !hasAncestorIn(n, unique));
  }
}

function hasAncestorIn(node: SimNode, nodes: ReadonlySet<SimNode>): boolean {
  for (let n = node.parent as SimNode | null; n; n = n.parent as SimNode | null) if (nodes.has(n)) return true;
  return false;
}
