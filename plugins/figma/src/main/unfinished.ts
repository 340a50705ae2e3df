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
 * So each apply keeps, on `figma.root`, the list of the pages it marks (its
 * entry, leases.ts); a start lists the root's keys (`getPluginDataKeys`,
 * typings `PluginDataMixin`, plugin-api.d.ts:6548-6550, which `DocumentNode`
 * has through `BaseNodeMixin`), and loads and searches only the pages of the
 * applies it may settle, with `findAllWithCriteria` by the markers' keys,
 * which runs inside Figma. Each marker names its apply, so an apply still
 * running in another session, on the same page, keeps its own. Documents
 * written by the version before hold one list for all applies
 * (`AHEAD_PAGES_KEY`), settled as that version did: its markers name no apply.
 */
import { AHEAD_KEY, settleAhead } from './records';
import { fillLayersBelow, readingHiddenLayers, type FigmaApi } from './host';
import { imagesShownNow } from './fills';
import { parseJsonObject } from './plugin-data';
import { dueApplies, keepUnsettled, LEASE_PREFIX, type DueApply } from './leases';
import { finishLayer, setRelaunch } from './relaunch';

/** Plugin data key: JSON `ButtonsAhead`, on a frame or copy whose relaunch buttons are due once a layer in it shows the result. */
export const BUTTONS_AHEAD_KEY = 'pfc.buttonsAhead';
/** Plugin data key on `figma.root`, written by the version before leases (leases.ts): JSON array of the ids of the pages holding its markers. */
export const AHEAD_PAGES_KEY = 'pfc.aheadPages';

/** Relaunch buttons due on a node once it or a layer in it shows the image `to`; on a copy the apply made, which original it copies, and its name; `apply` made it (absent in markers of versions before). */
export interface ButtonsAhead {
  to: string;
  note: string;
  copy?: { of: string; name: string };
  apply?: string;
}

function legacyPages(figma: Pick<FigmaApi, 'root'>): string[] {
  let v: unknown;
  try {
    v = JSON.parse(figma.root.getPluginData(AHEAD_PAGES_KEY) || '[]');
  } catch {
    return [];
  }
  return Array.isArray(v) ? v.filter((id): id is string => typeof id === 'string') : [];
}

