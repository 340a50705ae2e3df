/**
 * Unsharp mask on luma, with its radius scaled to the image size. It
 * follows libvips' `sharpen` (a Gaussian blur, the difference through a
 * cored curve — gentle on flat areas, steeper on edges, clamped so halos
 * stay small — added back), but on encoded luma Y′ instead of CIELAB L, and
 * the change is added to R, G and B alike: no colour-space round trip, which
 * cost libvips about 90 % of the mask's time. Luma and L* track each other
 * closely (about 2.4–2.9 encoded levels per L unit from black to white), so
 * the thresholds in L units carry over at 2.55 levels per unit.
 *
 * Steps: the luma plane (16-bit, filled by the curves pass when it runs
 * anyway, see `applyPlan`), then one WebAssembly pass over the rows that
 * blurs it (libvips' integer Gaussian, bit for bit) and adds the cored
 * difference to the pixels.
 */
import { blurDetailBands } from './bands';
import type { IntegerMask } from './kernels';
import type { Raster } from './raster';

/** The parameters of one unsharp mask (libvips' `sharpen` terms). */
export interface SharpenSpec {
  /** Gaussian σ of the mask, pixels. */
  sigma: number;
  /** Gain on flat areas (|ΔL| below `x1`). */
  m1: number;
  /** Gain on edges. */
  m2: number;
  /** Threshold between flat and edge, in L units. */
  x1: number;
}

/** Largest brightening and darkening of one pixel, L units (libvips' defaults y2 and y3). */
const MAX_BRIGHTEN = 10;
const MAX_DARKEN = 20;
/** Encoded 8-bit levels per L unit (L 0..100 over levels 0..255). */
const LEVELS_PER_L = 2.55;
/** Luma weights (Rec. 601, as `luma8` of the curves) scaled so R + G + B weights = 256: Y16 = 256 × Y′. */
export const LUMA16_WEIGHTS = [77, 150, 29] as const;
/** The mask's table is indexed by the luma difference in steps of 2^LUT_SHIFT Y16 units (1/32 level). */
const LUT_SHIFT = 3;
const LUT_CENTRE = 8192;

/**
 * The mask for an image of this size and amount 0..2 (0: none): σ = long
 * side / 1500 within 0.6..2 px, so the look is the same at any resolution;
 * flat areas get a third of the edges' gain.
 */
export function sharpenSpec(width: number, height: number, amount: number): SharpenSpec | undefined {
  if (!(amount > 0)) return undefined;
  return { sigma: maskSigma(width, height), m1: 0.5 * amount, m2: 1.5 * amount, x1: 2 };
}

/** The mask's Gaussian σ for an image of this size, pixels (see {@link sharpenSpec}). */
export function maskSigma(width: number, height: number): number {
  return Math.max(0.6, Math.min(2, Math.max(width, height) / 1500));
}

/** 16-bit luma (256 × Rec. 601 Y′ of encoded values) of every pixel. */
export function lumaPlane(img: Raster): Uint16Array {
  const { data, channels: ch } = img;
  const [wr, wg, wb] = LUMA16_WEIGHTS;
  const luma = new Uint16Array(img.width * img.height);
  for (let p = 0, i = 0; p < luma.length; p++, i += ch) luma[p] = wr * data[i]! + wg * data[i + 1]! + wb * data[i + 2]!;
  return luma;
}

/**
 * Change in levels for a luma difference `d` (pixel − blurred, in levels):
 * libvips' cored curve — slope m1 within ±x1, m2 beyond, clamped to
 * +10 / −20 L — with L units taken as 2.55 levels.
 */
export function sharpenCurve(spec: SharpenSpec, d: number): number {
  const v = d / LEVELS_PER_L;
  const { x1, m1, m2 } = spec;
  let y: number;
  if (v < -x1) y = (v + x1) * m2 - x1 * m1;
  else if (v < x1) y = v * m1;
  else y = (v - x1) * m2 + x1 * m1;
  return Math.min(MAX_BRIGHTEN, Math.max(-MAX_DARKEN, y)) * LEVELS_PER_L;
}

/**
 * {@link sharpenCurve} as a table over Y16 differences (index (d16 >> LUT_SHIFT) + LUT_CENTRE),
 * rounded to whole levels: added to a whole level, the result rounds the same.
 */
function curveTable(spec: SharpenSpec): Int16Array {
  const table = new Int16Array(2 * LUT_CENTRE);
  const step = (1 << LUT_SHIFT) / 256;
  for (let k = 0; k < table.length; k++) table[k] = Math.round(sharpenCurve(spec, (k - LUT_CENTRE + 0.5) * step));
  return table;
}

/** Smallest tap of the mask's Gaussian relative to its peak (libvips' `min_ampl`, as its `sharpen` uses). */
const MIN_AMPLITUDE = 0.1;

/**
 * The mask's Gaussian as libvips' `gaussmat` makes it for an integer,
 * separable blur: taps rint(20 · e^(−x²/2σ²)) out to the last x whose
 * e^(−x²/2σ²) is at least `minAmplitude`, scale their sum.
 */
export function gaussianMask(sigma: number, minAmplitude = MIN_AMPLITUDE): IntegerMask {
  const sig2 = 2 * sigma * sigma;
  const maxX = Math.min(8 * sigma, 10000);
  let x = 0;
  while (x < maxX && Math.exp(-(x * x) / sig2) >= minAmplitude) x++;
  const width = 2 * Math.max(x - 1, 0) + 1;
  // C's rint rounds ties to even; no tap of these sigmas is a tie, but keep its rule.
  const rint = (v: number) => (Math.abs(v % 1) === 0.5 ? 2 * Math.round(v / 2) : Math.round(v));
  const taps = Int32Array.from({ length: width }, (_, i) => rint(20 * Math.exp(-((i - (width >> 1)) ** 2) / sig2)));
  return { taps, scale: taps.reduce((a, b) => a + b, 0) || 1 };
}

/**
 * Sharpen a raster in place (its buffer must be the caller's own, e.g. the
 * curves pass's output). `luma` is {@link lumaPlane} of the raster when the
 * caller already has it. Alpha is not touched. The blur is libvips'
 * integer Gaussian to the bit (see `blurDetailPass`), done row by row
 * together with the detail, in WebAssembly; in bands on several threads
 * when the pixels and luma are shared (`blurDetailBands`).
 */
export async function sharpenInPlace(img: Raster, spec: SharpenSpec, luma: Uint16Array = lumaPlane(img)): Promise<Raster> {
  await blurDetailBands(img, luma, gaussianMask(spec.sigma), curveTable(spec));
  return img;
}

/** A sharpened copy of a raster (same size and channels); the input is left as it is. */
export async function sharpenRaster(img: Raster, spec: SharpenSpec): Promise<Raster> {
  return sharpenInPlace({ ...img, data: new Uint8Array(img.data) }, spec);
}
