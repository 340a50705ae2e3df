/**
 * Faces' skin bounds the white balance (colour/skin.ts): a cast that turns
 * skin out of its hue band is removed as far as some estimate leans that
 * way; a consensus that would push skin out is pulled back; skin that is
 * already plausible, grey with no estimate leaning, no skin under any light,
 * or on a face the detector was unsure of, changes nothing.
 * Then the look with the real face detector on the sample portraits under
 * casts, against the same look told there are no faces.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { FaceRecord } from '@pfc/core';
import { linearToLab, meanDeltaE2000 } from '../src/colour/deltaE';
import { gainsRemoving, type Chroma, type IlluminantEvidence } from '../src/colour/illuminant';
import { boundBySkin, medianSkin, withSkin, SKIN_BAND, SKIN_CORE, type Band, type FaceBox } from '../src/colour/skin';
import { LINEAR_OF_BYTE, LUMA, linearToSrgb } from '../src/colour/srgb';
import { applyLook, type FaceFinder } from '../src/look';
import { closeEngineWorkers, detectFaces } from '../src/vision';
import { linearGains, rgb, sample } from './colour-helpers';

afterAll(() => closeEngineWorkers());

type Rgb3 = [number, number, number];
/** A light skin tone as photographed in daylight (sRGB 224, 172, 150): hue about 50°. */
const SKIN: Rgb3 = [LINEAR_OF_BYTE[224]!, LINEAR_OF_BYTE[172]!, LINEAR_OF_BYTE[150]!];
const GREEN: Rgb3 = [0.85, 1.15, 0.85];
const cast = (c: Rgb3, g: Rgb3): Rgb3 => [c[0] * g[0], c[1] * g[1], c[2] * g[2]];
const support = (u: [number, number], v: [number, number]) => ({ u, v });

/** Hue and chroma of skin once `removed` is taken out, luminance of grey kept as the planner does. */
function skinAfter(skin: Rgb3, removed: Chroma): { hue: number; chroma: number } {
  const g = gainsRemoving(removed, 1);
  const y = LUMA[0] * g[0] + LUMA[1] * g[1] + LUMA[2] * g[2];
  const lab = linearToLab((skin[0] * g[0]) / y, (skin[1] * g[1]) / y, (skin[2] * g[2]) / y);
  return { hue: (Math.atan2(lab.b, lab.a) * 180) / Math.PI, chroma: Math.hypot(lab.a, lab.b) };
}
const inBand = ({ hue, chroma }: { hue: number; chroma: number }, band: Band = SKIN_BAND) => hue >= band.hueFrom && hue <= band.hueTo && chroma >= band.chromaMin && chroma <= band.chromaMax;
/** In the core band, but for the search's tolerance (half a CIELAB unit: about a degree of hue at skin's chroma). */
const nearCore = ({ hue, chroma }: { hue: number; chroma: number }) => inBand({ hue, chroma }, { hueFrom: SKIN_CORE.hueFrom - 1.5, hueTo: SKIN_CORE.hueTo + 1.5, chromaMin: SKIN_CORE.chromaMin - 0.5, chromaMax: SKIN_CORE.chromaMax + 0.5 });

