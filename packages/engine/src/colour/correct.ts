/**
 * Colour correction of a whole image: plan on an analysis copy, apply to the
 * full-resolution raster, sharpen its luma.
 */
import { thumbnailRaster, type Raster } from '../image/raster';
import { sharpenInPlace, sharpenSpec } from '../image/sharpen';
import { applyPlan, type ColourPlan } from './apply';
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
  /** `estimateIlluminant(thumb)` when the caller already measured it (e.g. while waiting for faces). */
  evidence?: IlluminantEvidence;
  /** A record each step's wall time is added to (see `CorrectOptions.timings`). */
  timings?: StepTimings;
}

/**
 * Colour-correct a raster under a parameter set. A neutral parameter set
 * returns the same raster object untouched.
 */
export async function correctRaster(img: Raster, p: ColourParams, options: CorrectRasterOptions = {}): Promise<ColourResult> {
  if (isNeutral(p)) return { raster: img };
  const { timings } = options;
  const thumb = options.thumb ?? (await timed(timings, 'analysisCopy', () => thumbnailRaster(img, ANALYSIS_SIDE)));
  const { plan, diagnostics } = timedSync(timings, 'planning', () => planCorrection(thumb, p, 'still', options.evidence));
  const sharpen = sharpenSpec(img.width, img.height, plan.sharpen);
  // The curves pass writes the luma the mask blurs; the mask then works on the pass's own buffer.
  const luma = sharpen ? new Uint16Array(img.width * img.height) : undefined;
  const out = timedSync(timings, 'curves', () => applyPlan(img, plan, luma));
  const raster = sharpen ? await timed(timings, 'sharpen', () => sharpenInPlace(out, sharpen, luma)) : out;
  return { raster, plan, diagnostics };
}
