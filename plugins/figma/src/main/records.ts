/**
 * The records a correction leaves on each layer it changes — which original
 * each corrected image replaced and the part of it shown (fills.ts), the
 * original paint of each changed fill (original-paints.ts), the keeper that
 * keeps the original in the file (keepers.ts) — written in two steps around
 * the layer's fills change.
 *
 * Figma may stop the plugin at any `await`: when the user closes its window,
 * "the plugin execution environment will be destroyed immediately when all the
 * callbacks have returned, and further callbacks will not be called" (typings
 * `PluginAPI.on`, event "close"). A layer that shows a corrected image without
 * the record leading back to its original is lost to Restore and to "Correct
 * again from the original". So:
 * - before the change, `recordAhead` adds the corrected image's records, made
 *   from the planned fills, beside those of the image the layer shows, which
 *   stay until the change is done: a layer whose change never happens works
 *   as it did;
 * - after it, `finishRecords` writes them from the layer's records as they
 *   were before, with the fills as Figma reads them back (it may store a
 *   paint's numbers otherwise than they were given);
 * - when the commit fails, `putRecordsBack` leaves them as they were.
 * Beside them goes a marker (`AHEAD_KEY`) holding what else finishes the
 * change — the options saved for "Correct again", the relaunch buttons —
 * which the plugin gives the layer after its change. When the user closed the
 * window before, the marker is how the plugin's next start finds the layer
 * and settles its records (`settleAhead`, called by unfinished.ts).
 */
import type { CropRegion } from '../shared/crop';
import { filterRecords, readOriginals, RECORD_KEYS, recordCrop, recordOriginal, type FillChange } from './fills';
import { forgetKeeper, KEEPERS_KEY, recordKeeper } from './keepers';
import { parseJsonObject, readJson } from './plugin-data';
import { PAINT_RECORDS_LIMIT, recordPaints, type WrittenFill } from './original-paints';

/** Plugin data key: JSON `Ahead`, on a layer whose change is under way, its records written ahead and not finished. */
export const AHEAD_KEY = 'pfc.ahead';

/** What finishes a layer's change besides its records (relaunch.ts `finishLayer`). */
export interface Finish {
  /** The run's options (JSON `RunOptions`), saved for "Correct again". */
  optionsJson: string;
  /** The description under the relaunch buttons. */
  note: string;
  /** Whether the layer carries the relaunch buttons itself (in place), or the copy around it does. */
  buttons: boolean;
}

/**
 * A change under way on a layer: `to` replaces `from`, and a keeper of `keeper` is added, then `Finish`; `apply`
 * made it (leases.ts; absent in markers of versions before).
 */
interface Ahead extends Finish {
  from: string;
  to: string;
  keeper?: string;
  apply?: string;
}

/** What a layer holds that a change writes ahead: its records, its keepers' record, and the marker. */
const AHEAD_WRITES = [...RECORD_KEYS, KEEPERS_KEY, AHEAD_KEY] as const;

/**
 * One layer's correction: the image `from` it showed replaced by `to`, which shows `region` of `from` (undefined:
 * not known), and the original a keeper is added for, if one is (fills.ts `FillChange.keeper`).
 */
export interface Correction {
  from: string;
  to: string;
  region: CropRegion | undefined;
  keeper?: string;
}

/** A layer's records as they were before a change: its plugin data under each key ('' for none). */
export type RecordsBefore = ReadonlyMap<string, string>;

function recordsOf(node: BaseNode): RecordsBefore {
  return new Map(AHEAD_WRITES.map((key) => [key, node.getPluginData(key)]));
}

/** Put a layer's records back as they were. */
export function putRecordsBack(node: BaseNode, before: RecordsBefore): void {
  for (const [key, value] of before) if (node.getPluginData(key) !== value) node.setPluginData(key, value);
}

/** The changed image fills of a layer: before the change, and in `now` (as planned, or as Figma reads them back). */
export function changedFills(change: FillChange, now: ReadonlyArray<Paint>): WrittenFill[] {
  return change.indices.flatMap((i) => {
    const [before, written] = [change.before[i], now[i]];
    return before?.type === 'IMAGE' && written?.type === 'IMAGE' ? [{ before, written }] : [];
  });
}

function writeRecords(node: BaseNode, c: Correction, fills: readonly WrittenFill[]): void {
  // recordPaints needs the originals record as it was before this correction.
  recordPaints(node, c.from, c.to, fills);
  recordOriginal(node, c.from, c.to);
  recordCrop(node, c.from, c.to, c.region);
  if (c.keeper) recordKeeper(node, c.keeper);
}

