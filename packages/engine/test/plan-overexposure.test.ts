/**
 * Over-exposure (colour/overexposure.ts): a bright key is darkened only when
 * blown highlights under it say an exposure gain lifted it, and neither a
 * high-key scene, nor blown lamps or sky over a normal key, nor a bright
 * scene without blown highlights is.
 */
import { describe, expect, it } from 'vitest';
import { planCorrection } from '../src/colour/plan';
import { applyCurves } from '../src/colour/apply';
import { overExposureEvidence, overExposureGain } from '../src/colour/overexposure';
import { lumaHistogram } from '../src/colour/histograms';
import { percentile } from '../src/colour/estimate';
import { NEUTRAL_COLOUR_PARAMS, type ColourParams } from '../src/colour/params';
import type { Raster } from '../src/image/raster';
import { linearScene } from './colour-helpers';

/** The automatic corrections in full, nothing creative: what the plan alone does. */
const AUTO: ColourParams = { ...NEUTRAL_COLOUR_PARAMS, exposure: 1, whiteBalance: 1, contrast: 1 };
const W = 120;
const H = 80;
const lin = (v: number) => (v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);

/**
 * A bright daylight scene exposed right: a pale sky over the top fifth
 * (linear 0.66–0.75, short of white) over ground whose encoded levels run
 * from black to 0.96 across the frame, with muted colour patches, and a few
 * white glints; median encoded luma about 0.6.
 */
const daylight = (x: number, y: number): [number, number, number] => {
  if (y < H / 5) return [0.66, 0.7, 0.75];
  if ((x * 13 + y * 7) % 211 === 0) return [1, 1, 1];
  const l = lin(0.02 + (0.94 * ((x + 3 * y) % W)) / (W - 1));
  const t = ((x >> 3) + (y >> 3)) % 5 - 2;
  return [l * (1 + 0.05 * t), l, l * (1 - 0.05 * t)];
};

/** `pixel` as a raster, times a linear gain (an exposure change), clipped at white like a camera. */
const exposed = (pixel: (x: number, y: number) => readonly number[], gain = 1): Raster => linearScene(W, H, pixel, [gain, gain, gain]);
const key = (img: Raster) => percentile(lumaHistogram(img), 0.5) / 255;
const corrected = (img: Raster) => applyCurves(img, planCorrection(img, AUTO).plan);

describe('planCorrection: over-exposure', () => {
  it('darkens a +0.7 EV copy (gain then clip) towards the original key', () => {
    const original = exposed(daylight);
    const over = exposed(daylight, 1.6);
    const { plan, diagnostics } = planCorrection(over, AUTO);
    // The copy shows both signs: a key lifted into the too-bright band and a blown sky.
    expect(diagnostics.key).toBeGreaterThan(0.7);
    expect(diagnostics.clipped).toBeGreaterThan(0.2);
    expect(plan.exposure).toBeLessThan(0.7);
    // Where the user sees it: the median luma moves most of the way back.
    const before = Math.abs(key(over) - key(original));
    const after = Math.abs(key(corrected(over)) - key(original));
    expect(after).toBeLessThan(before * 0.5);
  });

  it('leaves the original, bright but with nothing blown beyond a few glints, as it is', () => {
    const { plan, diagnostics } = planCorrection(exposed(daylight), AUTO);
    expect(diagnostics.key).toBeGreaterThan(0.55);
    expect(plan.exposure).toBeCloseTo(1, 3);
  });

  it('keeps blown lamps over a normal key: the photographer exposed for the midtones', () => {
    // A quarter of the frame is white lamps; the rest a grey wall and furniture at a normal key.
    const lamps = exposed((x, y) => {
      if (y < H / 4 && x < W / 2) return [1, 1, 1];
      const l = lin(0.15 + (0.6 * ((x * 3 + y) % 60)) / 60);
      return [l, l * 0.98, l * 0.95];
    });
    const { plan, diagnostics } = planCorrection(lamps, AUTO);
    expect(diagnostics.clipped).toBeGreaterThan(0.1);
    expect(plan.exposure).toBeCloseTo(1, 3);
  });

  it('keeps a high-key page: pale paper with blown fibres is not over-exposed', () => {
    const paper = exposed((x, y) => {
      const v = (x * 7 + y * 11) % 23;
      const l = v < 5 ? 1 : lin(0.86 + (0.12 * v) / 23);
      return [l, l, l * 0.97];
    });
    const { plan, diagnostics } = planCorrection(paper, AUTO);
    expect(diagnostics.key).toBeGreaterThan(0.87);
    expect(diagnostics.clipped).toBeGreaterThan(0.15);
    expect(plan.exposure).toBeCloseTo(1, 3);
  });

  it('keeps a pale scene whose brightest tones roll off before white', () => {
    const pale = exposed((x, y) => {
      const l = lin(0.55 + (0.4 * ((x + 2 * y) % W)) / W);
      return [l, l, l];
    });
    const { plan, diagnostics } = planCorrection(pale, AUTO);
    expect(diagnostics.key).toBeGreaterThan(0.65);
    expect(diagnostics.clipped).toBe(0);
    expect(plan.exposure).toBeCloseTo(1, 3);
  });

  it('still brightens a dark key: the factor never caps a lift', () => {
    const { plan } = planCorrection(exposed(daylight, 0.02), AUTO);
    expect(plan.exposure).toBeGreaterThan(1.05);
  });

  it('grows with both signs, is partial at most and follows the exposure strength', () => {
    expect(overExposureEvidence(0.75, 0.3)).toBe(1);
    expect(overExposureEvidence(0.5, 0.3)).toBe(0);
    expect(overExposureEvidence(0.75, 0.02)).toBe(0);
    expect(overExposureEvidence(0.95, 0.3)).toBe(0);
    expect(overExposureEvidence(0.65, 0.3)).toBeGreaterThan(0);
    expect(overExposureEvidence(0.65, 0.3)).toBeLessThan(1);
    expect(overExposureGain(0.75, 0.3, 1)).toBeCloseTo(1 / 1.6, 6);
    expect(overExposureGain(0.75, 0.3, 0)).toBe(1);
    expect(overExposureGain(0.75, 0.3, 0.5)).toBeCloseTo(1 / 1.3, 6);
  });
});
