/**
 * Output size from the resize parameters (rule 1 of the Web API: one strategy,
 * chosen by the priority width, height, long, short, scale) and the classic
 * (non-learned) resize.
 */
import { resizeStrategy, type PfcParams } from '@pfc/core';
import type { Dimensions } from '@pfc/core';
import type { Raster } from './raster';
import { rasterToSharp } from './raster';

/** Output dimensions for the resize parameters, or undefined when none is given. Aspect ratio kept; at least 1 px. */
export function targetDimensions(width: number, height: number, p: PfcParams): Dimensions | undefined {
  const r = resizeStrategy(p);
  if (!r) return undefined;
  let scale: number;
  switch (r.strategy) {
    case 'width':
      scale = r.value / width;
      break;
    case 'height':
      scale = r.value / height;
      break;
    case 'long':
      scale = r.value / Math.max(width, height);
      break;
    case 'short':
      scale = r.value / Math.min(width, height);
      break;
    case 'scale':
      scale = r.value / 100;
      break;
  }
  const out = {
    width: r.strategy === 'width' ? r.value : Math.max(1, Math.round(width * scale)),
    height: r.strategy === 'height' ? r.value : Math.max(1, Math.round(height * scale)),
  };
  return out;
}

/** Resize a raster to exact dimensions (Lanczos-3). */
export async function resizeTo(img: Raster, t: Dimensions): Promise<Raster> {
  const { data, info } = await rasterToSharp(img).resize(t.width, t.height, { fit: 'fill', kernel: 'lanczos3' }).raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.length), width: info.width, height: info.height, channels: img.channels };
}
