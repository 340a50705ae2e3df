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

/**
 * Fraction of the pixels (0..1) within one code of `end`, a histogram's
 * bright end (a code, fractional as `percentile` gives it): how many pixels
 * share the brightest value. A photo's own highlights thin out towards its
 * brightest pixels; many pixels on one value there are highlights that were
 * clipped to white and then darkened together (an exposure or curve change
 * after the clip).
 */
export function plateauAt(hist: Uint32Array, end: number): number {
  let total = 0;
  for (const n of hist) total += n;
  if (total === 0) return 0;
  const c = Math.min(255, Math.max(0, Math.round(end)));
  let near = 0;
  for (let v = Math.max(0, c - 1); v <= Math.min(255, c + 1); v++) near += hist[v]!;
  return near / total;
}
