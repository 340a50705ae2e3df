/** Paints as the simulated document keeps them: checked as Figma checks an image paint, frozen, their numbers as Figma stores them. */
import type { SimDocument } from './document';

/**
 * An image paint as the typings describe it (`ImagePaint`): an image the file has, and a `rotation`
 * that "must be in increments of +90". (`imageTransform` and `scalingFactor` are only "applicable"
 * to CROP and TILE; Figma reads them back on other paints too, so they are not refused there.)
 */
export function checkImagePaint(p: ImagePaint, doc: Pick<SimDocument, 'hasImage'>): void {
  if (p.imageHash && !doc.hasImage(p.imageHash)) throw new Error(`no image with hash ${p.imageHash} in this file`);
  if (p.rotation !== undefined && p.rotation % 90 !== 0) throw new Error(`rotation must be in increments of 90, not ${p.rotation}`);
}

/**
 * A paint's numbers as Figma keeps them: 32-bit floats, so a value reads back
 * near, not equal to, the one given (a plugin reports 0.4 read back as
 * 0.40000000200345043: tokens-bruecke/figma-plugin pull request 37). Every
 * number is rounded here, the stricter reading: a plugin comparing framing or
 * colours it wrote with `===` is caught.
 */
export function asStored<T>(value: T): T {
  if (typeof value === 'number') return Math.fround(value) as T;
  if (Array.isArray(value)) return value.map(asStored) as T;
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, asStored(v)])) as T;
  return value;
}

export function freezePaints(paints: ReadonlyArray<Paint>): ReadonlyArray<Paint> {
  return Object.freeze(paints.map((p) => Object.freeze(asStored({ ...p }))));
}
