import { describe, expect, it } from 'vitest';
import { dimColouredLight, planCorrection } from '../src/colour/plan';
import { applyCurves } from '../src/colour/apply';
import { estimateIlluminant } from '../src/colour/illuminant';
import { NEUTRAL_COLOUR_PARAMS, type ColourParams } from '../src/colour/params';
import type { Raster } from '../src/image/raster';
import { linearScene } from './colour-helpers';

/** The automatic corrections in full plus some vibrance, as the Universal preset has. */
const AUTO: ColourParams = { ...NEUTRAL_COLOUR_PARAMS, exposure: 1, whiteBalance: 1, contrast: 1, vibrance: 0.2 };
/** The vibrance applied as a user's own value, whatever the scene's chroma. */
const AS_GIVEN = { asGiven: ['vibrance'] } as const;
const W = 120;
const H = 80;
/** A scene of the test's size from `pixel(x, y)` giving linear RGB, times per-channel `gains`. */
const scene = (pixel: (x: number, y: number) => readonly number[], gains?: readonly number[]): Raster => linearScene(W, H, pixel, gains);

/**
 * Blue hour: a deep blue sky, brightest near the horizon (no channel above
 * code ~165), over dark bluish ground with a few dim lit windows.
 */
const dusk = (x: number, y: number): [number, number, number] => {
  if (y < H / 2) {
    const t = 0.4 + (0.6 * y) / (H / 2);
    return [0.03 * t, 0.07 * t, 0.36 * t];
  }
  if (x % 23 === 0 && y % 11 === 0) return [0.2, 0.16, 0.1];
  const l = 0.002 + 0.03 * (((x * 7 + y * 3) % 20) / 20);
  return [l, l * 1.2, l * 2.2];
};

/** Grey cards of many levels (8 px patches), each slightly warm or cool, lit at `level` of full exposure. */
const cards =
  (level: number) =>
  (x: number, y: number): [number, number, number] => {
    const i = (y >> 3) * 15 + (x >> 3);
    const l = level * (0.002 + ((i * 37) % 60) / 59);
    const t = (i % 7) - 3;
    return [l * (1 + 0.03 * t), l, l * (1 - 0.03 * t)];
  };

/** Mean absolute difference of two rasters, in 8-bit codes. */
function moved(a: Raster, b: Raster): number {
  let s = 0;
  for (let i = 0; i < a.data.length; i++) s += Math.abs(a.data[i]! - b.data[i]!);
  return s / a.data.length;
}
/** ln(R/B) of the mean linear colour of a raster, from its codes. */
function warmth(img: Raster): number {
  const lin = (v: number) => ((v / 255) <= 0.04045 ? v / 255 / 12.92 : ((v / 255 + 0.055) / 1.055) ** 2.4);
  let r = 0;
  let b = 0;
  for (let i = 0; i < img.data.length; i += 3) {
    r += lin(img.data[i]!);
    b += lin(img.data[i + 2]!);
  }
  return Math.log(r / b);
}

describe('planCorrection: a dim scene in blue light is neither under-exposed nor cast', () => {
  it('keeps the exposure, the hue and the saturation of a blue-hour scene', () => {
    const img = scene(dusk);
    // Vibrance as given, so that only the mood can turn it down (not the chroma already there, colour/finish.ts).
    const { plan, diagnostics } = planCorrection(img, AUTO, 'still', undefined, AS_GIVEN);
    expect(diagnostics.mood).toBeGreaterThan(0.9);
    expect(plan.white).toBeGreaterThan(0.97);
    expect(plan.exposure).toBeLessThan(1.05);
    plan.gains.forEach((g) => expect(g).toBeCloseTo(1, 1));
    expect(plan.vibrance).toBeLessThan(0.02);
    const out = applyCurves(img, plan);
    expect(moved(img, out)).toBeLessThan(1);
    expect(Math.abs(warmth(out) - warmth(img))).toBeLessThan(0.05);
  });

  it('treats a bright blue daylight sky as daylight: only a short white end makes the scene dim', () => {
    // The same blue, in daylight: the sky reaches nearly white in blue.
    const img = scene((x, y) => {
      const [r, g, b] = dusk(x, y);
      return [r * 2.6, g * 2.6, b * 2.6];
    });
    const { plan, diagnostics } = planCorrection(img, AUTO, 'still', undefined, AS_GIVEN);
    expect(diagnostics.mood).toBe(0);
    expect(plan.vibrance).toBe(AUTO.vibrance);
  });

  it('still brightens a neutral scene under-exposed as far (its highlights stay near grey)', () => {
    const img = scene(cards(0.3));
    expect(dimColouredLight(img, estimateIlluminant(img))).toBe(0);
    const { plan } = planCorrection(img, AUTO);
    expect(plan.white).toBeLessThan(0.85);
  });

  it('does not correct a neutral grey scene', () => {
    const img = scene(cards(0.7));
    const { plan } = planCorrection(img, AUTO);
    plan.gains.forEach((g) => expect(g).toBeCloseTo(1, 2));
    expect(plan.exposure).toBeCloseTo(1, 2);
    expect(moved(img, applyCurves(img, { ...plan, vibrance: 0 }))).toBeLessThan(0.5);
  });

  it('still removes a camera cool cast from grey cards, dim or not', () => {
    for (const level of [0.7, 0.35]) {
      const img = scene(cards(level), [0.75, 0.95, 1.3]);
      const before = warmth(img);
      const { plan, diagnostics } = planCorrection(img, AUTO);
      expect(diagnostics.mood).toBe(0);
      // ln(0.75 / 1.3) = −0.55: most of it is removed.
      expect(Math.abs(warmth(applyCurves(img, plan)))).toBeLessThan(Math.abs(before) / 2);
    }
  });
});

describe('estimateIlluminant: a garden green in every estimate is its own colour', () => {
  it('removes little of a shared green stronger than a fluorescent tube makes', () => {
    // Foliage and green-lit highlights: every estimate leans green by ~0.6.
    const garden = scene((x, y) => {
      const l = 0.05 + 0.6 * (((x * 13 + y * 7) % 40) / 40);
      const k = 1 + 0.05 * (((x >> 3) + (y >> 3)) % 3);
      return [l * 0.55 * k, l, l * 0.5 * k];
    });
    const ev = estimateIlluminant(garden);
    for (const c of [ev.greyWorld, ev.greyEdge, ev.whitePatch!]) expect(c.v).toBeGreaterThan(0.5);
    expect(Math.abs(ev.consensus.v)).toBeLessThan(0.1);
  });
});
