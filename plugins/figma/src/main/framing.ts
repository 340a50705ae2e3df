/**
 * Keeping what an image fill shows when its image is swapped for one of
 * another size or shape (a correction that crops or resizes). By scale mode
 * (typings `ImagePaint`; https://developers.figma.com/docs/plugins/api/Paint):
 *
 * - FILL and FIT: Figma fits whatever image the paint holds to the layer,
 *   without distortion; nothing to adjust.
 * - TILE: `scalingFactor` scales the image's own pixel size ("Determines the
 *   scaling (thus, repetition) of the image"), so the tiles keep their width
 *   on the canvas when it is multiplied by old width / new width.
 * - CROP: `imageTransform` maps the layer's unit square into the image's
 *   normalised coordinates ("Determines how the image is positioned (thus,
 *   cropped) within the layer"), so the same transform on an image of another
 *   aspect ratio stretches the content. When the part of the old image the
 *   new one shows is known (the service's crop, or the whole image for a
 *   resize), the transform is re-expressed in the new image's coordinates:
 *   the same framing, undistorted. When it is not known, or the framing
 *   reaches into what the crop removed, the fill becomes FILL — which cannot
 *   distort — and the caller tells the user.
 */
import { isWholeImage, WHOLE_IMAGE, type CropRegion } from '../shared/crop';
import type { Size } from '../shared/fit';

/** One image replaced by another in a fill. */
export interface ImageSwap {
  /** Pixel sizes of the image before and after. */
  from: Size;
  to: Size;
  /** The part of the old image the new one shows; undefined when unknown. */
  region: CropRegion | undefined;
}

/**
 * How far two of a paint's numbers may differ and be the same. Figma keeps
 * them as 32-bit floats (relative precision 6e-8): a plugin reads back 0.4 as
 * 0.40000000200345043 (tokens-bruecke/figma-plugin pull request 37), so a
 * value written and read back, or a crop the user set to an edge, is near the
 * number meant, not equal to it. A user's reframing moves them far more.
 */
const STORED_SLACK = 1e-6;

/** Whether `a` and `b` are one number of a paint, as Figma stores it. */
export function sameStored(a: number | undefined, b: number | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return Math.abs(a - b) <= STORED_SLACK * Math.max(1, Math.abs(a), Math.abs(b));
}

/** How far a corner of a re-expressed crop may stray outside the image (the noise of stored numbers). */
const EDGE_TOLERANCE = STORED_SLACK;

/** Whether `a` and `b` have one aspect ratio, up to the half pixel each side of a resized image may be rounded by. */
function sameShape(a: Size, b: Size): boolean {
  const slack = 0.5 * (Math.max(a.width, b.width) + Math.max(a.height, b.height));
  return Math.abs(a.width * b.height - b.width * a.height) <= slack;
}

/**
 * The swap of `from` for `to`, with the region of `from` that `to` shows: the
 * reported one when `to` has its shape (a resize keeps it), the whole image
 * when no crop was reported and the shape is unchanged, otherwise unknown.
 */
export function imageSwap(from: Size, to: Size, reported: CropRegion | undefined): ImageSwap {
  if (reported && sameShape({ width: reported.width * from.width, height: reported.height * from.height }, to)) return { from, to, region: reported };
  return { from, to, region: sameShape(from, to) ? WHOLE_IMAGE : undefined };
}

/** The transform of a CROP fill showing the whole image (what a missing `imageTransform` means). */
export const IDENTITY: Transform = [
  [1, 0, 0],
  [0, 1, 0],
];

/** `transform` (into the old image's unit square) re-expressed in the unit square of an image showing `region` of it. */
function reexpress(transform: Transform, region: CropRegion): Transform {
  const [[a, b, c], [d, e, f]] = transform;
  return [
    [a / region.width, b / region.width, (c - region.x) / region.width],
    [d / region.height, e / region.height, (f - region.y) / region.height],
  ];
}

/** Whether the layer's unit square, mapped by `transform`, stays within the image. */
function staysInImage(transform: Transform): boolean {
  const [[a, b, c], [d, e, f]] = transform;
  const inside = (v: number) => v >= -EDGE_TOLERANCE && v <= 1 + EDGE_TOLERANCE;
  return [
    [0, 0],
    [1, 0],
    [0, 1],
    [1, 1],
  ].every(([u = 0, v = 0]) => inside(a * u + b * v + c) && inside(d * u + e * v + f));
}

/** A CROP paint as FILL: the transform goes, as it applies to CROP only (typings `ImagePaint.imageTransform`). */
function asFill(paint: ImagePaint): ImagePaint {
  const { imageTransform: _dropped, ...rest } = paint;
  return { ...rest, scaleMode: 'FILL' };
}

/**
 * `paint` showing the new image `hash` with the framing it had (see the file
 * comment); `framingLost` when a CROP fill had to become FILL.
 */
export function refitPaint(paint: ImagePaint, hash: string, swap: ImageSwap | undefined): { paint: ImagePaint; framingLost: boolean } {
  const swapped: ImagePaint = { ...paint, imageHash: hash };
  if (!swap) return { paint: swapped, framingLost: false };
  if (paint.scaleMode === 'TILE') {
    const ratio = swap.from.width / swap.to.width;
    return { paint: ratio === 1 ? swapped : { ...swapped, scalingFactor: (paint.scalingFactor ?? 1) * ratio }, framingLost: false };
  }
  // An image of the same shape, whole: the transform means the same on it (and is kept even if it strays outside).
  if (paint.scaleMode !== 'CROP' || (swap.region && isWholeImage(swap.region))) return { paint: swapped, framingLost: false };
  const transform = swap.region ? reexpress(paint.imageTransform ?? IDENTITY, swap.region) : undefined;
  if (transform && staysInImage(transform)) return { paint: { ...swapped, imageTransform: transform }, framingLost: false };
  return { paint: asFill(swapped), framingLost: true };
}
