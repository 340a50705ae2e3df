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
export const FINISH_STEPS = ['sharpen', 'vibrance'] as const;
export type FinishStep = (typeof FINISH_STEPS)[number];

/** A number per finishing step: the amounts applied (the job record's `applied.finish`). */
export type FinishAmounts = Record<FinishStep, number>;

/** How much each finishing step is needed, 0 (not at all) .. 1 (the preset's whole amount). */
export type FinishNeed = FinishAmounts;

/**
 * Acutance ratio at which a photo counts as crisp (no sharpening) and as
 * soft (the whole amount); see {@link acutance}. A perfectly sharp step edge
 * gives 0.5 and a smooth gradient 0.25. The tune set's photos, all reduced
 * from larger originals, measure 0.39 (cv-car), 0.42 (cv-smarties,
 * mate-greenmeadow) to 0.82 (mypaint-roughpaper); the same photos blurred by
 * a Gaussian of σ 0.7 px measure 0.33–0.52 (the paper textures highest),
 * of σ 1 px 0.31–0.43.
 */
const CRISP = 0.5;
const SOFT = 0.35;
/** Rows of the image the acutance is measured along and across (evenly spaced). */
const ACUTANCE_LINES = 32;

/**
 * How much of its finest detail a photo still has at the unsharp mask's
 * scale `s` pixels: summed along evenly spaced rows of luma and down the
 * columns through them, the second difference across ±s over the second
 * difference across ±2s (five rows read per sampled row). Both
 * grow with contrast alike, so the ratio does not depend on it (a veil or a
 * flat curve leaves it as it is). Blur (a soft lens, missed focus, an
 * upscaled copy) takes the finest band first: the ratio falls towards 0.25,
 * the value of a smooth gradient. Measured on the full image, since the
 * analysis copy, reduced about tenfold, is crisp whatever the photo is.
 */
export function acutance(img: Raster, s: number): number {
  const { width: w, height: h } = img;
  const step = Math.max(1, Math.round(s));
  // Rows y − 2s .. y + 2s around each sampled row y: the detail along the row, and down the columns.
  const [a, b, c, d, e] = [0, 1, 2, 3, 4].map(() => new Float32Array(w)) as [Float32Array, Float32Array, Float32Array, Float32Array, Float32Array];
  const sums = { fine: 0, coarse: 0 };
  const lines = Math.min(ACUTANCE_LINES, h - 4 * step);
  for (let k = 0; k < lines; k++) {
    const y = 2 * step + Math.floor(((k + 0.5) * (h - 4 * step)) / lines);
    [a, b, c, d, e].forEach((row, j) => lumaRow(img, y + (j - 2) * step, row));
    addDetail(c, step, sums);
    let fine = 0;
    let coarse = 0;
    for (let x = 0; x < w; x++) {
      fine += Math.abs(c[x]! - (b[x]! + d[x]!) / 2);
      coarse += Math.abs(c[x]! - (a[x]! + e[x]!) / 2);
    }
    sums.fine += fine;
    sums.coarse += coarse;
  }
  return sums.coarse > 0 ? sums.fine / sums.coarse : 1;
}

/** Encoded luma (Rec. 601 weights, 0..255) of row `y` into `out`. */
function lumaRow(img: Raster, y: number, out: Float32Array): void {
  const { width: w, channels: ch, data } = img;
  for (let x = 0, i = y * w * ch; x < w; x++, i += ch) out[x] = 0.299 * data[i]! + 0.587 * data[i + 1]! + 0.114 * data[i + 2]!;
}

/** Adds a line's second differences across ±s (fine) and ±2s (coarse) to `sums`. */
function addDetail(line: Float32Array, s: number, sums: { fine: number; coarse: number }): void {
  let fine = 0;
  let coarse = 0;
  for (let x = 2 * s; x < line.length - 2 * s; x++) {
    const v = line[x]!;
    fine += Math.abs(v - (line[x - s]! + line[x + s]!) / 2);
    coarse += Math.abs(v - (line[x - 2 * s]! + line[x + 2 * s]!) / 2);
  }
  sums.fine += fine;
  sums.coarse += coarse;
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
