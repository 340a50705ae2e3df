/**
 * A dominant surface as evidence: von Kries gains move a grey wall, paper
 * or road by exactly the cast, so where the frame's largest uniform surface
 * sits says what the cast is, when the pooled estimates are pulled apart
 * by the scene's own colours. A frame that is one surface, and a veiled
 * frame, give no such reading.
 */
import { describe, expect, it } from 'vitest';
import { estimateIlluminant } from '../src/colour/illuminant';
import { greySurface } from '../src/colour/neutral';
import { linearScene } from './colour-helpers';

const W = 120;
const H = 80;
const SHADE = [0.8, 0.95, 1.25];
const shade = Math.log(SHADE[0]! / SHADE[2]!);

/** Texture 0.85..1.15 that varies from pixel to pixel (no flat fills). */
const grain = (x: number, y: number): number => 0.85 + 0.3 * (((x * 7 + y * 13) % 23) / 23);

/**
 * A room: a grey wall over the left half, warm wooden furniture and an
 * orange cushion on the right (8 px patches of several warm colours, with
 * deep shadows between some of them).
 */
const room = (x: number, y: number): [number, number, number] => {
  const k = grain(x, y);
  if (x < 60) return [0.3 * k, 0.3 * k, 0.3 * k];
  if (((x >> 3) + (y >> 3)) % 6 === 0) return [0.003 * k, 0.003 * k, 0.003 * k];
  const i = ((y >> 3) * 7 + (x >> 3)) % 5;
  const warm: [number, number, number][] = [
    [0.42, 0.2, 0.07],
    [0.3, 0.16, 0.06],
    [0.55, 0.25, 0.05],
    [0.2, 0.12, 0.05],
    [0.5, 0.34, 0.15],
  ];
  const [r, g, b] = warm[i]!;
  return [r * k, g * k, b * k];
};

describe('estimateIlluminant: a dominant surface reads the cast', () => {
  it('finds the wall where the cast put it', () => {
    const s = greySurface(linearScene(W, H, room, SHADE))!;
    expect(s.share).toBeGreaterThan(0.4);
    expect(s.u).toBeCloseTo(shade, 1);
  });

  it('removes a shade cast from a warm room that the pooled estimates leave', () => {
    const ev = estimateIlluminant(linearScene(W, H, room, SHADE));
    // The warm furniture pulls the pooled estimates apart: some still read warm.
    expect(Math.max(ev.greyWorld.u, ev.shadesOfGrey.u, ev.greyEdge.u)).toBeGreaterThan(0);
    // The wall says the light is cool by the shade cast: most of it is removed.
    expect(ev.consensus.u).toBeLessThan(shade + 0.15);
  });

  it('leaves the same room alone without the cast: its wall is grey', () => {
    const ev = estimateIlluminant(linearScene(W, H, room));
    expect(Math.abs(ev.consensus.u)).toBeLessThan(0.03);
    expect(Math.abs(ev.consensus.v)).toBeLessThan(0.03);
  });

  it('does not follow a surface that is the whole frame (a warm paper texture)', () => {
    // Warm paper with a few bright blue fibres and dark specks: the fibres pull
    // some pooled estimates cool, so they disagree and remove nothing.
    const paper = (x: number, y: number): [number, number, number] => {
      const k = grain(x, y);
      if ((x * 5 + y * 11) % 50 === 0) return [0.003, 0.003, 0.003];
      if ((x * 3 + y * 7) % 25 === 0) return [0.1, 0.35, 0.97];
      return [0.62 * k, 0.55 * k, 0.42 * k];
    };
    const img = linearScene(W, H, paper);
    const s = greySurface(img)!;
    expect(s.share).toBeGreaterThan(0.85);
    expect(s.u).toBeGreaterThan(0.3);
    // Following the surface would remove most of its warmth (ln R/B ≈ 0.39).
    expect(Math.abs(estimateIlluminant(img).consensus.u)).toBeLessThan(0.05);
  });

  it('does not follow one of several surfaces of like size: none says which is grey', () => {
    // A cool blue-grey wall on the left, a warm beige one on the right, each half the frame.
    const walls = (x: number, y: number): [number, number, number] => {
      const k = grain(x, y);
      if ((x * 5 + y * 11) % 50 === 0) return [0.003, 0.003, 0.003];
      return x < 60 ? [0.26 * k, 0.3 * k, 0.36 * k] : [0.36 * k, 0.3 * k, 0.26 * k];
    };
    const img = linearScene(W, H, walls);
    const s = greySurface(img)!;
    expect(s.share).toBeGreaterThan(0.4);
    expect(s.lead).toBeLessThan(0.05);
    expect(Math.abs(estimateIlluminant(img).consensus.u)).toBeLessThan(0.03);
  });

  it('does not follow a surface under a veil (haze squeezes dark colours into one)', () => {
    // A dark blue night sky over the top two thirds and a lit street below,
    // then a 30 % veil: the sky becomes the densest surface, and it is not grey.
    const night = (x: number, y: number): [number, number, number] => {
      const k = grain(x, y);
      if (y < 54) return [0.004 * k, 0.012 * k, 0.05 * k];
      return [0.3 * k, 0.27 * k, 0.22 * k];
    };
    const veiled = (x: number, y: number): [number, number, number] => night(x, y).map((c) => 0.7 * c + 0.3 * 0.7) as [number, number, number];
    const img = linearScene(W, H, veiled);
    const s = greySurface(img)!;
    expect(s.share).toBeGreaterThan(0.4);
    expect(s.u).toBeLessThan(-0.1);
    expect(s.black).toBeGreaterThan(0.14);
    const ev = estimateIlluminant(img);
    expect(ev.consensus.u).toBeGreaterThan(s.u / 2);
  });
});
