/**
 * White balance of a still photo from several pieces of evidence, each an
 * estimate of the scene illuminant that fails in its own way:
 *
 * - grey-world (mean linear colour) reads a scene dominated by one colour
 *   (a forest, an autumn leaf) as a cast;
 * - shades-of-grey (Minkowski p = 6 mean) is the same, less so;
 * - grey-edge (p = 12 norm of gradients) reads a scene whose strongest
 *   edges are between warm surfaces (fur, wood) as a cast;
 * - white patch (the brightest unclipped pixels) reads a coloured light
 *   source or a coloured bright surface as a cast, and has no say when the
 *   photo has no bright pixels.
 *
 * A real cast shifts every estimate the same way; a colourful scene pulls
 * them apart. So the correction on each chroma axis is the consensus: when
 * all estimates lean the same way, the smallest of them; when they disagree
 * in sign, nothing (except that grey-world alone, left warm by the scene's
 * surfaces, does not veto a cool light the others agree on:
 * {@link warmGreyWorldAside}). A cool consensus is trusted only as far as
 * the white patch could be a white under a cast ({@link coolWhiteTrust}):
 * bluer than that, the brightest surfaces are a blue subject's (water, a
 * blurred sky). When unsure, the engine does little.
 *
 * A wall, paper, a road or an overcast sky filling much of the frame is a
 * direct reading of the light ({@link greySurface}): a cast moves it by
 * exactly the cast, so the further it leads the frame's other surfaces,
 * the more the correction follows it instead of the consensus.
 *
 * Faces' skin, where the look found faces, bounds the consensus afterwards
 * (`withSkin` in skin.ts): its hue under neutral light is known.
 *
 * A clear blue sky ({@link findSky}) is the light source seen directly and
 * pulls every estimate towards a shade cast; a scene in low sun, seen
 * without its sky, leans warm. With a sky, the estimates are made twice,
 * with and without it, and only what both agree on is removed.
 */
import type { Raster } from '../image/raster';
import { greyEdgeIlluminant } from './estimate';
import { BLACK_SOFT, BLACK_VEILED } from './levels';
import { greySurface, neutralTrust, type GreySurface } from './neutral';
import { ramp } from './ramp';
import { findSky } from './sky';
import type { SkinReading } from './skin';
import { COLOUR_LOST_CODE, LINEAR_OF_BYTE } from './srgb';

/** Fraction of the brightest unclipped pixels averaged by the white-patch estimate. */
const WHITE_PATCH_FRACTION = 0.02;
/** The white patch has a say only when its pixels are at least this bright (linear mean of R, G, B). */
const WHITE_PATCH_MIN = 0.12;
/** Largest correction on each chroma axis (natural log units; 0.7 ≈ a factor of 2 between R and B). */
export const MAX_AXIS = 0.8;
/**
 * Spread (largest minus smallest) of the estimates on an axis at which the
 * consensus starts to lose trust, and at which it has none. A cast moves
 * every estimate alike (von Kries gains shift log-chroma by a constant), so
 * the spread is a property of the scene: small for photos with neutral
 * surfaces, large for a frame filled by one colourful subject.
 * Untrusted from 0.8: the tune set's good originals whose own warmth was
 * read as a cast (toys, cork, moss) spread 0.5–0.7; the price is that a
 * warm cast on such a scene is removed by as much less (engine README).
 */
const SPREAD_TRUSTED = 0.3;
const SPREAD_UNTRUSTED = 0.8;
/**
 * Consensus beyond which the estimate is less plausible as a light source
 * than as a colourful subject (a leaf filling the frame), and at which it is
 * not trusted at all, on the warm–cool axis `u` ...
 */
