/**
 * Applies a colour plan to pixels: per-channel tone curves through 8-bit
 * look-up tables, then vibrance/saturation per pixel, in one pass. Alpha is
 * never touched.
 */
import type { Raster } from '../image/raster';
import { curvesBands } from '../image/bands';
import { curvesPass } from '../image/kernels';
import { timedSync, type StepTimings } from '../timings';
import { linearToSrgb, srgbToLinear } from './srgb';

/** A resolved correction, independent of image size. */
export interface ColourPlan {
  /** White-balance gains on linear R, G, B (1 = unchanged). */
  gains: [number, number, number];
  /**
   * Black point (encoded 0..1) mapped to 0, removed in the domain
   * {@link blackDomain} of weight `blackLinear` (0 = encoded values, 1 =
   * linear light); 0 = unchanged.
   */
  black: number;
  blackLinear: number;
  /** White point (encoded 0..1, after black removal) mapped to 1; 1 = unchanged. */
  white: number;
  /** Gain of the exposure curve (1 = unchanged); see {@link exposureCurve}. */
  exposure: number;
  /** Vibrance −1..1 and extra saturation −1..1 (0 = unchanged). */
  vibrance: number;
  saturation: number;
  /** Unsharp-mask amount 0..2 (0 = off). */
  sharpen: number;
}

/** The plan that changes nothing. */
export const IDENTITY_PLAN: Readonly<ColourPlan> = Object.freeze({
  gains: [1, 1, 1] as [number, number, number],
  black: 0,
  blackLinear: 0,
  white: 1,
  exposure: 1,
  vibrance: 0,
  saturation: 0,
  sharpen: 0,
});

/**
 * The exposure curve of gain g on linear light x (0..1); black and white stay
 * fixed. Brightening (g > 1) is f(x) = g·x / (1 + (g − 1)·x): a plain exposure
 * change on dark tones rolling off towards white, so nothing clips.
 * Darkening (g < 1) is f(x) = g·x + (1 − g)·x⁶: a plain exposure change up to
 * the upper midtones with a short shoulder that keeps white white. Blown
 * highlights of an over-exposed photo were brighter than the rest, so they
 * stay near the top.
 */
export function exposureLinear(x: number, g: number): number {
  if (g === 1) return x;
  if (g > 1) return (g * x) / (1 + (g - 1) * x);
  return g * x + (1 - g) * x ** 6;
}

/** Gain g of {@link exposureLinear} that maps linear value m to t (bisection; 1/4..4). */
export function exposureGainFor(m: number, t: number): number {
  if (m <= 0 || m >= 1 || t <= 0 || t >= 1) return 1;
  if (t >= m) return (t * (1 - m)) / (m * (1 - t));
  return solveIncreasing((g) => exposureLinear(m, g), t, 0.25, 1, 40);
}

