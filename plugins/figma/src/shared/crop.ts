/**
 * The part of an original image a result shows. The Web API reports the crop
 * it applied as `autoCrop` {x, y, width, height} in pixels of
 * `originalDimensions` (spec web-api-v2, "Job status record"); it is kept
 * here as fractions of the original's width and height, which stay true
 * whatever size the result is resized to afterwards (the service crops, then
 * resizes with the aspect ratio kept).
 */
import type { JobRecord, PfcParams } from '@pfc/core';

/** A rectangle in fractions (0–1) of an image's width and height; `x`, `y` is its top-left corner. */
export interface CropRegion {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The whole image. */
export const WHOLE_IMAGE: CropRegion = { x: 0, y: 0, width: 1, height: 1 };

export function isWholeImage(region: CropRegion): boolean {
  return region.x === 0 && region.y === 0 && region.width === 1 && region.height === 1;
}

/**
 * The region of the original that a job's result shows, or undefined when the
 * service reported no crop. With `autocropDetectOnly` the box is reported but
 * not applied, so the result is the whole original.
 */
export function cropRegionOf(params: Pick<PfcParams, 'autocropDetectOnly'>, job: Pick<JobRecord, 'autoCrop' | 'originalDimensions'> | undefined): CropRegion | undefined {
  const box = job?.autoCrop;
  const size = job?.originalDimensions;
  if (params.autocropDetectOnly === true || !box || !size || size.width <= 0 || size.height <= 0) return undefined;
  return { x: box.x / size.width, y: box.y / size.height, width: box.width / size.width, height: box.height / size.height };
}

/** `inner`, a region of an image that itself shows `outer` of the original, as a region of the original. */
export function regionWithin(outer: CropRegion, inner: CropRegion): CropRegion {
  return { x: outer.x + inner.x * outer.width, y: outer.y + inner.y * outer.height, width: inner.width * outer.width, height: inner.height * outer.height };
}

/** Where the original lies relative to an image showing `region` of it (the way back, for a restore). */
export function invertRegion(region: CropRegion): CropRegion {
  return { x: -region.x / region.width, y: -region.y / region.height, width: 1 / region.width, height: 1 / region.height };
}
