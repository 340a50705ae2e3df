/**
 * Plans an automatic correction from an analysis copy: white balance, then
 * black/white levels, then the midtone key (exposure). Each step is measured on
 * the analysis copy after the previous ones, so the steps do not fight.
 */
import type { Raster } from '../image/raster';
import { angleFromNeutral, clippedFraction, greyEdgeIlluminant, histogram, percentile } from './estimate';
import { estimateIlluminant, gainsRemoving, type IlluminantEvidence } from './illuminant';
import type { ColourParams } from './params';
import { applyCurves, type ColourPlan, exposureGainFor, IDENTITY_PLAN, luma8 } from './apply';
import { LUMA, srgbToLinear } from './srgb';

/** Casts smaller than this angle (degrees from neutral) are taken as the scene's own colour. */
const CAST_DEADZONE_DEG = 2.5;
/**
 * Of the cast beyond the dead zone, at most this many degrees are removed, and
 * only this fraction of it. Grey-edge misreads a scene dominated by one warm
 * surface (a cat's fur, wood) as a cast by 10–15°; capping the correction
 * keeps such photos close to how they were, at the price of leaving part of
 * a strong real cast.
 */
const MAX_CAST_CORRECTION_DEG = 5;
const WB_FRACTION = 0.6;
/**
 * Video: casts below this angle are left alone, and the correction ramps up
 * to the whole estimate over the next {@link VIDEO_CAST_RAMP_DEG}, so that
 * clips near the threshold are not treated very differently.
 */
const VIDEO_CAST_DEADZONE_DEG = 1.5;
const VIDEO_CAST_RAMP_DEG = 2;
/** Video: the largest cast removed, degrees (beyond it the estimate is not trusted further). */
const VIDEO_MAX_CAST_DEG = 20;

/**
 * How the white balance is planned.
 *
 * - `still`: what the four illuminant estimates agree on
 *   ({@link estimateIlluminant}); {@link castCorrectionDeg} keeps the old
 *   grey-edge cap (at most 3°) for callers that plan from an angle.
 * - `video`: the whole estimate up to 20°. A clip is planned once from
 *   frames sampled over its length, so its estimate rests on many views,
 *   and a cast left in every frame of a clip is what users notice most;
 *   the price is that a clip filled by one warm surface (a close-up of
 *   ginger fur) is neutralised more than the same still would be.
 */
export type CastPolicy = 'still' | 'video';

/** Degrees of an estimated cast of `angle` degrees that the white balance removes under `policy`. */
export function castCorrectionDeg(angle: number, policy: CastPolicy): number {
  if (policy === 'video') {
    const ramp = Math.min(1, Math.max(0, (angle - VIDEO_CAST_DEADZONE_DEG) / VIDEO_CAST_RAMP_DEG));
    return Math.min(angle, VIDEO_MAX_CAST_DEG) * ramp;
  }
  return angle > CAST_DEADZONE_DEG ? Math.min(angle - CAST_DEADZONE_DEG, MAX_CAST_CORRECTION_DEG) * WB_FRACTION : 0;
}
/** Black point: encoded levels below this are left alone (deep shadows are rarely exactly 0). */
const BLACK_ALLOWANCE = 2 / 255;
/** Black points (encoded) up to this are a photo's own soft blacks and kept ... */
const BLACK_SOFT = 0.07;
/** ... and from this on are removed in full (between the two, in part). */
const BLACK_VEILED = 0.16;
/** Percentile (each end) ignored by the levels so that a few outliers do not set them. */
const LEVELS_CLIP = 0.003;
/** White point: highlights within this of white are left alone. */
const WHITE_ALLOWANCE = 3 / 255;
/** Largest levels stretch (gain on the encoded range). */
const MAX_STRETCH = 3;
/**
 * The white-point stretch may not push the median luma above this: a photo
 * whose midtones are already bright lacks highlights by nature (a soft, low
 * contrast scene), not because it is under-exposed.
 */
const STRETCH_KEY_LIMIT = 0.5;
/** Dark key (median luma) below which a photo without highlights is brightened. */
const DARK_KEY = 0.3;
/** Fraction of blown pixels (see clippedFraction) above which over-exposure is assumed ... */
const CLIPPED_OVER = 0.02;
/** ... and the further fraction at which it is certain. */
const CLIPPED_SURE = 0.08;
/** Exposure reduction for certain over-exposure, stops. */
const OVER_EV = 1.2;
/**
 * Key (median encoded luma) above which blown highlights are read as
 * over-exposure ... (a dark key with blown areas is a contrasty scene: a
 * window, the sun; a bright key without them is a high-key scene)
 */
const BRIGHT_KEY = 0.45;
/** ... and the further amount at which it is certain. */
const BRIGHT_KEY_SURE = 0.1;
/** Largest exposure gain either way (linear light), i.e. ±2 EV. */
const MAX_EXPOSURE_GAIN = 4;

/** What the planner measured, for reports and tests. */
export interface PlanDiagnostics {
  /** Estimated illuminant (linear RGB, mean 1). */
  illuminant: [number, number, number];
  /** Angle of the estimated cast from neutral, degrees. */
  castAngle: number;
  /** Encoded black point measured, and the highlights (brightest channel) after levels (0..1). */
  levels: [number, number];
  /** Median encoded luma before the exposure step (0..1). */
  key: number;
  /** Fraction of clipped pixels in the input. */
  clipped: number;
  /** Stills: each white-balance estimate and their consensus. */
  evidence?: IlluminantEvidence;
}

