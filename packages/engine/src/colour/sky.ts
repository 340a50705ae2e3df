/**
 * Blue sky on an analysis copy. A clear sky is the scene's light source seen
 * directly, not a surface it lights: a blue sky filling the top of a
 * landscape pulls every illuminant estimate towards blue, which reads as a
 * shade cast on a photo that has none. The white balance therefore weighs
 * the evidence of the scene below the sky ({@link estimateIlluminant}).
 */
import type { Raster } from '../image/raster';

/** Sky pixels lean to blue by at least this much (encoded codes, blue over red) ... */
const BLUE_OVER_RED = 10;
/** ... with green at most this far above blue (a cyan haze near the horizon still counts) ... */
const GREEN_OVER_BLUE = 8;
/** ... are bright (brightest channel, encoded codes) ... */
const SKY_MIN_BRIGHT = 110;
/** ... and smooth: no channel differs from the right or lower neighbour by more than this (codes). */
const SKY_MAX_STEP = 10;
/** A region smaller than this fraction of the frame is not taken as sky (a blue object near the top). */
const SKY_MIN_FRACTION = 0.03;
/** Rows in which sky covers at least this fraction belong to the sky band (see {@link SkyRegion.bandRows}). */
const BAND_ROW_FRACTION = 0.25;

/** Where the sky is on an analysis copy. */
export interface SkyRegion {
  /** 1 for a sky pixel, row-major, one byte a pixel. */
  mask: Uint8Array;
  /** Fraction of the frame that is sky (0 when none was found). */
  fraction: number;
  /**
   * Rows from the top that are mostly sky, contiguous from row 0; an
   * estimate that needs whole rows (grey-edge's gradients) starts below them.
   */
  bandRows: number;
}

/** Whether one pixel looks like clear sky by its colour alone. */
function skyColour(r: number, g: number, b: number): boolean {
  return b >= r + BLUE_OVER_RED && g <= b + GREEN_OVER_BLUE && Math.max(r, g, b) >= SKY_MIN_BRIGHT;
}

/**
 * The blue sky of an analysis copy: smooth, bright, blue pixels connected to
 * the top edge (4-connected), with their rim. A blue object inside the frame, or a blue
 * surface below a horizon, is not reached from the top and is not sky.
 */
export function findSky(img: Raster): SkyRegion {
  const { data, width: w, height: h, channels: ch } = img;
  // 2: sky-coloured and smooth (the flood grows through these); 1: sky-coloured only.
  const candidate = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const o = (y * w + x) * ch;
      if (!skyColour(data[o]!, data[o + 1]!, data[o + 2]!)) continue;
      const right = x + 1 < w ? o + ch : o;
      const down = y + 1 < h ? o + w * ch : o;
      candidate[y * w + x] = smoothTo(data, o, right) && smoothTo(data, o, down) ? 2 : 1;
    }
  }
  // Flood from the top edge through smooth sky; the sky's rim (sky-coloured
  // but not smooth, next to the horizon or a cloud) joins without growing it.
  const mask = new Uint8Array(w * h);
  const stack: number[] = [];
  for (let x = 0; x < w; x++) {
    if (candidate[x] !== 2) continue;
    mask[x] = 1;
    stack.push(x);
  }
  let count = stack.length;
  while (stack.length) {
    const i = stack.pop()!;
    const x = i % w;
    for (const j of [i - w, i + w, x > 0 ? i - 1 : -1, x + 1 < w ? i + 1 : -1]) {
      if (j < 0 || j >= w * h || !candidate[j] || mask[j]) continue;
      mask[j] = 1;
      count++;
      if (candidate[j] === 2) stack.push(j);
    }
  }
  const fraction = count / Math.max(1, w * h);
  if (fraction < SKY_MIN_FRACTION) return { mask: new Uint8Array(w * h), fraction: 0, bandRows: 0 };
  let bandRows = 0;
  for (; bandRows < h; bandRows++) {
    let n = 0;
    for (let x = 0; x < w; x++) n += mask[bandRows * w + x]!;
    if (n < BAND_ROW_FRACTION * w) break;
  }
  return { mask, fraction, bandRows };
}

/** Whether two pixels (byte offsets) differ by at most {@link SKY_MAX_STEP} in every channel. */
function smoothTo(data: Uint8Array, a: number, b: number): boolean {
  return Math.abs(data[a]! - data[b]!) <= SKY_MAX_STEP && Math.abs(data[a + 1]! - data[b + 1]!) <= SKY_MAX_STEP && Math.abs(data[a + 2]! - data[b + 2]!) <= SKY_MAX_STEP;
}
