/**
 * `aiArtOutputSize` as a pixel budget: the tier names a square's side
 * (2k = 2048², 4k = 4096²) and the output has that many pixels at the
 * input's aspect ratio.
 */
import type { Dimensions } from '@pfc/core';

/** The two documented tiers. */
export type ArtOutputSize = '2k' | '4k';

/** Pixel budget of each tier: 2k = 2048 × 2048 = 4,194,304 px (4.2 MP); 4k = 4096 × 4096 = 16,777,216 px (16.8 MP). */
export const ART_PIXEL_BUDGET: Readonly<Record<ArtOutputSize, number>> = { '2k': 2048 * 2048, '4k': 4096 * 4096 };

/**
 * Output size for an input size and tier: width × height ≈ budget with the
 * input's aspect ratio (a 3:2 photo at 2k is 2508 × 1672; a square one
 * 2048 × 2048). The input is scaled up or down to meet the budget.
 *
 * @throws RangeError when the tier is not 2k or 4k, or a side is not a positive integer.
 */
export function artDimensions(width: number, height: number, tier: ArtOutputSize = '2k'): Dimensions {
  const budget = ART_PIXEL_BUDGET[tier];
  if (budget === undefined) throw new RangeError(`aiArtOutputSize must be 2k or 4k (got ${JSON.stringify(tier)})`);
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1) {
    throw new RangeError(`image size must be positive integers (got ${width}x${height})`);
  }
  const aspect = width / height;
  // Round down so the budget is never exceeded.
  const w = Math.max(1, Math.floor(Math.sqrt(budget * aspect)));
  const h = Math.max(1, Math.min(Math.floor(budget / w), Math.round(w / aspect)));
  return { width: w, height: h };
}
