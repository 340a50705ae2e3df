/**
 * Brush-stroke machinery: an orientation field that follows the image's
 * edges (structure tensor), optional swirls where the image is flat, and
 * line integral convolution (LIC, Cabral & Leedom 1993) that smears colour
 * and noise along it so that strokes appear.
 */
import { seededRandom as rng } from '@pfc/core';
import { gaussian, halve, resample, sobel, type Plane } from './planes';

/** Unit stroke directions (tx, ty) per pixel and the local edge coherence (0..1). */
export interface Flow {
  tx: Plane;
  ty: Plane;
  coherence: Plane;
  width: number;
  height: number;
}

/**
 * Stroke directions along the edges of `l`: the minor eigenvector of the
 * structure tensor smoothed at `sigma` pixels (tangent to edges, across the
 * gradient). Coherence is (λ1 − λ2)/(λ1 + λ2): 1 on a clean edge, 0 on flat
 * or isotropic areas.
 */
export function edgeFlow(l: Plane, w: number, h: number, sigma: number): Flow {
  const { gx, gy } = sobel(gaussian(l, w, h, 1), w, h);
  const n = w * h;
  const jxx = new Float32Array(n);
  const jxy = new Float32Array(n);
  const jyy = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    jxx[i] = gx[i]! * gx[i]!;
    jxy[i] = gx[i]! * gy[i]!;
    jyy[i] = gy[i]! * gy[i]!;
  }
  const sxx = gaussian(jxx, w, h, sigma);
  const sxy = gaussian(jxy, w, h, sigma);
  const syy = gaussian(jyy, w, h, sigma);
  const tx = new Float32Array(n);
  const ty = new Float32Array(n);
  const coherence = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const a = sxx[i]!;
    const b = sxy[i]!;
    const c = syy[i]!;
    // Gradient orientation θ; the stroke runs at θ + 90°.
    const theta = 0.5 * Math.atan2(2 * b, a - c);
    tx[i] = -Math.sin(theta);
    ty[i] = Math.cos(theta);
    const tr = a + c;
    coherence[i] = tr > 1e-3 ? Math.sqrt((a - c) * (a - c) + 4 * b * b) / tr : 0;
  }
  return { tx, ty, coherence, width: w, height: h };
}

/**
 * Blend swirls into the flow where its coherence is low (sky, walls): a few
 * seeded vortices of radius ~`radius` pixels plus a gentle drift. Directions
 * are blended as doubled angles, since a stroke has no head or tail.
 *
 * @param strength 0..1, how much of a flat area follows the swirls.
 */
export function addSwirls(flow: Flow, radius: number, seed: number, strength = 1): Flow {
  const { width: w, height: h } = flow;
  const next = rng(seed);
  const count = Math.max(3, Math.round((w * h) / (radius * radius * 3)));
  const vortices = Array.from({ length: count }, () => ({
    x: next() * w,
    y: next() * h,
    r: radius * (0.6 + 0.8 * next()),
    spin: next() < 0.5 ? -1 : 1,
  }));
  const drift = next() * Math.PI;
  const dx = Math.cos(drift);
  const dy = Math.sin(drift);
  // The swirl field varies slowly: evaluate it on a coarse grid, sample the nearest node.
  const step = 4;
  const gw = Math.ceil(w / step) + 1;
  const gh = Math.ceil(h / step) + 1;
  const swirl = new Float32Array(gw * gh);
  for (let gy = 0; gy < gh; gy++) {
    for (let gx = 0; gx < gw; gx++) {
      const x = gx * step;
      const y = gy * step;
      let vx = 0.35 * dx;
      let vy = 0.35 * dy;
      for (const v of vortices) {
        const ox = x - v.x;
        const oy = y - v.y;
        const d2 = (ox * ox + oy * oy) / (v.r * v.r);
        if (d2 > 9) continue;
        const k = Math.exp(-d2) * v.spin;
        const len = Math.sqrt(ox * ox + oy * oy) + 1e-3;
        vx += (-oy / len) * k;
        vy += (ox / len) * k;
      }
      swirl[gy * gw + gx] = 2 * Math.atan2(vy, vx);
    }
  }
  for (let y = 0; y < h; y++) {
    const grow = Math.round(y / step) * gw;
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      const c = flow.coherence[i]!;
      const mix = strength * (1 - Math.min(1, c * 1.6));
      if (mix <= 0) continue;
      // Doubled-angle vectors of the edge flow and the swirl, blended.
      const ea = 2 * Math.atan2(flow.ty[i]!, flow.tx[i]!);
      const sa = swirl[grow + Math.round(x / step)]!;
      const bx = (1 - mix) * Math.cos(ea) + mix * Math.cos(sa);
      const by = (1 - mix) * Math.sin(ea) + mix * Math.sin(sa);
      const a = Math.atan2(by, bx) / 2;
      flow.tx[i] = Math.cos(a);
      flow.ty[i] = Math.sin(a);
    }
  }
  return flow;
}

