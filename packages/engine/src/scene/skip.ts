/**
 * Skip modes for non-photos (`skip` parameter, the container's PFC_SKIP_MODE):
 * `clipart` skips graphics found by the scene detector's clipart rule,
 * `legacy` only images with very few colours, `none` never skips.
 * Not used under AI preset selection, whose clipart variant is neutral anyway.
 */
import type { Raster } from '../image/raster';
import { SCENE } from './categories';
import { detectScene } from './detect';

/** Why colour correction is skipped for this image, or undefined to correct it. */
export function skipReason(mode: 'clipart' | 'legacy' | 'none', thumb: Raster): string | undefined {
  if (mode === 'none') return undefined;
  const { scene, signals } = detectScene(thumb);
  if (mode === 'clipart' && scene === SCENE.clipart) return 'the image looks like clipart or graphics (skip=clipart)';
  if (mode === 'legacy' && signals.colourDensity < 8) return 'the image has very few colours (skip=legacy)';
  return undefined;
}