/** Add back, as they were, the records of `from`, which the layer still shows (writeRecords moved them to the new image). */
function keepRecordsOfShown(node: BaseNode, before: RecordsBefore, from: string): void {
  for (const key of RECORD_KEYS) {
    const was = parseJsonObject<unknown>(before.get(key) ?? '');
    if (!(from in was)) continue;
    const now = readJson<unknown>(node, key);
    now[from] = was[from];
    const json = JSON.stringify(now);
    // Both images' records of a layer with hundreds of fills could outgrow the 100 kB entry: the new image's come first.
    if (json.length <= PAINT_RECORDS_LIMIT) node.setPluginData(key, json);
  }
}

/**
 * Before a layer's fills change: what leads back from the corrected image to
 * the original, with the records of the image the layer shows kept, and the
 * marker with what else finishes the change, and the apply writing it. Returns
 * the records as they were, to finish or put back.
 */
export function recordAhead(node: BaseNode, c: Correction, planned: readonly WrittenFill[], finish: Finish, apply: string): RecordsBefore {
  const before = recordsOf(node);
  if (c.to === c.from) return before;
  try {
    writeRecords(node, c, planned);
    keepRecordsOfShown(node, before, c.from);
    const ahead: Ahead = { from: c.from, to: c.to, ...(c.keeper ? { keeper: c.keeper } : {}), ...finish, apply };
    node.setPluginData(AHEAD_KEY, JSON.stringify(ahead));
  } catch (err) {
    // One record refused (Figma's 100 kB an entry) after others were written: the layer keeps none of them,
    // or its records would lead back from a correction it never got.
    putRecordsBack(node, before);
    throw new Error(`Figma refused to store on "${node.name}" the way back to its original (${err instanceof Error ? err.message : String(err)}), so this image was put in nowhere`, { cause: err });
  }
  return before;
}

/**
 * After the change: the records as if written in one step from those
 * `before`, with the fills Figma holds now; the marker goes. `shown` are the
 * images the layer shows now: where a fill the change left (a hidden one, not
 * included) still shows `from`, the records of `from` stay, as `settleAhead`
 * keeps them, so Restore still leads that fill back to its original.
 */
export function finishRecords(node: BaseNode, c: Correction, before: RecordsBefore, written: readonly WrittenFill[], shown: ReadonlySet<string>): void {
  putRecordsBack(node, before);
  writeRecords(node, c, written);
  if (shown.has(c.from)) keepRecordsOfShown(node, before, c.from);
  if (node.getPluginData(AHEAD_KEY)) node.setPluginData(AHEAD_KEY, '');
}

/**
 * Whether the layer shows another image since the correction that made
 * `corrected`: neither it, nor its original, nor another correction of that
 * original. (A record written ahead of a change the plugin never got to make
 * names an image the layer does not show, beside the one it does.)
 */
export function replacedSince(corrected: string, originals: Readonly<Record<string, string>>, shown: ReadonlySet<string>): boolean {
  const original = originals[corrected];
  if (shown.has(corrected) || (original !== undefined && shown.has(original))) return false;
  return !Object.entries(originals).some(([other, from]) => from === original && shown.has(other));
}

function readAhead(node: BaseNode): Ahead | undefined {
  const a = parseJsonObject<unknown>(node.getPluginData(AHEAD_KEY)) as Partial<Ahead>;
  const strings = [a.from, a.to, a.optionsJson, a.note].every((v) => typeof v === 'string');
  return strings && typeof a.buttons === 'boolean' ? (a as Ahead) : undefined;
}

/**
 * Settle the records of a change the plugin was stopped in (the user closed
 * its window) before finishing them, from the images the layer shows
 * (`shown`) — as Restore tells them apart (`replacedSince`):
 * - it shows the new image: the change was made. The records of the image it
 *   showed, kept beside, go as `finishRecords` would have taken them (unless
 *   a fill still shows that image), and what finishes the change is returned;
 * - it shows what it showed: the change never happened. The new image's
 *   records go, and so does the record of the keeper it was to add: the
 *   layer's are as they were;
 * - it shows another image: the user put it in since. The records stay, as
 *   Restore keeps those of a layer changed since, for when they undo it.
 * The marker goes in every case. Fills are never touched.
 */
export function settleAhead(node: BaseNode, shown: ReadonlySet<string>): Finish | undefined {
  const ahead = readAhead(node);
  node.setPluginData(AHEAD_KEY, '');
  if (!ahead) return undefined;
  if (shown.has(ahead.to)) {
    if (!shown.has(ahead.from)) filterRecords(node, (hash) => hash !== ahead.from);
    return { optionsJson: ahead.optionsJson, note: ahead.note, buttons: ahead.buttons };
  }
  if (replacedSince(ahead.to, readOriginals(node), shown)) return undefined;
  filterRecords(node, (hash) => hash !== ahead.to);
  if (typeof ahead.keeper === 'string') forgetKeeper(node, ahead.keeper);
  return undefined;
}