const CAST_PLAUSIBLE = 0.9;
const CAST_IMPLAUSIBLE = 1.6;
/**
 * ... and on the green–magenta axis `v`. Real light sources lie close to the
 * Planckian (blackbody and daylight) locus, which runs along the warm–cool
 * axis; fluorescent and LED light stray from it towards green or magenta by
 * far less (a fluorescent tube's green is about 0.15–0.3 here). A shared
 * green or magenta beyond that is a meadow, a garden or a pink subject: the
 * trust falls from the tube's strongest green to nothing at 0.5 (the
 * consensus is measured after the dead zone, so a real tube's cast on a
 * scene with some green of its own still lands inside the ramp).
 * The two leans are one light's, so each axis's implausibility scales both:
 * a warm lean that tungsten could make alone is moss or autumn leaves when
 * the estimates share a green no light makes with it.
 */
export const TINT_PLAUSIBLE = 0.3;
const TINT_IMPLAUSIBLE = 0.5;
/**
 * How blue (−u) the white patch is when the brightest surfaces are a blue
 * subject or lit by blue light rather than whites under a camera's cast: a
 * cool cast (shade) moves a white by about 0.15–0.55 here, so the first
 * value is a margin beyond that; at the second the white patch is a blue
 * subject's or a blue light's for certain. Warm leans have no such bound:
 * tungsten alone moves a white by 1 or more.
 */
export const BLUER_THAN_CAST_FROM = 0.8;
export const BLUER_THAN_CAST_TO = 1.3;
/**
 * Shared lean (log units) taken as the scene's own: removed from every
 * consensus, so a neutral-looking photo is left alone and a real cast is
 * left this slight remainder (0.07 ≈ 7 % between two channels).
 */
const DEAD_ZONE = 0.07;

/**
 * Share of the frame by which the dominant surface's window ({@link greySurface})
 * leads the next surface's, from which the correction starts to follow that surface instead of the
 * consensus, and at which it follows it alone. A colourful or textured
 * scene's densest window holds under a tenth of the frame; a wall, paper, a
 * road or an overcast sky a fifth or more. On the tune photos' good
 * originals such a surface sat within 0.1 of neutral in most (paper, walls,
 * roads, a clock face), while the four pooled estimates' own leans spread
 * over ±0.4 (grey-world's median lean 0.45 warm): where it is, it is the
 * better reading.
 */
const SURFACE_FROM = 0.1;
const SURFACE_TO = 0.3;
/**
 * A surface filling this much of the frame is the whole scene (a paper or
 * cork texture): there is no second surface to tell its own colour from the
 * light's, every estimate reads the same, and the correction is left to the
 * consensus again, fully from {@link SURFACE_ALONE}.
 */
const SURFACE_SCENE = 0.75;
const SURFACE_ALONE = 0.85;
/**
 * A lifted black (encoded, from {@link VEIL_FROM}, fully at {@link VEIL_TO};
 * the planner's levels read soft blacks and veils the same way) is haze or a
 * flattened curve: it squeezes every colour towards the veil, so dark
 * coloured regions (a night sky, a dark background) become one dense,
 * nearly uniform surface that is not grey. The surface is not followed.
 */
const VEIL_FROM = BLACK_SOFT;
const VEIL_TO = BLACK_VEILED;

/** Log-chroma of an illuminant: `u` = ln(R/B) (warm +, cool −), `v` = ln G − (ln R + ln B)/2 (green +, magenta −). */
export interface Chroma {
  u: number;
  v: number;
}

/** Each estimate's chroma, and the consensus removed by the white balance. */
export interface IlluminantEvidence {
  greyWorld: Chroma;
  shadesOfGrey: Chroma;
  greyEdge: Chroma;
  /** Absent when the photo has too few bright, unclipped pixels. */
  whitePatch?: Chroma;
  /** What the estimates agree on (see the module comment). */
  consensus: Chroma;
  /**
   * Fraction of the frame taken as blue sky (0 when none). With a sky, the
   * estimates above are of the scene below it, and the consensus is what
   * they and the whole frame's ({@link IlluminantEvidence.frameConsensus}) agree on.
   */
  sky: number;
  /** With a sky: the consensus of the whole frame's estimates, sky included. */
  frameConsensus?: Chroma;
  /**
   * The white patch of the whole frame, sky included: the colour of the
   * light where the photo is brightest, for judging the light itself (the
   * planner's dim-coloured-light rule) rather than a cast. Absent when the
   * frame has too few bright, unclipped pixels.
   */
  light?: Chroma;
  /** The frame's dominant surface below any sky ({@link greySurface}); absent when no pixel was measured. */
  surface?: GreySurface;
  /** The faces' skin, when faces were found and the consensus was bounded by it (`withSkin`, skin.ts). */
  skin?: SkinReading;
}

