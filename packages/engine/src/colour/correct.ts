/**
 * Colour correction of a whole image: plan on an analysis copy, apply to the
 * full-resolution raster, sharpen through sharp.
 */
import { thumbnailRaster, type Raster } from '../image/raster';
import { sharpenRaster, sharpenSpec, type SharpenSpec } from '../image/sharpen';
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
  /** With `deferSharpen`: the unsharp mask still to apply to `raster` (see {@link CorrectRasterOptions.deferSharpen}). */
  sharpen?: SharpenSpec;
}

/** Inputs of {@link correctRaster} beyond the image and parameters. */
export interface CorrectRasterOptions {
  /** The image's analysis copy (`thumbnailRaster(img, ANALYSIS_SIDE)`) when the caller already made it. */
  thumb?: Raster;
  /** `estimateIlluminant(thumb)` when the caller already measured it (e.g. while waiting for faces). */
  evidence?: IlluminantEvidence;
  /** A record each step's wall time is added to (see `CorrectOptions.timings`). */
  timings?: StepTimings;
  /**
   * Leave the unsharp mask to the caller: `raster` is returned unsharpened
   * and `sharpen` says how to sharpen it, so an encoder can run the mask in
   * its own libvips pipeline instead of making a sharpened full-size copy.
   */
  deferSharpen?: boolean;
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
  const out = timedSync(timings, 'curves', () => applyPlan(img, plan));
  const sharpen = sharpenSpec(out.width, out.height, plan.sharpen);
  if (sharpen && options.deferSharpen) return { raster: out, plan, diagnostics, sharpen };
  const raster = sharpen ? await timed(timings, 'sharpen', () => sharpenRaster(out, sharpen)) : out;
  return { raster, plan, diagnostics };
}