describe('boundBySkin', () => {
  it('leaves a consensus that keeps skin in its band', () => {
    expect(inBand(skinAfter(SKIN, { u: 0, v: 0 }))).toBe(true);
    expect(boundBySkin(SKIN, { u: 0.1, v: 0 }, support([0, 0.5], [0, 0.1]))).toEqual({ u: 0.1, v: 0 });
  });

  it('removes a green cast the skin shows, as far as an estimate leans green', () => {
    const green = cast(SKIN, GREEN);
    expect(inBand(skinAfter(green, { u: 0, v: 0 }))).toBe(false);
    const bounded = boundBySkin(green, { u: 0, v: 0 }, support([0, 0], [0, 0.3]));
    expect(bounded.v).toBeGreaterThan(0.1);
    // Put back where skin typically is, not at the edge of where it can be.
    expect(nearCore(skinAfter(green, bounded))).toBe(true);
    // Only as far as the estimates lean: with none beyond 0.05, no further.
    expect(boundBySkin(green, { u: 0, v: 0 }, support([0, 0], [0, 0.05])).v).toBeLessThanOrEqual(0.05 + 1e-9);
  });

  it('invents no cast no estimate sees: grey skin (a black-and-white portrait) and a green cast without support stay', () => {
    const grey: Rgb3 = [0.3, 0.3, 0.3];
    expect(inBand(skinAfter(grey, { u: 0, v: 0 }))).toBe(false);
    expect(boundBySkin(grey, { u: 0, v: 0 }, support([0, 0], [0, 0]))).toEqual({ u: 0, v: 0 });
    expect(boundBySkin(cast(SKIN, GREEN), { u: 0, v: 0 }, support([0, 0], [0, 0]))).toEqual({ u: 0, v: 0 });
  });

  it('takes a reading no light makes skin for no skin (a false face on blue smoke, a mask)', () => {
    const blue: Rgb3 = [LINEAR_OF_BYTE[90]!, LINEAR_OF_BYTE[110]!, LINEAR_OF_BYTE[200]!];
    expect(boundBySkin(blue, { u: 0, v: -0.1 }, support([-0.8, 0.8], [-0.3, 0.3]))).toEqual({ u: 0, v: -0.1 });
  });

  it('takes skin that is only more saturated than usual as weaker evidence: corrected only as far as every estimate agrees', () => {
    // A saturated skin of plausible hue (Grace Hopper's print, chroma about 43).
    const saturated: Rgb3 = [LINEAR_OF_BYTE[205]!, LINEAR_OF_BYTE[120]!, LINEAR_OF_BYTE[80]!];
    const before = skinAfter(saturated, { u: 0, v: 0 });
    expect(before.hue).toBeGreaterThan(SKIN_BAND.hueFrom);
    expect(before.chroma).toBeGreaterThan(SKIN_BAND.chromaMax);
    // One estimate leans warm, the others not: the face is left as it is.
    expect(boundBySkin(saturated, { u: 0, v: 0 }, support([0, 0.8], [0, 0]), support([0, 0], [0, 0]))).toEqual({ u: 0, v: 0 });
    // All of them lean warm by 0.3 or more: as far as that, and the skin less saturated.
    const agreed = boundBySkin(saturated, { u: 0, v: 0 }, support([0, 0.8], [0, 0]), support([0, 0.3], [0, 0]));
    expect(agreed.u).toBeGreaterThan(0.1);
    expect(agreed.u).toBeLessThanOrEqual(0.3 + 1e-9);
    expect(skinAfter(saturated, agreed).chroma).toBeLessThan(before.chroma - 5);
  });

  it('pulls back a consensus that would push the skin out of its band', () => {
    // A magenta "cast" read off a pink scene: removing it turns the face yellow-green.
    const consensus = { u: 0, v: -0.3 };
    expect(inBand(skinAfter(SKIN, consensus))).toBe(false);
    const bounded = boundBySkin(SKIN, consensus, support([0, 0], [-0.3, 0]));
    expect(nearCore(skinAfter(SKIN, bounded))).toBe(true);
    expect(bounded.v).toBeGreaterThan(-0.15);
    expect(bounded.v).toBeLessThanOrEqual(0);
  });
});

describe('medianSkin', () => {
  it('reads the skin band of each face box, not the background', () => {
    const width = 200;
    const height = 200;
    const data = new Uint8Array(width * height * 3);
    for (let i = 0; i < data.length; i += 3) data.set([40, 160, 60], i);
    const face = { left: 50, top: 40, width: 100, height: 120 };
    // Skin only in the band the reading uses (cheeks and nose), background everywhere else.
    for (let y = face.top + 54; y < face.top + 96; y++) for (let x = face.left + 20; x < face.left + 80; x++) data.set([224, 172, 150], (y * width + x) * 3);
    const reading = medianSkin({ data, width, height, channels: 3 }, [face]);
    expect(reading?.rgb).toEqual([LINEAR_OF_BYTE[224], LINEAR_OF_BYTE[172], LINEAR_OF_BYTE[150]]);
    expect(medianSkin({ data, width, height, channels: 3 }, [{ left: 0, top: 0, width: 8, height: 8 }])).toBeUndefined();
  });
});