/**
 * Line integral convolution: every output pixel is the mean of the input
 * planes sampled along the flow's streamline through it, `length` steps of
 * `step` pixels each way. Strokes therefore follow the field; the streamline
 * is traced once and shared by all planes.
 */
export function lic(planes: readonly Plane[], flow: Flow, length: number, step = 1): Plane[] {
  if (planes.length < 1 || planes.length > 4) throw new RangeError(`lic takes 1 to 4 planes (got ${planes.length})`);
  const { width: w, height: h, tx, ty } = flow;
  // Up to four planes, unrolled: unused slots alias the first plane and are discarded.
  const [p0, p1 = p0, p2 = p0, p3 = p0] = planes as [Plane, Plane?, Plane?, Plane?];
  const outs = planes.map(() => new Float32Array(w * h));
  const [o0, o1 = o0, o2 = o0, o3 = o0] = outs as [Plane, Plane?, Plane?, Plane?];
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i0 = y * w + x;
      let a0 = p0![i0]!;
      let a1 = p1![i0]!;
      let a2 = p2![i0]!;
      let a3 = p3![i0]!;
      let count = 1;
      for (let dir = 1; dir >= -1; dir -= 2) {
        let px = x + 0.5;
        let py = y + 0.5;
        let vx = tx[i0]! * dir;
        let vy = ty[i0]! * dir;
        for (let s = 0; s < length; s++) {
          px += vx * step;
          py += vy * step;
          if (px < 0 || py < 0 || px >= w || py >= h) break;
          const j = (py | 0) * w + (px | 0);
          a0 += p0![j]!;
          a1 += p1![j]!;
          a2 += p2![j]!;
          a3 += p3![j]!;
          count++;
          // Follow the field without reversing (orientations are ± ambiguous).
          const nx = tx[j]!;
          const ny = ty[j]!;
          const flip = nx * vx + ny * vy < 0 ? -1 : 1;
          vx = nx * flip;
          vy = ny * flip;
        }
      }
      o0![i0] = a0 / count;
      o1![i0] = a1 / count;
      o2![i0] = a2 / count;
      o3![i0] = a3 / count;
    }
  }
  return outs;
}

/** Emboss a relief plane (light from the top left): positive on lit slopes, negative on shaded ones. */
export function relief(p: Plane, w: number, h: number): Plane {
  const out = new Float32Array(w * h);
  for (let y = 1; y < h; y++) {
    for (let x = 1; x < w; x++) {
      const i = y * w + x;
      out[i] = p[i - w - 1]! - p[i]!;
    }
  }
  return out;
}

/** Short side (pixels) from which {@link licScaled} works at half resolution. */
const HALF_FROM = 1000;

/**
 * LIC whose flow is built from `guide` by `makeFlow(guide, w, h)` (lengths in
 * it should scale with w, h). On large images (short side ≥ 1000 px) the flow
 * and the convolution run at half resolution and are resampled back: tracing
 * streamlines is random access over the whole image, so a quarter of the
 * pixels is far more than four times faster, and strokes that long are
 * low-frequency anyway.
 */
export function licScaled(planes: readonly Plane[], guide: Plane, w: number, h: number, makeFlow: (g: Plane, w: number, h: number) => Flow, length: number, step = 1): Plane[] {
  if (Math.min(w, h) < HALF_FROM) return lic(planes, makeFlow(guide, w, h), length, step);
  const g = halve(guide, w, h);
  const small = planes.map((p) => halve(p, w, h).plane);
  const res = lic(small, makeFlow(g.plane, g.width, g.height), Math.ceil(length / 2), step);
  return res.map((p) => resample(p, g.width, g.height, w, h));
}
