/**
 * Person segmentation on real photos, and the mask refinement on synthetic
 * data where the right answer is known.
 */
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { boxMean, refineMask, resizeBilinear } from '../src/segment/refine';
import { closeEngineWorkers, createDetectionEngine, detectFaces, segmentPerson, type Mask } from '../src/vision';
import { ASTRONAUT, COFFEE, GRACE_HOPPER, rawImage } from './vision-helpers';

afterAll(() => closeEngineWorkers());

/** Mean mask value over a rectangle. */
function meanIn(m: Mask, x0: number, y0: number, w: number, h: number): number {
  let sum = 0;
  for (let y = y0; y < y0 + h; y++) for (let x = x0; x < x0 + w; x++) sum += m.data[y * m.width + x]!;
  return sum / (w * h);
}

/** Fraction of pixels that are neither clearly subject nor clearly background. */
function softShare(m: Mask): number {
  let soft = 0;
  for (const v of m.data) if (v > 16 && v < 239) soft++;
  return soft / m.data.length;
}

async function separates(file: string, scale = 1): Promise<Mask> {
  const img = await rawImage(scale === 1 ? sharp(file) : sharp(file).resize(Math.round((await sharp(file).metadata()).width * scale)));
  const [face] = await detectFaces(img);
  const mask = await segmentPerson(img);
  expect(mask.channels).toBe(1);
  expect([mask.width, mask.height]).toEqual([img.width, img.height]);
  expect(mask.data.length).toBe(img.width * img.height);
  const c = Math.round(Math.min(img.width, img.height) * 0.1);
  const { left, top, width, height } = face!;
  // The face box is loose (hair and backdrop at its corners); its central half is all face.
  const inFace = meanIn(mask, left, top, width, height);
  const faceCentre = meanIn(mask, Math.round(left + width / 4), Math.round(top + height / 4), Math.round(width / 2), Math.round(height / 2));
  const corners = [meanIn(mask, 0, 0, c, c), meanIn(mask, img.width - c, 0, c, c)];
  expect(faceCentre).toBeGreaterThan(245);
  expect(inFace).toBeGreaterThan(150);
  for (const v of corners) expect(v).toBeLessThan(20);
  return mask;
}

describe('segmentPerson', () => {
  it('separates the astronaut from the studio backdrop', async () => {
    const m = await separates(ASTRONAUT);
    expect(softShare(m)).toBeLessThan(0.06);
  });

  it('separates Grace Hopper from the flag behind her', async () => {
    await separates(GRACE_HOPPER);
  });

  it('refines at full resolution: a 3× photo gets a full-size mask with edges firmer than the model 256 px grid allows', async () => {
    const m = await separates(GRACE_HOPPER, 3);
    expect([m.width, m.height]).toEqual([1536, 1800]);
    // The same mask squeezed through the model's 256×256 grid and back: what an upsampled model mask would look like.
    const raw = (w: number, h: number) => ({ raw: { width: w, height: h, channels: 1 as const } });
    const grid = await sharp(m.data, raw(m.width, m.height)).resize(256, 256, { fit: 'fill' }).extractChannel(0).raw().toBuffer();
    const coarse = await sharp(grid, raw(256, 256)).resize(m.width, m.height, { fit: 'fill' }).extractChannel(0).raw().toBuffer();
    const refined = softShare(m);
    expect(refined).toBeLessThan(0.03);
    expect(refined).toBeLessThan(0.85 * softShare({ ...m, data: coarse }));
  });

  it('marks little of a photo without a person', async () => {
    const img = await rawImage(COFFEE);
    const m = await segmentPerson(img);
    expect([m.width, m.height]).toEqual([img.width, img.height]);
    const total = m.data.reduce((s, v) => s + v, 0) / m.data.length;
    expect(total).toBeLessThan(0.35 * 255);
  });

  it('is the emulator engine hook', async () => {
    const img = await rawImage(sharp(ASTRONAUT).ensureAlpha());
    const m = await createDetectionEngine().segment(img);
    expect([m.width, m.height, m.channels]).toEqual([512, 512, 1]);
  });
});

describe('mask refinement', () => {
  it('boxMean equals the brute-force window mean, borders clipped', () => {
    const w = 13;
    const h = 9;
    const src = Float32Array.from({ length: w * h }, (_, i) => (i * 37) % 11);
    const r = 2;
    const got = boxMean(src, w, h, r);
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        let s = 0;
        let n = 0;
        for (let yy = Math.max(0, y - r); yy <= Math.min(h - 1, y + r); yy++) {
          for (let xx = Math.max(0, x - r); xx <= Math.min(w - 1, x + r); xx++) {
            s += src[yy * w + xx]!;
            n++;
          }
        }
        expect(got[y * w + x]).toBeCloseTo(s / n, 4);
      }
    }
  });

  it('resizeBilinear keeps constants and ramps', () => {
    expect([...resizeBilinear(new Float32Array(4).fill(0.7), 2, 2, 5, 3)].every((v) => Math.abs(v - 0.7) < 1e-6)).toBe(true);
    const ramp = resizeBilinear(Float32Array.from([0, 1]), 2, 1, 4, 1);
    expect([...ramp].map((v) => Math.round(v * 100) / 100)).toEqual([0, 0.25, 0.75, 1]);
  });

  it('snaps a blurry model mask to the photo edge', () => {
    // Photo: dark left, bright right, edge between x = 99 and 100. Model (16 px wide): a 24 px ramp centred at x = 94.
    const W = 160;
    const H = 40;
    const grey = { data: Uint8Array.from({ length: W * H }, (_, i) => (i % W < 100 ? 40 : 200)), width: W, height: H };
    const pw = 16;
    const prob = Float32Array.from({ length: pw * 4 }, (_, i) => Math.min(1, Math.max(0, (((i % pw) + 0.5) * 10 - 94) / 24 + 0.5)));
    const row = [...refineMask(prob, pw, 4, grey, grey, { radius: 8 }).subarray(20 * W, 21 * W)];
    const steps = row.slice(1).map((v, x) => v - row[x]!);
    // The sharpest step is at the photo's edge, and everything past it is subject.
    expect(steps.indexOf(Math.max(...steps)) + 1).toBe(100);
    expect(Math.max(...steps)).toBeGreaterThan(60);
    expect(Math.min(...row.slice(100))).toBeGreaterThanOrEqual(250);
    // Without the photo's guidance the mask would be half-way at x ≈ 94, where the refined one is well under half.
    expect(row[94]).toBeLessThan(100);
  });
});
