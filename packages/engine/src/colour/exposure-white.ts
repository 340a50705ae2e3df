/**
 * Evidence that a short white end is under-exposure rather than a soft
 * scene's own: its brightest surfaces are white. Most scenes hold something
 * white or grey (paper, a wall, a label, a cloud, a specular glint), and an
 * exposure that reaches white puts it there; a scene whose brightest
 * surface is coloured (a cat's ginger fur, leaves, a red car) has no white
 * to reach, and its short white end is its own. So the brightest pixels of
 * the white-balanced copy lying near neutral under a short white end say
 * that a white surface was rendered grey: the photo was under-exposed, and
 * the white-end stretch may lift its median above the limit meant for soft
 * scenes (`STRETCH_KEY_LIMIT` in levels.ts). A soft scene (fog, an overcast
 * haze, a pale paper) has its median crowding the white end and is left to
 * that limit; a lifted black is the levels' own case (its white end is
 * restored with it, see `pivotedWhite`).
 * See the engine README, "Quality benchmark".
 */
import type { Raster } from '../image/raster';
import { ramp } from './ramp';

/** The brightest pixels: those whose brightest channel is within this (encoded) of the white end. */
const TOP_BAND = 0.04;
/**
 * Mean saturation ((max − min)/max, encoded) of the brightest pixels at and
 * below which they count as white in full, and from which not at all. On the
 * tune set, under-exposed copies of photos whose brightest surface is white
 * (cv-building, cv-stuff, skimage-ihc, lomiri-free) sit at 0.02–0.07,
 * cv-aloe's at 0.09–0.10; a ginger cat's (skimage-chelsea: whiskers among
 * fur) at 0.12–0.37, saturated subjects at 0.3–0.9.
 */
const WHITE_SAT_FULL = 0.06;
const WHITE_SAT_NONE = 0.12;
/**
 * Median over white end (encoded) from which the midtones crowd the white
 * end as in a soft scene (fog, haze) and the evidence fades, gone at the
 * second. Under-exposed copies of bright-key photos on the tune set sit at
 * 0.58–0.69.
 */
const SOFT_FROM = 0.72;
const SOFT_TO = 0.82;

/** Mean saturation of the pixels whose brightest channel is within {@link TOP_BAND} of `white` (encoded 0..1). */
export function brightestSaturation(img: Raster, white: number): number {
  const { data, channels: ch } = img;
  const from = Math.round((white - TOP_BAND) * 255);
  let n = 0;
  let sum = 0;
  for (let i = 0; i < data.length; i += ch) {
    const r = data[i]!;
    const g = data[i + 1]!;
    const b = data[i + 2]!;
    const max = r > g ? (r > b ? r : b) : g > b ? g : b;
    if (max < from || max === 0) continue;
    const min = r < g ? (r < b ? r : b) : g < b ? g : b;
    sum += (max - min) / max;
    n++;
  }
  return n > 0 ? sum / n : 1;
}

/**
 * How far (0..1) a short white end is a white surface under-exposed: the
 * brightest pixels near neutral and a median not crowding the white end.
 * `img` is the white-balanced copy with its black removed; `white` and `key`
 * its white end and median luma (encoded).
 */
export function underExposedWhite(img: Raster, white: number, key: number): number {
  if (white <= 0) return 0;
  const full = 1 - ramp(key / white, SOFT_FROM, SOFT_TO);
  if (full === 0) return 0;
  return full * (1 - ramp(brightestSaturation(img, white), WHITE_SAT_FULL, WHITE_SAT_NONE));
}