/** Log-chroma of linear RGB. */
export function chromaOf(rgb: readonly [number, number, number]): Chroma {
  const [r, g, b] = rgb.map((x) => Math.log(Math.max(x, 1e-6))) as [number, number, number];
  return { u: r - b, v: g - (r + b) / 2 };
}

/** Linear gains (luminance of grey kept by the caller) that remove chroma `c`. */
export function gainsRemoving(c: Chroma, fraction: number): [number, number, number] {
  // ln R = u/2 − v/3, ln G = 2v/3, ln B = −u/2 − v/3 reproduces (u, v) with zero mean.
  const lr = c.u / 2 - c.v / 3;
  const lg = (2 * c.v) / 3;
  const lb = -c.u / 2 - c.v / 3;
  return [Math.exp(-lr * fraction), Math.exp(-lg * fraction), Math.exp(-lb * fraction)];
}

/** Weigh the evidence of an analysis copy. */
export function estimateIlluminant(img: Raster): IlluminantEvidence {
  const sky = findSky(img);
  // A found sky is the light seen directly: its blue in the frame's white patch is not a subject's.
  const frame = estimates(channelStats(img), img, sky.fraction > 0);
  const light = frame.whitePatch ? { light: frame.whitePatch } : {};
  const surface = greySurface(img, sky.fraction > 0 ? sky.mask : undefined);
  const seen = surface ? { surface } : {};
  if (sky.fraction === 0) return { ...frame, consensus: followSurface(checkedByGrey(img, frame.consensus, frame), surface), sky: 0, ...light, ...seen };
  // With a blue sky in the frame, the scene below it is a second view of
  // the light: the sky alone pulls the frame's estimates to blue, and
  // without the sky a scene in warm low sun leans warm. Only what both
  // views agree on is removed.
  const below = estimates(channelStats(img, sky.mask), belowRows(img, sky.bandRows));
  const shared = { u: bothAgree(frame.consensus.u, below.consensus.u), v: bothAgree(frame.consensus.v, below.consensus.v) };
  const consensus = followSurface(checkedByGrey(img, shared, below, sky.mask), surface);
  return { ...below, consensus, sky: sky.fraction, frameConsensus: frame.consensus, ...light, ...seen };
}

/**
 * The consensus moved towards the cast the dominant surface reads, as far
 * as that surface leads the frame's next one ({@link SURFACE_FROM}..{@link SURFACE_TO}).
 * Its reading gets the consensus's own dead zone and plausibility: a
 * surface slightly off neutral is its own colour, and one beyond what a
 * light source makes is a coloured surface (a red wall), not a grey one.
 */
function followSurface(consensus: Chroma, surface: GreySurface | undefined): Chroma {
  if (!surface) return consensus;
  const large = ramp(surface.lead, SURFACE_FROM, SURFACE_TO);
  const notWholeScene = 1 - ramp(surface.share, SURFACE_SCENE, SURFACE_ALONE);
  const unveiled = 1 - ramp(surface.black, VEIL_FROM, VEIL_TO);
  const weight = large * notWholeScene * unveiled;
  if (weight === 0) return consensus;
  const u = beyondDeadZone(surface.u);
  const v = beyondDeadZone(surface.v);
  const plausible = fade(Math.abs(u), CAST_PLAUSIBLE, CAST_IMPLAUSIBLE) * fade(Math.abs(v), TINT_PLAUSIBLE, TINT_IMPLAUSIBLE);
  return { u: capped(consensus.u + (u * plausible - consensus.u) * weight), v: capped(consensus.v + (v * plausible - consensus.v) * weight) };
}

