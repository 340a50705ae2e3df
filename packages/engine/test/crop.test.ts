/**
 * Auto crop from detected faces: the pure box function on synthetic faces
 * (the plain head-and-shoulders box for type 0 without eyes) and on a
 * real portrait through the face detector.
 */
import type { FaceRecord } from '@pfc/core';
import { afterAll, describe, expect, it } from 'vitest';
import { autoCropBox, headTop, type AutoCropParams } from '../src/crop/autocrop';
import { closeEngineWorkers, detectFaces } from '../src/vision';
import { ASTRONAUT, rawImage } from './vision-helpers';

afterAll(() => closeEngineWorkers());

const face = (left: number, top: number, size: number, eyes = false): FaceRecord => ({
  confidence: 90, angle: 0, blink: 0, smile: 0, yawAngle: 0, left, top, width: size, height: size,
  leftEye: eyes ? { x: left + size * 0.3, y: top + size * 0.35 } : { x: 0, y: 0 },
  rightEye: eyes ? { x: left + size * 0.7, y: top + size * 0.35 } : { x: 0, y: 0 },
});

describe('autoCropBox (pure)', () => {
  it('matches the emulator geometry for type 0 and faces without eyes', () => {
    expect(autoCropBox({ width: 400, height: 600 }, { cropARW: '1', cropARH: '1' })).toEqual({ x: 0, y: 100, width: 400, height: 400 });
    expect(autoCropBox({ width: 500, height: 500 }, { cropARW: '16', cropARH: '9' })).toEqual({ x: 0, y: 109, width: 500, height: 281 });
    const box = autoCropBox({ width: 2000, height: 1500 }, { cropARW: '4', cropARH: '5', autocropSize: '0.5' }, [face(1000, 500, 200)]);
    expect([box.width, box.height]).toEqual([320, 400]);
    expect(box.x + box.width / 2).toBeCloseTo(1100, 0);
    const gap = autoCropBox({ width: 2000, height: 2000 }, { cropARW: '1', cropARH: '1', autocropSize: '0.25', autocropTopHeadGap: '0.1' }, [face(100, 100, 50), face(900, 800, 200)]);
    expect([gap.y, gap.height]).toEqual([800 - 80, 800]);
  });

  it('measures the head gap from the estimated crown when the eyes are known', () => {
    const f = face(900, 800, 200, true); // eyes at y 870, chin at 1000 → crown 740
    expect(headTop(f)).toBe(740);
    const box = autoCropBox({ width: 2000, height: 2000 }, { cropARW: '1', cropARH: '1', autocropSize: '0.25', autocropTopHeadGap: '0.1' }, [f]);
    expect(box.y).toBe(740 - 80);
  });

  it('gives each autocropType its framing; sent parameters win', () => {
    const src = { width: 3000, height: 3000 };
    const f = [face(1400, 1200, 200, true)];
    const h = (t: 0 | 1 | 3, p: AutoCropParams = {}) => autoCropBox(src, { autocropType: t, ...p }, f).height;
    expect(h(0)).toBe(Math.floor(200 / 0.35));
    expect(h(1)).toBe(Math.floor(200 / 0.6));
    expect(h(3)).toBe(Math.floor(200 / 0.2));
    expect(h(1, { autocropSize: '0.35' })).toBe(h(0));
    const id = autoCropBox(src, { autocropType: 2 }, f);
    expect(id.width / id.height).toBeCloseTo(35 / 45, 2);
    expect(id.y).toBe(Math.round(headTop(f[0]!) - 0.1 * id.height));
    expect(autoCropBox(src, { autocropType: 4 }, f)).toEqual({ x: 0, y: 0, width: 3000, height: 3000 });
  });
});

describe('auto crop of a real portrait', () => {
  it('frames the detected face: the crop contains the face box, both eyes and the hair above', async () => {
    const img = await rawImage(ASTRONAUT);
    const [f] = await detectFaces(img);
    const cases: AutoCropParams[] = [{}, { cropARW: '4', cropARH: '5' }, { autocropType: 1 }, { autocropType: 2 }, { autocropTopHeadGap: '0.05' }];
    for (const p of cases) {
      const box = autoCropBox(img, p, [f!]);
      expect(box.x).toBeLessThanOrEqual(f!.left);
      expect(box.y).toBeLessThanOrEqual(headTop(f!));
      expect(box.x + box.width).toBeGreaterThanOrEqual(f!.left + f!.width);
      expect(box.y + box.height).toBeGreaterThanOrEqual(f!.top + f!.height);
      expect(box.x + box.width).toBeLessThanOrEqual(img.width);
      expect(box.y + box.height).toBeLessThanOrEqual(img.height);
      // Head-centred: the eyes' midpoint is near the box's centre line (within 10 % of its width), unless the box hit the image edge.
      const mid = (f!.leftEye.x + f!.rightEye.x) / 2;
      if (box.x > 0 && box.x + box.width < img.width) expect(Math.abs(mid - (box.x + box.width / 2))).toBeLessThan(box.width * 0.1);
    }
    // The crown estimate is above the brows (the face box top) and inside the photo: the astronaut's hair starts near y = 15–30.
    expect(headTop(f!)).toBeLessThan(f!.top);
    expect(headTop(f!)).toBeGreaterThan(0);
  });
});
