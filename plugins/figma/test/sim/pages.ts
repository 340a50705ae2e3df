/**
 * A page of the simulated document: its selection, and its content loaded on
 * demand as `"documentAccess": "dynamic-page"` has it (figma.ts decides what
 * an unloaded page refuses).
 */
import { asScene, SimGroup, type SimNode } from './nodes';

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
  set selection(nodes: ReadonlyArray<SceneNode>) {
    this.selected = nodes.map((n) => n as unknown as SimNode);
  }
}
