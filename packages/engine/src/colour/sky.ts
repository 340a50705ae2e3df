/**
 * Blue sky on an analysis copy. A clear sky is the scene's light source seen
 * directly, not a surface it lights: a blue sky filling the top of a
 * landscape pulls every illuminant estimate towards blue, which reads as a
 * shade cast on a photo that has none. The white balance therefore weighs
 * the evidence of the scene below the sky ({@link estimateIlluminant}). The
 * sky is what is reached from the top edge, and the same sky seen through
 * openings in the scene (an arch, gaps in foliage).
 */
import type { Raster } from '../image/raster';
import { LINEAR_OF_BYTE } from './srgb';

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
/**
 * Sky seen through an opening joins the sky reached from the top edge when
 * the region holds at least this fraction of the frame ...
 */
const OPENING_MIN_FRACTION = 0.01;
/** ... and its mean colour is within this of the reached sky's on the warm–cool axis (a sky pales towards the horizon) ... */
const OPENING_MAX_U = 0.6;
/** ... and within this on the green–magenta axis ... */
const OPENING_MAX_V = 0.2;
/**
 * ... and it is bluer (ln R/B of its mean linear colour below minus this)
 * than a camera's cool cast makes a grey or white surface (about −0.15 to
 * −0.55; `BLUER_THAN_CAST_FROM` in illuminant.ts): under a shade cast, pale
 * walls, clouds or mist become sky-coloured, and a region enclosed by the
 * scene is then more likely such a surface than sky.
 */
const OPENING_BLUER = 0.8;
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
 * surface below a horizon, is not reached from the top and is not sky —
 * unless it is the same sky seen through an opening ({@link skyThroughOpenings}):
 * seen through an arch, most of a sky is enclosed by the scene, and left
 * out it pulls the scene's estimates towards a shade cast that is not there
 * (gc-qutubminar: 3.5 % of the frame found, the arch's 25 % not, and the
 * warm sandstone balanced towards orange, ΔE 5.2).
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
  if (count >= OPENING_MIN_FRACTION * w * h) count += skyThroughOpenings(data, w, h, ch, candidate, mask);
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

/**
 * The same sky seen through openings (an arch, a window, gaps in foliage):
 * once the flood from the top edge reached at least {@link OPENING_MIN_FRACTION}
 * of the frame, the smooth sky-coloured regions it did not reach, each at
 * least as large, of the colour of the sky that was reached
 * ({@link OPENING_MAX_U}, {@link OPENING_MAX_V} in log-chroma of the
 * regions' mean linear colour) and bluer than a cast makes a grey
 * ({@link OPENING_BLUER}). Marked in `mask`; returns how many pixels joined.
 * A blue object of another blue than the sky, a speck of blue, or a pale
 * wall or mist that a shade cast turned sky-coloured stays out.
 */
function skyThroughOpenings(data: Uint8Array, w: number, h: number, ch: number, candidate: Uint8Array, mask: Uint8Array): number {
  const top = regionChroma(data, ch, mask, 1);
  let joined = 0;
  const region = new Int32Array(w * h);
  let label = 1;
  for (let seed = 0; seed < w * h; seed++) {
    if (candidate[seed] !== 2 || mask[seed] || region[seed]) continue;
    label++;
    const members: number[] = [seed];
    region[seed] = label;
    for (let k = 0; k < members.length; k++) {
      const i = members[k]!;
      if (candidate[i] !== 2) continue;
      const x = i % w;
      for (const j of [i - w, i + w, x > 0 ? i - 1 : -1, x + 1 < w ? i + 1 : -1]) {
        if (j < 0 || j >= w * h || !candidate[j] || mask[j] || region[j]) continue;
        region[j] = label;
        members.push(j);
      }
    }
    if (members.length < OPENING_MIN_FRACTION * w * h) continue;
    const own = regionChroma(data, ch, region, label);
    if (own.u > -OPENING_BLUER || Math.abs(own.u - top.u) > OPENING_MAX_U || Math.abs(own.v - top.v) > OPENING_MAX_V) continue;
    for (const i of members) mask[i] = 1;
    joined += members.length;
  }
  return joined;
}

/** Log-chroma (u = ln R/B, v = ln G − (ln R + ln B)/2) of the mean linear colour of the pixels where `labels` is `label`. */
function regionChroma(data: Uint8Array, ch: number, labels: ArrayLike<number>, label: number): { u: number; v: number } {
  let r = 0;
  let g = 0;
  let b = 0;
  for (let i = 0; i < labels.length; i++) {
    if (labels[i] !== label) continue;
    const o = i * ch;
    r += LINEAR_OF_BYTE[data[o]!]!;
    g += LINEAR_OF_BYTE[data[o + 1]!]!;
    b += LINEAR_OF_BYTE[data[o + 2]!]!;
  }
  const [lr, lg, lb] = [r, g, b].map((x) => Math.log(Math.max(x, 1e-9)));
  return { u: lr! - lb!, v: lg! - (lr! + lb!) / 2 };
}

/** Whether two pixels (byte offsets) differ by at most {@link SKY_MAX_STEP} in every channel. */
function smoothTo(data: Uint8Array, a: number, b: number): boolean {
  return Math.abs(data[a]! - data[b]!) <= SKY_MAX_STEP && Math.abs(data[a + 1]! - data[b + 1]!) <= SKY_MAX_STEP && Math.abs(data[a + 2]! - data[b + 2]!) <= SKY_MAX_STEP;
}
