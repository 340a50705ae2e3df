/**
 * Step 2 of the colour plan: black and white levels, each end corrected only
 * as far as it is clearly off, and a lifted black removed only as far as a
 * veil or a flattened curve can explain it (see {@link explainedBlack}).
 */
import type { Raster } from '../image/raster';
import { applyCurves, blackDomain, fromBlackDomain, type ColourPlan } from './apply';
import { percentile, shareFrom } from './estimate';
import { ramp } from './ramp';
import { lumaHistogram, maxHistogram, minHistogram } from './histograms';
import { linearToSrgb, srgbToLinear } from './srgb';
import { underExposedWhite } from './exposure-white';

/** Black point: encoded levels below this are left alone (deep shadows are rarely exactly 0). */
export const BLACK_ALLOWANCE = 2 / 255;
/** Black points (encoded) up to this are a photo's own soft blacks and kept ... */
export const BLACK_SOFT = 0.06;
/** ... and from this on are removed in full (between the two, in part). */
export const BLACK_VEILED = 0.14;
/**
 * Fraction of pixels (each end) ignored by the levels: a handful on the
 * analysis copy, so that a few specks do not set them, while a photo's own
 * small highlights (stars, a lamp, specular glints) and deepest shadows do:
 * a photo that reaches black and white somewhere is not short of range.
 */
export const LEVELS_CLIP = 0.0002;
/**
 * Domain of the black-point removal, by where the white end is. Veiling light
 * (haze, flare) adds to linear light and leaves the whites near white, so a
 * black lifted under full whites is removed in linear light,
 * which also barely touches the midtones of a photo whose own blacks are
 * soft (fog, mist). A flattened tone curve pulls both ends in on encoded
 * values, so a black lifted under short whites is removed on encoded values.
 * Between the two white ends, the domains are blended ({@link blackDomain}).
 */
const WHITE_FLAT = 0.88;
const WHITE_VEILED = 0.96;
/**
 * ... unless the white end is clipped: a veil maps white to white and
 * compresses everything under it, so it cannot pile pixels up at the top
 * code beyond the scene's own blown highlights, while an exposure pushed past
 * white does (a bright frame behind a veil of flare: the washed-out look).
 * Removing such a black in linear light would leave the exposure as bright
 * as it came; on encoded values it also brings the midtones down. The
 * fraction of pixels whose brightest channel is at {@link CLIPPED_CODE} or
 * above after the white balance (a cast's own one-channel clip is balanced
 * away from the top) moves the removal towards encoded values from
 * {@link CLIPPED_FROM}, in full at {@link CLIPPED_TO}: the tune photos'
 * own blown skies and lamps are 0–5 % (lomiri-seeding 4.9 %, cv-car
 * 5.4 %; lomiri-free's overcast sky 18 %, under a black it does not lift);
 * their +0.5 EV washed-out copies 1–33 %, their haze copies none.
 * A black that is a few darker specks ({@link specks}) is not counted: a
 * veil keeps a scene's shadows as a populated dark end, while a bright scene
 * lit to white with a few dark details (snow, pale paper: mypaint-pastelpaper,
 * 8.6 % at the top, black 0.42) has nothing there to remove on encoded
 * values but its midtones.
 */
const CLIPPED_CODE = 253;
const CLIPPED_FROM = 0.02;
const CLIPPED_TO = 0.08;
/**
 * A veil over a scene whose darkest surface is lighter than mid-grey: from
 * this black (encoded; 21 % of white in linear light) a veil is no likelier
 * than a pale scene that has no dark tones at all (paper, fog, pale wood,
 * sand), and the veil's removal is trusted less, not at all from
 * {@link PALE_BLACK_TO}, when the black end is a few specks: a veil keeps a
 * scene's shadows as a populated dark end (its darkest 1 % near the black),
 * while a pale texture's darkest 1 % sits well above its darkest specks
 * ({@link SPECKS_FROM}..{@link SPECKS_TO}: where the 1st percentile of the
 * darkest channel lies in the range, as a fraction of it). Removing a veil
 * that was not there darkens such a scene's whole frame and multiplies its
 * texture, while a real veil over a pale scene changes it little, so when
 * unsure the black is kept.
 */
const PALE_BLACK_FROM = 0.5;
const PALE_BLACK_TO = 0.65;
const SPECKS_FROM = 0.05;
const SPECKS_TO = 0.12;
const DARKEST = 0.01;
/**
 * The original white end a flattened curve implies ({@link explainedBlack}):
 * a contrast reduction that also leaves the photo's own white this short is
 * a dim scene flattened, which is rare, while an under-exposed pale scene
 * (no dark tones, its white end pulled in by the exposure) looks exactly
 * like it. The pivot model is trusted from an implied white of
 * {@link IMPLIED_WHITE_FROM} (none) to {@link IMPLIED_WHITE_TO} (in full).
 */
