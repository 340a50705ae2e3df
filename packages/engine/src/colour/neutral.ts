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
import { LINEAR_OF_BYTE } from './srgb';

/** Half-width of the neutral window on each log-chroma axis (about 6 % between two channels). */
const WINDOW = 0.06;
/** Pixels darker than this code in any channel are left out: their chroma is mostly noise. */
const MIN_CODE = 40;
/** Pixels with a channel at or above this code are clipped: their colour is lost. */
const CLIP = 250;
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
    if (r < MIN_CODE || g < MIN_CODE || b < MIN_CODE || r >= CLIP || g >= CLIP || b >= CLIP || skip?.[p]) continue;
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
