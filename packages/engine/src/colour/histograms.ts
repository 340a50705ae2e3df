/**
 * The planner's histograms of one per-pixel value each, in WebAssembly
 * (`pixelHistogram` of image/kernels.ts): `histogram(img, value)` of
 * estimate.ts calls its `value` once a pixel through a call V8 cannot
 * inline (every caller passes another function), which cost about a fifth
 * of planning, and even as loops of their own in JavaScript these were
 * planning's largest cost after grey-edge. Each gives exactly what
 * `histogram` gives with the function named (test/histograms.test.ts).
 */
import { pixelHistogram } from '../image/kernels';
import type { Raster } from '../image/raster';

/** `histogram(img, (r, g, b) => Math.max(r, g, b))`. */
export function maxHistogram(img: Raster): Uint32Array {
  return pixelHistogram(img, 'max');
}

/** `histogram(img, (r, g, b) => Math.min(r, g, b))`. */
export function minHistogram(img: Raster): Uint32Array {
  return pixelHistogram(img, 'min');
}

/** `histogram(img, luma8)`. */
export function lumaHistogram(img: Raster): Uint32Array {
  return pixelHistogram(img, 'luma');
}
