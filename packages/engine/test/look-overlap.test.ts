/**
 * `applyLook` corrects while the face detector works, as if it will find no
 * face, and keeps that work only when the faces change nothing but the
 * sharpening amount (and its white balance, which the faces' skin may
 * bound). Whatever the detector answers, and however late, the result must
 * be the one of a look told the faces and where they are up front (no
 * detector, so nothing done ahead): same pixels, scene and parameters.
 */
import type { FaceRecord, PfcParams } from '@pfc/core';
import { describe, expect, it } from 'vitest';
import type { Raster } from '../src/image/raster';
import { applyLook } from '../src/look';
import { SCENE } from '../src/scene/categories';
import { rgb, sample } from './colour-helpers';

const face = (img: { width: number; height: number }, left: number): FaceRecord => ({
  confidence: 90, angle: 0, blink: 0, smile: 0, yawAngle: 0, left: img.width * left, top: img.height * 0.1, width: img.width / 5, height: img.height / 4,
  leftEye: { x: 0, y: 0 }, rightEye: { x: 0, y: 0 },
});

const later = <T>(value: T, ms: number) => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));

async function image(name: string): Promise<Raster> {
  return { ...(await rgb(sample(name))), channels: 3 };
}

/** The look with a detector that answers `faces` after `ms`, and the look told the same faces up front. */
async function both(img: Raster, faces: FaceRecord[], ms: number, params: PfcParams = {}) {
  const detected = await applyLook(img, params, { findFaces: () => later(faces, ms) });
  const told = await applyLook(img, params, {
    faces: faces.map((f) => ({ left: f.left / img.width, top: f.top / img.height, width: f.width / img.width, height: f.height / img.height })),
  });
  return { detected, told };
}

describe('applyLook while faces are detected', () => {
  const cases: [string, (img: Raster) => FaceRecord[], number][] = [
    ['no face (the guess holds)', () => [], SCENE.general],
    ['one face: a portrait, only the sharpening differs from the guess', (img) => [face(img, 0.4)], SCENE.portrait],
    ['two faces: a group, whose vibrance differs (the work is redone)', (img) => [face(img, 0.1), face(img, 0.6)], SCENE.group],
  ];
  for (const [what, faces, scene] of cases) {
    for (const ms of [0, 150]) {
      it(`${what}, answered after ${ms} ms: the pixels of the look told the faces`, async () => {
        const img = await image('objects/coffee.jpg');
        const { detected, told } = await both(img, faces(img), ms);
        expect(detected.scene).toBe(scene);
        expect(detected.colour).toEqual(told.colour);
        expect(Buffer.from(detected.raster.data).equals(Buffer.from(told.raster.data))).toBe(true);
      });
    }
  }

  it('a custom preset and preset=none come out the same too, and the input is left alone', async () => {
    const img = await image('outdoors/rocket.jpg');
    const before = Buffer.from(img.data);
    for (const params of [{ preset: 'Pro' }, { preset: 'none' }] as PfcParams[]) {
      const { detected, told } = await both(img, [face(img, 0.4)], 20, params);
      expect(Buffer.from(detected.raster.data).equals(Buffer.from(told.raster.data))).toBe(true);
    }
    expect(Buffer.from(img.data).equals(before)).toBe(true);
  });
});
