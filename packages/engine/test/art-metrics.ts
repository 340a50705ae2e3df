/** Image measurements for the AI Art tests: each style is checked by what a viewer would notice. */
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import type { Raster } from '../src/image/raster';

export const sample = (p: string): string => fileURLToPath(new URL(`../../../samples/${p}`, import.meta.url));

/** A sample photo as RGB pixels. */
export async function load(p: string): Promise<Raster> {
  const { data, info } = await sharp(sample(p)).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: 3 };
}

/** The same photo scaled (Lanczos) to another size: the baseline a style is compared with. */
export async function resized(img: Raster, w: number, h: number): Promise<Raster> {
  const { data, info } = await sharp(img.data, { raw: { width: img.width, height: img.height, channels: img.channels } })
    .resize(w, h, { fit: 'fill' })
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: 3 };
}

export function lumaOf(img: Raster): Float64Array {
  const n = img.width * img.height;
  const out = new Float64Array(n);
  for (let i = 0, o = 0; i < n; i++, o += img.channels) out[i] = 0.299 * img.data[o]! + 0.587 * img.data[o + 1]! + 0.114 * img.data[o + 2]!;
  return out;
}

export function mean(a: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]!;
  return s / a.length;
}

export function sd(a: ArrayLike<number>): number {
  const m = mean(a);
  let s = 0;
  for (let i = 0; i < a.length; i++) s += (a[i]! - m) ** 2;
  return Math.sqrt(s / a.length);
}

/** Mean of (max − min)/255 over pixels: 0 for greys. */
export function meanSaturation(img: Raster): number {
  let s = 0;
  for (let o = 0; o < img.data.length; o += img.channels) {
    const r = img.data[o]!;
    const g = img.data[o + 1]!;
    const b = img.data[o + 2]!;
    s += (Math.max(r, g, b) - Math.min(r, g, b)) / 255;
  }
  return s / (img.width * img.height);
}

export function distinctColours(img: Raster): number {
  const seen = new Set<number>();
  for (let o = 0; o < img.data.length; o += img.channels) seen.add((img.data[o]! << 16) | (img.data[o + 1]! << 8) | img.data[o + 2]!);
  return seen.size;
}

/** Sobel gradient magnitude of a luma plane. */
export function gradient(l: Float64Array, w: number, h: number): Float64Array {
  const out = new Float64Array(w * h);
  for (let y = 1; y < h - 1; y++) {
    for (let x = 1; x < w - 1; x++) {
      const i = y * w + x;
      const gx = l[i - w + 1]! + 2 * l[i + 1]! + l[i + w + 1]! - l[i - w - 1]! - 2 * l[i - 1]! - l[i + w - 1]!;
      const gy = l[i + w - 1]! + 2 * l[i + w]! + l[i + w + 1]! - l[i - w - 1]! - 2 * l[i - w]! - l[i - w + 1]!;
      out[i] = Math.hypot(gx, gy) / 8;
    }
  }
  return out;
}

/** Indices of the `fraction` of pixels with the strongest gradient. */
export function strongest(g: Float64Array, fraction: number): number[] {
  const sampled = Array.from({ length: Math.floor(g.length / 7) }, (_, k) => g[k * 7]!).sort((a, b) => b - a);
  const threshold = sampled[Math.floor(sampled.length * fraction)]!;
  const out: number[] = [];
  for (let i = 0; i < g.length; i++) if (g[i]! > threshold) out.push(i);
  return out;
}

/** Mean local variance of luma in (2r+1)² windows (fine texture and detail), optionally only at centres where `where(i)` holds. */
export function localVariance(l: Float64Array, w: number, h: number, r = 2, where?: (i: number) => boolean): number {
  let total = 0;
  let n = 0;
  for (let y = r; y < h - r; y += 3) {
    for (let x = r; x < w - r; x += 3) {
      if (where && !where(y * w + x)) continue;
      let s = 0;
      let s2 = 0;
      for (let dy = -r; dy <= r; dy++) {
        for (let dx = -r; dx <= r; dx++) {
          const v = l[(y + dy) * w + x + dx]!;
          s += v;
          s2 += v * v;
        }
      }
      const k = (2 * r + 1) ** 2;
      total += s2 / k - (s / k) ** 2;
      n++;
    }
  }
  return total / n;
}

