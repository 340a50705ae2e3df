/**
 * Face detection on real photos. Reference positions were measured once on
 * these files (astronaut: eyes at about (204.6, 100.4) and (246.2, 102.6);
 * Grace Hopper: (215, 190.8) and (305.6, 186.8)) and checked by eye; the
 * tolerances leave room for backend rounding, not for a wrong face.
 */
import type { FaceRecord } from '@pfc/core';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { EngineError } from '../src/errors';
import { closeEngineWorkers, createDetectionEngine, detectFaces } from '../src/vision';
import { ASTRONAUT, COFFEE, GRACE_HOPPER, rawImage } from './vision-helpers';

afterAll(() => closeEngineWorkers());

const near = (p: { x: number; y: number }, x: number, y: number, tol: number) => {
  expect(Math.abs(p.x - x), `x ${p.x} vs ${x}`).toBeLessThanOrEqual(tol);
  expect(Math.abs(p.y - y), `y ${p.y} vs ${y}`).toBeLessThanOrEqual(tol);
};

/** Structural checks every record must pass: integer fields, eyes inside the upper half of the box, left eye left. */
function checkRecord(f: FaceRecord, width: number, height: number): void {
  for (const k of ['confidence', 'angle', 'blink', 'smile', 'yawAngle', 'left', 'top', 'width', 'height'] as const) expect(Number.isInteger(f[k]), k).toBe(true);
  expect(f.confidence).toBeGreaterThanOrEqual(50);
  expect(f.confidence).toBeLessThanOrEqual(100);
  expect(f.left + f.width).toBeLessThanOrEqual(width);
  expect(f.top + f.height).toBeLessThanOrEqual(height);
  for (const e of [f.leftEye, f.rightEye]) {
    expect(e.x).toBeGreaterThan(f.left);
    expect(e.x).toBeLessThan(f.left + f.width);
    expect(e.y).toBeGreaterThan(f.top);
    expect(e.y).toBeLessThan(f.top + f.height / 2);
  }
  expect(f.leftEye.x).toBeLessThan(f.rightEye.x);
}

describe('detectFaces', () => {
  it('finds the one face of the astronaut portrait with its eyes, smile and open eyes', async () => {
    const img = await rawImage(ASTRONAUT);
    const faces = await detectFaces(img);
    expect(faces).toHaveLength(1);
    const f = faces[0]!;
    checkRecord(f, img.width, img.height);
    near(f.leftEye, 204.6, 100.4, 6);
    near(f.rightEye, 246.2, 102.6, 6);
    near({ x: f.left, y: f.top }, 152, 50, 15);
    expect(f.width).toBeGreaterThan(110);
    expect(f.width).toBeLessThan(180);
    expect(Math.abs(f.angle)).toBeLessThanOrEqual(8);
    expect(Math.abs(f.yawAngle)).toBeLessThanOrEqual(15);
    expect(f.smile).toBeGreaterThan(50); // a broad smile
    expect(f.blink).toBeLessThan(50);
  });

  it('finds Grace Hopper, not smiling, eyes open', async () => {
    const img = await rawImage(GRACE_HOPPER);
    const faces = await detectFaces(img);
    expect(faces).toHaveLength(1);
    const f = faces[0]!;
    checkRecord(f, img.width, img.height);
    near(f.leftEye, 215, 190.8, 8);
    near(f.rightEye, 305.6, 186.8, 8);
    expect(f.smile).toBeLessThan(50);
    expect(f.blink).toBeLessThan(50);
  });

  it('finds no face in a photo of a coffee cup', async () => {
    expect(await detectFaces(await rawImage(COFFEE))).toEqual([]);
  });

  it('keeps left/right as the image shows them: a mirrored photo mirrors the eyes', async () => {
    const img = await rawImage(sharp(ASTRONAUT).flop());
    const [f] = await detectFaces(img);
    checkRecord(f!, img.width, img.height);
    near(f!.leftEye, 512 - 246.2, 102.6, 6);
    near(f!.rightEye, 512 - 204.6, 100.4, 6);
  });

  it('reports the tilt of a rotated head in degrees, clockwise positive', async () => {
    const cw = await detectFaces(await rawImage(sharp(ASTRONAUT).rotate(20, { background: '#808080' })));
    const ccw = await detectFaces(await rawImage(sharp(ASTRONAUT).rotate(-20, { background: '#808080' })));
    // The upright photo's eye line is tilted about +3°.
    expect(cw[0]!.angle).toBeGreaterThanOrEqual(23 - 6);
    expect(cw[0]!.angle).toBeLessThanOrEqual(23 + 6);
    expect(ccw[0]!.angle).toBeGreaterThanOrEqual(-17 - 6);
    expect(ccw[0]!.angle).toBeLessThanOrEqual(-17 + 6);
  });

  it('reports a large photo in its own pixels (the detector works on a smaller copy)', async () => {
    const img = await rawImage(sharp(ASTRONAUT).resize(2560));
    const [f] = await detectFaces(img);
    checkRecord(f!, img.width, img.height);
    near(f!.leftEye, 204.6 * 5, 100.4 * 5, 30);
    near(f!.rightEye, 246.2 * 5, 102.6 * 5, 30);
  });

  it('accepts grey and RGBA pixels', async () => {
    for (const s of [sharp(ASTRONAUT).greyscale(), sharp(ASTRONAUT).ensureAlpha()]) {
      const img = await rawImage(s);
      const [f] = await detectFaces(img);
      near(f!.leftEye, 204.6, 100.4, 6);
    }
  });

  it('runs parallel calls on the worker pool with the same answers', async () => {
    const a = await rawImage(ASTRONAUT);
    const g = await rawImage(GRACE_HOPPER);
    const results = await Promise.all([a, g, a, g, a].map((img) => detectFaces(img)));
    const [ra, rg] = results;
    expect(results.map((r) => r.length)).toEqual([1, 1, 1, 1, 1]);
    expect(results[2]).toEqual(ra);
    expect(results[4]).toEqual(ra);
    expect(results[3]).toEqual(rg);
  });

  it('rejects malformed pixels with an error naming the field', async () => {
    const img = await rawImage(ASTRONAUT);
    await expect(detectFaces({ ...img, data: img.data.subarray(1) })).rejects.toThrow(/data has \d+ bytes, expected width × height × channels/);
    await expect(detectFaces({ ...img, channels: 2 as 3 })).rejects.toThrow(/channels must be 1, 3 or 4/);
    await expect(detectFaces({ ...img, width: 0 })).rejects.toBeInstanceOf(EngineError);
  });

  it('works again after the workers are closed, and as the emulator engine hook', async () => {
    await closeEngineWorkers();
    const { faces } = await createDetectionEngine().detect(await rawImage(GRACE_HOPPER));
    expect(faces).toHaveLength(1);
  });
});
