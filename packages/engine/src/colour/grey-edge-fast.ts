/**
 * Grey-edge at p = 12 through the WebAssembly sums (`greyEdgeSums12` of
 * image/kernels.ts): the same illuminant as the JavaScript
 * loop it replaced to the bit (test/grey-edge-fast.test.ts keeps it), at a
 * fraction of planning's time and without its warm-up in a fresh process.
 */
import { greyEdgeSums12 } from '../image/kernels';
import type { Raster } from '../image/raster';

/**
 * Grey-edge at p = 12, given its linear-light table and clipping code: linear RGB of the illuminant normalised to mean 1 ([1, 1, 1] when
 * the image has no unclipped edge).
 */
export function greyEdgeIlluminant12(img: Raster, linearOfByte: Float64Array, clipAt: number): [number, number, number] {
  const e = greyEdgeSums12(img, linearOfByte, clipAt).map((v) => v ** (1 / 12));
  const mean = (e[0]! + e[1]! + e[2]!) / 3;
  if (!(mean > 0)) return [1, 1, 1];
  return [e[0]! / mean, e[1]! / mean, e[2]! / mean];
}