describe('withSkin', () => {
  const patch = (face: FaceBox & { confidence?: number }) => {
    const width = 100;
    const height = 100;
    const data = new Uint8Array(width * height * 3);
    const [r, g, b] = cast(SKIN, GREEN).map((v) => Math.round(255 * linearToSrgb(v)));
    for (let i = 0; i < data.length; i += 3) data.set([r!, g!, b!], i);
    return withSkin(EVIDENCE, { data, width, height, channels: 3 }, [face]);
  };
  const EVIDENCE: IlluminantEvidence = {
    greyWorld: { u: 0.5, v: -0.1 }, shadesOfGrey: { u: 0.2, v: 0.1 }, greyEdge: { u: 0.1, v: 0.2 }, whitePatch: { u: 0.1, v: 0.25 }, consensus: { u: 0, v: 0 }, sky: 0,
  };

  it("bounds the consensus by a confident face's skin and says what it read", () => {
    const ev = patch({ left: 10, top: 10, width: 80, height: 80, confidence: 90 });
    expect(ev.consensus.v).toBeGreaterThan(0.1);
    expect(ev.skin?.hue).toBeGreaterThan(SKIN_BAND.hueTo);
  });

  it('reads no skin off a face the detector was unsure of (its false faces score just above 50)', () => {
    const ev = patch({ left: 10, top: 10, width: 80, height: 80, confidence: 52 });
    expect(ev).toBe(EVIDENCE);
  });
});

describe('the look with faces on portraits under casts', () => {
  const noFaces: FaceFinder = async () => [];
  let found = 0;
  const faces: FaceFinder = async (image, options) => {
    const f: readonly FaceRecord[] = await detectFaces(image, options);
    found += f.length;
    return f;
  };
  const cases: { photo: string; name: string; gains: Rgb3; gain: number }[] = [
    // Grey-world (the flag's red, the suit's white) vetoes what the others see; skin settles it.
    { photo: 'portraits/astronaut.jpg', name: 'green strong', gains: GREEN, gain: 4 },
    { photo: 'portraits/astronaut.jpg', name: 'cool strong', gains: [0.75, 0.95, 1.3], gain: 1.5 },
    { photo: 'portraits/astronaut.jpg', name: 'green mild', gains: [0.92, 1.08, 0.92], gain: 2.5 },
    { photo: 'portraits/grace_hopper.jpg', name: 'green (LED)', gains: [0.8, 1.2, 0.8], gain: 2 },
    // Warm: skin of a skin hue but more saturated than skin is, and every estimate leaning warm.
    { photo: 'portraits/grace_hopper.jpg', name: 'warm strong', gains: [1.3, 1.0, 0.65], gain: 2 },
    { photo: 'portraits/astronaut.jpg', name: 'yellow (the npm start demo: blue x 0.7)', gains: [1, 1, 0.7], gain: 1.5 },
  ];
  for (const c of cases) {
    it(`${c.photo} ${c.name}: the faces' skin takes out more of the cast (by ΔE ${c.gain} or more)`, async () => {
      const orig = await rgb(sample(c.photo));
      const degraded = { ...linearGains(orig, c.gains), channels: 3 as const };
      const before = found;
      const withSkin = await applyLook(degraded, {}, { findFaces: faces });
      expect(found).toBeGreaterThan(before);
      const without = await applyLook(degraded, {}, { findFaces: noFaces });
      const error = (x: Uint8Array) => meanDeltaE2000(orig.data, x, 3, 2);
      expect(error(withSkin.raster.data)).toBeLessThan(error(without.raster.data) - c.gain);
    });
  }

  it('leaves the good originals as the look without faces does', async () => {
    for (const photo of ['portraits/astronaut.jpg', 'portraits/grace_hopper.jpg']) {
      const orig = { ...(await rgb(sample(photo))), channels: 3 as const };
      const withSkin = await applyLook(orig, {}, { findFaces: faces });
      const without = await applyLook(orig, {}, { findFaces: noFaces });
      // The portrait preset sharpens differently; the colours must not move further than without faces.
      const moved = (x: Uint8Array) => meanDeltaE2000(orig.data, x, 3, 2);
      expect(moved(withSkin.raster.data)).toBeLessThan(moved(without.raster.data) + 0.1);
    }
  });
});
