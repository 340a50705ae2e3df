/**
 * Faces' skin as white-balance evidence. Skin is the one surface whose
 * colour under neutral light is known in advance: measured skin of every
 * ethnic group lies in a narrow band of CIELAB hue, about 45–65° (h_ab;
 * Xiao et al., "Characterising the variations in ethnic skin colours",
 * Skin Research and Technology 23, 2017; de Rigal et al., "The effect of age
 * on skin color and color heterogeneity in four ethnic groups", ibid. 16,
 * 2010), while its chroma varies with the person (melanin, blood) far
 * more than its hue does, and is never grey. A green or magenta cast turns
 * skin out of that band at once (green: towards yellow-green; magenta:
 * towards pink), a strong cool cast greys it; a warm cast moves saturated
 * skin mostly along its own chroma, where skin tells nothing.
 *
 * So skin is a bound, not a fifth estimate: the white balance the four
 * estimates agree on ({@link estimateIlluminant}) is kept when it leaves the
 * faces' skin in the band; otherwise it is replaced by the correction
 * nearest to it that puts the skin back where skin typically is, searched
 * only as far as some estimate leans the same way (skin settles the
 * estimates' disagreement; it does not invent a cast none of them sees,
 * which keeps a black-and-white portrait, a bronze statue or a face in
 * stage light from being tinted), and only within the casts light sources
 * make. A consensus that would push the skin out of the
 * band (a face before a blue wall, read as a cool cast) is pulled back.
 *
 * @see estimateIlluminant for the estimates and the consensus.
 */
import type { FaceRecord } from '@pfc/core';
import type { Raster } from '../image/raster';
import { linearToLab, type Lab } from './deltaE';
import { MAX_AXIS, TINT_PLAUSIBLE, gainsRemoving, sharedLean, type Chroma, type IlluminantEvidence } from './illuminant';
import { COLOUR_LOST_CODE, LINEAR_OF_BYTE, LUMA } from './srgb';

/**
 * Where skin can be under neutral light (CIELAB hue h_ab in degrees, chroma
 * C*ab): the measured 45–65° widened by a few degrees for cameras' own skin
 * rendering (the repository's portraits sit at 50° and 62°), never grey
 * (the palest skin measures C*ab ≥ 10), and seldom more saturated than
 * about 30 (measured), which photos' rendering pushes further (Grace
 * Hopper's print: 43). Skin inside says nothing.
 */
export const SKIN_BAND: Band = { hueFrom: 42, hueTo: 68, chromaMin: 8, chromaMax: 35 };
/**
 * Where skin is put back once a cast has turned it out of {@link SKIN_BAND}:
 * the measured hues, where skin typically is. Put back only to the wide
 * band's edge, a strong cast would leave a face at the edge of plausible
 * skin, grey or yellow-green; the cast is known to be there, so the
 * likeliest skin is a typical one.
 */
export const SKIN_CORE: Band = { hueFrom: 47, hueTo: 63, chromaMin: 12, chromaMax: 30 };

/** Skin's hues, whatever its chroma beyond grey: what some light must make of a reading for it to be skin at all. */
const SKIN_HUES: Band = { ...SKIN_BAND, chromaMax: Infinity };

/** A band of skin colours: hues from `hueFrom` to `hueTo` degrees, chroma from `chromaMin` to `chromaMax`. */
export interface Band {
  hueFrom: number;
  hueTo: number;
  chromaMin: number;
  chromaMax: number;
}
/**
 * The part of a face box (brows to chin, cheek to cheek) read as skin, as
 * fractions of the box: the cheeks, the lower nose and the mouth, below the
 * eyes and above the chin and most beards. Lips and nostrils are a minority
 * of it, which the median passes over.
 */
const FACE_REGION = { left: 0.2, right: 0.8, top: 0.45, bottom: 0.8 };
/** Pixels with a channel below this code are left out (shadows' colour is noise), as are clipped ones ({@link COLOUR_LOST_CODE}). */
const MIN_CODE = 20;
/**
 * Least detector confidence (percent) of a face whose skin is read. Clear
 * faces score 88–91 on the repository's portraits; the detector's false
 * faces (a rocket's smoke, a mandrill) score just above its own floor of 50.
 */
const MIN_CONFIDENCE = 70;
/** Fewest skin pixels (all faces together) for a reading; a smaller face is left out of the white balance. */
const MIN_PIXELS = 100;
/** At most about this many pixels are read from each face (a strided read of a large face). */
const SAMPLES_PER_FACE = 4096;
/** Grid step of the search for a correction (log-chroma units; 0.01 ≈ 1 % between two channels). */
const STEP = 0.01;
/** Readings within this distance (CIELAB units) of the best one count as equally good. */
const TIE = 0.5;
/** A shift on the green–magenta axis counts this many times one on the warm–cool axis: most light lies near the Planckian locus. */
const TINT_WEIGHT = 2;

