/**
 * The colour engine's parameters: one flat set of numbers that every preset
 * (built-in group, scene variant or custom preset file) resolves to.
 */

/**
 * Colour-correction parameters. Strengths are 0..1 (0 = off, 1 = the full
 * automatic correction); signed creative offsets are applied after the
 * automatic steps. Every field is optional in a preset file; missing fields
 * take {@link NEUTRAL_COLOUR_PARAMS} (all off).
 */
export interface ColourParams {
  /** Automatic exposure: how far a too-dark or too-bright midtone key is moved into the normal band. 0..1. */
  exposure: number;
  /** Automatic white balance: fraction of the estimated colour cast removed. 0..1. */
  whiteBalance: number;
  /** Automatic contrast: fraction of the black/white-point stretch applied. 0..1. */
  contrast: number;
  /** Vibrance: saturation boost weighted towards muted colours, skin tones protected. -1..1. */
  vibrance: number;
  /** Unsharp-mask amount on lightness (0 = off, 1 = standard, 2 = strong). 0..2. */
  sharpen: number;
  /** Extra exposure after the automatic steps, in EV stops. -2..2. */
  brightness: number;
  /** Extra colour temperature after white balance: positive warmer, negative cooler. -1..1. */
  warmth: number;
  /** Extra tint after white balance: positive magenta, negative green. -1..1. */
  tint: number;
  /** Extra global saturation (multiplicative, 0 = unchanged). -1..1. */
  saturation: number;
}

/** Allowed range of each parameter (inclusive), used to validate preset files. */
export const COLOUR_PARAM_RANGES: { readonly [K in keyof ColourParams]: readonly [number, number] } = {
  exposure: [0, 1],
  whiteBalance: [0, 1],
  contrast: [0, 1],
  vibrance: [-1, 1],
  sharpen: [0, 2],
  brightness: [-2, 2],
  warmth: [-1, 1],
  tint: [-1, 1],
  saturation: [-1, 1],
};

/** Every parameter off: the pixels are not changed. */
export const NEUTRAL_COLOUR_PARAMS: Readonly<ColourParams> = Object.freeze({
  exposure: 0,
  whiteBalance: 0,
  contrast: 0,
  vibrance: 0,
  sharpen: 0,
  brightness: 0,
  warmth: 0,
  tint: 0,
  saturation: 0,
});

/** Whether a parameter set changes pixels at all. */
export function isNeutral(p: ColourParams): boolean {
  return (Object.keys(NEUTRAL_COLOUR_PARAMS) as (keyof ColourParams)[]).every((k) => p[k] === 0);
}

/** Clamp every field into its documented range. */
export function clampColourParams(p: ColourParams): ColourParams {
  const out = { ...p };
  for (const k of Object.keys(COLOUR_PARAM_RANGES) as (keyof ColourParams)[]) {
    const [lo, hi] = COLOUR_PARAM_RANGES[k];
    out[k] = Math.min(hi, Math.max(lo, p[k]));
  }
  return out;
}
