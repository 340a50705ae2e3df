/**
 * An "Apply accepted" the user cut short by closing the plugin window,
 * finished at the plugin's next start.
 *
 * Figma stops the plugin at its pending `await` when the window closes
 * (records.ts). So everything an apply completes after a layer's change is
 * written ahead of it, with a marker: each layer's records and what finishes
 * them (records.ts `AHEAD_KEY`); on a frame the user selected that gets
 * relaunch buttons for the layers in it, and on each copy "Insert as copy"
 * makes, the buttons due (`BUTTONS_AHEAD_KEY`). Whatever a close left marked
 * is settled the next time the plugin starts, with any command, before it
 * does anything else — the user need do nothing:
 * - a layer whose change was made gets its records finished, its options
 *   saved and its relaunch buttons: as if the apply had gone on;
 * - a layer whose change never happened gets its records back as they were;
 * - a frame or copy where a layer shows the new image gets its buttons;
 * - a copy in which nothing was corrected is removed. It is a duplicate of
 *   its original named as a result ("… (corrected)"), not a result: a failed
 *   apply removes its copies too. Only while it is still beside its original
 *   under that name: one the user renamed or moved is theirs and stays.
 * What a layer shows tells the cases apart (records.ts `settleAhead`, as
 * Restore tells them); no fill is ever changed.
 *
 * Finding them must not cost a walk of the document at each start. With
 * `"documentAccess": "dynamic-page"` (manifest.json) only the page the user
 * views is loaded; another page's content needs its `loadAsync` first, and a
 * search of the whole document `figma.loadAllPagesAsync`, which "may be slow
 * for large documents, and should be avoided unless absolutely necessary"
 * (typings `ChildrenMixin.findAllWithCriteria`, `PluginAPI.loadAllPagesAsync`).
 * So the document keeps the list of the pages holding markers
 * (`AHEAD_PAGES_KEY`, plugin data on `figma.root`), empty unless an apply was
 * cut short: a start reads it, and loads and searches only those pages, with
 * `findAllWithCriteria` by the markers' keys, which runs inside Figma.
 */
import { AHEAD_KEY, settleAhead } from './records';
import { fillLayersBelow, hasFills, pageOf, readingHiddenLayers, type FigmaApi } from './host';
import { imageHashes, parseJsonObject } from './fills';
import { finishLayer, setRelaunch } from './relaunch';

/** Plugin data key: JSON `ButtonsAhead`, on a frame or copy whose relaunch buttons are due once a layer in it shows the result. */
export const BUTTONS_AHEAD_KEY = 'pfc.buttonsAhead';
/** Plugin data key on `figma.root`: JSON array of the ids of the pages holding markers. */
export const AHEAD_PAGES_KEY = 'pfc.aheadPages';

/** Relaunch buttons due on a node once it or a layer in it shows the image `to`; on a copy the apply made, which original it copies, and its name. */
export interface ButtonsAhead {
  to: string;
  note: string;
  copy?: { of: string; name: string };
}

function aheadPages(figma: Pick<FigmaApi, 'root'>): string[] {
  let v: unknown;
  try {
    v = JSON.parse(figma.root.getPluginData(AHEAD_PAGES_KEY) || '[]');
  } catch {
    return [];
  }
  return Array.isArray(v) ? v.filter((id): id is string => typeof id === 'string') : [];
}

function setAheadPages(figma: Pick<FigmaApi, 'root'>, ids: readonly string[]): void {
  const json = ids.length > 0 ? JSON.stringify(ids) : '';
  if (json !== figma.root.getPluginData(AHEAD_PAGES_KEY)) figma.root.setPluginData(AHEAD_PAGES_KEY, json);
}

/** Put the page of `node` on the list before anything is written ahead on it; the page's id when this added it (for the adder to take off). */
export function noteAheadPage(figma: Pick<FigmaApi, 'root'>, node: BaseNode): string | undefined {
  const page = pageOf(node);
  const pages = aheadPages(figma);
  if (!page || pages.includes(page.id)) return undefined;
  setAheadPages(figma, [...pages, page.id]);
  return page.id;
}

/** Take pages off the list: everything written ahead on them is finished. */
export function forgetAheadPages(figma: Pick<FigmaApi, 'root'>, ids: ReadonlySet<string>): void {
  if (ids.size > 0) setAheadPages(figma, aheadPages(figma).filter((id) => !ids.has(id)));
}

export function markButtonsAhead(node: BaseNode, ahead: ButtonsAhead): void {
  node.setPluginData(BUTTONS_AHEAD_KEY, JSON.stringify(ahead));
}

/** The marker off `node` (a node deleted meanwhile holds none to take off). */
export function clearButtonsAhead(node: BaseNode): void {
  if (!node.removed && node.getPluginData(BUTTONS_AHEAD_KEY)) node.setPluginData(BUTTONS_AHEAD_KEY, '');
}