const IMPLIED_WHITE_FROM = 0.3;
const IMPLIED_WHITE_TO = 0.45;
/** Largest levels stretch (gain on the encoded range). */
const MAX_STRETCH = 3;
/**
 * White ends (encoded, brightest channel) at and above this are a photo's own
 * (a dim or soft scene) and not stretched: a dark texture whose own white end
 * is 0.81–0.9 (moss or leaves in shade) is left alone, while a −1 EV copy of
 * a photo that reached white sits at 0.74 or below ...
 */
export const WHITE_OWN = 0.85;
/** ... and at and below this clearly short (under-exposed): stretched in full. */
export const WHITE_SHORT = 0.75;
/**
 * Without a lifted black, the white-point stretch may not push the median luma
 * above this: a photo whose midtones are already bright lacks highlights by
 * nature (a soft, low contrast scene), not because it is under-exposed —
 * unless its brightest surfaces are white rendered grey ({@link underExposedWhite}),
 * which lifts the limit as far as it holds.
 */
const STRETCH_KEY_LIMIT = 0.5;

/**
 * The white point a flattened copy is restored to, given the black `black`
 * (encoded) it lifted: a contrast reduction pivots on mid-grey, scaling
 * encoded values by k around 0.5, so it lifts the black by (1 − k)/2 and
 * pulls the white in by as much. Removing the black on encoded values leaves
 * a full-range photo's white at k/(1 − black) = (1 − 2·black)/(1 − black);
 * a white end below that was short in the photo itself (a grey, high-key
 * scene; dusk) and is not stretched to white. `flat` (0..1) is how far the
 * black is removed on encoded values (none under full whites, where the
 * lift is veiling light and the white end stays); `hi` is the white end
 * after the black removal, returned where the model does not apply.
 */
export function pivotedWhite(hi: number, black: number, flat: number): number {
  if (black <= 0 || flat <= 0) return hi;
  const full = (1 - 2 * black) / (1 - black);
  return hi + Math.max(0, full - hi) * flat;
}

/**
 * How far a black `lo` is a few darker specks rather than a populated dark
 * end (0..1): where the darkest channel's 1st percentile `darkest` lies in
 * the range up to the white end `hi`, from {@link SPECKS_FROM} to {@link SPECKS_TO}.
 */
function specks(lo: number, hi: number, darkest: number): number {
  return hi > lo ? ramp((darkest - lo) / (hi - lo), SPECKS_FROM, SPECKS_TO) : 0;
}

/**
 * How much of a lifted black `lo` (encoded, white end `hi`, the darkest
 * channel's 1st percentile `darkest`) a veil or a
 * flattened curve can explain, as the lift (encoded) to remove: the larger
 * of the two models' answers, each trusted as far as the scene it implies
 * is plausible.
 *
 * - A veil, light added in linear light (x ↦ (1 − c)·x + c): it implies the
 *   scene's own white (hi − c)/(1 − c), linear. It is trusted less as the
 *   black passes mid-grey ({@link PALE_BLACK_FROM}).
 * - A contrast reduction pivoting on mid-grey (v ↦ 0.5 + k·(v − 0.5),
 *   encoded): it cannot lift a black to 0.5 or beyond. With the original
 *   black at 0 it implies k = 1 − 2·lo and an original white of
 *   (hi − lo)/(1 − 2·lo); where that would exceed white, the original reached
 *   white and its own black was 0.5 − (0.5 − lo)/(2·hi − 1), which is as far
 *   down as the model goes.
 *
 * Either is trusted only as far as the white it implies is plausible
 * ({@link IMPLIED_WHITE_FROM}): an under-exposed pale scene reads as either
 * model over a scene with hardly any white.
 */
export function explainedBlack(lo: number, hi: number, darkest: number): number {
  const lift = Math.max(0, lo - BLACK_ALLOWANCE);
  if (lift === 0 || hi <= lo) return 0;
  const c = srgbToLinear(lo);
  const veilWhite = linearToSrgb((srgbToLinear(hi) - c) / (1 - c));
  const pale = ramp(lo, PALE_BLACK_FROM, PALE_BLACK_TO) * specks(lo, hi, darkest);
  const veil = lift * (1 - pale) * ramp(veilWhite, IMPLIED_WHITE_FROM, IMPLIED_WHITE_TO);
  if (lo >= 0.5) return veil;
  let own = 0;
  let flatWhite = (hi - lo) / (1 - 2 * lo);
  if (flatWhite > 1) {
    own = 0.5 - (0.5 - lo) / (2 * hi - 1);
    flatWhite = 1;
  }
  const flat = Math.max(0, lo - Math.max(own, BLACK_ALLOWANCE)) * ramp(flatWhite, IMPLIED_WHITE_FROM, IMPLIED_WHITE_TO);
  return Math.max(veil, flat);
}

