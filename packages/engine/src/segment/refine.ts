/**
 * Mask refinement: the segmentation model sees a 256×256 copy of the photo,
 * so its mask is blurry at full size. A guided filter (He, Sun and Tang,
 * "Guided Image Filtering", 2010/2013) snaps the mask to the photo's own
 * edges; it runs at a working size (long side ≤ 1024) and its linear
 * coefficients are then upsampled and applied to the full-size grey image
 * (the "fast guided filter"), so a 12 MP photo costs little more than a 1 MP
 * one. A final smoothstep firms up the remaining soft zone. Pure functions
 * on typed arrays.
 */

/** Bilinear resize, pixel centres aligned (as sharp and tf.image do with half-pixel centres). */
export function resizeBilinear(src: Float32Array, sw: number, sh: number, dw: number, dh: number): Float32Array {
  const out = new Float32Array(dw * dh);
  const fx = sw / dw;
  const fy = sh / dh;
  const x0s = new Int32Array(dw);
  const x1s = new Int32Array(dw);
  const wxs = new Float32Array(dw);
  for (let x = 0; x < dw; x++) {
    const sx = Math.min(sw - 1, Math.max(0, (x + 0.5) * fx - 0.5));
    x0s[x] = Math.floor(sx);
    x1s[x] = Math.min(sw - 1, x0s[x]! + 1);
    wxs[x] = sx - x0s[x]!;
  }
  for (let y = 0; y < dh; y++) {
    const sy = Math.min(sh - 1, Math.max(0, (y + 0.5) * fy - 0.5));
    const y0 = Math.floor(sy);
    const y1 = Math.min(sh - 1, y0 + 1);
    const wy = sy - y0;
    const r0 = y0 * sw;
    const r1 = y1 * sw;
    for (let x = 0; x < dw; x++) {
      const x0 = x0s[x]!;
      const x1 = x1s[x]!;
      const wx = wxs[x]!;
      const top = src[r0 + x0]! + (src[r0 + x1]! - src[r0 + x0]!) * wx;
      const bottom = src[r1 + x0]! + (src[r1 + x1]! - src[r1 + x0]!) * wx;
      out[y * dw + x] = top + (bottom - top) * wy;
    }
  }
  return out;
}

/** Mean over a (2r+1)² window, windows clipped at the borders; O(pixels) whatever r. */
export function boxMean(src: Float32Array, w: number, h: number, r: number): Float32Array {
  const tmp = new Float32Array(w * h);
  const out = new Float32Array(w * h);
  // Horizontal running sums.
  for (let y = 0; y < h; y++) {
    const row = y * w;
    let sum = 0;
    for (let x = 0; x <= Math.min(r, w - 1); x++) sum += src[row + x]!;
    for (let x = 0; x < w; x++) {
      const lo = Math.max(0, x - r);
      const hi = Math.min(w - 1, x + r);
      tmp[row + x] = sum / (hi - lo + 1);
      if (x + r + 1 < w) sum += src[row + x + r + 1]!;
      if (x - r >= 0) sum -= src[row + x - r]!;
    }
  }
  // Vertical running sums of the horizontal means.
  for (let x = 0; x < w; x++) {
    let sum = 0;
    for (let y = 0; y <= Math.min(r, h - 1); y++) sum += tmp[y * w + x]!;
    for (let y = 0; y < h; y++) {
      const lo = Math.max(0, y - r);
      const hi = Math.min(h - 1, y + r);
      out[y * w + x] = sum / (hi - lo + 1);
      if (y + r + 1 < h) sum += tmp[(y + r + 1) * w + x]!;
      if (y - r >= 0) sum -= tmp[(y - r) * w + x]!;
    }
  }
  return out;
}

