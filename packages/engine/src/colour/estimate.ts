/**
 * Image statistics the automatic corrections are planned from. All work on a
 * small RGB analysis copy (a few hundred pixels on the long side).
 */
import type { Raster } from '../image/raster';
import { greyEdgeIlluminant12 } from './grey-edge-fast';
import { LINEAR_OF_BYTE, LUMA } from './srgb';

/** Pixels with any channel at or above this code are treated as clipped. */
const CLIP = 250;

/**
 * Scene illuminant by the general grey-edge hypothesis (van de Weijer, Gevers
 * & Gijsenij 2007): the Minkowski p-norm of linear-light gradients is achromatic
 * on average. A high p weights the strongest edges, which are mostly between
 * differently coloured surfaces, so a dominant surface colour (grass, a wall)
 * biases it far less than grey-world. The copy is smoothed first (binomial,
 * σ ≈ 1 px) so that JPEG noise and fine texture do not count as edges.
 * Clipped pixels are skipped (their colour is lost).
 *
 * @returns linear RGB of the illuminant, normalised so that its mean is 1.
 */
export function greyEdgeIlluminant(img: Raster, p = 12): [number, number, number] {
  if (p === 12) return greyEdgeIlluminant12(img, LINEAR_OF_BYTE, CLIP);
  const { data, width: w, height: h, channels: ch } = img;
  const n = w * h;
  const planes = [0, 1, 2].map((c) => {
    const plane = new Float64Array(n);
    for (let i = 0; i < n; i++) plane[i] = LINEAR_OF_BYTE[data[i * ch + c]!]!;
    return smooth(smooth(plane, w, h), w, h);
  });
  const half = p / 2;
  // Clipped pixels once, not once per channel.
  const clipped = new Uint8Array(n);
  for (let i = 0, o = 0; i < n; i++, o += ch) clipped[i] = data[o]! >= CLIP || data[o + 1]! >= CLIP || data[o + 2]! >= CLIP ? 1 : 0;
  // One channel at a time, pixels in the same order, so each sum is the same to the last bit.
  const acc = planes.map((a) => {
    let sum = 0;
    for (let y = 1; y < h - 1; y++) {
      for (let i = y * w + 1, end = y * w + w - 1; i < end; i++) {
        if (clipped[i] === 1) continue;
        const dx = a[i + 1]! - a[i - 1]!;
        const dy = a[i + w]! - a[i - w]!;
        // |∇|^p as (dx² + dy²)^(p/2): gradients are below 1, so no overflow guard (Math.hypot) is needed.
        // For the default p = 12 the sixth power is three multiplications, not a general power.
        const s = dx * dx + dy * dy;
        const s3 = s * s * s;
        sum += half === 6 ? s3 * s3 : s ** half;
      }
    }
    return sum;
  });
  const e = acc.map((v) => v ** (1 / p));
  const mean = (e[0]! + e[1]! + e[2]!) / 3;
  if (!(mean > 0)) return [1, 1, 1];
  return [e[0]! / mean, e[1]! / mean, e[2]! / mean];
}

/** Separable [1 2 1]/4 smoothing with edge replication. */
function smooth(src: Float64Array, w: number, h: number): Float64Array {
  const tmp = new Float64Array(src.length);
  for (let y = 0; y < h; y++) {
    const row = y * w;
    for (let x = 0; x < w; x++) {
      const l = src[row + Math.max(0, x - 1)]!;
      const r = src[row + Math.min(w - 1, x + 1)]!;
      tmp[row + x] = (l + 2 * src[row + x]! + r) / 4;
    }
  }
  const out = new Float64Array(src.length);
  for (let y = 0; y < h; y++) {
    const up = Math.max(0, y - 1) * w;
    const down = Math.min(h - 1, y + 1) * w;
    for (let x = 0; x < w; x++) out[y * w + x] = (tmp[up + x]! + 2 * tmp[y * w + x]! + tmp[down + x]!) / 4;
  }
  return out;
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
 * Fraction of blown highlights: pixels with a clipped channel (≥ 250) whose
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
    if (r < CLIP && g < CLIP && b < CLIP) continue;
    if (LUMA[0] * LINEAR_OF_BYTE[r]! + LUMA[1] * LINEAR_OF_BYTE[g]! + LUMA[2] * LINEAR_OF_BYTE[b]! >= 0.85) n++;
  }
  return n / Math.max(1, data.length / ch);
}
