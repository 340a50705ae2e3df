import { describe, expect, it } from 'vitest';
import { explainedBlack } from '../src/colour/levels';
import { planCorrection } from '../src/colour/plan';
import type { Raster } from '../src/image/raster';
import { AUTO, corrected, moved, toEnc as enc, toLin as lin } from './colour-helpers';

const W = 120;
const H = 80;

/** A grey scene from `level(x, y)` (encoded 0..1), then `map` on linear light. */
function scene(level: (x: number, y: number) => number, map: (l: number) => number = (l) => l): Raster {
  const data = new Uint8Array(W * H * 3);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const v = Math.round(enc(map(lin(level(x, y)))) * 255);
      data.fill(v, (y * W + x) * 3, (y * W + x) * 3 + 3);
    }
  }
  return { data, width: W, height: H, channels: 3 };
}

/** Deterministic noise in 0..1. */
const noise = (x: number, y: number) => ((Math.sin(x * 12.9898 + y * 78.233) * 43758.5453) % 1 + 1) % 1;
/** Pale grey paper: its grain between 0.66 and 0.8, a few darker specks at 0.64 (0.1 % of the frame). */
const paper = (x: number, y: number) => ((x * 37 + y * 11) % 997 < 1 ? 0.64 : 0.66 + 0.14 * noise(x, y));
/** An ordinary photo: a ramp from black to white with texture, shadows filling part of the frame. */
const ordinary = (x: number, y: number) => Math.min(1, (x / (W - 1)) * (0.9 + 0.1 * noise(x, y)));
const haze30 = (l: number) => 0.7 * l + 0.3 * 0.7;


describe('levels: a lifted black is removed only as far as a veil or a flattened curve explains it', () => {
  it('keeps a pale paper whose darkest specks are lighter than mid-grey', () => {
    const img = scene(paper);
    const { plan, diagnostics } = planCorrection(img, AUTO);
    expect(diagnostics.levels[0]).toBeGreaterThan(0.6);
    // (Read as a veil, it would lose a black of 0.62.)
    expect(plan.black).toBeLessThan(0.08);
    expect(moved(img, corrected(img))).toBeLessThan(5);
  });

  it('still removes a thick veil over an ordinary scene whose shadows fill the dark end', () => {
    const img = scene(ordinary, haze30);
    const { plan, diagnostics } = planCorrection(img, AUTO);
    expect(diagnostics.levels[0]).toBeGreaterThan(0.45);
    expect(plan.black).toBeGreaterThan(0.4);
    // Back near the scene before the veil.
    expect(moved(scene(ordinary), corrected(img))).toBeLessThan(0.35 * moved(scene(ordinary), img));
  });

  it('removes a veil that lifts the black past mid-grey when shadows, not specks, sit at the black', () => {
    // A 40 % veil: black 0.57, as pale as paper, but the darkest 1 % sits at the black.
    const img = scene(ordinary, (l) => 0.6 * l + 0.4 * 0.7);
    const { plan, diagnostics } = planCorrection(img, AUTO);
    expect(diagnostics.levels[0]).toBeGreaterThan(0.55);
    expect(plan.black).toBeGreaterThan(0.5);
  });

  it('does not read an under-exposed pale scene as a flattened one', () => {
    // The paper at −3 EV: black 0.24, white 0.31. A flattened curve would imply a scene whose white is
    // 0.13, a veil one whose white is 0.12: neither is plausible, so the black stays.
    const img = scene(paper, (l) => l / 8);
    const { plan } = planCorrection(img, AUTO);
    expect(plan.black).toBeLessThan(0.02);
    expect(explainedBlack(0.24, 0.31, 0.25)).toBe(0);
  });

  it('explains a flattened ordinary photo in full and a pale paper not at all', () => {
    // Contrast −50 % of a full-range photo: black 0.25, white 0.75.
    expect(explainedBlack(0.25, 0.75, 0.26)).toBeCloseTo(0.25 - 2 / 255, 6);
    // A veil of 30 % over a full-range photo: black 0.49, white 0.96, shadows at the black.
    expect(explainedBlack(0.49, 0.96, 0.5)).toBeCloseTo(0.49 - 2 / 255, 6);
    // Pale paper: black 0.64, white 0.82, its darkest 1 % at 0.67.
    expect(explainedBlack(0.64, 0.82, 0.67)).toBeLessThan(0.05);
  });
});
