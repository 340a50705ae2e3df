/**
 * The documented input and output limits, checked before any pixel work. A
 * breach rejects the job (REJECTED) with a status text naming the limit.
 */
import { type Dimensions, formatBytes, type PfcParams } from '@pfc/core';
import type { EmulatorLimits } from '../options';

/** Why a job is REJECTED: `statusText` for the record and the `code` we put beside it. */
export class JobRejection extends Error {
  constructor(
    readonly statusText: string,
    /** HTTP-like class of the rejection: 400 invalid, 413 over a limit, 415 unsupported type, 501 not available here. */
    readonly code: 400 | 413 | 415 | 501,
  ) {
    super(statusText);
    this.name = 'JobRejection';
  }
}

const mp = (n: number): string => `${(n / 1e6).toLocaleString('en-US', { maximumFractionDigits: 1 })} megapixels`;

/** Which API's documented limits apply: the Web API's, or the colour container's. */
export type LimitsOf = 'web' | 'container';

/**
 * Limits on an input image (colour correction, retouching, creative filters, auto cropping). The
 * container's differ in two documented points: it rejects "a short side under 32" (the Web API wants
 * "larger than 32x32"), and above 21:1 it disables beautify instead of refusing ({@link beautifies}).
 */
export function checkInputImage(d: Dimensions, limits: EmulatorLimits, api: LimitsOf = 'web'): void {
  const long = Math.max(d.width, d.height);
  const short = Math.min(d.width, d.height);
  if (api === 'container' && short < limits.minImageSide) {
    throw new JobRejection(`image is ${d.width}x${d.height} pixels; images with a short side under ${limits.minImageSide} pixels are rejected`, 413);
  }
  // "Larger than 32x32 pixels": a side of exactly 32 is refused.
  if (api === 'web' && short <= limits.minImageSide) {
    throw new JobRejection(`image is ${d.width}x${d.height} pixels; both sides must be larger than ${limits.minImageSide} pixels`, 413);
  }
  if (long > limits.maxImageSide) {
    throw new JobRejection(`image is ${d.width}x${d.height} pixels; the longer side must be at most ${limits.maxImageSide} pixels`, 413);
  }
  if (api === 'web' && long / short >= limits.maxAspectRatio) {
    throw new JobRejection(`image is ${d.width}x${d.height} pixels; the aspect ratio must be below ${limits.maxAspectRatio}:1`, 413);
  }
  if (d.width * d.height >= limits.maxImagePixels) {
    throw new JobRejection(`image has ${mp(d.width * d.height)}; images must be below ${mp(limits.maxImagePixels)}`, 413);
  }
}

/** Whether beautify corrections apply: not on the container above its aspect-ratio limit. */
export function beautifies(d: Dimensions, limits: EmulatorLimits, api: LimitsOf = 'web'): boolean {
  return api === 'web' || Math.max(d.width, d.height) / Math.min(d.width, d.height) < limits.maxAspectRatio;
}

/** Limits of AI upscaling (used when the output is larger than the input). */
export function checkUpscale(input: Dimensions, output: Dimensions, inputBytes: number, p: PfcParams, limits: EmulatorLimits): void {
  if (Math.min(input.width, input.height) < limits.minUpscaleShortSide) {
    throw new JobRejection(`AI upscaling needs at least ${limits.minUpscaleShortSide} pixels on the shorter side; the image is ${input.width}x${input.height}`, 413);
  }
  if (inputBytes >= limits.maxUpscaleInputBytes) {
    throw new JobRejection(`AI upscaling needs an input below ${formatBytes(limits.maxUpscaleInputBytes)}; the file has ${formatBytes(inputBytes)}`, 413);
  }
  // `auto` lets the service pick either model, so it gets the smaller limit (the document does not say which it picks: stricter).
  const max = p.resize === 'general' ? limits.maxUpscaleSideGeneral : Math.min(limits.maxUpscaleSideGeneral, limits.maxUpscaleSideSmallDetails);
  if (Math.max(output.width, output.height) > max) {
    const resize = p.resize ?? 'auto';
    const why = resize === 'auto' ? ` (auto may choose the small-details model; resize=general allows ${limits.maxUpscaleSideGeneral})` : '';
    throw new JobRejection(`AI upscaling output longer side is at most ${max} pixels with resize=${resize}${why}; the request asks for ${output.width}x${output.height}`, 413);
  }
}

/** Every output must stay below the image pixel limit. */
export function checkOutput(output: Dimensions, limits: EmulatorLimits): void {
  if (output.width * output.height >= limits.maxImagePixels) {
    throw new JobRejection(`the output would be ${output.width}x${output.height} (${mp(output.width * output.height)}); outputs must be below ${mp(limits.maxImagePixels)}`, 413);
  }
}

/** Background removal takes inputs below a size limit. */
export function checkBackgroundInput(inputBytes: number, limits: EmulatorLimits): void {
  if (inputBytes >= limits.maxBackgroundInputBytes) {
    throw new JobRejection(`background removal needs an input below ${formatBytes(limits.maxBackgroundInputBytes)}; the file has ${formatBytes(inputBytes)}`, 413);
  }
}