/**
 * The consensus scaled by what the frame's grey surfaces say ({@link neutralTrust}):
 * grey surfaces left at neutral say the light is neutral and the lean is the scene's own.
 */
function checkedByGrey(img: Raster, consensus: Chroma, ev: Omit<IlluminantEvidence, 'sky' | 'light' | 'frameConsensus'>, skip?: Uint8Array): Chroma {
  const all = [ev.greyWorld, ev.shadesOfGrey, ev.greyEdge, ...(ev.whitePatch ? [ev.whitePatch] : [])];
  // Where the grey surfaces would sit under the cast: the estimates' mean lean, on the side of what is removed.
  const lean = (removed: number, xs: number[]) => {
    const m = xs.reduce((a, b) => a + b, 0) / xs.length;
    return Math.sign(m) === Math.sign(removed) ? m : removed;
  };
  const estimate = { u: lean(consensus.u, all.map((c) => c.u)), v: lean(consensus.v, all.map((c) => c.v)) };
  const trust = neutralTrust(img, consensus, estimate, skip);
  return trust === 1 ? consensus : { u: consensus.u * trust, v: consensus.v * trust };
}

/**
 * How far every estimate leans the same way beyond what the white balance
 * removes (log units, the larger of the two axes): a cast too uncertain to
 * correct, or a scene's own colour. 0 when the estimates disagree in sign.
 */
export function unsettledLean(ev: IlluminantEvidence): number {
  const all = [ev.greyWorld, ev.shadesOfGrey, ev.greyEdge, ...(ev.whitePatch ? [ev.whitePatch] : [])];
  const lean = (xs: number[], removed: number) => {
    const lo = Math.min(...xs);
    const hi = Math.max(...xs);
    const shared = lo > 0 ? lo : hi < 0 ? -hi : 0;
    return Math.max(0, shared - Math.abs(removed));
  };
  return Math.max(lean(all.map((c) => c.u), ev.consensus.u), lean(all.map((c) => c.v), ev.consensus.v));
}

/**
 * Each estimate from channel statistics and grey-edge on `edges`, and their
 * consensus. `skyInView`: the statistics include a found blue sky, so a blue
 * white patch is the light's, not a blue subject's ({@link coolWhiteTrust}).
 */
function estimates(stats: ReturnType<typeof channelStats>, edges: Raster, skyInView = false): Omit<IlluminantEvidence, 'sky' | 'light' | 'frameConsensus'> {
  const greyWorld = chromaOf(stats.mean);
  const shadesOfGrey = chromaOf(stats.p6);
  const greyEdge = chromaOf(greyEdgeIlluminant(edges));
  const whitePatch = stats.white ? chromaOf(stats.white) : undefined;
  const all = [greyWorld, shadesOfGrey, greyEdge, ...(whitePatch ? [whitePatch] : [])];
  const u = warmGreyWorldAside(greyWorld.u, [shadesOfGrey.u, greyEdge.u], whitePatch?.u) ?? shared(all.map((c) => c.u));
  const v = shared(all.map((c) => c.v));
  // One light makes both leans: when either is beyond what a light source
  // makes on its axis, or the brightest surfaces are bluer than a cast makes
  // a white, the pair is a colourful subject's, on both axes.
  const plausible = fade(Math.abs(u.lean), CAST_PLAUSIBLE, CAST_IMPLAUSIBLE) * fade(Math.abs(v.lean), TINT_PLAUSIBLE, TINT_IMPLAUSIBLE) * (skyInView ? 1 : coolWhiteTrust(u.lean, whitePatch));
  const consensus = { u: capped(u.lean * u.trust * plausible), v: capped(v.lean * v.trust * plausible) };
  return { greyWorld, shadesOfGrey, greyEdge, ...(whitePatch ? { whitePatch } : {}), consensus };
}

