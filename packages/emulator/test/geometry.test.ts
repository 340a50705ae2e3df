/**
 * Pure geometry: resize targets for portrait/landscape/square, and the
 * auto-crop boxes the emulator gets from @pfc/engine's `autoCropBox` (its own
 * tests cover the details; these pin what the emulator relies on).
 */
import type { FaceRecord } from '@pfc/core';
import { AUTOCROP_TYPES, autoCropBox } from '@pfc/engine';
import { describe, expect, it } from 'vitest';
import { capLongSide, resizeTarget } from '../src/webapi/geometry';

const portrait = { width: 400, height: 600 };
const square = { width: 500, height: 500 };

describe('resizeTarget', () => {
  it.each([
    [portrait, { long: 300 }, { width: 200, height: 300 }],
    [portrait, { short: 100 }, { width: 100, height: 150 }],
    [portrait, { width: 100 }, { width: 100, height: 150 }],
    [portrait, { height: 100 }, { width: 67, height: 100 }],
    [square, { long: 64 }, { width: 64, height: 64 }],
    [square, { short: 64 }, { width: 64, height: 64 }],
    [{ width: 3, height: 1000 }, { width: 32 }, { width: 32, height: 10667 }],
    [{ width: 1000, height: 3 }, { width: 32 }, { width: 32, height: 1 }],
    [portrait, { scale: 1 }, { width: 4, height: 6 }],
    [portrait, {}, undefined],
  ])('%j with %j → %j', (src, p, expected) => {
    expect(resizeTarget(src, p)).toEqual(expected);
  });

  it('capLongSide keeps the aspect and returns the same object when within the cap', () => {
    expect(capLongSide({ width: 10000, height: 5000 }, 5000)).toEqual({ width: 5000, height: 2500 });
    const small = { width: 10, height: 20 };
    expect(capLongSide(small, 5000)).toBe(small);
  });
});

const face = (left: number, top: number, size: number): FaceRecord => ({
  confidence: 1, angle: 0, blink: 0, smile: 0, yawAngle: 0, left, top, width: size, height: size,
  leftEye: { x: 0, y: 0 }, rightEye: { x: 0, y: 0 },
});

describe('autoCropBox (@pfc/engine)', () => {
  it('without faces (an engine-less emulator): the largest centred box of the aspect', () => {
    expect(autoCropBox(portrait, { cropARW: '1', cropARH: '1' })).toEqual({ x: 0, y: 100, width: 400, height: 400 });
    expect(autoCropBox(portrait, {})).toEqual({ x: 0, y: 0, width: 400, height: 600 });
    expect(autoCropBox(square, { cropARW: '16', cropARH: '9' })).toEqual({ x: 0, y: 109, width: 500, height: 281 });
  });

  it('with a face: frames it by autocropSize and stays inside the image', () => {
    const box = autoCropBox({ width: 2000, height: 1500 }, { cropARW: '4', cropARH: '5', autocropSize: '0.5' }, [face(1000, 500, 200)]);
    expect(box.height).toBe(400);
    expect(box.width).toBe(320);
    expect(box.x + box.width / 2).toBeCloseTo(1100, 0);
    const edge = autoCropBox({ width: 2000, height: 1500 }, { cropARW: '1', cropARH: '1' }, [face(0, 0, 300)]);
    expect(edge.x).toBe(0);
    expect(edge.y).toBe(0);
    expect(edge.width).toBeLessThanOrEqual(1500);
  });

  it('uses the largest face and honours autocropTopHeadGap', () => {
    const box = autoCropBox({ width: 2000, height: 2000 }, { cropARW: '1', cropARH: '1', autocropSize: '0.25', autocropTopHeadGap: '0.1' }, [face(100, 100, 50), face(900, 800, 200)]);
    expect(box.height).toBe(800);
    expect(box.y).toBe(800 - 80);
  });

  it('autocropType: 2 (ID) defaults to 35:45, 4 ignores faces; sent parameters win over the type defaults', () => {
    const src = { width: 2000, height: 2000 };
    const faces = [face(900, 800, 200)];
    const id = autoCropBox(src, { autocropType: 2 }, faces);
    expect(id.width / id.height).toBeCloseTo(AUTOCROP_TYPES[2]!.aspect!, 2);
    expect(id.height).toBe(Math.floor(200 / AUTOCROP_TYPES[2]!.size));
    expect(autoCropBox(src, { autocropType: 4, cropARW: '1', cropARH: '2' }, faces)).toEqual({ x: 500, y: 0, width: 1000, height: 2000 });
    const sent = autoCropBox(src, { autocropType: 2, cropARW: '1', cropARH: '1', autocropSize: '0.25' }, faces);
    expect(sent).toMatchObject({ width: 800, height: 800 });
  });

  it('with eye positions the head gap is measured from the crown, above the face box (hair kept)', () => {
    const eyed: FaceRecord = { ...face(900, 800, 200), leftEye: { x: 950, y: 880 }, rightEye: { x: 1050, y: 880 } };
    const box = autoCropBox({ width: 2000, height: 2000 }, { cropARW: '1', cropARH: '1', autocropSize: '0.25', autocropTopHeadGap: '0.1' }, [eyed]);
    // Crown = 2·eyeY − chin = 1760 − 1000 = 760, 40 px above the box top; gap 0.1 of 800 px.
    expect(box.y).toBe(760 - 80);
    expect(box.x + box.width / 2).toBeCloseTo(1000, 0);
  });
});
