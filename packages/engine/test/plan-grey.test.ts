/**
 * Grey surfaces as evidence: a scene whose own blue pulls every estimate
 * towards a shade cast keeps its grey surfaces at neutral, which a real
 * cast would have moved.
 */
import { describe, expect, it } from 'vitest';
import { estimateIlluminant } from '../src/colour/illuminant';
import { neutralTrust } from '../src/colour/neutral';
import { linearScene } from './colour-helpers';

const W = 120;
const H = 80;

/**
 * A lake scene with no sky: blue-grey water (textured, with bright glints)
 * over most of the frame, a grey concrete shore along the top and right.
 */
const lake = (x: number, y: number): [number, number, number] => {
  const k = 0.4 + 0.6 * (((x * 7 + y * 13) % 23) / 23);
  if (x < 84 && y >= 10) {
    const glint = (x * 31 + y * 17) % 53 === 0 ? 1.8 : 1;
    return [0.2 * k * glint, 0.26 * k * glint, 0.34 * k * glint];
  }
  const l = 0.25 * k;
  return [l, l, l];
};
const SHADE = [0.8, 0.95, 1.25];

describe('estimateIlluminant: grey surfaces left at neutral say the light is neutral', () => {
  it('does not cool-correct a blue lake whose grey pier is grey', () => {
    const ev = estimateIlluminant(linearScene(W, H, lake));
    // Every estimate leans cool, as it would under a shade cast ...
    for (const c of [ev.greyWorld, ev.shadesOfGrey, ev.greyEdge, ev.whitePatch!]) expect(c.u).toBeLessThan(-0.3);
    // ... but the pier is grey: little or nothing is removed.
    expect(Math.abs(ev.consensus.u)).toBeLessThan(0.05);
  });

  it('still removes a shade cast from the same scene, whose pier it turned blue', () => {
    const ev = estimateIlluminant(linearScene(W, H, lake, SHADE));
    expect(ev.consensus.u).toBeLessThan(-0.3);
  });

  it('weighs the densities: grey at neutral against grey where the cast puts it', () => {
    const img = linearScene(W, H, lake);
    const cast = { u: -0.3, v: 0 };
    expect(neutralTrust(img, cast, cast)).toBe(0);
    expect(neutralTrust(linearScene(W, H, lake, SHADE), cast, { u: -0.45, v: 0 })).toBe(1);
    // No grey surfaces at all (only water): no evidence, full trust.
    expect(neutralTrust(linearScene(W, H, (x, y) => lake(x % 80, 10 + (y % 70))), cast, cast)).toBe(1);
  });
});
