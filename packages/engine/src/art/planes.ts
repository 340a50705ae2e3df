/**
 * Float planes and the O(N) filters every AI Art style is built from: box and
 * (three-box) Gaussian means, Sobel gradients, seeded noise. Work is done on
 * one Float32Array per channel (values 0..255) so that each filter is a plain
 * loop over memory, fast enough for the 2k working size (about 4 MP) in JS.
 */
import { seededRandom } from '@pfc/core';
import type { Raster } from '../image/raster';

/** One channel of an image, row-major, values nominally 0..255. */
export type Plane = Float32Array;

/** R, G and B of an image as planes. */
export interface Rgb {
  r: Plane;
  g: Plane;
  b: Plane;
  width: number;
  height: number;
}

/** Split a raster's colour channels into planes (alpha ignored). */
export function toRgb(img: Raster): Rgb {
  const n = img.width * img.height;
  const { data, channels: ch } = img;
  const r = new Float32Array(n);
  const g = new Float32Array(n);
  const b = new Float32Array(n);
  for (let i = 0, o = 0; i < n; i++, o += ch) {
    r[i] = data[o]!;
    g[i] = data[o + 1]!;
    b[i] = data[o + 2]!;
  }
  return { r, g, b, width: img.width, height: img.height };
}

/** Interleave planes back into an RGB raster (clamped, rounded). */
export function fromRgb(p: Rgb): Raster {
  const n = p.width * p.height;
  const data = new Uint8Array(n * 3);
  for (let i = 0, o = 0; i < n; i++, o += 3) {
    data[o] = byte(p.r[i]!);
    data[o + 1] = byte(p.g[i]!);
    data[o + 2] = byte(p.b[i]!);
  }
  return { data, width: p.width, height: p.height, channels: 3 };
}

/** Rec. 601 luma of planes (encoded values, 0..255). */
export function luma(p: Rgb): Plane {
  const n = p.width * p.height;
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = 0.299 * p.r[i]! + 0.587 * p.g[i]! + 0.114 * p.b[i]!;
  return out;
}

/** Clamp to 0..255 and round. */
export function byte(v: number): number {
  return v <= 0 ? 0 : v >= 255 ? 255 : Math.round(v);
}

/** Apply `f` to each of R, G, B. */
export function mapRgb(p: Rgb, f: (plane: Plane) => Plane): Rgb {
  return { r: f(p.r), g: f(p.g), b: f(p.b), width: p.width, height: p.height };
}

/**
 * Mean over a centred (2r+1)² box with edges replicated: two sliding-window
 * passes, O(N) whatever the radius. Sums are kept in doubles.
 */
export function boxMean(src: Plane, w: number, h: number, r: number): Plane {
  if (r <= 0) return src.slice();
  const n = 2 * r + 1;
  const tmp = new Float32Array(w * h);
  for (let y = 0; y < h; y++) {
    const row = y * w;
    let acc = 0;
    for (let k = -r; k <= r; k++) acc += src[row + clampI(k, 0, w - 1)]!;
    for (let x = 0; x < w; x++) {
      tmp[row + x] = acc / n;
      acc += src[row + Math.min(w - 1, x + r + 1)]! - src[row + Math.max(0, x - r)]!;
    }
  }
  const out = new Float32Array(w * h);
  const col = new Float64Array(w);
  for (let k = -r; k <= r; k++) {
    const row = clampI(k, 0, h - 1) * w;
    for (let x = 0; x < w; x++) col[x]! += tmp[row + x]!;
  }
  for (let y = 0; y < h; y++) {
    const row = y * w;
    const add = Math.min(h - 1, y + r + 1) * w;
    const sub = Math.max(0, y - r) * w;
    for (let x = 0; x < w; x++) {
      out[row + x] = col[x]! / n;
      col[x]! += tmp[add + x]! - tmp[sub + x]!;
    }
  }
  return out;
}

/** Gaussian blur of standard deviation `sigma` pixels, approximated by three box passes (error < 3 %). */
export function gaussian(src: Plane, w: number, h: number, sigma: number): Plane {
  if (sigma < 0.5) return src.slice();
  const r = Math.max(1, Math.round((Math.sqrt(4 * sigma * sigma + 1) - 1) / 2));
  return boxMean(boxMean(boxMean(src, w, h, r), w, h, r), w, h, r);
}

/** Sobel derivatives (x to the right, y downwards), edges replicated. */
export function sobel(src: Plane, w: number, h: number): { gx: Plane; gy: Plane } {
  const gx = new Float32Array(w * h);
  const gy = new Float32Array(w * h);
  for (let y = 0; y < h; y++) {
    const up = Math.max(0, y - 1) * w;
    const mid = y * w;
    const down = Math.min(h - 1, y + 1) * w;
    for (let x = 0; x < w; x++) {
      const l = Math.max(0, x - 1);
      const r = Math.min(w - 1, x + 1);
      const a = src[up + l]!;
      const b = src[up + x]!;
      const c = src[up + r]!;
      const d = src[mid + l]!;
      const f = src[mid + r]!;
      const g = src[down + l]!;
      const hh = src[down + x]!;
      const k = src[down + r]!;
      gx[mid + x] = (c + 2 * f + k - a - 2 * d - g) / 8;
      gy[mid + x] = (g + 2 * hh + k - a - 2 * b - c) / 8;
    }
  }
  return { gx, gy };
}

