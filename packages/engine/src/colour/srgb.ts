/**
 * sRGB transfer function helpers. Corrections that model light (exposure,
 * white balance) are done on linear values; tone and levels on encoded ones.
 */

/** sRGB-encoded value in 0..1 → linear light in 0..1 (IEC 61966-2-1). */
export function srgbToLinear(v: number): number {
  return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
}

/** Linear light in 0..1 → sRGB-encoded value in 0..1; input clamped to 0..1. */
export function linearToSrgb(v: number): number {
  const c = v <= 0 ? 0 : v >= 1 ? 1 : v;
  return c <= 0.0031308 ? c * 12.92 : 1.055 * c ** (1 / 2.4) - 0.055;
}

/** Linear value of each 8-bit sRGB code (256 entries). */
export const LINEAR_OF_BYTE: Float64Array = (() => {
  const t = new Float64Array(256);
  for (let i = 0; i < 256; i++) t[i] = srgbToLinear(i / 255);
  return t;
})();

/**
 * 8-bit code from which a channel counts as clipped, so that the pixel's
 * colour is lost and the white-balance estimates leave it out. Below 255
 * because JPEG ringing and resampling spread a blown highlight a few codes
 * down.
 */
export const COLOUR_LOST_CODE = 250;

/** Rec. 709 / sRGB luminance weights of linear R, G, B. */
export const LUMA = [0.2126, 0.7152, 0.0722] as const;

/** Clamp to 0..255 and round to a byte. */
export function toByte(v: number): number {
  return v <= 0 ? 0 : v >= 255 ? 255 : Math.round(v);
}