/** The buttons due on a frame or copy, now that its layers' changes are done. */
export function giveButtons(node: BaseNode, note: string, warnings: string[]): void {
  setRelaunch(node, note, warnings);
  clearButtonsAhead(node);
}

function readButtonsAhead(node: BaseNode): ButtonsAhead | undefined {
  const b = parseJsonObject<unknown>(node.getPluginData(BUTTONS_AHEAD_KEY)) as Partial<ButtonsAhead>;
  const copyOk = b.copy === undefined || (typeof b.copy?.of === 'string' && typeof b.copy.name === 'string');
  return typeof b.to === 'string' && typeof b.note === 'string' && copyOk ? (b as ButtonsAhead) : undefined;
}

/** What settling leaves to do: the copies in which nothing was corrected, to remove. */
interface Settled {
  untouchedCopies: SceneNode[];
}

/**
 * Settle what applies cut short left on the pages the document lists. Runs
 * at every start and costs one read of the list when it is empty. Each page
 * is settled in one synchronous step once loaded, so a window closed during
 * this pass leaves every page settled or as it was. A page that fails stays
 * listed, to be tried at the next start, and the first failure is thrown
 * once the others are settled.
 */
export async function finishUnfinished(figma: FigmaApi): Promise<void> {
  const pages = aheadPages(figma);
  if (pages.length === 0) return;
  const settled: Settled = { untouchedCopies: [] };
  const failed: string[] = [];
  const errors: unknown[] = [];
  for (const id of pages) {
    try {
      const page = await loadedPage(figma, id);
      // Hidden layers inside instances too: a run that included them may have changed them.
      if (page) readingHiddenLayers(figma, () => settlePage(figma, page, settled));
    } catch (err) {
      failed.push(id);
      errors.push(err);
    }
  }
  setAheadPages(figma, failed);
  figma.commitUndo();
  removeUntouchedCopies(figma, settled);
  if (errors.length > 0) throw errors[0];
}

/** The page `id`, loaded; undefined when it is gone. */
async function loadedPage(figma: FigmaApi, id: string): Promise<PageNode | undefined> {
  const page = await figma.getNodeByIdAsync(id);
  if (page?.type !== 'PAGE') return undefined;
  await page.loadAsync();
  return page;
}

/** Every marker on the page: layers first, so a frame's or copy's buttons follow what its layers show. */
function settlePage(figma: FigmaApi, page: PageNode, settled: Settled): void {
  const marked = page.findAllWithCriteria({ pluginData: { keys: [AHEAD_KEY, BUTTONS_AHEAD_KEY] } });
  for (const node of marked) if (node.getPluginData(AHEAD_KEY)) settleLayer(figma, node);
  for (const node of marked) if (node.getPluginData(BUTTONS_AHEAD_KEY)) settleButtons(figma, node, settled);
}

function shownImages(figma: FigmaApi, node: BaseNode): Set<string> {
  return hasFills(node) && node.fills !== figma.mixed ? imageHashes(node.fills) : new Set();
}

/** A layer's change: its records settled and, when it was made, finished with its options and buttons. */
function settleLayer(figma: FigmaApi, node: SceneNode): void {
  const finish = settleAhead(node, shownImages(figma, node));
  if (finish) finishLayer(node, finish, []);
}

/** A frame's or copy's buttons: given when it or a layer in it shows the result; a copy in which nothing was corrected goes. */
function settleButtons(figma: FigmaApi, node: SceneNode, settled: Settled): void {
  const ahead = readButtonsAhead(node);
  clearButtonsAhead(node);
  if (!ahead) return;
  if ([node, ...fillLayersBelow(node)].some((n) => shownImages(figma, n).has(ahead.to))) setRelaunch(node, ahead.note, []);
  else if (ahead.copy && isUntouchedCopy(node, ahead.copy)) settled.untouchedCopies.push(node);
}

/** Whether a copy is still as the apply made it: beside its original, under the name it was given. */
function isUntouchedCopy(node: SceneNode, copy: NonNullable<ButtonsAhead['copy']>): boolean {
  const siblings = node.parent && 'children' in node.parent ? node.parent.children : [];
  return node.name === copy.name && siblings.some((n) => n.id === copy.of);
}

/**
 * Remove the copies in which nothing was corrected, as an undo step of its
 * own after the settling: their markers are gone already, so undoing the
 * removal brings them back to stay. The notification says so; Figma shows
 * 100 characters of it (typings `PluginAPI.notify`).
 */
function removeUntouchedCopies(figma: FigmaApi, settled: Settled): void {
  const copies = settled.untouchedCopies;
  if (copies.length === 0) return;
  for (const copy of copies) copy.remove();
  figma.commitUndo();
  const them = copies.length === 1 ? 'it' : 'them';
  figma.notify(`Removed ${copies.length === 1 ? '1 copy' : `${copies.length} copies`} left uncorrected when the Perfectly Clear window closed; Undo brings ${them} back`);
}
