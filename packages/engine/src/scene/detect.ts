/**
 * Scene detector: classifies a photo into one of the {@link SCENE} categories
 * from an analysis copy and (when available) the faces found in it. It is a
 * set of measured rules, not a learned model; each rule is documented with the
 * signal it reads.
 */
import type { Raster } from '../image/raster';
import { percentile } from '../colour/estimate';
import { lumaHistogram } from '../colour/histograms';
import { LINEAR_OF_BYTE } from '../colour/srgb';
import { SCENE, type SceneId } from './categories';

/** A face as the scene detector needs it: its box relative to the image (0..1). */
export interface SceneFace {
  width: number;
  height: number;
}

/** What the detector measured; returned for reports and tests. */
export interface SceneSignals {
  /** Fraction of pixels equal to their right and lower neighbours (flat fills). */
  flat: number;
  /** Distinct colours (5 bits a channel) per 1000 pixels. */
  colourDensity: number;
  /** Median and 99.7th percentile of encoded luma, 0..1. */
  key: number;
  highlights: number;
  /** Fraction of the top third that looks like sky (blue, or bright and smooth). */
  sky: number;
  faces: number;
  /** Largest face area as a fraction of the image. */
  faceArea: number;
}

/** Classify the scene. `faces` is optional: without a face detector no portrait is reported. */
export function detectScene(img: Raster, faces: readonly SceneFace[] = []): { scene: SceneId; signals: SceneSignals } {
  const signals = measure(img, faces);
  return { scene: classify(signals), signals };
}

function classify(s: SceneSignals): SceneId {
  // Graphics have large exactly-flat areas and few colours; photos have noise everywhere.
  if (s.flat > 0.55 && s.colourDensity < 40) return SCENE.clipart;
  if (s.faces >= 2) return SCENE.group;
  if (s.faces === 1 && s.faceArea >= 0.01) return SCENE.portrait;
  // Night: dark midtones while light sources still reach white (under-exposure lacks these).
  if (s.key < 0.22 && s.highlights > 0.85) return SCENE.night;
  if (s.key > 0.72) return SCENE.highKey;
  if (s.sky > 0.35) return SCENE.landscape;
  return SCENE.general;
}

function measure(img: Raster, faces: readonly SceneFace[]): SceneSignals {
  const { data, width: w, height: h, channels: ch } = img;
  let flat = 0;
  let considered = 0;
  // Colours quantised to 5 bits a channel: a bitmap of the 32768 and a count (a Set cost more than the rest of the scene).
  const seen = new Uint8Array(32768);
  let colourCount = 0;
  let skyPixels = 0;
  let topPixels = 0;
  const topRows = Math.max(1, Math.floor(h / 3));
  const bluerThan = groundWarmth(img, topRows) - SKY_OVER_GROUND;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = (y * w + x) * ch;
      const r = data[i]!;
      const g = data[i + 1]!;
      const b = data[i + 2]!;
      const colour = ((r >> 3) << 10) | ((g >> 3) << 5) | (b >> 3);
      if (seen[colour] === 0) {
        seen[colour] = 1;
        colourCount++;
      }
      if (x + 1 < w && y + 1 < h) {
        considered++;
        const j = i + ch;
        const k = i + w * ch;
        if (data[j] === r && data[j + 1] === g && data[j + 2] === b && data[k] === r && data[k + 1] === g && data[k + 2] === b) flat++;
      }
      if (y < topRows) {
        topPixels++;
        if (isSkyLike(r, g, b, bluerThan)) skyPixels++;
      }
    }
  }
  const lumaHist = lumaHistogram(img);
  const faceArea = faces.reduce((m, f) => Math.max(m, f.width * f.height), 0);
  return {
    flat: flat / Math.max(1, considered),
    colourDensity: (colourCount * 1000) / Math.max(1, w * h),
    key: percentile(lumaHist, 0.5) / 255,
    highlights: percentile(lumaHist, 0.997) / 255,
    sky: skyPixels / Math.max(1, topPixels),
    faces: faces.length,
    faceArea,
  };
}

/**
 * How much bluer than the ground (ln R/B of linear light) a blue pixel of the
 * top third must be to count as sky. A colour cast shifts sky and ground
 * alike (von Kries gains add the same constant to every pixel's ln R/B), so
 * a cool cast turns grey clouds, walls and paper blue without making them
 * bluer than the ground; a clear or hazy blue sky sits 0.5–1.5 below a
 * neutral or warm ground. Without this, a cool cast alone made many scenes
 * landscapes (more vibrance, which pushed the cast further).
 */
const SKY_OVER_GROUND = 0.25;

/** ln of each byte's linear value (code 0: −∞, bluer than any ground). */
const LN_LINEAR: Float64Array = LINEAR_OF_BYTE.map(Math.log);

/** ln(R/B) of the mean linear colour of the rows below the top third (the ground); 0 when there are none. */
function groundWarmth(img: Raster, topRows: number): number {
  const { data, width: w, height: h, channels: ch } = img;
  let r = 0;
  let b = 0;
  for (let i = topRows * w * ch; i < w * h * ch; i += ch) {
    r += LINEAR_OF_BYTE[data[i]!]!;
    b += LINEAR_OF_BYTE[data[i + 2]!]!;
  }
  return r > 0 && b > 0 ? Math.log(r / b) : 0;
}

/**
 * Blue sky (day or dusk) or bright overcast: blue dominant and bluer (ln R/B
 * of linear light below `bluerThan`) than the ground, or bright and nearly grey.
 */
function isSkyLike(r: number, g: number, b: number, bluerThan: number): boolean {
  if (b > r + 12 && b >= g && b > 40) return LN_LINEAR[r]! - LN_LINEAR[b]! < bluerThan;
  const max = Math.max(r, g, b);
  return max > 200 && max - Math.min(r, g, b) < 25;
}
