/**
 * Image statistics the automatic corrections are planned from. All work on a
 * small RGB analysis copy (a few hundred pixels on the long side).
 */
import type { Raster } from '../image/raster';
import { greyEdgeIlluminant12 } from './grey-edge-fast';
import { COLOUR_LOST_CODE, LINEAR_OF_BYTE, LUMA } from './srgb';

/**
 * Scene illuminant by the general grey-edge hypothesis (van de Weijer, Gevers
 * & Gijsenij 2007): the Minkowski p-norm of linear-light gradients is achromatic
 * on average. A high p weights the strongest edges, which are mostly between
 * differently coloured surfaces, so a dominant surface colour (grass, a wall)
 * biases it far less than grey-world. The copy is smoothed first (binomial,
 * σ ≈ 1 px) so that JPEG noise and fine texture do not count as edges.
 * Clipped pixels are skipped (their colour is lost). p = 12, computed in
 * WebAssembly (colour/grey-edge-fast.ts).
 *
 * @returns linear RGB of the illuminant, normalised so that its mean is 1.
 */
export function greyEdgeIlluminant(img: Raster): [number, number, number] {
  return greyEdgeIlluminant12(img, LINEAR_OF_BYTE, COLOUR_LOST_CODE);
}

/** Angle in degrees between an RGB vector and the neutral axis. */
export function angleFromNeutral(e: readonly [number, number, number]): number {
  const len = Math.hypot(e[0], e[1], e[2]);
  if (len === 0) return 0;
  const cos = (e[0] + e[1] + e[2]) / (len * Math.sqrt(3));
  return (Math.acos(Math.min(1, cos)) * 180) / Math.PI;
}

/** Histogram of a per-pixel value in 0..255 (integer bins). */
export function histogram(img: Raster, value: (r: number, g: number, b: number) => number): Uint32Array {
  const hist = new Uint32Array(256);
  const { data, channels: ch } = img;
  for (let i = 0; i < data.length; i += ch) {
    const v = value(data[i] ?? 0, data[i + 1] ?? 0, data[i + 2] ?? 0);
    hist[v < 0 ? 0 : v > 255 ? 255 : Math.round(v)]!++;
  }
  return hist;
}

/** Share (0..1) of the histogram's mass at `from` (0..255) and above. */
export function shareFrom(hist: Uint32Array, from: number): number {
  let total = 0;
  let above = 0;
  for (let v = 0; v < hist.length; v++) {
    total += hist[v]!;
    if (v >= from) above += hist[v]!;
  }
  return total > 0 ? above / total : 0;
}

/** Value (0..255) below which `q` (0..1) of the histogram's mass lies, linearly interpolated. */
export function percentile(hist: Uint32Array, q: number): number {
  let total = 0;
  for (const n of hist) total += n;
  if (total === 0) return 0;
  const target = q * total;
  let acc = 0;
  for (let v = 0; v < 256; v++) {
    const n = hist[v] ?? 0;
    if (acc + n >= target) return v + (n === 0 ? 0 : (target - acc) / n) - 0.5;
    acc += n;
  }
  return 255;
}

/**
 * Fraction of blown highlights: pixels with a clipped channel ({@link COLOUR_LOST_CODE}) whose
 * linear luminance is at least 0.85. Luminance is mostly green, so a colour
 * cast that clips red or blue on bright surfaces does not count, while
 * over-exposure (everything brighter) does.
 */
export function clippedFraction(img: Raster): number {
  const { data, channels: ch } = img;
  let n = 0;
  for (let i = 0; i < data.length; i += ch) {
    const r = data[i]!;
    const g = data[i + 1]!;
    const b = data[i + 2]!;
    if (r < COLOUR_LOST_CODE && g < COLOUR_LOST_CODE && b < COLOUR_LOST_CODE) continue;
    if (LUMA[0] * LINEAR_OF_BYTE[r]! + LUMA[1] * LINEAR_OF_BYTE[g]! + LUMA[2] * LINEAR_OF_BYTE[b]! >= 0.85) n++;
  }
  return n / Math.max(1, data.length / ch);
}
