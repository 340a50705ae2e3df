/**
 * The engine seam: a toy engine (inverting look, one fixed face, a left-half
 * mask) proves the pipeline hands pixels to the hooks and uses what they return.
 */
import type { FaceRecord } from '@pfc/core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS, processImage, type ImagingEngine, type RawImage } from '../src/index';
import { closeAll, COFFEE, download, emulator, runJob, startJob, upload, waitFor } from './helpers';

const face: FaceRecord = {
  confidence: 90, angle: 0, blink: 0, smile: 0, yawAngle: 0,
  left: 400, top: 100, width: 80, height: 80,
  leftEye: { x: 420.5, y: 130 }, rightEye: { x: 460.5, y: 130 },
};

const toy: ImagingEngine = {
  async detect(img) {
    expect([img.width, img.height, img.channels]).toEqual([600, 400, 3]);
    return { faces: [face], scene: 7, glare: true, noise: 'low', redEye: 'none' };
  },
  async look(img) {
    const data = Buffer.from(img.data);
    for (let i = 0; i < data.length; i++) if (img.channels !== 4 || i % 4 !== 3) data[i] = 255 - data[i]!;
    return { ...img, data };
  },
  async segment(img): Promise<RawImage> {
    const data = Buffer.alloc(img.width * img.height);
    for (let y = 0; y < img.height; y++) data.fill(255, y * img.width, y * img.width + Math.floor(img.width / 2));
    return { data, width: img.width, height: img.height, channels: 1 };
  },
};

async function pixel(bytes: Buffer, x: number, y: number): Promise<number[]> {
  const { data, info } = await sharp(bytes).raw().toBuffer({ resolveWithObject: true });
  const i = (y * info.width + x) * info.channels;
  return [...data.subarray(i, i + info.channels)];
}

describe('processImage with a toy engine', () => {
  it('applies the look, keeps metadata, and frames the detected face', async () => {
    const tagged = await sharp(COFFEE).withExif({ IFD0: { Copyright: 'seam' } }).jpeg({ quality: 95 }).toBuffer();
    const r = await processImage(tagged, { autocrop: true, cropARW: '1', cropARH: '1', includeDetectionData: true, removeGlares: true, outputQuality: 95 }, {
      limits: DEFAULT_LIMITS,
      engine: toy,
    });
    // Face 80 px high at autocropSize 0.35 → box about 228 px, centred on the face horizontally.
    expect(r.autoCrop!.width).toBe(r.autoCrop!.height);
    expect(r.autoCrop!.width).toBeGreaterThan(200);
    expect(r.autoCrop!.x).toBeLessThan(face.left);
    expect(r.autoCrop!.x + r.autoCrop!.width).toBeGreaterThan(face.left + face.width);
    expect(r.detectionData).toMatchObject({ facesCount: 1, scene: 7, noise: 'low', status: 'OK' });
    expect(r.usage.removeGlaresCount).toBe(1);
    const src = await pixel(await sharp(tagged).extract({ left: r.autoCrop!.x, top: r.autoCrop!.y, width: 1, height: 1 }).png().toBuffer(), 0, 0);
    const out = await pixel(r.output, 0, 0);
    for (let c = 0; c < 3; c++) expect(Math.abs(out[c]! - (255 - src[c]!))).toBeLessThan(24);
    expect((await sharp(r.output).metadata()).exif).toBeDefined();
  });
});

describe('background modes through the API with an engine mask', () => {
  let web: string;
  beforeAll(async () => {
    web = (await emulator({ engine: { segment: toy.segment } })).web;
  });
  afterAll(closeAll);

  it('transparent: alpha from the mask', async () => {
    const r = await runJob(web, COFFEE, { removeBackground: true });
    const { bytes } = await download(r);
    expect((await pixel(bytes, 10, 10))[3]).toBe(255);
    expect((await pixel(bytes, 590, 10))[3]).toBe(0);
  });

  it('solid colour: the background becomes the colour', async () => {
    const r = await runJob(web, COFFEE, { removeBackground: true, bgColor: 'red', outputType: 'png' });
    const { bytes } = await download(r);
    expect(await pixel(bytes, 590, 10)).toEqual([255, 0, 0]);
  });

  it('image: the background comes from bgFileKey', async () => {
    const blue = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#0000ff' } }).png().toBuffer();
    const bgKey = await upload(web, blue);
    const ep = await startJob(web, { fileKey: await upload(web, COFFEE), removeBackground: true, bgFileKey: bgKey, outputType: 'png' });
    const r = await waitFor(ep);
    expect(r.status, r.statusText).toBe('COMPLETED');
    const { bytes } = await download(r);
    expect(await pixel(bytes, 590, 10)).toEqual([0, 0, 255]);
  });

  it('400 when bgFileKey names no uploaded image', async () => {
    const res = await fetch(`${web}/pfc?fileKey=${await upload(web, COFFEE)}&removeBackground=true&bgFileKey=00000000-0000-4000-8000-000000000000`, {
      headers: { 'X-API-KEY': 'test-key' },
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toMatch(/bgFileKey .* unknown/);
  });
});
