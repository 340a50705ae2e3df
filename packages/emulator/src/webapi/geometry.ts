/**
 * Pure geometry of a job: the resize target under the documented priority
 * (width, height, long, short, scale). The auto-crop box is `@pfc/engine`'s
 * `autoCropBox` (crown estimate, `autocropType` 0–4; without faces the
 * largest centred box of the aspect), used by `process.ts`.
 */
import { resizeStrategy, type Dimensions, type PfcParams } from '@pfc/core';

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
