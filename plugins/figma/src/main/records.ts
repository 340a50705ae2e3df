/**
 * The records a correction leaves on each layer it changes — which original
 * each corrected image replaced and the part of it shown (fills.ts), the
 * original paint of each changed fill (original-paints.ts) — written in two
 * steps around the layer's fills change.
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
 */
import type { CropRegion } from '../shared/crop';
import { CROPS_KEY, ORIGINALS_KEY, PAINTS_KEY, parseJsonObject, readJson, recordCrop, recordOriginal, type FillChange } from './fills';
import { PAINT_RECORDS_LIMIT, recordPaints, type WrittenFill } from './original-paints';

/** The plugin data keys of a correction's records, each a JSON object by image hash. */
const RECORD_KEYS = [ORIGINALS_KEY, CROPS_KEY, PAINTS_KEY] as const;

/** One layer's correction: the image `from` it showed replaced by `to`, which shows `region` of `from` (undefined: not known). */
export interface Correction {
  from: string;
  to: string;
  region: CropRegion | undefined;
}

/** A layer's records as they were before a change: its plugin data under each key ('' for none). */
export type RecordsBefore = ReadonlyMap<string, string>;

function recordsOf(node: BaseNode): RecordsBefore {
  return new Map(RECORD_KEYS.map((key) => [key, node.getPluginData(key)]));
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
 * the original, with the records of the image the layer shows kept. Returns
 * the records as they were, to finish or put back.
 */
export function recordAhead(node: BaseNode, c: Correction, planned: readonly WrittenFill[]): RecordsBefore {
  const before = recordsOf(node);
  if (c.to === c.from) return before;
  writeRecords(node, c, planned);
  keepRecordsOfShown(node, before, c.from);
  return before;
}

/** After the change: the records as if written in one step from those `before`, with the fills Figma holds now. */
export function finishRecords(node: BaseNode, c: Correction, before: RecordsBefore, written: readonly WrittenFill[]): void {
  putRecordsBack(node, before);
  writeRecords(node, c, written);
}
