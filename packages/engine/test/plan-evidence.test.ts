/**
 * Rules that weigh evidence before correcting: a blue sky is not a shade
 * cast, and vibrance does not push a lean the white balance left.
 */
import { describe, expect, it } from 'vitest';
import { planCorrection } from '../src/colour/plan';
import { estimateIlluminant } from '../src/colour/illuminant';
import { findSky } from '../src/colour/sky';
import { NEUTRAL_COLOUR_PARAMS, type ColourParams } from '../src/colour/params';
import type { Raster } from '../src/image/raster';
import { linearScene } from './colour-helpers';

const AUTO: ColourParams = { ...NEUTRAL_COLOUR_PARAMS, exposure: 1, whiteBalance: 1, contrast: 1 };
const W = 120;
const H = 80;
/** A scene of the test's size from `pixel(x, y)` giving linear RGB, times per-channel `gains`. */
const scene = (pixel: (x: number, y: number) => readonly number[], gains?: readonly number[]): Raster => linearScene(W, H, pixel, gains);

const SKY_ROWS = 34;
/**
 * A landscape: a smooth, clear blue sky over the top rows, and below it
 * neutral ground (greys of many levels with muted colours, 8 px patches)
 * with nothing as bright as the sky, as on an open plain at noon.
 */
const landscape = (x: number, y: number): [number, number, number] => {
  if (y < SKY_ROWS) {
    const k = 0.85 + (0.15 * y) / SKY_ROWS;
    return [0.22 * k, 0.4 * k, 0.8 * k];
  }
  const i = (y >> 3) * 15 + (x >> 3);
  const l = 0.03 + ((i * 37) % 40) / 100;
  const t = (i % 7) - 3;
  return [l * (1 + 0.04 * t), l, l * (1 - 0.04 * t)];
};

describe('estimateIlluminant: a blue sky is the light, not a cast', () => {
  it('finds the sky: smooth, bright, blue and reached from the top', () => {
    const sky = findSky(scene(landscape));
    expect(sky.fraction).toBeCloseTo(SKY_ROWS / H, 1);
    expect(sky.bandRows).toBe(SKY_ROWS);
    // A blue object not connected to the top is no sky.
    const pool = scene((x, y) => (y > 50 && x > 30 && x < 90 ? [0.22, 0.4, 0.8] : [0.2, 0.2, 0.2]));
    expect(findSky(pool).fraction).toBe(0);
  });

  it('leaves a blue-sky landscape alone though every whole-frame estimate leans cool', () => {
    const ev = estimateIlluminant(scene(landscape));
    // With the sky, all four estimates read a shade cast (the consensus less
    // their spread, which the sky widens) ...
    expect(ev.frameConsensus!.u).toBeLessThan(-0.1);
    // ... which the ground below it does not confirm.
    expect(Math.abs(ev.consensus.u)).toBeLessThan(0.03);
    const { plan } = planCorrection(scene(landscape), AUTO);
    expect(plan.gains[2] / plan.gains[0]).toBeCloseTo(1, 1);
  });

  it('does not cool a scene in warm low sun under its blue sky', () => {
    // The ground is lit warm; the sky balances the frame, the ground alone leans warm.
    const evening = (x: number, y: number): [number, number, number] => {
      const [r, g, b] = landscape(x, y);
      return y < SKY_ROWS ? [r, g, b] : [r * 1.45, g, b * 0.7];
    };
    const ev = estimateIlluminant(scene(evening));
    expect(ev.greyWorld.u).toBeGreaterThan(0.3);
    expect(Math.abs(ev.consensus.u)).toBeLessThan(0.03);
  });

  it('still removes a camera cast that the ground and the frame agree on', () => {
    // Shade: ln(0.75 / 1.3) = −0.55 on the ground, more with the sky.
    const ev = estimateIlluminant(scene(landscape, [0.75, 0.95, 1.3]));
    expect(ev.sky).toBeGreaterThan(0.3);
    expect(ev.consensus.u).toBeLessThan(-0.3);
  });
});

/** A colourful, well-exposed scene: saturated foliage, skin and sky colours over a full tonal range. */
const colourful = (x: number, y: number): [number, number, number] => {
  const i = (y >> 3) * 15 + (x >> 3);
  const l = 0.06 + ((i * 37) % 55) / 100;
  const hue = i % 4;
  const tint: [number, number, number] = hue === 0 ? [0.45, 1, 0.3] : hue === 1 ? [1, 0.62, 0.45] : hue === 2 ? [0.4, 0.6, 1] : [1, 1, 1];
  return [l * tint[0], l * tint[1], l * tint[2]];
};

describe('planCorrection: vibrance does not push a lean the white balance left', () => {
  /** A frame filled with foliage: every estimate leans green, too far apart to be corrected as a cast. */
  const foliage = (x: number, y: number): [number, number, number] => {
    const i = (y >> 3) * 15 + (x >> 3);
    const l = 0.08 + ((i * 29) % 40) / 100;
    return [l * 0.35, l, l * 0.12];
  };

  it('turns vibrance down where every estimate leans one way and little was removed', () => {
    const p = { ...AUTO, vibrance: 0.3 };
    // Vibrance as given, so that only the lean can turn it down (not the chroma already there, colour/finish.ts).
    const asGiven = { asGiven: ['vibrance'] } as const;
    const leaves = planCorrection(scene(foliage), p, 'still', undefined, asGiven);
    expect(Math.abs(leaves.diagnostics.evidence!.consensus.v)).toBeLessThan(0.05);
    expect(leaves.plan.vibrance).toBeLessThan(0.05);
    // A photo whose estimates straddle neutral keeps the look's vibrance.
    expect(planCorrection(scene(colourful), p, 'still', undefined, asGiven).plan.vibrance).toBeCloseTo(0.3, 2);
  });
});