function setLegacyPages(figma: Pick<FigmaApi, 'root'>, ids: readonly string[]): void {
  const json = ids.length > 0 ? JSON.stringify(ids) : '';
  if (json !== figma.root.getPluginData(AHEAD_PAGES_KEY)) figma.root.setPluginData(AHEAD_PAGES_KEY, json);
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

/** On each page to settle, whose markers: the applies settled (their ids; undefined: the version before's, which name none). */
type PagesToSettle = Map<string, Set<string | undefined>>;

/** Whether a key of `figma.root` tells of markers: an apply's entry (leases.ts), or the version before's list. */
function tellsOfMarkers(key: string): boolean {
  return key === AHEAD_PAGES_KEY || key.startsWith(LEASE_PREFIX);
}

/**
 * Settle what applies cut short left: those this start may settle (leases.ts
 * `dueApplies`), and those the version before listed. Runs at every start and
 * costs one read of the document's keys when no apply left anything. Each
 * page is settled in one synchronous step once loaded, so a window closed
 * during this pass leaves every page settled or as it was. A page that fails
 * stays listed, to be tried at the next start, and the first failure is
 * thrown once the others are settled.
 */
export async function finishUnfinished(figma: FigmaApi, client: () => Promise<string>): Promise<void> {
  const keys = figma.root.getPluginDataKeys();
  if (!keys.some(tellsOfMarkers)) return;
  const due = dueApplies(figma, keys, await client(), Date.now());
  const legacy = keys.includes(AHEAD_PAGES_KEY) ? legacyPages(figma) : [];
  const settled: Settled = { untouchedCopies: [] };
  const { failed, errors } = await settlePages(figma, pagesToSettle(due, legacy), settled);
  for (const d of due) keepUnsettled(figma, d, failed);
  setLegacyPages(figma, legacy.filter((id) => failed.has(id)));
  figma.commitUndo();
  removeUntouchedCopies(figma, settled);
  if (errors.length > 0) throw errors[0];
}

function pagesToSettle(due: readonly DueApply[], legacy: readonly string[]): PagesToSettle {
  const pages: PagesToSettle = new Map();
  const add = (id: string, apply: string | undefined) => {
    const applies = pages.get(id) ?? new Set();
    pages.set(id, applies.add(apply));
  };
  for (const d of due) for (const id of d.lease.pages) add(id, d.apply);
  for (const id of legacy) add(id, undefined);
  return pages;
}

/** Settle each page, loading it first; the pages that failed, and why. */
async function settlePages(figma: FigmaApi, pages: PagesToSettle, settled: Settled): Promise<{ failed: Set<string>; errors: unknown[] }> {
  const failed = new Set<string>();
  const errors: unknown[] = [];
  for (const [id, applies] of pages) {
    try {
      const page = await loadedPage(figma, id);
      // Hidden layers inside instances too: a run that included them may have changed them.
      if (page) readingHiddenLayers(figma, () => settlePage(figma, page, applies, settled));
    } catch (err) {
      failed.add(id);
      errors.push(err);
    }
  }
  return { failed, errors };
}

/** The page `id`, loaded; undefined when it is gone. */
async function loadedPage(figma: FigmaApi, id: string): Promise<PageNode | undefined> {
  const page = await figma.getNodeByIdAsync(id);
  if (page?.type !== 'PAGE') return undefined;
  await page.loadAsync();
  return page;
}

/** The apply that wrote the marker under `key` on `node`; undefined for the version before's, which name none. */
function markedBy(node: BaseNode, key: string): string | undefined {
  const by = parseJsonObject<unknown>(node.getPluginData(key)).apply;
  return typeof by === 'string' ? by : undefined;
}

/**
 * The markers of `applies` on the page (an apply still running elsewhere keeps
 * its own): layers first, so a frame's or copy's buttons follow what its
 * layers show.
 */
function settlePage(figma: FigmaApi, page: PageNode, applies: ReadonlySet<string | undefined>, settled: Settled): void {
  const marked = page.findAllWithCriteria({ pluginData: { keys: [AHEAD_KEY, BUTTONS_AHEAD_KEY] } });
  const settles = (node: SceneNode, key: string) => node.getPluginData(key) !== '' && applies.has(markedBy(node, key));
  for (const node of marked) if (settles(node, AHEAD_KEY)) settleLayer(figma, node);
  for (const node of marked) if (settles(node, BUTTONS_AHEAD_KEY)) settleButtons(figma, node, settled);
}

/** A layer's change: its records settled and, when it was made, finished with its options and buttons. */
function settleLayer(figma: FigmaApi, node: SceneNode): void {
  const finish = settleAhead(node, imagesShownNow(figma, node));
  if (finish) finishLayer(node, finish, []);
}

/** A frame's or copy's buttons: given when it or a layer in it shows the result; a copy in which nothing was corrected goes. */
function settleButtons(figma: FigmaApi, node: SceneNode, settled: Settled): void {
  const ahead = readButtonsAhead(node);
  clearButtonsAhead(node);
  if (!ahead) return;
  if ([node, ...fillLayersBelow(node)].some((n) => imagesShownNow(figma, n).has(ahead.to))) setRelaunch(node, ahead.note, []);
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
  // Found on pages settled before the last page loaded: one the user deleted meanwhile is gone already, and refuses remove().
  const copies = settled.untouchedCopies.filter((copy) => !copy.removed);
  if (copies.length === 0) return;
  for (const copy of copies) copy.remove();
  figma.commitUndo();
  const them = copies.length === 1 ? 'it' : 'them';
  figma.notify(`Removed ${copies.length === 1 ? '1 copy' : `${copies.length} copies`} left uncorrected when the Perfectly Clear window closed; Undo brings ${them} back`);
}