/** The x in lo..hi where the increasing function f reaches `target`, by `steps` bisections. */
function solveIncreasing(f: (x: number) => number, target: number, lo: number, hi: number, steps: number): number {
  for (let i = 0; i < steps; i++) {
    const mid = (lo + hi) / 2;
    if (f(mid) < target) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/** Encoded (0..1) value after the exposure curve of gain g. */
export function exposureCurve(v: number, g: number): number {
  if (g === 1) return v;
  return linearToSrgb(exposureLinear(srgbToLinear(Math.min(1, Math.max(0, v))), g));
}

/**
 * The domain a black point is removed in: encoded value `v` carried towards
 * its linear light by `linear` (0 = encoded values, where a flattened tone
 * curve lifted the black; 1 = linear light, where a veil added to it), as
 * the weighted geometric mean v^(1 − linear) · L(v)^linear of the two, L the
 * sRGB transfer. Between the ends this behaves as a power of v, as the
 * transfer itself does in the midtones. Linear light is the sRGB transfer,
 * not v^2.4: that is darker below the highlights (at a haze's black of 0.5,
 * 0.19 against 0.21), so a veil removed in it left a foggy shadow behind.
 */
export function blackDomain(v: number, linear: number): number {
  if (linear === 0 || v <= 0) return Math.max(0, v);
  if (linear === 1) return srgbToLinear(v);
  return v ** (1 - linear) * srgbToLinear(v) ** linear;
}

/** Encoded value whose {@link blackDomain} of weight `linear` is `d` (0..1), by bisection. */
export function fromBlackDomain(d: number, linear: number): number {
  if (d <= 0) return 0;
  if (d >= 1) return 1;
  if (linear === 0) return d;
  if (linear === 1) return linearToSrgb(d);
  return solveIncreasing((v) => blackDomain(v, linear), d, 0, 1, 30);
}

/** Removal of black point b (encoded) from encoded values, in the {@link blackDomain} of weight `linear`. */
export function blackRemover(b: number, linear: number): (v: number) => number {
  if (b <= 0) return (v) => v;
  const db = blackDomain(b, linear);
  return (v) => fromBlackDomain(Math.max(0, (blackDomain(Math.max(0, v), linear) - db) / (1 - db)), linear);
}

/** The tone curve of one channel: encoded 0..1 in, encoded 0..1 out. */
export function channelCurve(plan: ColourPlan, channel: 0 | 1 | 2): (v: number) => number {
  const gain = plan.gains[channel];
  const removeBlack = blackRemover(plan.black, plan.blackLinear);
  return (v) => {
    const e = removeBlack(gain === 1 ? v : linearToSrgb(srgbToLinear(v) * gain)) / plan.white;
    return exposureCurve(e, plan.exposure);
  };
}

/** 8-bit look-up tables of the three channel curves. */
export function channelLuts(plan: ColourPlan): [Uint8Array, Uint8Array, Uint8Array] {
  return ([0, 1, 2] as const).map((c) => {
    const f = channelCurve(plan, c);
    const lut = new Uint8Array(256);
    for (let i = 0; i < 256; i++) lut[i] = Math.round(Math.min(1, Math.max(0, f(i / 255))) * 255);
    return lut;
  }) as [Uint8Array, Uint8Array, Uint8Array];
}

/** Encoded luma (Rec. 601 weights on encoded values, 0..255) of a pixel. */
export function luma8(r: number, g: number, b: number): number {
  return 0.299 * r + 0.587 * g + 0.114 * b;
}

/** A copy of the raster with the plan's tone curves (not vibrance) applied. */
export function applyCurves(img: Raster, plan: ColourPlan): Raster {
  return { ...img, data: curvesPass(img, channelLuts(plan), undefined) };
}

/**
 * The plan's tone curves and vibrance/saturation in one pass over the
 * pixels, into a new raster (alpha copied). Vibrance scales chroma (distance
 * from the pixel's luma) by more for muted colours than for vivid ones, and
 * by less on skin-like hues (red > green > blue), so faces do not turn
 * orange. The scale depends only on the pixel's max − min and the skin test,
 * so it comes from a table of 2 × 256 factors. Per pixel, with y its luma
 * (`luma8`), each channel becomes round(y + (c − y) · factor), clamped, in
 * float64: in WebAssembly (`curvesPass` of image/kernels.ts). With `luma`, the
 * output's 16-bit luma (`lumaPlane` of the sharpening) is written there on
 * the way, so the mask need not read the pixels once more. With `out`, the
 * pixels are written there (same length as the input) instead of a new buffer.
 */
export function applyPlan(img: Raster, plan: ColourPlan, luma?: Uint16Array, out?: Uint8Array): Raster {
  return { ...img, data: curvesPass(img, channelLuts(plan), saturationFactors(plan.vibrance, plan.saturation), luma, out) };
}

/** Rows of this thread's curves pass between two turns of the event loop (about a megapixel at 4000 px wide). */
const YIELD_PIXELS = 1 << 20;

/**
 * {@link applyPlan} of the whole image into `out` (and `luma`), as the look
 * runs it: in bands over the free helper threads when `out` and `luma` are
 * shared (`curvesBands` of image/bands.ts), and this thread's rows in strips
 * of about a megapixel with a turn of the event loop between them, so work
 * the caller started (a face detector handing its copy to a worker thread)
 * is not held up behind it. The same pixels as `applyPlan` in one go.
 */
export async function applyPlanInBands(img: Raster, plan: ColourPlan, luma: Uint16Array | undefined, out: Uint8Array, timings?: StepTimings): Promise<void> {
  const { width: w, channels: ch } = img;
  const luts = channelLuts(plan);
  const factors = saturationFactors(plan.vibrance, plan.saturation);
  const stripRows = Math.max(1, Math.floor(YIELD_PIXELS / w));
  const own = async ({ from, to }: { from: number; to: number }) => {
    for (let row = from; row < to; row += stripRows) {
      const [p0, p1] = [row * w, Math.min(to, row + stripRows) * w];
      timedSync(timings, 'curves', () => curvesPass({ data: img.data.subarray(p0 * ch, p1 * ch), channels: ch }, luts, factors, luma?.subarray(p0, p1), out.subarray(p0 * ch, p1 * ch)));
      if (p1 < to * w) await new Promise((resolve) => setImmediate(resolve));
    }
  };
  // The helpers' share is timed as the wait beyond this thread's own rows.
  let ownDone = 0;
  await curvesBands(img, luts, factors, out, luma, async (rows) => {
    await own(rows);
    ownDone = performance.now();
  });
  if (timings && ownDone > 0) timings.curves = (timings.curves ?? 0) + (performance.now() - ownDone);
}

/**
 * Chroma factors by max − min (0..255), plain then skin-like (+256); undefined
 * when vibrance and saturation are both 0.
 */
function saturationFactors(vibrance: number, saturation: number): Float64Array | undefined {
  if (vibrance === 0 && saturation === 0) return undefined;
  const t = new Float64Array(512);
  for (let d = 0; d < 256; d++) {
    const sat = d / 255;
    for (const [offset, skin] of [[0, 1], [256, 0.5]] as const) t[offset + d] = (1 + saturation) * (1 + vibrance * skin * (1 - sat) ** 2);
  }
  return t;
}
