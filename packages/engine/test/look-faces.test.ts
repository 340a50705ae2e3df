/**
 * The look asks its face detector for boxes only (no iris, no emotion model)
 * unless retouching needs the eyes; that must change nothing the look
 * decides. On the samples and the quality bench's photos with faces (and a
 * cat, which the face mesh rejects): the same faces and boxes as the full
 * detector, and the same scene, preset, parameters and pixels from the look.
 */
import { fileURLToPath } from 'node:url';
import type { FaceRecord } from '@pfc/core';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeRaster } from '../src/image/raster';
import { applyLook, type FaceFinder } from '../src/look';
import { closeEngineWorkers, detectFaces } from '../src/vision';
import { readFile } from 'node:fs/promises';

afterAll(() => closeEngineWorkers());

const root = fileURLToPath(new URL('../../../', import.meta.url));
const PHOTOS = [
  'samples/portraits/astronaut.jpg',
  'samples/portraits/grace_hopper.jpg',
  'samples/objects/chelsea.png',
  'bench/photos/heldout/lomiri-friends.jpg',
  'bench/photos/tune/lomiri-life.jpg',
];

const boxes = (faces: readonly FaceRecord[]) => faces.map((f) => [f.left, f.top, f.width, f.height]);

describe('detectFaces with boxesOnly', () => {
  it('finds the same faces with the same boxes, without the expression model', async () => {
    for (const rel of PHOTOS) {
      const img = await decodeRaster(await readFile(root + rel));
      const full = await detectFaces(img);
      const only = await detectFaces(img, { boxesOnly: true });
      expect({ rel, boxes: boxes(only) }).toEqual({ rel, boxes: boxes(full) });
      for (const f of only) expect(f.smile).toBe(0);
    }
  });

  it('applies to its own call only: a full detection after it still reads the smile', async () => {
    const img = await decodeRaster(await readFile(root + PHOTOS[0]));
    expect((await detectFaces(img, { boxesOnly: true }))[0]!.smile).toBe(0);
    expect((await detectFaces(img))[0]!.smile).toBeGreaterThan(50);
  });
});

describe('the look with a boxes-only detector', () => {
  it('asks for boxes only, unless retouching needs the eyes', async () => {
    const img = await decodeRaster(await readFile(root + PHOTOS[1]));
    const asked: (boolean | undefined)[] = [];
    const spy: FaceFinder = (image, options) => {
      asked.push(options?.boxesOnly);
      return detectFaces(image, options);
    };
    await applyLook(img, {}, { findFaces: spy });
    await applyLook(img, { removeBlemish: true }, { findFaces: spy });
    expect(asked).toEqual([true, false]);
  });

  it('decides the same scene, preset and parameters and gives the same pixels as with the full detector', async () => {
    const full: FaceFinder = (image) => detectFaces(image);
    for (const rel of PHOTOS) {
      const img = await decodeRaster(await readFile(root + rel));
      const a = await applyLook(img, {}, { findFaces: full });
      const b = await applyLook(img, {}, { findFaces: detectFaces });
      expect({ rel, scene: b.scene, preset: b.preset, colour: b.colour }).toEqual({ rel, scene: a.scene, preset: a.preset, colour: a.colour });
      expect(Buffer.compare(Buffer.from(b.raster.data), Buffer.from(a.raster.data)), rel).toBe(0);
    }
  });
});
