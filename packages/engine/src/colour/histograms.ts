/**
 * The planner's histograms of one per-pixel value each, as loops of their
 * own: `histogram(img, value)` of estimate.ts calls its `value` once a
 * pixel through a call V8 cannot inline (every caller passes another
 * function), which cost about a fifth of planning. Each gives exactly what
 * `histogram` gives with the function named (test/histograms.test.ts).
 */
import type { Raster } from '../image/raster';
import { luma8 } from './apply';

/** `histogram(img, (r, g, b) => Math.max(r, g, b))`. */
export function maxHistogram(img: Raster): Uint32Array {
  const hist = new Uint32Array(256);
  const { data, channels: ch } = img;
  for (let i = 0; i < data.length; i += ch) hist[Math.max(data[i]!, data[i + 1]!, data[i + 2]!)]!++;
  return hist;
}

/** `histogram(img, (r, g, b) => Math.min(r, g, b))`. */
export function minHistogram(img: Raster): Uint32Array {
  const hist = new Uint32Array(256);
  const { data, channels: ch } = img;
  for (let i = 0; i < data.length; i += ch) hist[Math.min(data[i]!, data[i + 1]!, data[i + 2]!)]!++;
  return hist;
}

/** `histogram(img, luma8)`. */
export function lumaHistogram(img: Raster): Uint32Array {
  const hist = new Uint32Array(256);
  const { data, channels: ch } = img;
  for (let i = 0; i < data.length; i += ch) {
    const v = luma8(data[i]!, data[i + 1]!, data[i + 2]!);
    hist[v > 255 ? 255 : Math.round(v)]!++;
  }
  return hist;
}