/** What the faces' skin said, for reports and tests. */
export interface SkinReading {
  /** CIELAB hue (degrees) and chroma of the faces' median skin as photographed. */
  hue: number;
  chroma: number;
  /** Skin pixels read, all faces together. */
  pixels: number;
}

/** A face's box in the image's pixels, with the detector's confidence when it found the face (what the look's face finder returns). */
export type FaceBox = Pick<FaceRecord, 'left' | 'top' | 'width' | 'height'> & Partial<Pick<FaceRecord, 'confidence'>>;

/** The casts light sources make: every correction skin may ask for lies within them. */
const PLAUSIBLE = { u: [-MAX_AXIS, MAX_AXIS], v: [-TINT_PLAUSIBLE, TINT_PLAUSIBLE] } as const satisfies Support;

/** Per axis, the range a correction is searched in. */
export interface Support {
  u: readonly [number, number];
  v: readonly [number, number];
}

/**
 * The evidence with its consensus bounded by the faces' skin: unchanged
 * when there is no face, too little skin to read, or when the consensus
 * leaves the skin in its band; `skin` says what was read.
 *
 * @example
 * const evidence = withSkin(estimateIlluminant(thumb), image, faces);
 */
export function withSkin(evidence: IlluminantEvidence, image: Raster, faces: readonly FaceBox[]): IlluminantEvidence {
  const skin = medianSkin(image, faces.filter((f) => (f.confidence ?? 100) >= MIN_CONFIDENCE));
  if (!skin) return evidence;
  const { hue, chroma } = hueChroma(linearToLab(...skin.rgb));
  const consensus = boundBySkin(skin.rgb, evidence.consensus, supportOf(evidence), agreedOf(evidence));
  return { ...evidence, consensus, skin: { hue, chroma, pixels: skin.pixels } };
}

/** Median linear colour, per channel, of the {@link FACE_REGION} of all faces; undefined below {@link MIN_PIXELS}. */
export function medianSkin(image: Raster, faces: readonly FaceBox[]): { rgb: [number, number, number]; pixels: number } | undefined {
  const histograms = [new Uint32Array(256), new Uint32Array(256), new Uint32Array(256)] as const;
  let pixels = 0;
  for (const face of faces) pixels += countBand(image, face, histograms);
  if (pixels < MIN_PIXELS) return undefined;
  const median = (h: Uint32Array) => {
    let seen = 0;
    for (let code = 0; code < 256; code++) if ((seen += h[code]!) * 2 >= pixels) return LINEAR_OF_BYTE[code]!;
    return 1;
  };
  return { rgb: [median(histograms[0]), median(histograms[1]), median(histograms[2])], pixels };
}

/** Adds one face's {@link FACE_REGION} to the per-channel histograms; returns the pixels counted. */
function countBand(image: Raster, face: FaceBox, histograms: readonly [Uint32Array, Uint32Array, Uint32Array]): number {
  const { data, width, height, channels } = image;
  const x0 = Math.max(0, Math.round(face.left + face.width * FACE_REGION.left));
  const x1 = Math.min(width, Math.round(face.left + face.width * FACE_REGION.right));
  const y0 = Math.max(0, Math.round(face.top + face.height * FACE_REGION.top));
  const y1 = Math.min(height, Math.round(face.top + face.height * FACE_REGION.bottom));
  if (x1 <= x0 || y1 <= y0) return 0;
  const stride = Math.max(1, Math.ceil(Math.sqrt(((x1 - x0) * (y1 - y0)) / SAMPLES_PER_FACE)));
  let counted = 0;
  for (let y = y0; y < y1; y += stride) {
    for (let x = x0; x < x1; x += stride) {
      const i = (y * width + x) * channels;
      const r = data[i]!;
      const g = data[i + 1]!;
      const b = data[i + 2]!;
      if (Math.min(r, g, b) < MIN_CODE || Math.max(r, g, b) >= COLOUR_LOST_CODE) continue;
      histograms[0][r]!++;
      histograms[1][g]!++;
      histograms[2][b]!++;
      counted++;
    }
  }
  return counted;
}

/** Per axis, the range a correction may take: from 0 to the furthest lean of any estimate (and the consensus), within the casts light makes. */
function supportOf(ev: IlluminantEvidence): Support {
  const all = [...estimatesOf(ev), ev.consensus];
  return { u: spanning(all.map((c) => c.u), MAX_AXIS), v: spanning(all.map((c) => c.v), TINT_PLAUSIBLE) };
}

/**
 * Per axis, the range the estimates agree on: from 0 to the lean all of them
 * share, less the consensus's dead zone (nothing when they differ in sign),
 * and the consensus itself.
 */
function agreedOf(ev: IlluminantEvidence): Support {
  const all = estimatesOf(ev);
  return {
    u: spanning([sharedLean(all.map((c) => c.u)), ev.consensus.u], MAX_AXIS),
    v: spanning([sharedLean(all.map((c) => c.v)), ev.consensus.v], TINT_PLAUSIBLE),
  };
}

