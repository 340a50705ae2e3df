/**
 * Over-exposure: a photo whose midtones sit well above a normal key AND
 * whose highlights are blown in a large part of the frame is darkened.
 * Over-exposure is a gain on linear light followed by the sensor's
 * (or encoder's) clip: it lifts the key and piles everything that was above
 * 1/gain into white at once. Neither sign alone is evidence:
 *
 * - a bright key without blown highlights is a high-key or pale scene
 *   (paper, a pale clock face, a white wall lit softly): its brightest tones
 *   roll off before white, which an exposure gain large enough to lift the
 *   key would have clipped;
 * - blown highlights under a normal key are the scene's own light sources,
 *   sun or sky (lamps over a grey wall, a blown sky over a landscape, sun
 *   through seed heads): the photographer exposed for the midtones;
 * - a key near white is a product on white or a page: nothing is left to
 *   measure the exposure by.
 *
 * Only their coincidence, in a band of keys above a normal one and below a
 * high-key one, counts; the darkening grows with both (up to
 * {@link MAX_DARKENING}), so a photo near either edge of the evidence is
 * darkened only a little. See the engine README, "Quality benchmark".
 */
import { ramp } from './ramp';

/**
 * Median encoded luma (after white balance and levels) from which a key
 * counts as too bright, and at which in full. The tune set's good photos
 * with blown highlights sit at 0.24–0.53 (lamps, sky, sun); its casts of a
 * bright white-walled building reach 0.60 with a clipped red channel; +0.7
 * EV lifts ordinary keys of 0.5–0.6 to 0.62–0.76.
 */
const KEY_BRIGHT_FROM = 0.6;
const KEY_BRIGHT_TO = 0.66;
/**
 * From this key the scene is high-key (pale paper at 0.89–0.92, a product
 * on white at 1.0) and the evidence fades out, gone at {@link KEY_HIGH_TO}.
 */
const KEY_HIGH_FROM = 0.8;
const KEY_HIGH_TO = 0.87;
/**
 * Blown-highlight fraction of the input (`clippedFraction`: a channel at
 * 250 or above on a pixel of linear luminance 0.85 or more) from which the
 * highlights count as blown by an exposure gain, and at which in full. A
 * cast clips one channel of bright surfaces (up to about 0.05 on the tune
 * set's photos with a key above 0.6); +0.7 EV on a photo with a bright key
 * blows 0.10–0.35.
 */
const CLIP_FROM = 0.06;
const CLIP_TO = 0.13;
/**
 * Largest darkening (linear gain) at full evidence: −0.68 EV, about what a
 * typical over-exposure added. The darkening curve (`exposureLinear`) keeps
 * white at white, so blown highlights stay blown rather than turning grey.
 */
const MAX_DARKENING = 1 / 1.6;

/**
 * How strongly a photo shows over-exposure (0..1): the product of a key in
 * the too-bright band and a blown-highlight fraction that an exposure gain
 * leaves.
 *
 * @param key median encoded luma after white balance and levels (0..1).
 * @param clipped fraction of blown-highlight pixels of the input (`clippedFraction`).
 */
export function overExposureEvidence(key: number, clipped: number): number {
  const bright = ramp(key, KEY_BRIGHT_FROM, KEY_BRIGHT_TO) * (1 - ramp(key, KEY_HIGH_FROM, KEY_HIGH_TO));
  return bright * ramp(clipped, CLIP_FROM, CLIP_TO);
}

/**
 * The exposure factor (linear light, ≤ 1) that takes back the over-exposure
 * a photo with this key and blown-highlight fraction shows: 1 without such
 * evidence, down to {@link MAX_DARKENING} at full evidence, scaled by the
 * user's automatic exposure strength (0 = never darkened). The planner
 * multiplies its exposure gain by it; a key bright enough to show
 * over-exposure is never one the planner brightens.
 */
export function overExposureGain(key: number, clipped: number, strength: number): number {
  const evidence = overExposureEvidence(key, clipped) * Math.min(1, Math.max(0, strength));
  return 1 / (1 + (1 / MAX_DARKENING - 1) * evidence);
}
