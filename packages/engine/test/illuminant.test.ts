import { describe, expect, it } from 'vitest';
import { estimateIlluminant, gainsRemoving } from '../src/colour/illuminant';
import type { Raster } from '../src/image/raster';

const SIDE = 96;
const toByte = (l: number) => {
  const c = Math.min(1, Math.max(0, l));
  return Math.round((c <= 0.0031308 ? c * 12.92 : 1.055 * c ** (1 / 2.4) - 0.055) * 255);
};

/** A 12×12 grid of 8 px patches; `colour(i)` gives each patch's linear RGB; `gains` is a camera cast. */
function patches(colour: (i: number) => [number, number, number], gains: [number, number, number] = [1, 1, 1]): Raster {
  const data = new Uint8Array(SIDE * SIDE * 3);
  for (let y = 0; y < SIDE; y++) {
    for (let x = 0; x < SIDE; x++) {
      const c = colour(Math.floor(y / 8) * 12 + Math.floor(x / 8));
      for (let k = 0; k < 3; k++) data[(y * SIDE + x) * 3 + k] = toByte(c[k]! * gains[k]!);
    }
  }
  return { data, width: SIDE, height: SIDE, channels: 3 };
}

/** A neutral scene: greys of many levels with a few muted colours, deterministic. */
const neutralScene = (i: number): [number, number, number] => {
  const l = 0.05 + ((i * 37) % 60) / 100;
  const tint = (i % 7) - 3;
  return [l * (1 + 0.04 * tint), l, l * (1 - 0.04 * tint)];
};
/** A frame filled by one colourful subject (leaves), with one pale highlight. */
const leafScene = (i: number): [number, number, number] => {
  if (i === 77) return [0.8, 0.82, 0.8];
  const l = 0.08 + ((i * 29) % 40) / 100;
  return [l * 0.35, l, l * 0.12];
};

/** Moss filling the frame: every patch yellow-green (ln R/B 0.75, green lean 0.65), with a little texture. */
const mossScene = (i: number): [number, number, number] => {
  const l = 0.04 + ((i * 29) % 40) / 100;
  const t = 1 + 0.03 * ((i % 5) - 2);
  return [l * t, l * 1.317, (l * 0.472) / t];
};

/**
 * Warm surfaces (earth, wood) on two thirds of the frame, the rest greys of
 * many levels with slight tints (no single dominant surface) and a few blacks:
 * grey-world leans warm by the scene alone, the other estimates do not.
 */
const earthScene = (i: number): [number, number, number] => {
  if (i % 23 === 0) return [0.001, 0.001, 0.001];
  if (i % 3 !== 0) {
    const e = 0.06 + ((i * 29) % 20) / 100;
    return [e * 1.8, e, e * 0.3];
  }
  const l = 0.05 + ((i * 37) % 60) / 100;
  const t = (i % 7) - 3;
  return [l * (1 + 0.04 * t), l, l * (1 - 0.04 * t)];
};

/**
 * Warm toys on a beige table (the shape of cv-rubberwhale): orange on half the
 * frame, beige greys of many levels on the rest, a few blacks. Every estimate
 * leans warm, grey-world most (about 1.1, the others 0.5–0.7).
 */
const toyScene = (i: number): [number, number, number] => {
  if (i % 23 === 0) return [0.001, 0.001, 0.001];
  if (i % 2 === 0) {
    const e = 0.05 + ((i * 29) % 30) / 100;
    return [e * 2.6, e, e * 0.25];
  }
  const l = 0.05 + ((i * 37) % 60) / 100;
  const t = (i % 7) - 3;
  return [l * 1.3 * (1 + 0.04 * t), l, l * 0.75 * (1 - 0.04 * t)];
};

/**
 * A branch before a blurred blue sky (the shape of enl-spruce): the sky, bluer
 * than any light (ln R/B about −1.1), is the brightest third of the frame;
 * blue-grey needles of many levels and a brown branch fill the rest. Every
 * estimate leans cool, the white patch (the sky) most, grey-world least.
 * Needles fill the top row, so no sky is reached from the top edge and none
 * is found (enl-spruce's is not either): the estimates are the whole frame's.
 */
const branchScene = (i: number): [number, number, number] => {
  if (i % 3 === 0 && i >= 12) {
    const s = 0.75 + ((i * 13) % 5) / 20;
    return [0.3 * s, 0.5 * s, 0.9 * s];
  }
  if (i % 7 === 0) return [0.13, 0.08, 0.05];
  const l = 0.03 + ((i * 29) % 25) / 100;
  return [l * 0.9, l, l * 1.05];
};

/**
 * Blue water filling the frame, without surf or sky (the shape of a pool or a
 * water-drop macro): water of many levels, bluer than a cast makes a white
 * (ln R/B about −1.1), and a fifth of dark teal weed. Every estimate leans
 * cool by about 1, the white patch (the brightest water) too.
 */
const waterScene = (i: number): [number, number, number] => {
  if (i % 5 === 0) {
    const l = 0.03 + ((i * 29) % 20) / 100;
    return [l * 0.6, l, l * 0.9];
  }
  const l = 0.05 + ((i * 37) % 60) / 100;
  return [l * 0.45, l * 0.85, l * 1.35];
};