/**
 * Trust (0..1) in a cool consensus as far as the white patch is a white
 * under a cast. Under a cool cast, estimates that read surfaces (grey-world,
 * grey-edge) and the brightest ones lean cool together; a blue subject
 * filling the frame (water without surf, a blurred sky behind leaves) leans
 * them all cool too, and its brightest parts are blue, bluer than a cast
 * makes a white ({@link BLUER_THAN_CAST_FROM}). Removing that lean would
 * turn the blue subject grey and warm the rest (on the tune set, enl-spruce's
 * good original, white patch −0.96, moved by ΔE 3.1; 2.2 with this trust).
 * Not for a view holding a found sky, whose blue is the light's (see
 * {@link estimateIlluminant}).
 */
function coolWhiteTrust(lean: number, whitePatch: Chroma | undefined): number {
  if (lean >= 0 || !whitePatch) return 1;
  return fade(-whitePatch.u, BLUER_THAN_CAST_FROM, BLUER_THAN_CAST_TO);
}

/**
 * The cool consensus of the other estimates when grey-world is warmer than
 * all of them and they all lean cool (else undefined: the usual consensus
 * of all four). Grey-world is the mean colour of the scene's surfaces, and
 * natural surfaces (earth, wood, foliage, skin) average warm: on the tune
 * set's good originals its median lean is 0.45 warm, the others' 0.13–0.41.
 * Under a cool light it is thus the estimate left warm by the scene, and
 * alone it does not veto what the others agree on. Only on the warm–cool
 * axis, only towards cool, and only with all three others (a white patch
 * too), so a warm lean, or one the others do not share, is judged as before.
 * Not when the white patch is bluer than a cast makes a white (beyond
 * {@link BLUER_THAN_CAST_FROM}): the brightest surfaces are then a blue subject's
 * (a sky or water behind the scene, enl-spruce's blurred sky at −0.96), the
 * others' cool lean is that subject's as much as the light's, and
 * grey-world's warmer reading of the rest is evidence again.
 * `surfaces`: shades-of-grey's and grey-edge's leans; `whitePatch`: the
 * white patch's (without one, no aside).
 */
function warmGreyWorldAside(greyWorld: number, surfaces: [number, number], whitePatch: number | undefined): { lean: number; trust: number } | undefined {
  if (whitePatch === undefined || whitePatch < -BLUER_THAN_CAST_FROM) return undefined;
  const others = [...surfaces, whitePatch];
  if (greyWorld <= Math.max(...others)) return undefined;
  const cool = shared(others);
  return cool.lean < 0 ? cool : undefined;
}

/** What two views share on one axis: the smaller when both lean the same way, else nothing. */
function bothAgree(a: number, b: number): number {
  return Math.sign(a) === Math.sign(b) ? Math.sign(a) * Math.min(Math.abs(a), Math.abs(b)) : 0;
}

/** Rows of the image below a band of sky (and the few rows its smoothed edge reaches); the whole image when too little would remain. */
function belowRows(img: Raster, band: number): Raster {
  const start = band > 0 ? band + SKY_EDGE_ROWS : 0;
  if (start === 0 || img.height - start < Math.max(MIN_ROWS, img.height * MIN_ROWS_FRACTION)) return img;
  const { width, channels } = img;
  return { ...img, data: img.data.subarray(start * width * channels), height: img.height - start };
}

/**
 * What all estimates share on one axis: the smallest in magnitude less the
 * dead zone when all have one sign (else 0), and the trust their spread allows.
 */
function shared(xs: number[]): { lean: number; trust: number } {
  return { lean: sharedLean(xs), trust: fade(Math.max(...xs) - Math.min(...xs), SPREAD_TRUSTED, SPREAD_UNTRUSTED) };
}

/** The lean all of `xs` share on one axis: the smallest in magnitude less the {@link DEAD_ZONE} when all have one sign, else 0. */
export function sharedLean(xs: number[]): number {
  const lo = Math.min(...xs);
  const hi = Math.max(...xs);
  return lo > DEAD_ZONE ? lo - DEAD_ZONE : hi < -DEAD_ZONE ? hi + DEAD_ZONE : 0;
}

