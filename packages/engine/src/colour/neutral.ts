/**
 * Grey surfaces as evidence about the light. Under a colour cast every
 * surface moves by the cast in log-chroma, grey ones too: a road, clouds,
 * concrete or paper no longer sit at neutral but at the cast. A scene
 * whose own colour pulls every illuminant estimate one way (water, a blue
 * sky, a stormy sky) keeps its grey surfaces at neutral. So before a
 * consensus is removed, the pixels near neutral are weighed against the
 * pixels where the cast would have put grey: when neutral is clearly the
 * denser of the two, the light is neutral and the lean is the scene's own.
 */
import type { Raster } from '../image/raster';
import type { Chroma } from './illuminant';
import { percentile } from './estimate';
import { LEVELS_CLIP } from './levels';
import { COLOUR_LOST_CODE, LINEAR_OF_BYTE } from './srgb';

/** Half-width of the neutral window on each log-chroma axis (about 6 % between two channels). */
const WINDOW = 0.06;
/** Pixels darker than this code in any channel are left out: their chroma is mostly noise. */
const MIN_CODE = 40;
/** The neutral window must hold at least this fraction of the measured pixels to count as grey surfaces. */
const MIN_GREY = 0.02;
/**
 * Share of the two densities held by neutral from which the cast loses
 * trust, and at which it has none (half and half: no evidence either way).
 */
const NEUTRAL_FROM = 0.6;
const NEUTRAL_TO = 0.85;

/** ln of each byte's linear value (codes below {@link MIN_CODE} are never read). */
const LOG_OF_BYTE: Float64Array = LINEAR_OF_BYTE.map((v) => Math.log(Math.max(v, 1e-6)));

/**
 * How far a consensus `removed` (the chroma the white balance takes out)
 * may be trusted by the grey surfaces of the frame, 0..1: 1 when there are
 * no grey surfaces or they sit where the cast puts them, falling to 0 as
 * they sit at neutral instead. `estimate` is the estimates' own lean (the
 * cast the grey surfaces would show, when larger than what is removed);
 * `skip` leaves pixels out (one byte a pixel, 1 = left out: the sky).
 */
export function neutralTrust(img: Raster, removed: Chroma, estimate: Chroma, skip?: Uint8Array): number {
  if (removed.u === 0 && removed.v === 0) return 1;
  // The cast box spans from what is removed to the estimates' lean, plus the window:
  // under a real cast the grey surfaces sit somewhere in it.
  const uLo = Math.min(removed.u, estimate.u) - WINDOW;
  const uHi = Math.max(removed.u, estimate.u) + WINDOW;
  const vLo = Math.min(removed.v, estimate.v) - WINDOW;
  const vHi = Math.max(removed.v, estimate.v) + WINDOW;
  // The part of the cast box outside the neutral window (a small cast's box reaches into it).
  const overlap = Math.max(0, Math.min(uHi, WINDOW) - Math.max(uLo, -WINDOW)) * Math.max(0, Math.min(vHi, WINDOW) - Math.max(vLo, -WINDOW));
  const castArea = (uHi - uLo) * (vHi - vLo) - overlap;
  if (castArea < WINDOW * WINDOW) return 1;
  const { data, channels: ch } = img;
  let n = 0;
  let atNeutral = 0;
  let atCast = 0;
  for (let i = 0, p = 0; i < data.length; i += ch, p++) {
    const r = data[i]!;
    const g = data[i + 1]!;
    const b = data[i + 2]!;
    if (r < MIN_CODE || g < MIN_CODE || b < MIN_CODE || r >= COLOUR_LOST_CODE || g >= COLOUR_LOST_CODE || b >= COLOUR_LOST_CODE || skip?.[p]) continue;
    n++;
    const lr = LOG_OF_BYTE[r]!;
    const lb = LOG_OF_BYTE[b]!;
    const u = lr - lb;
    const v = LOG_OF_BYTE[g]! - (lr + lb) / 2;
    if (Math.abs(u) <= WINDOW && Math.abs(v) <= WINDOW) atNeutral++;
    else if (u >= uLo && u <= uHi && v >= vLo && v <= vHi) atCast++;
  }
  if (n === 0 || atNeutral < MIN_GREY * n) return 1;
  // Densities per unit of log-chroma area: the cast box is larger than the neutral window.
  const neutralDensity = atNeutral / (2 * WINDOW) ** 2;
  const castDensity = atCast / castArea;
  const share = neutralDensity / (neutralDensity + castDensity);
  return Math.min(1, Math.max(0, (NEUTRAL_TO - share) / (NEUTRAL_TO - NEUTRAL_FROM)));
}

/**
 * Where a frame's dominant surface sits in log-chroma: the densest window of
 * {@link MODE_WINDOW_BINS}·2 + 1 bins (±0.07) among pixels whose chroma a
 * light could give a grey surface (|u| ≤ {@link MODE_U}, |v| ≤ {@link MODE_V}),
 * and the share of the frame it holds (dark and clipped pixels, whose
 * chroma is noise or lost, count in the frame but never in the window).
 */