function estimatesOf(ev: IlluminantEvidence): Chroma[] {
  return [ev.greyWorld, ev.shadesOfGrey, ev.greyEdge, ...(ev.whitePatch ? [ev.whitePatch] : [])];
}

/** From 0 to the furthest of `xs` on either side, within ±`limit`. */
function spanning(xs: number[], limit: number): [number, number] {
  return [Math.max(-limit, Math.min(0, ...xs)), Math.min(limit, Math.max(0, ...xs))];
}

/**
 * `consensus` when it leaves the skin in {@link SKIN_BAND}, or when no light
 * gives the reading a skin hue (a mask, face paint, a false face); otherwise the
 * correction nearest to it (green–magenta weighted by {@link TINT_WEIGHT})
 * among those within `support` that put the skin closest to {@link SKIN_CORE}.
 * Skin of a plausible hue that is only more saturated than skin usually is
 * is weaker evidence (some skin, or its rendering, is): then the search
 * stays within what all estimates agree on (`agreed`), which a warm light
 * over the whole frame gives and a saturated face in neutral light does not.
 */
export function boundBySkin(skin: readonly [number, number, number], consensus: Chroma, support: Support, agreed: Support = support): Chroma {
  const lab = skinUnder(skin, consensus);
  if (distanceToBand(lab, SKIN_BAND) === 0) return consensus;
  if (!supportGrid(PLAUSIBLE).some((c) => outsideBand(skin, c, SKIN_HUES) === 0)) return consensus;
  const { hue, chroma } = hueChroma(lab);
  const onlySaturated = hue >= SKIN_BAND.hueFrom && hue <= SKIN_BAND.hueTo && chroma > SKIN_BAND.chromaMax;
  const grid = supportGrid(onlySaturated ? agreed : support);
  const outside = grid.map((c) => outsideBand(skin, c, SKIN_CORE));
  const atConsensus = distanceToBand(lab, SKIN_CORE);
  const least = Math.min(atConsensus, ...outside);
  if (atConsensus <= least + TIE) return consensus;
  const distance = (c: Chroma) => (c.u - consensus.u) ** 2 + (TINT_WEIGHT * (c.v - consensus.v)) ** 2;
  let chosen: Chroma | undefined;
  grid.forEach((c, i) => {
    if (outside[i]! <= least + TIE && (!chosen || distance(c) < distance(chosen))) chosen = c;
  });
  return chosen ?? consensus;
}

/** The corrections on a {@link STEP} grid within `support` (0 is always on it). */
function supportGrid(support: Support): Chroma[] {
  const steps = ([lo, hi]: readonly [number, number]) => {
    const out: number[] = [];
    for (let i = Math.ceil(lo / STEP - 1e-9); i <= Math.floor(hi / STEP + 1e-9); i++) out.push(i * STEP + 0);
    return out;
  };
  const vs = steps(support.v);
  return steps(support.u).flatMap((u) => vs.map((v) => ({ u, v })));
}

/** How far (CIELAB a*b* distance) the skin lies outside `band` once `removed` is taken out; 0 inside. */
function outsideBand(skin: readonly [number, number, number], removed: Chroma, band: Band): number {
  return distanceToBand(skinUnder(skin, removed), band);
}

/** The skin's colour once `removed` is taken out. */
function skinUnder(skin: readonly [number, number, number], removed: Chroma): Lab {
  const gains = gainsRemoving(removed, 1);
  // The white balance keeps the luminance of grey (plan.ts), and so must this reading.
  const grey = LUMA[0] * gains[0] + LUMA[1] * gains[1] + LUMA[2] * gains[2];
  return linearToLab((skin[0] * gains[0]) / grey, (skin[1] * gains[1]) / grey, (skin[2] * gains[2]) / grey);
}

/** Distance in the a*b* plane from a colour to `band`. */
export function distanceToBand(lab: Lab, band: Band): number {
  const { hue, chroma } = hueChroma(lab);
  if (hue >= band.hueFrom && hue <= band.hueTo) return Math.max(0, band.chromaMin - chroma, chroma - band.chromaMax);
  // Outside the hues the nearest point lies on one of the two edges (segments from the least chroma to the most).
  const toEdge = (deg: number) => {
    const [ca, sa] = [Math.cos((deg * Math.PI) / 180), Math.sin((deg * Math.PI) / 180)];
    const t = Math.min(band.chromaMax, Math.max(band.chromaMin, lab.a * ca + lab.b * sa));
    return Math.hypot(lab.a - t * ca, lab.b - t * sa);
  };
  return Math.min(toEdge(band.hueFrom), toEdge(band.hueTo));
}

/** CIELAB hue angle (degrees, −180..180) and chroma. */
function hueChroma(lab: Lab): { hue: number; chroma: number } {
  return { hue: (Math.atan2(lab.b, lab.a) * 180) / Math.PI, chroma: Math.hypot(lab.a, lab.b) };
}