/** Gradient magnitude of a plane (Sobel, per pixel). */
export function gradientMagnitude(src: Plane, w: number, h: number): Plane {
  const { gx, gy } = sobel(src, w, h);
  const out = new Float32Array(w * h);
  for (let i = 0; i < out.length; i++) out[i] = Math.hypot(gx[i]!, gy[i]!);
  return out;
}

/** A 32-bit seed from a string (FNV-1a), so textures depend on the style name only. */
export function seedOf(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/**
 * Seeded noise smoothed at scale `sigma` pixels and normalised to mean 0 and
 * standard deviation 1: grain for small sigma, blotches for large.
 */
export function noise(w: number, h: number, sigma: number, seed: number): Plane {
  const next = seededRandom(seed);
  let p: Plane = new Float32Array(w * h);
  for (let i = 0; i < p.length; i++) p[i] = next() - 0.5;
  if (sigma >= 0.5) p = gaussian(p, w, h, sigma);
  return normalise(p);
}

/** Shift and scale a plane in place to mean 0, standard deviation 1. */
export function normalise(p: Plane): Plane {
  let s = 0;
  let s2 = 0;
  for (const v of p) {
    s += v;
    s2 += v * v;
  }
  const mean = s / p.length;
  const sd = Math.sqrt(Math.max(1e-12, s2 / p.length - mean * mean));
  for (let i = 0; i < p.length; i++) p[i] = (p[i]! - mean) / sd;
  return p;
}

/** A length in pixels proportional to the image's short side (`fraction` of it), at least `min`. */
export function scaled(w: number, h: number, fraction: number, min = 1): number {
  return Math.max(min, Math.round(Math.min(w, h) * fraction));
}

export function clampI(v: number, lo: number, hi: number): number {
  return v < lo ? lo : v > hi ? hi : v;
}

/**
 * Box mean of length 2r+1 along 45° lines: `slope` 1 runs down-right (↘),
 * −1 up-right (↗). O(N): one sliding window per diagonal. Blurred noise
 * becomes hatching or chalk streaks.
 */
export function diagonalBlur(src: Plane, w: number, h: number, r: number, slope: 1 | -1): Plane {
  const out = new Float32Array(w * h);
  const line = new Int32Array(Math.min(w, h));
  for (let d = -(h - 1); d < w; d++) {
    // Cells of one diagonal: x - y = d (slope 1) or x + y = d + h - 1 (slope −1).
    let n = 0;
    for (let y = 0; y < h; y++) {
      const x = slope === 1 ? d + y : d + h - 1 - y;
      if (x >= 0 && x < w) line[n++] = y * w + x;
    }
    if (n === 0) continue;
    let acc = 0;
    for (let k = -r; k <= r; k++) acc += src[line[clampI(k, 0, n - 1)]!]!;
    for (let t = 0; t < n; t++) {
      out[line[t]!] = acc / (2 * r + 1);
      acc += src[line[Math.min(n - 1, t + r + 1)]!]! - src[line[Math.max(0, t - r)]!]!;
    }
  }
  return out;
}

/** Half-size copy (2×2 means; odd edges dropped). */
export function halve(src: Plane, w: number, h: number): { plane: Plane; width: number; height: number } {
  const hw = w >> 1;
  const hh = h >> 1;
  const out = new Float32Array(hw * hh);
  for (let y = 0; y < hh; y++) {
    const a = 2 * y * w;
    const b = a + w;
    for (let x = 0; x < hw; x++) out[y * hw + x] = (src[a + 2 * x]! + src[a + 2 * x + 1]! + src[b + 2 * x]! + src[b + 2 * x + 1]!) / 4;
  }
  return { plane: out, width: hw, height: hh };
}

/** Bilinear resampling of a plane from sw × sh to w × h (pixel centres aligned). */
export function resample(src: Plane, sw: number, sh: number, w: number, h: number): Plane {
  const out = new Float32Array(w * h);
  const fx = sw / w;
  const fy = sh / h;
  for (let y = 0; y < h; y++) {
    const sy = Math.min(sh - 1, Math.max(0, (y + 0.5) * fy - 0.5));
    const y0 = sy | 0;
    const y1 = Math.min(sh - 1, y0 + 1);
    const ty = sy - y0;
    for (let x = 0; x < w; x++) {
      const sx = Math.min(sw - 1, Math.max(0, (x + 0.5) * fx - 0.5));
      const x0 = sx | 0;
      const x1 = Math.min(sw - 1, x0 + 1);
      const tx = sx - x0;
      const top = src[y0 * sw + x0]! * (1 - tx) + src[y0 * sw + x1]! * tx;
      const bottom = src[y1 * sw + x0]! * (1 - tx) + src[y1 * sw + x1]! * tx;
      out[y * w + x] = top * (1 - ty) + bottom * ty;
    }
  }
  return out;
}
