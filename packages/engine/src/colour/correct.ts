/**
 * Colour correction of a whole image: plan on an analysis copy, apply to the
 * full-resolution raster, sharpen its luma.
 */
import { pointSample, thumbnailRaster, type Raster } from '../image/raster';
import { sharedBytes, sharedU16 } from '../image/bands';
import { maskSigma, sharpenInPlace, sharpenSpec } from '../image/sharpen';
import { applyPlanInBands, type ColourPlan } from './apply';
import { acutance, type FinishStep } from './finish';
import { isNeutral, type ColourParams } from './params';
import type { IlluminantEvidence } from './illuminant';
import { planCorrection, type PlanDiagnostics } from './plan';
import { timed, timedSync, type StepTimings } from '../timings';

/** Long side of the analysis copy, pixels. Large enough for stable statistics, small enough to be fast. */
export const ANALYSIS_SIDE = 400;

/** Result of {@link correctRaster}. */
export interface ColourResult {
  raster: Raster;
  plan?: ColourPlan;
  diagnostics?: PlanDiagnostics;
}

/** Inputs of {@link correctRaster} beyond the image and parameters. */
export interface CorrectRasterOptions {
  /** The image's analysis copy (`thumbnailRaster(img, ANALYSIS_SIDE)`) when the caller already made it. */
  thumb?: Raster;
  /** The image's point sample (`pointSample(img, ANALYSIS_SIDE)`) when the caller already made it. */
  points?: Raster;
  /** `estimateIlluminant(thumb)` when the caller already measured it (e.g. while waiting for faces). */
  evidence?: IlluminantEvidence;
  /** A record each step's wall time is added to (see `CorrectOptions.timings`). */
  timings?: StepTimings;
  /** Finishing steps whose parameter the user set: applied as given, whatever the photo needs (see `finishAmount`). */
  asGiven?: readonly FinishStep[];
}

/** The plan applied to the full image before sharpening (see {@link curvesStage}). */
export interface CurvesStage {
  plan: ColourPlan;
  diagnostics: PlanDiagnostics;
  /** The curves pass's own buffer (the mask works on it in place). */
  raster: Raster;
  /** The output's 16-bit luma, when asked for or needed by the plan's mask. */
  luma?: Uint16Array;
}

/**
 * Plan on the analysis copy and apply the plan's curves and vibrance to the
 * full image; undefined for a neutral parameter set. The pass runs in bands
 * of rows (`applyPlanInBands`): on helper threads when free, and with turns
 * of the event loop between this thread's strips, so work the caller
 * started (a face detector handing its copy to a worker thread) is not held
 * up behind it. `withLuma` keeps the luma even when this plan does not
 * sharpen (a caller that may sharpen with another amount, see `look.ts`).
 */
export async function curvesStage(img: Raster, p: ColourParams, options: CorrectRasterOptions = {}, withLuma = false): Promise<CurvesStage | undefined> {
  if (isNeutral(p)) return undefined;
  const { timings } = options;
  const thumb = options.thumb ?? (await timed(timings, 'analysisCopy', () => thumbnailRaster(img, ANALYSIS_SIDE)));
  const points = options.points ?? timedSync(timings, 'analysisCopy', () => pointSample(img, ANALYSIS_SIDE));
  const { plan, diagnostics } = timedSync(timings, 'planning', () =>
    planCorrection(thumb, p, 'still', options.evidence, {
      acutance: acutance(img, maskSigma(img.width, img.height)),
      points,
      ...(options.asGiven ? { asGiven: options.asGiven } : {}),
    }),
  );
  // The curves pass writes the luma the mask blurs; the mask then works on the pass's own buffer.
  // Shared with helper threads when the curves pass and the mask can run in bands (image/bands.ts).
  const luma = withLuma || sharpenSpec(img.width, img.height, plan.sharpen) ? sharedU16(img.width * img.height) : undefined;
  const out = sharedBytes(img.data.length, img.width * img.height);
  await applyPlanInBands(img, plan, luma, out, timings);
  return { plan, diagnostics, raster: { ...img, data: out }, ...(luma ? { luma } : {}) };
}

/** The unsharp mask of `amount` on a {@link curvesStage}'s output, in place (the output itself when 0). */
export async function sharpenStage(stage: CurvesStage, amount: number, timings?: StepTimings): Promise<Raster> {
  const { raster, luma } = stage;
  const sharpen = sharpenSpec(raster.width, raster.height, amount);
  return sharpen ? timed(timings, 'sharpen', () => sharpenInPlace(raster, sharpen, luma)) : raster;
}

/**
 * Colour-correct a raster under a parameter set. A neutral parameter set
 * returns the same raster object untouched.
 */
export async function correctRaster(img: Raster, p: ColourParams, options: CorrectRasterOptions = {}): Promise<ColourResult> {
  const stage = await curvesStage(img, p, options);
  if (!stage) return { raster: img };
  return { raster: await sharpenStage(stage, stage.plan.sharpen, options.timings), plan: stage.plan, diagnostics: stage.diagnostics };
}
