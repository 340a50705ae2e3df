/**
 * The original paint of every fill a correction changed, so Restore puts the
 * fill back exactly as it was — image, scale mode, imageTransform,
 * scalingFactor, rotation, filters … — also where the correction had to
 * change its framing (a CROP fill set to FILL, framing.ts).
 *
 * A record keeps only what a restore needs, as a plugin data entry (plugin
 * id, key and value) "cannot exceed 100 kB" (typings
 * `PluginDataMixin.setPluginData`;
 * https://developers.figma.com/docs/plugins/api/properties/nodes-setplugindata):
 * the framing the plugin wrote, to tell whether the user has reframed the
 * fill since, and the original's values of the properties in which it
 * differs from the written paint — the image and its framing, as a
 * correction keeps filters, opacity, blend mode and visibility: about 230
 * bytes for a CROP fill.
 *
 * Layers corrected by versions of the plugin that kept no such record are
 * restored by refitting the fill (framing.ts), as those versions did.
 */
import { IDENTITY, sameStored } from './framing';
import { PAINTS_KEY, readOriginals } from './fills';
import { readJson } from './plugin-data';

/** The properties of an image paint that say which part of the image the layer shows, and how. */
export interface Framing {
  scaleMode: ImagePaint['scaleMode'];
  imageTransform?: Transform;
  scalingFactor?: number;
  rotation?: number;
}

/** An original paint's values that differ from the written paint's; null for a property the original did not have. */
type PaintValues = { [K in keyof ImagePaint]?: ImagePaint[K] | null };

/** One corrected fill: the framing the plugin wrote (as Figma read it back) and what the original had instead. */
export interface PaintRecord {
  wrote: Framing;
  was: PaintValues;
}

/** A corrected fill as it was before the correction and as Figma reads it back after. */
export interface WrittenFill {
  before: ImagePaint;
  written: ImagePaint;
}

/**
 * Above this size (characters of JSON; the record is ASCII) a layer's new
 * records are not kept, so the 100 kB entry limit can never refuse them
 * after the fills were set; it takes a few hundred image fills on one layer.
 */
export const PAINT_RECORDS_LIMIT = 64_000;

/**
 * The framing of `paint`, with only the properties its scale mode uses: the
 * others are "automatic" (typings `ImagePaint`: `imageTransform` "Applicable
 * only for scaleMode == CROP", `scalingFactor` "Applicable only for TILE
 * (automatic for other modes)", `rotation` "automatic for CROP"), so Figma
 * may read them back changed without anyone touching the fill.
 */
export function framingOf(paint: ImagePaint): Framing {
  if (paint.scaleMode === 'CROP') return { scaleMode: 'CROP', imageTransform: paint.imageTransform ?? IDENTITY };
  if (paint.scaleMode === 'TILE') return { scaleMode: 'TILE', scalingFactor: paint.scalingFactor ?? 1, rotation: paint.rotation ?? 0 };
  return { scaleMode: paint.scaleMode, rotation: paint.rotation ?? 0 };
}

function sameFraming(a: Framing, b: Framing): boolean {
  const transform = (f: Framing) => (f.imageTransform ?? []).flat();
  const [ta, tb] = [transform(a), transform(b)];
  return a.scaleMode === b.scaleMode && sameStored(a.scalingFactor, b.scalingFactor) && sameStored(a.rotation, b.rotation) && ta.length === tb.length && ta.every((v, i) => sameStored(v, tb[i]));
}

/** The properties in which `original` differs from `written`, with the original's values. */
function differences(original: ImagePaint, written: ImagePaint): PaintValues {
  const was: Record<string, unknown> = {};
  for (const key of new Set([...Object.keys(original), ...Object.keys(written)]) as Set<keyof ImagePaint>) {
    if (JSON.stringify(original[key]) !== JSON.stringify(written[key])) was[key] = original[key] ?? null;
  }
  return was as PaintValues;
}

function isRecord(v: unknown): v is PaintRecord {
  const r = v as Partial<PaintRecord> | null;
  return typeof r === 'object' && r !== null && typeof r.wrote?.scaleMode === 'string' && typeof r.was?.imageHash === 'string';
}

/** The records of a layer, by the image hash its corrected fills show (malformed ones left out). */
export function readPaintRecords(node: BaseNode): Record<string, PaintRecord[]> {
  const records: Record<string, PaintRecord[]> = {};
  for (const [hash, list] of Object.entries(readJson<unknown>(node, PAINTS_KEY))) {
    if (Array.isArray(list)) records[hash] = list.filter(isRecord);
  }
  return records;
}

/**
 * The record of `paint` among `records` — one whose written framing it still
 * has — taken out of the list (each record stands for one fill), or
 * undefined when the user has reframed the fill since.
 */
export function takeRecord(records: PaintRecord[], paint: ImagePaint): PaintRecord | undefined {
  const framing = framingOf(paint);
  const index = records.findIndex((r) => sameFraming(r.wrote, framing));
  return index === -1 ? undefined : records.splice(index, 1)[0];
}

/**
 * The original of `paint`, a fill the plugin wrote: its image and framing put
 * back, and any property the user changed since (opacity, filters …) kept.
 */
export function originalPaint(paint: ImagePaint, record: PaintRecord): ImagePaint {
  const original: Record<string, unknown> = { ...paint };
  for (const [key, value] of Object.entries(record.was)) {
    if (value === null) delete original[key];
    else original[key] = value;
  }
  return original as unknown as ImagePaint;
}

/**
 * Remember, on a layer where `to` replaced `from`, the original paint of each
 * changed fill. Call before `recordOriginal`. When `from` is itself a
 * corrected image, the original is the one its record holds; a fill the user
 * reframed since that correction gets no record (a restore keeps the user's
 * framing), and an image corrected by a version without records gets none.
 */
export function recordPaints(node: BaseNode, from: string, to: string, fills: readonly WrittenFill[]): void {
  if (to === from) return;
  const records = readPaintRecords(node);
  const earlier = records[from];
  if (!earlier && from in readOriginals(node)) return;
  delete records[from];
  const list = records[to] ?? [];
  for (const { before, written } of fills) {
    const record = earlier ? takeRecord(earlier, before) : undefined;
    const original = earlier ? record && originalPaint(before, record) : before;
    if (original) list.push({ wrote: framingOf(written), was: differences(original, written) });
  }
  records[to] = list;
  const json = JSON.stringify(records);
  if (json.length <= PAINT_RECORDS_LIMIT) node.setPluginData(PAINTS_KEY, json);
}
