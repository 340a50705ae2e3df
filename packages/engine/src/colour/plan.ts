/**
 * Plans an automatic correction from an analysis copy: white balance, then
 * black/white levels, then the midtone key (exposure), then how much
 * sharpening and vibrance the photo needs (colour/finish.ts). Each step is
 * measured on the analysis copy after the previous ones, so the steps do not fight.
 */
import type { Raster } from '../image/raster';
import { maskSigma } from '../image/sharpen';
import { angleFromNeutral, clippedFraction, greyEdgeIlluminant, percentile } from './estimate';
import { lumaHistogram, maxHistogram } from './histograms';
import { acutance, finishAmount, sharpenNeed, vibranceNeed, type FinishNeed, type FinishStep } from './finish';
import { BLUER_THAN_CAST_FROM, BLUER_THAN_CAST_TO, estimateIlluminant, gainsRemoving, unsettledLean, type IlluminantEvidence } from './illuminant';
import type { ColourParams } from './params';
import { applyCurves, type ColourPlan, exposureGainFor, IDENTITY_PLAN } from './apply';
import { LEVELS_CLIP, planLevels, WHITE_OWN, WHITE_SHORT } from './levels';
import { ramp } from './ramp';
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
/** Dark key (median luma) below which a photo whose highlights are clearly short is brightened. */
const DARK_KEY = 0.3;
/** Largest exposure gain either way (linear light), i.e. ±2 EV. */
const MAX_EXPOSURE_GAIN = 4;
/**
 * Blue light: how far the brightest unclipped pixels (the white patch) lean
 * to blue on the warm–cool axis (ln R/B, negative). After sunset a dim
 * outdoor scene is lit by the blue sky (blue hour, dusk, moonlit snow) and
 * has no neutral highlight. From {@link BLUER_THAN_CAST_FROM} (beyond what a
 * camera's cool cast makes of a white) the scene starts to count as lit by
 * coloured light, at {@link BLUER_THAN_CAST_TO} in full.
 * Warm dim light (candles, tungsten) is not counted: statistically it is the
 * same as a tungsten cast on an under-exposed photo, which is corrected; an
 * orange or green subject filling a dim frame looks the same too.
 */
const COLOURED_LIGHT_FROM = BLUER_THAN_CAST_FROM;
const COLOURED_LIGHT_TO = BLUER_THAN_CAST_TO;

/**
 * Vibrance is scaled down as far as every white-balance estimate leans the
 * same way beyond what the balance removed ({@link unsettledLean}): from
 * this lean (log units) on, and off at {@link UNSETTLED_TO}. Such a lean is
 * a cast too uncertain to remove or the scene's own colour, and vibrance,
 * which lifts muted colours most, would push it further.
 */
const UNSETTLED_FROM = 0.05;
const UNSETTLED_TO = 0.25;

/**
 * How much a photo is a dim scene in blue light (0..1): its white end is
 * short (no highlight reaches white) and its brightest pixels are strongly
 * blue. Such a scene (dusk, blue hour) is neither
 * under-exposed nor cast: the white-end stretch, the dark-key lift, the
 * white balance and vibrance are scaled down by this much. Under-exposure of
 * a daylight photo shortens the white end too, but leaves its brightest
 * parts near neutral; a cast colours them, but leaves the white end long (see
 * {@link COLOURED_LIGHT_FROM} for why warm light is not counted).
 */
export function dimColouredLight(thumb: Raster, evidence: IlluminantEvidence | undefined): number {
  // The light as seen in the whole frame: at dusk the sky is its brightest part.
  const light = evidence?.light ?? evidence?.whitePatch ?? evidence?.greyEdge;
  if (!light) return 0;
  const coloured = ramp(-light.u, COLOURED_LIGHT_FROM, COLOURED_LIGHT_TO);
  if (coloured === 0) return 0;
  const white = percentile(maxHistogram(thumb), 1 - LEVELS_CLIP) / 255;
  return coloured * ramp(-white, -WHITE_OWN, -WHITE_SHORT);
}

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
  /** Stills: how much the photo is a dim scene in coloured light ({@link dimColouredLight}, 0..1). */
  mood?: number;
  /** Stills: how much the photo needs sharpening and vibrance (colour/finish.ts). */
  need?: FinishNeed;
}

/** What a still is planned from besides the analysis copy. */
export interface StillInputs {
  /** `acutance` of the full image at its mask's scale (measured on the analysis copy otherwise). */
  acutance?: number;
  /**
   * A point sample of the full image (`pointSample(img, side)`) the levels read the
   * photo's ends from (the analysis copy otherwise, whose resampling moves them).
   */
  points?: Raster;
  /** Finishing steps whose parameter the user set, applied as given (see `finishAmount`). */
  asGiven?: readonly FinishStep[];
}