/**
 * Plan the correction of an analysis copy under a parameter set.
 *
 * @param cast how much of an estimated colour cast is removed (default `still`; see {@link CastPolicy}).
 * @param measured `estimateIlluminant(thumb)` when already made (stills only; measured here otherwise).
 */
export function planCorrection(
  thumb: Raster,
  p: ColourParams,
  cast: CastPolicy = 'still',
  measured?: IlluminantEvidence,
): { plan: ColourPlan; diagnostics: PlanDiagnostics } {
  const plan: ColourPlan = { ...IDENTITY_PLAN, gains: [1, 1, 1], sharpen: p.sharpen, vibrance: p.vibrance, saturation: p.saturation };
  const clipped = clippedFraction(thumb);

  // 1. White balance. A still removes what the evidence agrees on (see
  // illuminant.ts); a video clip the grey-edge estimate under its policy.
  let illuminant: [number, number, number];
  let castAngle: number;
  let wb: [number, number, number];
  let evidence: IlluminantEvidence | undefined;
  if (cast === 'still') {
    evidence = measured ?? estimateIlluminant(thumb);
    wb = gainsRemoving(evidence.consensus, p.whiteBalance);
    illuminant = gainsRemoving(evidence.consensus, -1);
    castAngle = angleFromNeutral(illuminant);
  } else {
    illuminant = greyEdgeIlluminant(thumb);
    castAngle = angleFromNeutral(illuminant);
    const k = castAngle > 0 ? (p.whiteBalance * castCorrectionDeg(castAngle, cast)) / castAngle : 0;
    const logs = illuminant.map((v) => Math.log(Math.max(v, 1e-4)));
    const meanLog = (logs[0]! + logs[1]! + logs[2]!) / 3;
    wb = logs.map((l) => Math.exp(-(l - meanLog) * k)) as [number, number, number];
  }
  // Creative warmth and tint on top, as linear gains.
  wb[0] *= 1 + 0.12 * p.warmth;
  wb[2] *= 1 - 0.12 * p.warmth;
  wb[1] *= 1 - 0.08 * p.tint;
  // Keep the luminance of grey unchanged.
  const y = LUMA[0] * wb[0] + LUMA[1] * wb[1] + LUMA[2] * wb[2];
  plan.gains = [wb[0] / y, wb[1] / y, wb[2] / y];

  // 2. Levels on the white-balanced copy: darkest channel for black, then brightest for white.
  const balanced = applyCurves(thumb, plan);
  const lo = percentile(histogram(balanced, (r, g, b) => Math.min(r, g, b)), LEVELS_CLIP) / 255;
  // Natural photos' darkest tones sit below ~0.07 (soft light, mist); a black
  // point well above that is veiling light or a flattened curve.
  const veil = Math.min(1, Math.max(0, (lo - BLACK_SOFT) / (BLACK_VEILED - BLACK_SOFT)));
  plan.black = Math.min(1 - 1 / MAX_STRETCH, p.contrast * veil * Math.max(0, lo - BLACK_ALLOWANCE));
  const unveiled = applyCurves(thumb, plan);
  const hi = percentile(histogram(unveiled, (r, g, b) => Math.max(r, g, b)), 1 - LEVELS_CLIP) / 255;
  const key0 = percentile(histogram(unveiled, luma8), 0.5) / 255;
  // The stretch may bring the key up to STRETCH_KEY_LIMIT, no further.
  const whiteTarget = Math.min(1, Math.max(hi + WHITE_ALLOWANCE, key0 / STRETCH_KEY_LIMIT, 1 / MAX_STRETCH));
  plan.white = 1 - p.contrast * (1 - whiteTarget);

  // 3. Exposure. A dark key is brightened only when the photo also lacks
  // highlights (a night or low-key photo keeps its mood); a bright key is
  // darkened only when highlights are clipped (a sign of over-exposure).
  const levelled = applyCurves(thumb, plan);
  const key = percentile(histogram(levelled, luma8), 0.5) / 255;
  const highlights = percentile(histogram(levelled, (r, g, b) => Math.max(r, g, b)), 1 - LEVELS_CLIP) / 255;
  let target = key;
  if (key < DARK_KEY && highlights < 0.9) target = key + (DARK_KEY - key) * p.exposure;
  let gain = exposureGainFor(srgbToLinear(Math.max(key, 1 / 255)), srgbToLinear(target));
  // Over-exposure shows as blown highlights over a sizeable area together
  // with a bright key; either alone is a scene (high-key: bright but not
  // blown; contrasty: blown light sources over a normal key). Take the
  // exposure down by up to OVER_EV stops, by how sure both signs are.
  const sureClipped = Math.min(1, Math.max(0, (clipped - CLIPPED_OVER) / CLIPPED_SURE));
  const sureKey = Math.min(1, Math.max(0, (key - BRIGHT_KEY) / BRIGHT_KEY_SURE));
  gain *= 2 ** (-OVER_EV * sureClipped * sureKey * p.exposure);
  gain = Math.min(MAX_EXPOSURE_GAIN, Math.max(1 / MAX_EXPOSURE_GAIN, gain)) * 2 ** p.brightness;
  plan.exposure = gain;

  return { plan, diagnostics: { illuminant, castAngle, levels: [lo, highlights], key, clipped, ...(evidence ? { evidence } : {}) } };
}
