/**
 * How much a photo needs the finishing steps, sharpening and vibrance. A
 * preset's amount is what a soft or muted photo gets; a photo that is already
 * crisp is not sharpened further and one that is already colourful gets no
 * boost, since on it either step only moves a good photo away from itself.
 */
import type { Raster } from '../image/raster';
import { histogram, percentile } from './estimate';
import type { ColourParams } from './params';
import { ramp } from './ramp';

/** The finishing steps whose amount follows the measured need. */
export type FinishStep = 'sharpen' | 'vibrance';

/** How much each finishing step is needed, 0 (not at all) .. 1 (the preset's whole amount). */
export interface FinishNeed {
  sharpen: number;
  vibrance: number;
}

/**
 * Acutance ratio at which a photo counts as crisp (no sharpening) and as
 * soft (the whole amount); see {@link acutance}. A perfectly sharp step edge
 * gives 0.5 and a smooth gradient 0.25. The tune set's photos, all reduced
 * from larger originals, measure 0.41 (cv-smarties, mate-greenmeadow) to
 * 0.78 (mypaint-roughpaper); the same photos blurred by a Gaussian of σ ≈ 0.7
 * px measure 0.30–0.43, and of σ ≈ 1 px 0.28–0.36.
 */
const CRISP = 0.5;
const SOFT = 0.35;
/** Rows and columns of the image the acutance is measured on (evenly spaced). */
const ACUTANCE_LINES = 64;

/**
 * How much of its finest detail a photo still has at the unsharp mask's
 * scale `s` pixels: summed over evenly spaced rows and columns of luma, the
 * second difference across ±s over the second difference across ±2s. Both
 * grow with contrast alike, so the ratio does not depend on it (a veil or a
 * flat curve leaves it as it is). Blur (a soft lens, missed focus, an
 * upscaled copy) takes the finest band first: the ratio falls towards 0.25,
 * the value of a smooth gradient. Measured on the full image, since the
 * analysis copy, reduced about tenfold, is crisp whatever the photo is.
 */
export function acutance(img: Raster, s: number): number {
  const { width: w, height: h, channels: ch, data } = img;
  const step = Math.max(1, Math.round(s));
  const line = new Float32Array(Math.max(w, h));
  let fine = 0;
  let coarse = 0;
  const add = (n: number) => {
    for (let x = 2 * step; x < n - 2 * step; x++) {
      const v = line[x]!;
      fine += Math.abs(v - (line[x - step]! + line[x + step]!) / 2);
      coarse += Math.abs(v - (line[x - 2 * step]! + line[x + 2 * step]!) / 2);
    }
  };
  const luma = (i: number) => 0.299 * data[i]! + 0.587 * data[i + 1]! + 0.114 * data[i + 2]!;
  for (let k = 0, rows = Math.min(ACUTANCE_LINES, h); k < rows; k++) {
    const y = Math.floor(((k + 0.5) * h) / rows);
    for (let x = 0; x < w; x++) line[x] = luma((y * w + x) * ch);
    add(w);
  }
  for (let k = 0, cols = Math.min(ACUTANCE_LINES, w); k < cols; k++) {
    const x = Math.floor(((k + 0.5) * w) / cols);
    for (let y = 0; y < h; y++) line[y] = luma((y * w + x) * ch);
    add(h);
  }
  return coarse > 0 ? fine / coarse : 1;
}

/** Need of sharpening (0..1) for an {@link acutance}: 1 for a soft photo, 0 for a crisp one. */
export function sharpenNeed(acutanceRatio: number): number {
  return ramp(-acutanceRatio, -CRISP, -SOFT);
}

/**
 * Chroma (max − min, 8-bit levels) of the corrected analysis copy's 75th
 * percentile from which vibrance is scaled down, and at which it is off: a
 * quarter of the frame at least that colourful. Haze and a flat curve pull
 * chroma towards grey, and what the levels did not give back is what
 * vibrance is for; a scene whose own colours are strong (lomiri-aitzgorri's
 * green slopes 64, skimage-rocket 65, cv-car 57, the tinted night sky of
 * scribus-moon 58) only drifts further from itself. Muted scenes that keep
 * the boost: cv-aero 20, cv-leuven 23 and cv-building 30 (0.85 of it).
 */
const MUTED_CHROMA = 24;
const VIVID_CHROMA = 64;

/** Need of vibrance (0..1) of a corrected analysis copy: 1 when muted, 0 when already colourful. */
export function vibranceNeed(corrected: Raster): number {
  const chroma = percentile(
    histogram(corrected, (r, g, b) => Math.max(r, g, b) - Math.min(r, g, b)),
    0.75,
  );
  return ramp(-chroma, -VIVID_CHROMA, -MUTED_CHROMA);
}

/**
 * The amount of a finishing step: the parameter times its measured need, or
 * the parameter as it is when the user set it (`asGiven`, a custom preset's
 * own value) or when no need was measured. Only a boost is scaled: a
 * negative vibrance (muting) is a look, not a repair.
 */
export function finishAmount(step: FinishStep, p: ColourParams, need: FinishNeed | undefined, asGiven: readonly FinishStep[] = []): number {
  const amount = p[step];
  return need && amount > 0 && !asGiven.includes(step) ? amount * need[step] : amount;
}