/**
 * Plan the correction of an analysis copy under a parameter set.
 *
 * @param cast how much of an estimated colour cast is removed (default `still`; see {@link CastPolicy}).
 * @param measured `estimateIlluminant(thumb)` when already made (stills only; measured here otherwise).
 * @param finish what a still is planned from besides the analysis copy (full-image measurements, the user's settings).
 */
export function planCorrection(
  thumb: Raster,
  p: ColourParams,
  cast: CastPolicy = 'still',
  measured?: IlluminantEvidence,
  finish: StillInputs = {},
): { plan: ColourPlan; diagnostics: PlanDiagnostics } {
  const plan: ColourPlan = { ...IDENTITY_PLAN, gains: [1, 1, 1], sharpen: p.sharpen, vibrance: p.vibrance, saturation: p.saturation };
  const clipped = clippedFraction(thumb);

  // 1. White balance. A still removes what the evidence agrees on (see
  // illuminant.ts); a video clip the grey-edge estimate under its policy.
  let illuminant: [number, number, number];
  let castAngle: number;
  let wb: [number, number, number];
  let evidence: IlluminantEvidence | undefined;
  let mood = 0;
  if (cast === 'still') {
    evidence = measured ?? estimateIlluminant(thumb);
    mood = dimColouredLight(thumb, evidence);
    wb = gainsRemoving(evidence.consensus, p.whiteBalance * (1 - mood));
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

  // 2. Levels on the white-balanced copy (levels.ts): each end corrected
  // only as far as it is clearly off, a lifted black only as far as a veil
  // or a flattened curve explains it.
  const { lo, lifted } = planLevels(finish.points ?? thumb, plan, p.contrast, mood);

  // 3. Exposure. A dark key is brightened only as far as the highlights are
  // clearly short after the levels (a night or low-key photo with its own
  // highlights keeps its mood). A bright key is never darkened: from the
  // analysis copy a high-key scene, a blown sky or snow and over-exposure
  // cannot be told apart, and when unsure the engine does little.
  const levelled = applyCurves(thumb, plan);
  const key = percentile(lumaHistogram(levelled), 0.5) / 255;
  const highlights = percentile(maxHistogram(levelled), 1 - LEVELS_CLIP) / 255;
  // A lifted black is a flattened curve or a veil, not under-exposure: its
  // white end is what the levels restored (see pivotedWhite), so it gets no lift.
  const dark = ramp(-highlights, -WHITE_OWN, -WHITE_SHORT) * (1 - mood) * (1 - lifted);
  const target = key < DARK_KEY ? key + (DARK_KEY - key) * p.exposure * dark : key;
  let gain = exposureGainFor(srgbToLinear(Math.max(key, 1 / 255)), srgbToLinear(target));
  gain = Math.min(MAX_EXPOSURE_GAIN, Math.max(1 / MAX_EXPOSURE_GAIN, gain)) * 2 ** p.brightness;
  plan.exposure = gain;

  // 4. Finishing (stills): sharpening and vibrance as far as the photo needs them.
  const need = evidence ? finishNeed(thumb, plan, finish, lifted) : undefined;
  plan.sharpen = finishAmount('sharpen', p, need, finish.asGiven);
  // Vibrance would push a scene already saturated by its light further, and
  // a lean the white balance left.
  const unsure = evidence ? ramp(unsettledLean(evidence), UNSETTLED_FROM, UNSETTLED_TO) : 0;
  plan.vibrance = finishAmount('vibrance', p, need, finish.asGiven) * (1 - mood) * (1 - unsure);

  return { plan, diagnostics: { illuminant, castAngle, levels: [lo, highlights], key, clipped, ...(evidence ? { evidence, mood } : {}), ...(need ? { need } : {}) } };
}

/**
 * The finishing steps' need: sharpening from the acutance, vibrance from the
 * chroma the tone curves leave, and in full as far as the levels read the
 * black as lifted by a veil (`lifted`): the veil greyed every colour, and
 * removing it gives back only part of their chroma.
 */
function finishNeed(thumb: Raster, plan: ColourPlan, finish: StillInputs, lifted: number): FinishNeed {
  const sharpness = finish.acutance ?? acutance(thumb, maskSigma(thumb.width, thumb.height));
  return { sharpen: sharpenNeed(sharpness), vibrance: Math.max(lifted, vibranceNeed(applyCurves(thumb, plan))) };
}