describe('estimateIlluminant', () => {
  it('leaves a neutral scene alone', () => {
    const { consensus } = estimateIlluminant(patches(neutralScene));
    expect(Math.abs(consensus.u)).toBeLessThan(0.02);
    expect(Math.abs(consensus.v)).toBeLessThan(0.02);
  });

  it('finds a warm camera cast on a neutral scene and its gains remove most of it', () => {
    const cast: [number, number, number] = [1.3, 1, 0.65];
    const { consensus } = estimateIlluminant(patches(neutralScene, cast));
    // ln(1.3 / 0.65) = 0.69 on the warm-cool axis; the dead zone leaves a little.
    expect(consensus.u).toBeGreaterThan(0.5);
    const g = gainsRemoving(consensus, 1);
    const rb = (cast[0] * g[0]) / (cast[2] * g[2]);
    expect(Math.abs(Math.log(rb))).toBeLessThan(0.12);
  });

  it('does not take a frame filled by one colourful subject for a cast', () => {
    const { consensus, greyWorld } = estimateIlluminant(patches(leafScene));
    expect(greyWorld.v).toBeGreaterThan(1); // grey-world alone would turn the leaves grey
    expect(Math.abs(consensus.u)).toBeLessThan(0.05);
    expect(Math.abs(consensus.v)).toBeLessThan(0.05);
  });

  it('takes a lean warm and green beyond any light for a subject on both axes (moss), not a warm cast', () => {
    const ev = estimateIlluminant(patches(mossScene));
    // Every estimate agrees on warm (about 0.75) and on green (about 0.65) ...
    for (const c of [ev.greyWorld, ev.shadesOfGrey, ev.greyEdge, ev.whitePatch!]) {
      expect(c.u).toBeGreaterThan(0.6);
      expect(c.v).toBeGreaterThan(0.5);
    }
    // ... a warm lean a tungsten light could make alone, but no light makes that green with it.
    expect(Math.abs(ev.consensus.u)).toBeLessThan(0.05);
    expect(Math.abs(ev.consensus.v)).toBeLessThan(0.05);
  });

  it('does not let a grey-world left warm by warm surfaces veto a cool cast the other estimates agree on', () => {
    const plain = estimateIlluminant(patches(earthScene));
    // The scene alone: grey-world warm, the others near neutral, nothing removed.
    expect(plain.greyWorld.u).toBeGreaterThan(0.5);
    expect(Math.abs(plain.consensus.u)).toBeLessThan(0.02);
    for (const [cast, atLeast] of [
      [[0.87, 0.97, 1.15], 0.15], // shade: ln(0.87 / 1.15) = −0.28
      [[0.75, 0.95, 1.3], 0.4], // strong: −0.55
    ] as const) {
      const ev = estimateIlluminant(patches(earthScene, [...cast]));
      // Grey-world still leans warm, so the four estimates disagree in sign ...
      expect(ev.greyWorld.u).toBeGreaterThan(0.1);
      for (const c of [ev.shadesOfGrey, ev.greyEdge, ev.whitePatch!]) expect(c.u).toBeLessThan(-0.2);
      // ... no dominant surface decides it (its lead is below where it is followed) ...
      expect(ev.surface!.lead).toBeLessThan(0.1);
      // ... and the cool cast is removed (the balance warms the photo) as far as the others agree.
      expect(ev.consensus.u).toBeLessThan(-atLeast);
    }
  });

  it('does not set grey-world aside when the brightest surfaces are bluer than a light makes them (a sky behind a branch)', () => {
    const ev = estimateIlluminant(patches(branchScene));
    expect(ev.sky).toBe(0);
    // Grey-world leans cool but least, the others more, the white patch beyond what a light makes ...
    const others = [ev.shadesOfGrey.u, ev.greyEdge.u, ev.whitePatch!.u];
    expect(ev.greyWorld.u).toBeLessThan(-0.3);
    expect(ev.greyWorld.u).toBeGreaterThan(Math.max(...others));
    expect(ev.whitePatch!.u).toBeLessThan(-0.9);
    // ... so the lean is the sky's as much as the light's: far less is removed than the others agree on
    // (−0.8, the largest correction, when grey-world is set aside as under a cool light).
    expect(ev.consensus.u).toBeGreaterThan(-0.3);
  });

  it('removes little of a cool lean when the brightest surfaces are bluer than a cast makes a white (water)', () => {
    const ev = estimateIlluminant(patches(waterScene));
    for (const c of [ev.greyWorld, ev.shadesOfGrey, ev.greyEdge]) expect(c.u).toBeLessThan(-0.9);
    expect(ev.whitePatch!.u).toBeLessThan(-1.05);
    // Agreed and plausible as a light on its own, the lean would be removed up to the largest correction (−0.8).
    expect(ev.consensus.u).toBeGreaterThan(-0.45);
    // A strong shade cast leaves whites within a cast's reach (about −0.55) and is still removed.
    const shade = estimateIlluminant(patches(neutralScene, [0.75, 0.95, 1.3]));
    expect(shade.whitePatch!.u).toBeGreaterThan(-0.6);
    expect(shade.consensus.u).toBeLessThan(-0.4);
  });

  it('removes little of a warm lean whose estimates spread widely (a warm scene, not a cast)', () => {
    const ev = estimateIlluminant(patches(toyScene));
    const us = [ev.greyWorld, ev.shadesOfGrey, ev.greyEdge, ev.whitePatch!].map((c) => c.u);
    expect(Math.min(...us)).toBeGreaterThan(0.45);
    expect(Math.max(...us) - Math.min(...us)).toBeGreaterThan(0.55);
    // Spread 0.6 of 0.3..0.8: two fifths of the smallest lean less the dead zone (0.45), not seven tenths.
    expect(ev.consensus.u).toBeGreaterThan(0.1);
    expect(ev.consensus.u).toBeLessThan(0.2);
  });
});