/** A lean less the {@link DEAD_ZONE} (0 inside it). */
function beyondDeadZone(x: number): number {
  return x > DEAD_ZONE ? x - DEAD_ZONE : x < -DEAD_ZONE ? x + DEAD_ZONE : 0;
}

/** A correction on one axis within ±{@link MAX_AXIS}. */
function capped(x: number): number {
  return Math.max(-MAX_AXIS, Math.min(MAX_AXIS, x));
}

/** 1 up to `from`, falling linearly to 0 at `to` (the falling form of {@link ramp}). */
function fade(x: number, from: number, to: number): number {
  return ramp(-x, -to, -from);
}

/** Rows below the sky band also left out of grey-edge: its smoothing and gradient reach two rows each. */
const SKY_EDGE_ROWS = 4;
/** Grey-edge keeps the whole frame when fewer rows than this (or this fraction) lie below the sky. */
const MIN_ROWS = 8;
const MIN_ROWS_FRACTION = 0.25;

/** The sixth power of each byte's linear value (the p = 6 mean's terms, computed once). */
const LINEAR6_OF_BYTE: Float64Array = LINEAR_OF_BYTE.map((v) => v ** 6);

/** Mean, Minkowski p = 6 mean and white patch of the unclipped pixels outside `skip` (one byte a pixel, 1 = left out), linear RGB. */
function channelStats(img: Raster, skip?: Uint8Array): { mean: [number, number, number]; p6: [number, number, number]; white?: [number, number, number] } {
  const { data, channels: ch } = img;
  const sum = [0, 0, 0];
  const sum6 = [0, 0, 0];
  const brightness = new Uint32Array(766);
  let n = 0;
  for (let i = 0; i < data.length; i += ch) {
    const r = data[i]!;
    const g = data[i + 1]!;
    const b = data[i + 2]!;
    if (r >= COLOUR_LOST_CODE || g >= COLOUR_LOST_CODE || b >= COLOUR_LOST_CODE || skip?.[i / ch]) continue;
    n++;
    const lr = LINEAR_OF_BYTE[r]!;
    const lg = LINEAR_OF_BYTE[g]!;
    const lb = LINEAR_OF_BYTE[b]!;
    sum[0]! += lr;
    sum[1]! += lg;
    sum[2]! += lb;
    sum6[0]! += LINEAR6_OF_BYTE[r]!;
    sum6[1]! += LINEAR6_OF_BYTE[g]!;
    sum6[2]! += LINEAR6_OF_BYTE[b]!;
    brightness[r + g + b]!++;
  }
  if (n === 0) return { mean: [1, 1, 1], p6: [1, 1, 1] };
  const mean = sum.map((s) => s / n) as [number, number, number];
  const p6 = sum6.map((s) => (s / n) ** (1 / 6)) as [number, number, number];
  // White patch: the brightest WHITE_PATCH_FRACTION of the unclipped pixels.
  let need = Math.max(1, Math.round(n * WHITE_PATCH_FRACTION));
  let threshold = 765;
  for (; threshold > 0 && need > 0; threshold--) need -= brightness[threshold]!;
  const w = [0, 0, 0];
  let m = 0;
  for (let i = 0; i < data.length; i += ch) {
    const r = data[i]!;
    const g = data[i + 1]!;
    const b = data[i + 2]!;
    if (r >= COLOUR_LOST_CODE || g >= COLOUR_LOST_CODE || b >= COLOUR_LOST_CODE || r + g + b <= threshold || skip?.[i / ch]) continue;
    m++;
    w[0]! += LINEAR_OF_BYTE[r]!;
    w[1]! += LINEAR_OF_BYTE[g]!;
    w[2]! += LINEAR_OF_BYTE[b]!;
  }
  const white = m > 0 ? (w.map((s) => s / m) as [number, number, number]) : undefined;
  const bright = white ? (white[0] + white[1] + white[2]) / 3 >= WHITE_PATCH_MIN : false;
  return { mean, p6, ...(white && bright ? { white } : {}) };
}