/** Guided filter coefficients: output = a·I + b, with `a`, `b` already box-averaged. `guide` and `p` in [0, 1]. */
export function guidedCoefficients(guide: Float32Array, p: Float32Array, w: number, h: number, r: number, eps: number): { a: Float32Array; b: Float32Array } {
  const n = w * h;
  const ip = new Float32Array(n);
  const ii = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    ip[i] = guide[i]! * p[i]!;
    ii[i] = guide[i]! * guide[i]!;
  }
  const mI = boxMean(guide, w, h, r);
  const mP = boxMean(p, w, h, r);
  const mIP = boxMean(ip, w, h, r);
  const mII = boxMean(ii, w, h, r);
  const a = new Float32Array(n);
  const b = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const cov = mIP[i]! - mI[i]! * mP[i]!;
    const variance = mII[i]! - mI[i]! * mI[i]!;
    a[i] = cov / (variance + eps);
    b[i] = mP[i]! - a[i]! * mI[i]!;
  }
  return { a: boxMean(a, w, h, r), b: boxMean(b, w, h, r) };
}

/** Maps [lo, hi] smoothly onto [0, 1] (0 below, 1 above). */
export function smoothstep(lo: number, hi: number, v: number): number {
  const t = Math.min(1, Math.max(0, (v - lo) / (hi - lo)));
  return t * t * (3 - 2 * t);
}

export interface GreyImage {
  /** One byte per pixel. */
  data: Uint8Array;
  width: number;
  height: number;
}

export interface RefineOptions {
  /** Window radius at the working size, pixels; default long side / 128 (8 at 1024). */
  radius?: number;
  /** Regularisation: larger keeps the model's mask, smaller follows the photo's edges more; default 1e-3. */
  eps?: number;
  /** Soft zone of the final smoothstep, in mask probability; default [0.25, 0.75]. */
  soft?: [number, number];
}

/**
 * Refines a model probability map (`prob`, `pw`×`ph`, values 0–1) into an
 * 8-bit mask the size of `full` (or of `guide` when `full` is omitted).
 * `guide` is the photo in grey at the working size, `full` at the output size.
 */
export function refineMask(prob: Float32Array, pw: number, ph: number, guide: GreyImage, full: GreyImage = guide, options: RefineOptions = {}): Uint8Array {
  const { width: w, height: h } = guide;
  const r = options.radius ?? Math.max(1, Math.round(Math.max(w, h) / 128));
  const eps = options.eps ?? 1e-3;
  const [lo, hi] = options.soft ?? [0.25, 0.75];
  const p = resizeBilinear(prob, pw, ph, w, h);
  const I = Float32Array.from(guide.data, (v) => v / 255);
  const { a, b } = guidedCoefficients(I, p, w, h, r, eps);
  return applyCoefficients(a, b, w, h, full, lo, hi);
}

/**
 * out = smoothstep(a·I + b) at the full size, with `a` and `b` upsampled
 * bilinearly on the fly (no full-size float planes: a 12 MP mask needs
 * 12 MB here, not 100).
 */
function applyCoefficients(a: Float32Array, b: Float32Array, w: number, h: number, full: GreyImage, lo: number, hi: number): Uint8Array {
  const { width: W, height: H, data: I } = full;
  const out = new Uint8Array(W * H);
  const fx = w / W;
  const fy = h / H;
  for (let y = 0; y < H; y++) {
    const sy = Math.min(h - 1, Math.max(0, (y + 0.5) * fy - 0.5));
    const y0 = Math.floor(sy);
    const r0 = y0 * w;
    const r1 = Math.min(h - 1, y0 + 1) * w;
    const wy = sy - y0;
    for (let x = 0; x < W; x++) {
      const sx = Math.min(w - 1, Math.max(0, (x + 0.5) * fx - 0.5));
      const x0 = Math.floor(sx);
      const x1 = Math.min(w - 1, x0 + 1);
      const wx = sx - x0;
      const w00 = (1 - wx) * (1 - wy);
      const w01 = wx * (1 - wy);
      const w10 = (1 - wx) * wy;
      const w11 = wx * wy;
      const av = a[r0 + x0]! * w00 + a[r0 + x1]! * w01 + a[r1 + x0]! * w10 + a[r1 + x1]! * w11;
      const bv = b[r0 + x0]! * w00 + b[r0 + x1]! * w01 + b[r1 + x0]! * w10 + b[r1 + x1]! * w11;
      const i = y * W + x;
      out[i] = Math.round(255 * smoothstep(lo, hi, (av * I[i]!) / 255 + bv));
    }
  }
  return out;
}
