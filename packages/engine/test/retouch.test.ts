/**
 * Retouching on real portraits with the engine's faces: painted-on blemishes
 * and glasses glare are reduced, nothing changes outside the faces, a photo
 * without a face (or glasses) is left as it was, and the glare counters
 * follow the documented rules.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FaceRecord } from '@pfc/core';
import { correctImage } from '../src/correct';
import type { Raster } from '../src/image/raster';
import { removeBlemishes } from '../src/retouch/blemish';
import { findGlare, removeGlare } from '../src/retouch/glare';
import { closeEngineWorkers, detectFaces } from '../src/vision';
import { png, rgb, sample } from './colour-helpers';

afterAll(() => closeEngineWorkers());

async function load(name: string): Promise<{ img: Raster; faces: FaceRecord[] }> {
  const r = await rgb(sample(name));
  const img: Raster = { ...r, channels: 3 };
  return { img, faces: await detectFaces(img) };
}
const luma = (img: Raster, x: number, y: number) => {
  const i = (Math.round(y) * img.width + Math.round(x)) * 3;
  return 0.299 * img.data[i]! + 0.587 * img.data[i + 1]! + 0.114 * img.data[i + 2]!;
};
/** Darken a small disc (a spot), in place. */
function paintSpot(img: Raster, cx: number, cy: number, r: number, by: number): void {
  for (let y = -r; y <= r; y++) {
    for (let x = -r; x <= r; x++) {
      if (x * x + y * y > r * r) continue;
      const i = (Math.round(cy + y) * img.width + Math.round(cx + x)) * 3;
      for (let c = 0; c < 3; c++) img.data[i + c] = Math.max(0, img.data[i + c]! - by - (c === 0 ? 0 : 10));
    }
  }
}
/** A soft white highlight (glare), in place. */
function paintGlare(img: Raster, cx: number, cy: number, rx: number, ry: number): void {
  for (let y = -ry; y <= ry; y++) {
    for (let x = -rx; x <= rx; x++) {
      const q = (x / rx) ** 2 + (y / ry) ** 2;
      if (q > 1) continue;
      const i = (Math.round(cy + y) * img.width + Math.round(cx + x)) * 3;
      for (let c = 0; c < 3; c++) img.data[i + c] = Math.round(img.data[i + c]! * q + 250 * (1 - q));
    }
  }
}

describe('removeBlemishes', () => {
  let astronaut: { img: Raster; faces: FaceRecord[] };
  beforeAll(async () => {
    astronaut = await load('portraits/astronaut.jpg');
  });

  it('fills painted spots on the cheeks and changes nothing outside the face', () => {
    const { faces } = astronaut;
    expect(faces).toHaveLength(1);
    const f = faces[0]!;
    const img: Raster = { ...astronaut.img, data: Uint8Array.from(astronaut.img.data) };
    const spots = [
      [f.left + f.width * 0.3, f.top + f.height * 0.62],
      [f.left + f.width * 0.7, f.top + f.height * 0.6],
    ] as const;
    // How much darker a spot is than the ring of skin 6 px around it.
    const depth = (im: Raster, x: number, y: number) => {
      let ring = 0;
      for (let k = 0; k < 8; k++) ring += luma(im, x + 6 * Math.cos((k * Math.PI) / 4), y + 6 * Math.sin((k * Math.PI) / 4));
      return ring / 8 - luma(im, x, y);
    };
    for (const [x, y] of spots) paintSpot(img, x, y, 2, 60);
    const before = spots.map(([x, y]) => depth(img, x, y));
    const { raster, faces: n } = removeBlemishes(img, faces);
    expect(n).toBe(1);
    spots.forEach(([x, y], k) => {
      expect(before[k]).toBeGreaterThan(30);
      expect(depth(raster, x, y)).toBeLessThan(before[k]! * 0.4);
    });
    for (let y = 0; y < img.height; y++) {
      for (let x = 0; x < img.width; x++) {
        if (x >= f.left && x < f.left + f.width && y >= f.top && y < f.top + f.height) continue;
        const i = (y * img.width + x) * 3;
        if (raster.data[i] !== img.data[i] || raster.data[i + 1] !== img.data[i + 1] || raster.data[i + 2] !== img.data[i + 2]) {
          throw new Error(`pixel ${x},${y} outside the face changed`);
        }
      }
    }
  });

  it('leaves a photo without faces untouched', async () => {
    const coffee = await load('objects/coffee.jpg');
    expect(coffee.faces).toEqual([]);
    expect(removeBlemishes(coffee.img, coffee.faces).raster).toBe(coffee.img);
    const plain = await correctImage(await png(coffee.img), { preset: 'none' });
    const retouched = await correctImage(await png(coffee.img), { preset: 'none', removeBlemish: true });
    expect(Buffer.from((await rgb(retouched.output)).data).equals(Buffer.from((await rgb(plain.output)).data))).toBe(true);
  });
});

describe('glasses glare', () => {
  it('finds and reduces a highlight on a lens, and counts it', async () => {
    const { img, faces } = await load('portraits/grace_hopper.jpg');
    const f = faces[0]!;
    const gx = f.leftEye.x + 18;
    const gy = f.leftEye.y - 12;
    paintGlare(img, gx, gy, 10, 7);
    const finding = findGlare(img, faces);
    expect(finding.found).toBe(true);
    const { raster, found } = removeGlare(img, faces);
    expect(found).toBe(true);
    expect(luma(img, gx, gy)).toBeGreaterThan(240);
    expect(luma(raster, gx, gy)).toBeLessThan(luma(img, gx, gy) - 60);
    // The eye's catch-light is not glare.
    expect(luma(raster, f.leftEye.x, f.leftEye.y)).toBe(luma(img, f.leftEye.x, f.leftEye.y));

    const r = await correctImage(await png(img), { removeGlares: true });
    expect(r.usage).toMatchObject({ glaresDetectorCount: 1, removeGlaresTotalCount: 1, removeGlaresCount: 1 });
  });

  it('finds none without glasses: counted as submitted, not as corrected', async () => {
    const { img, faces } = await load('portraits/astronaut.jpg');
    expect(findGlare(img, faces).found).toBe(false);
    const r = await correctImage(await png(img), { removeGlares: true, preset: 'none' });
    expect(r.usage).toMatchObject({ glaresDetectorCount: 1, removeGlaresTotalCount: 1, removeGlaresCount: 0 });
    expect(Buffer.from((await rgb(r.output)).data).equals(Buffer.from(img.data))).toBe(true);
  });
});