/**
 * The black point (encoded) to remove in the {@link blackDomain} of weight
 * `linear` for a black end `lo` (encoded) of which `share` (0..1) is read as
 * lifted. Read in full, the black lands at {@link BLACK_ALLOWANCE}: the lift
 * is measured in the domain it is removed in (its encoded value removed in
 * linear light left a haze's black of 0.49 at 0.17, a fog over every shadow).
 * Read in part, the removal falls with the share's power {@link UNSURE_POWER}
 * in linear light (plainly on encoded values).
 */
export function blackRemoving(lo: number, share: number, linear: number): number {
  if (share <= 0 || lo <= BLACK_ALLOWANCE) return 0;
  const kept = blackDomain(BLACK_ALLOWANCE, linear);
  const full = (blackDomain(lo, linear) - kept) / (1 - kept);
  return fromBlackDomain(Math.min(1, share) ** (1 + (UNSURE_POWER - 1) * linear) * full, linear);
}
/**
 * A veil removed in linear light darkens every shadow under it, which a
 * scene whose soft blacks are its own (mist: nothing darker than 0.12 under
 * full whites, read as lifted by three quarters) shows at once, while the
 * part of a real veil left behind costs little: when unsure, little is
 * removed. The misty scene of the levels tests moves 2.2 (mean levels) at a
 * power of 2.4, 1.4 at 4 and 1.0 at 5, as much as it did when the removal
 * was a power of the encoded value; the tune set's haze, washed-out and
 * flattened copies are read as lifted in full and do not depend on it.
 */
const UNSURE_POWER = 5;

/** What the levels measured: the ends before and after, and how far the black was read as lifted. */
export interface LevelsResult {
  /** Encoded black point measured (darkest channel). */
  lo: number;
  /** How far the photo's black is lifted by a veil or a flattened curve (0..1): it then gets no dark-key lift. */
  lifted: number;
}

/**
 * Plan the levels on the white-balanced copy (`plan` holds the white-balance
 * gains; its `black`, `blackLinear` and `white` are set here): the darkest
 * channel's black removed as far as it is clearly lifted and a veil or a
 * flattened curve explains it, then the brightest channel's white restored
 * as far as the lift says it was squeezed ({@link pivotedWhite}), or else
 * stretched as far as it is clearly short. `mood` (0..1, a dim scene in
 * coloured light) scales that stretch down; `contrast` is the preset's.
 */
export function planLevels(thumb: Raster, plan: ColourPlan, contrast: number, mood: number): LevelsResult {
  const balanced = applyCurves(thumb, plan);
  const mins = minHistogram(balanced);
  const maxes = maxHistogram(balanced);
  const lo = percentile(mins, LEVELS_CLIP) / 255;
  const hiBefore = percentile(maxes, 1 - LEVELS_CLIP) / 255;
  // Natural photos' darkest tones sit below ~0.06 (soft light, mist); a black
  // point well above that is veiling light or a flattened curve, as far as
  // either can explain it.
  const veiled = ramp(lo, BLACK_SOFT, BLACK_VEILED);
  const darkest = percentile(mins, DARKEST) / 255;
  const clipped = ramp(shareFrom(maxes, CLIPPED_CODE), CLIPPED_FROM, CLIPPED_TO) * (1 - specks(lo, hiBefore, darkest));
  const flat = Math.max(1 - ramp(hiBefore, WHITE_FLAT, WHITE_VEILED), clipped);
  const removed = veiled * explainedBlack(lo, hiBefore, darkest);
  // How far the black counts as lifted (0..1), for the white end and the exposure.
  const lift = lo - BLACK_ALLOWANCE;
  const lifted = lift > 0 ? removed / lift : 0;
  plan.blackLinear = 1 - flat;
  plan.black = Math.min(1 - 1 / MAX_STRETCH, blackRemoving(lo, contrast * lifted, plan.blackLinear));
  const unveiled = applyCurves(thumb, plan);
  const hi = percentile(maxHistogram(unveiled), 1 - LEVELS_CLIP) / 255;
  const key0 = percentile(lumaHistogram(unveiled), 0.5) / 255;
  // A lifted black says the whole range was squeezed: the white end is
  // restored with it. Otherwise the white end is stretched only as far as it
  // is clearly short, and not beyond a median of STRETCH_KEY_LIMIT unless
  // white surfaces rendered grey say the photo was under-exposed.
  const stretch = Math.max(lifted, ramp(-hi, -WHITE_OWN, -WHITE_SHORT) * (1 - mood));
  const whiteGrey = stretch > 0 && key0 > hi * STRETCH_KEY_LIMIT ? underExposedWhite(unveiled, hi, key0) : 0;
  const keyLimit = (1 - lifted) * (1 - whiteGrey) * (key0 / STRETCH_KEY_LIMIT);
  const whiteTarget = Math.min(1, Math.max(hi, pivotedWhite(hi, removed, flat), keyLimit, 1 / MAX_STRETCH));
  plan.white = 1 - contrast * stretch * (1 - whiteTarget);
  return { lo, lifted };
}