/**
 * Mean orientation coherence of the structure tensor (Gaussian-ish 7×7 box of
 * gradient products): 1 where all gradients share one direction (strokes),
 * near 0 for isotropic texture or flat areas.
 */
export function coherence(l: Float64Array, w: number, h: number): number {
  const gx = new Float64Array(w * h);
  const gy = new Float64Array(w * h);
  for (let y = 1; y < h - 1; y++) {
    for (let x = 1; x < w - 1; x++) {
      const i = y * w + x;
      gx[i] = l[i + 1]! - l[i - 1]!;
      gy[i] = l[i + w]! - l[i - w]!;
    }
  }
  let total = 0;
  let n = 0;
  const r = 3;
  for (let y = r + 1; y < h - r - 1; y += 4) {
    for (let x = r + 1; x < w - r - 1; x += 4) {
      let a = 0;
      let b = 0;
      let c = 0;
      for (let dy = -r; dy <= r; dy++) {
        for (let dx = -r; dx <= r; dx++) {
          const j = (y + dy) * w + x + dx;
          a += gx[j]! * gx[j]!;
          b += gx[j]! * gy[j]!;
          c += gy[j]! * gy[j]!;
        }
      }
      const tr = a + c;
      if (tr < 1e-6) continue;
      total += Math.sqrt((a - c) ** 2 + 4 * b * b) / tr;
      n++;
    }
  }
  return total / Math.max(1, n);
}

/**
 * Strength of a periodic pattern of `period` pixels along rows: power at that
 * frequency divided by the median power at nearby, non-harmonic frequencies.
 */
export function periodicity(l: Float64Array, w: number, h: number, period: number): number {
  const power = (p: number): number => {
    const f = (2 * Math.PI) / p;
    let total = 0;
    for (let y = 0; y < h; y += 4) {
      let re = 0;
      let im = 0;
      let m = 0;
      for (let x = 0; x < w; x++) m += l[y * w + x]!;
      m /= w;
      for (let x = 0; x < w; x++) {
        const v = l[y * w + x]! - m;
        re += v * Math.cos(f * x);
        im -= v * Math.sin(f * x);
      }
      total += re * re + im * im;
    }
    return total;
  };
  const others = [0.6, 0.7, 0.8, 1.25, 1.35, 1.45].map((k) => power(period * k)).sort((a, b) => a - b);
  const median = (others[2]! + others[3]!) / 2;
  return power(period) / median;
}

/** 4-neighbour Laplacian high-pass of a luma plane (fine detail). */
function highPass(l: Float64Array, w: number, h: number): Float64Array {
  const out = new Float64Array(l.length);
  for (let y = 1; y < h - 1; y++) {
    for (let x = 1; x < w - 1; x++) {
      const i = y * w + x;
      out[i] = l[i]! - (l[i - 1]! + l[i + 1]! + l[i - w]! + l[i + w]!) / 4;
    }
  }
  return out;
}

/**
 * How much of a photo's fine detail survives in an image of the same size:
 * the correlation of their high-pass images over the pixels where `where(i)`
 * holds. About 0.9 for a resampled copy, about 0.4 for a Gaussian blur, near 0
 * when the detail has been repainted.
 */
export function detailKept(photo: Float64Array, out: Float64Array, w: number, h: number, where: (i: number) => boolean): number {
  const a = highPass(photo, w, h);
  const b = highPass(out, w, h);
  let sa = 0;
  let sb = 0;
  let sab = 0;
  let saa = 0;
  let sbb = 0;
  let n = 0;
  for (let i = 0; i < a.length; i++) {
    if (!where(i)) continue;
    sa += a[i]!;
    sb += b[i]!;
    sab += a[i]! * b[i]!;
    saa += a[i]! * a[i]!;
    sbb += b[i]! * b[i]!;
    n++;
  }
  const ma = sa / n;
  const mb = sb / n;
  return (sab / n - ma * mb) / Math.sqrt(Math.max(1e-12, (saa / n - ma * ma) * (sbb / n - mb * mb)));
}