export interface GreySurface {
  u: number;
  v: number;
  share: number;
  /**
   * How much more of the frame it holds than the next surface (the densest
   * window apart from it): several surfaces of like size, each its own
   * colour, do not say which of them is grey.
   */
  lead: number;
  /** The frame's black point: the darkest channel at its 0.02 % percentile (encoded, 0..1). */
  black: number;
}

/** Log-chroma bin width of the dominant-surface histogram. */
const MODE_BIN = 0.02;
/** Half-width of its densest window, in bins (3: ±0.07, the neutral window and a little). */
const MODE_WINDOW_BINS = 3;
/** Extent of the histogram on each axis: beyond it no light source puts a grey surface. */
const MODE_U = 1;
const MODE_V = 0.5;
const MODE_NU = Math.round((2 * MODE_U) / MODE_BIN);
const MODE_NV = Math.round((2 * MODE_V) / MODE_BIN);
/** Fraction of pixels below the black point: the planner's levels' own. */
const BLACK_QUANTILE = LEVELS_CLIP;

/**
 * The frame's dominant uniform surface ({@link GreySurface}), or undefined
 * when no pixel is measured. Von Kries gains move every pixel by the same
 * log-chroma, so a wall, paper, a road or an overcast sky filling much of
 * the frame moves by exactly the cast: its place is a direct reading of
 * the cast when it is grey. `skip` leaves pixels out (one byte a pixel,
 * 1 = left out: the blue sky, the light seen directly).
 */
export function greySurface(img: Raster, skip?: Uint8Array): GreySurface | undefined {
  const hist = new Uint32Array(MODE_NU * MODE_NV);
  const darkest = new Uint32Array(256);
  const { data, channels: ch } = img;
  let n = 0;
  for (let i = 0, p = 0; i < data.length; i += ch, p++) {
    const r = data[i]!;
    const g = data[i + 1]!;
    const b = data[i + 2]!;
    darkest[Math.min(r, g, b)]!++;
    if (r < MIN_CODE || g < MIN_CODE || b < MIN_CODE || r >= COLOUR_LOST_CODE || g >= COLOUR_LOST_CODE || b >= COLOUR_LOST_CODE || skip?.[p]) continue;
    n++;
    const lr = LOG_OF_BYTE[r]!;
    const lb = LOG_OF_BYTE[b]!;
    const iu = Math.floor((lr - lb + MODE_U) / MODE_BIN);
    const iv = Math.floor((LOG_OF_BYTE[g]! - (lr + lb) / 2 + MODE_V) / MODE_BIN);
    if (iu >= 0 && iu < MODE_NU && iv >= 0 && iv < MODE_NV) hist[iu * MODE_NV + iv]!++;
  }
  if (n === 0) return undefined;
  const densest = densestWindow(hist);
  const black = percentile(darkest, BLACK_QUANTILE) / 255;
  const frame = Math.max(1, data.length / ch);
  return { u: (densest.iu + 0.5) * MODE_BIN - MODE_U, v: (densest.iv + 0.5) * MODE_BIN - MODE_V, share: densest.count / frame, lead: densest.lead / frame, black };
}

/**
 * The bin whose window (±{@link MODE_WINDOW_BINS} on each axis) holds the
 * most pixels, by separable box sums, and how many more it holds than the
 * densest window that does not overlap it.
 */
function densestWindow(hist: Uint32Array): { iu: number; iv: number; count: number; lead: number } {
  const k = MODE_WINDOW_BINS;
  const alongV = new Uint32Array(hist.length);
  for (let a = 0; a < MODE_NU; a++) {
    for (let c = 0; c < MODE_NV; c++) {
      let s = 0;
      for (let y = Math.max(0, c - k); y <= Math.min(MODE_NV - 1, c + k); y++) s += hist[a * MODE_NV + y]!;
      alongV[a * MODE_NV + c] = s;
    }
  }
  const windows = new Uint32Array(hist.length);
  let best = 0;
  for (let a = 0; a < MODE_NU; a++) {
    for (let c = 0; c < MODE_NV; c++) {
      let s = 0;
      for (let x = Math.max(0, a - k); x <= Math.min(MODE_NU - 1, a + k); x++) s += alongV[x * MODE_NV + c]!;
      windows[a * MODE_NV + c] = s;
      if (s > windows[best]!) best = a * MODE_NV + c;
    }
  }
  const iu = Math.floor(best / MODE_NV);
  const iv = best % MODE_NV;
  let second = 0;
  for (let a = 0; a < MODE_NU; a++) {
    for (let c = 0; c < MODE_NV; c++) {
      if (Math.abs(a - iu) <= 2 * k && Math.abs(c - iv) <= 2 * k) continue;
      second = Math.max(second, windows[a * MODE_NV + c]!);
    }
  }
  return { iu, iv, count: windows[best]!, lead: windows[best]! - second };
}
