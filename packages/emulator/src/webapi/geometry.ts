/**
 * Pure geometry of a job: the resize target under the documented priority
 * (width, height, long, short, scale), and the auto-crop box.
 */
import { resizeStrategy, type CropBox, type Dimensions, type FaceRecord, type PfcParams } from '@pfc/core';

const atLeast1 = (n: number): number => Math.max(1, Math.round(n));

/**
 * Output size for the resize strategy the service uses, keeping the aspect
 * ratio; undefined without a resize parameter. Enlarging is allowed (upscaling).
 */
export function resizeTarget(src: Dimensions, p: PfcParams): Dimensions | undefined {
  const r = resizeStrategy(p);
  if (!r) return undefined;
  const { width: w, height: h } = src;
  const byWidth = (v: number): Dimensions => ({ width: v, height: atLeast1((h * v) / w) });
  const byHeight = (v: number): Dimensions => ({ width: atLeast1((w * v) / h), height: v });
  switch (r.strategy) {
    case 'width':
      return byWidth(r.value);
    case 'height':
      return byHeight(r.value);
    case 'long':
      return w >= h ? byWidth(r.value) : byHeight(r.value);
    case 'short':
      return w <= h ? byWidth(r.value) : byHeight(r.value);
    case 'scale':
      return { width: atLeast1((w * r.value) / 100), height: atLeast1((h * r.value) / 100) };
  }
}

/** Scales a size down so its longer side is at most `maxSide` (aspect kept). */
export function capLongSide(d: Dimensions, maxSide: number): Dimensions {
  const long = Math.max(d.width, d.height);
  if (long <= maxSide) return d;
  const k = maxSide / long;
  return { width: atLeast1(d.width * k), height: atLeast1(d.height * k) };
}

const num = (s: string | undefined, fallback: number): number => (s === undefined ? fallback : Number(s));

/**
 * The auto-crop box in the auto-oriented input's pixels.
 *
 * Aspect ratio: `cropARW:cropARH` when both are sent, else the input's own.
 * Without a face (no engine, or none found) the box is the largest of that
 * aspect, centred. With faces, the largest face is framed: its height is
 * `autocropSize` (default 0.35) of the box height, its centre at
 * `0.5 + autocropX` of the width and `0.4 + autocropY` of the height, or its
 * top `autocropTopHeadGap` (a fraction of the box height) below the box top
 * when that is positive; the box is then shrunk and shifted to fit the image.
 */
export function autoCropBox(src: Dimensions, p: PfcParams, faces: readonly FaceRecord[] = []): CropBox {
  const arw = num(p.cropARW, NaN);
  const arh = num(p.cropARH, NaN);
  const aspect = arw > 0 && arh > 0 ? arw / arh : src.width / src.height;
  // Largest box of the aspect that fits.
  let fitW = src.width;
  let fitH = src.width / aspect;
  if (fitH > src.height) {
    fitH = src.height;
    fitW = src.height * aspect;
  }
  const face = [...faces].sort((a, b) => b.width * b.height - a.width * a.height)[0];
  if (!face) {
    const width = Math.max(1, Math.floor(fitW));
    const height = Math.max(1, Math.floor(fitH));
    return { x: Math.floor((src.width - width) / 2), y: Math.floor((src.height - height) / 2), width, height };
  }
  const size = num(p.autocropSize, 0.35);
  let h = Math.min(fitH, face.height / (size > 0 ? size : 0.35));
  let w = h * aspect;
  if (w > fitW) {
    w = fitW;
    h = w / aspect;
  }
  const cx = face.left + face.width / 2;
  const cy = face.top + face.height / 2;
  const gap = num(p.autocropTopHeadGap, 0);
  const x = cx - (0.5 + num(p.autocropX, 0)) * w;
  const y = gap > 0 ? face.top - gap * h : cy - (0.4 + num(p.autocropY, 0)) * h;
  const width = Math.max(1, Math.floor(w));
  const height = Math.max(1, Math.floor(h));
  return {
    x: Math.round(Math.min(Math.max(0, x), src.width - width)),
    y: Math.round(Math.min(Math.max(0, y), src.height - height)),
    width,
    height,
  };
}
