/**
 * Small float-plane helpers for the retouching tools, which work on face-sized
 * regions: crop, luma, masked (normalised) Gaussian-like smoothing.
 */
import type { Raster } from '../image/raster';

/** A rectangle in pixels, clipped to an image. */
export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** Clip a box (any numbers) to the image, integer pixels. */
export function clipBox(img: Pick<Raster, 'width' | 'height'>, x: number, y: number, w: number, h: number): Box {
  const x0 = Math.max(0, Math.floor(x));
  const y0 = Math.max(0, Math.floor(y));
  const x1 = Math.min(img.width, Math.ceil(x + w));
  const y1 = Math.min(img.height, Math.ceil(y + h));
  return { x: x0, y: y0, w: Math.max(0, x1 - x0), h: Math.max(0, y1 - y0) };
}

/** The three channels of a box as float planes (0..255). */
export function cropPlanes(img: Raster, b: Box): [Float32Array, Float32Array, Float32Array] {
  const planes: [Float32Array, Float32Array, Float32Array] = [new Float32Array(b.w * b.h), new Float32Array(b.w * b.h), new Float32Array(b.w * b.h)];
  for (let y = 0; y < b.h; y++) {
    for (let x = 0; x < b.w; x++) {
      const i = ((b.y + y) * img.width + b.x + x) * img.channels;
      const j = y * b.w + x;
      planes[0][j] = img.data[i]!;
      planes[1][j] = img.data[i + 1]!;
      planes[2][j] = img.data[i + 2]!;
    }
  }
  return planes;
}

/** Rec. 601 luma of three planes. */
export function lumaPlane(p: readonly [Float32Array, Float32Array, Float32Array]): Float32Array {
  const out = new Float32Array(p[0].length);
  for (let i = 0; i < out.length; i++) out[i] = 0.299 * p[0][i]! + 0.587 * p[1][i]! + 0.114 * p[2][i]!;
  return out;
}

/** Three passes of a box blur of radius r (≈ Gaussian with σ ≈ r), edges clamped. */
export function smooth(src: Float32Array, w: number, h: number, r: number): Float32Array {
  let a = src;
  const rad = Math.max(1, Math.round(r));
  for (let pass = 0; pass < 3; pass++) a = boxV(boxH(a, w, h, rad), w, h, rad);
  return a;
}

/**
 * Values of `src` smoothed using only pixels where `weight` is high
 * (normalised convolution): fills holes (weight 0) from their surroundings.
 */
export function fillFrom(src: Float32Array, weight: Float32Array, w: number, h: number, r: number): Float32Array {
  const num = new Float32Array(src.length);
  for (let i = 0; i < src.length; i++) num[i] = src[i]! * weight[i]!;
  const sn = smooth(num, w, h, r);
  const sw = smooth(weight, w, h, r);
  const out = new Float32Array(src.length);
  for (let i = 0; i < src.length; i++) out[i] = sw[i]! > 1e-4 ? sn[i]! / sw[i]! : src[i]!;
  return out;
}

function boxH(src: Float32Array, w: number, h: number, r: number): Float32Array {
  const out = new Float32Array(src.length);
  const n = 2 * r + 1;
  for (let y = 0; y < h; y++) {
    const row = y * w;
    let acc = 0;
    for (let k = -r; k <= r; k++) acc += src[row + Math.min(w - 1, Math.max(0, k))]!;
    for (let x = 0; x < w; x++) {
      out[row + x] = acc / n;
      acc += src[row + Math.min(w - 1, x + r + 1)]! - src[row + Math.max(0, x - r)]!;
    }
  }
  return out;
}

function boxV(src: Float32Array, w: number, h: number, r: number): Float32Array {
  const out = new Float32Array(src.length);
  const n = 2 * r + 1;
  for (let x = 0; x < w; x++) {
    let acc = 0;
    for (let k = -r; k <= r; k++) acc += src[Math.min(h - 1, Math.max(0, k)) * w + x]!;
    for (let y = 0; y < h; y++) {
      out[y * w + x] = acc / n;
      acc += src[Math.min(h - 1, y + r + 1) * w + x]! - src[Math.max(0, y - r) * w + x]!;
    }
  }
  return out;
}

/** Write three planes back into a copy's box, blended by `alpha` (0..1 per pixel). */
export function blendBack(out: Raster, b: Box, planes: readonly [Float32Array, Float32Array, Float32Array], alpha: Float32Array): void {
  for (let y = 0; y < b.h; y++) {
    for (let x = 0; x < b.w; x++) {
      const j = y * b.w + x;
      const a = alpha[j]!;
      if (a <= 0) continue;
      const i = ((b.y + y) * out.width + b.x + x) * out.channels;
      for (let c = 0; c < 3; c++) {
        const v = out.data[i + c]! * (1 - a) + planes[c as 0 | 1 | 2][j]! * a;
        out.data[i + c] = v <= 0 ? 0 : v >= 255 ? 255 : Math.round(v);
      }
    }
  }
}

export function smoothstep(e0: number, e1: number, x: number): number {
  const t = Math.min(1, Math.max(0, (x - e0) / (e1 - e0)));
  return t * t * (3 - 2 * t);
}
