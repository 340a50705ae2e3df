/**
 * The documented input limits, checked per feature before any work.
 */
import { imageSizeIssue, IMAGE_SIZE_LIMITS } from '@pfc/core';
import { EngineError } from './errors';

/** Colour correction, retouching, creative filters and auto cropping (Web API "Limits"): the clients' own table. */
export const CORRECTION_LIMITS = IMAGE_SIZE_LIMITS;

/** AI upscaling limits. */
export const UPSCALE_LIMITS = {
  /** Shorter side at least, pixels. */
  minShortSide: 64,
  /** Input file below this many bytes. */
  maxInputBytes: 50 * 1024 * 1024,
  /** Longest output side for the general model, pixels. */
  maxOutputGeneral: 20_000,
  /** Longest output side for the small-details model, pixels. */
  maxOutputSmallDetails: 8_192,
} as const;

/** Background removal limits. */
export const BACKGROUND_LIMITS = {
  /** Input file below this many bytes. */
  maxInputBytes: 30 * 1024 * 1024,
  /** Output longer side at most (larger output is resized automatically), pixels. */
  maxOutputSide: 5000,
} as const;

/** Throw an {@link EngineError} when an image breaks the correction limits. */
export function checkCorrectionLimits(width: number, height: number): void {
  const issue = imageSizeIssue(width, height, 'web');
  if (issue) throw new EngineError('limit', issue);
}

/** Throw an {@link EngineError} when AI upscaling to `target` breaks a documented limit. */
export function checkUpscaleLimits(src: { width: number; height: number }, target: { width: number; height: number }, inputBytes: number, mode: 'auto' | 'general' | 'smallDetails'): void {
  const L = UPSCALE_LIMITS;
  const short = Math.min(src.width, src.height);
  if (short < L.minShortSide) throw new EngineError('limit', `AI upscaling needs at least ${L.minShortSide} pixels on the shorter side; the image has ${short}`);
  if (inputBytes >= L.maxInputBytes) throw new EngineError('limit', `AI upscaling takes inputs below ${L.maxInputBytes / 1024 / 1024} MB; this one is ${(inputBytes / 1024 / 1024).toFixed(1)} MB`);
  const max = mode === 'smallDetails' ? L.maxOutputSmallDetails : L.maxOutputGeneral;
  const long = Math.max(target.width, target.height);
  if (long > max) throw new EngineError('limit', `AI upscaling output's longer side would be ${long} px; the limit is ${max} px for resize=${mode}`);
}
