/**
 * AI upscaling: ESRGAN-slim restores a halved photo closer to the original
 * than Lanczos does, sizes come out exact, alpha survives, and the documented
 * upscaling limits are enforced with the limit named.
 */
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { correctImage } from '../src/correct';
import type { Raster } from '../src/image/raster';
import { closeUpscaleWorkers } from '../src/upscale/pool';
import { upscaleRaster } from '../src/upscale/upscale';
import { sample } from './colour-helpers';

afterAll(() => closeUpscaleWorkers());

const psnr = (a: Uint8Array, b: Uint8Array): number => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += (a[i]! - b[i]!) ** 2;
  return 10 * Math.log10((255 * 255) / (s / a.length));
};
async function raw(input: Buffer, width: number, height: number): Promise<Raster> {
  const data = await sharp(input).resize(width, height, { fit: 'fill' }).removeAlpha().raw().toBuffer();
  return { data: new Uint8Array(data), width, height, channels: 3 };
}

describe('upscaleRaster', () => {
  it('restores a halved photo better than Lanczos (ESRGAN ×2, exact size)', async () => {
    const original = await raw(sample('portraits/astronaut.jpg'), 256, 256);
    const half = await raw(await sharp(Buffer.from(original.data), { raw: { width: 256, height: 256, channels: 3 } }).png().toBuffer(), 128, 128);
    const { raster, method } = await upscaleRaster(half, { width: 256, height: 256 }, 'general');
    expect(method).toBe('esrgan-x2');
    expect([raster.width, raster.height, raster.channels]).toEqual([256, 256, 3]);
    const lanczos = await sharp(Buffer.from(half.data), { raw: { width: 128, height: 128, channels: 3 } }).resize(256, 256, { kernel: 'lanczos3' }).raw().toBuffer();
    expect(psnr(original.data, raster.data)).toBeGreaterThan(psnr(original.data, lanczos) + 1);
  });

  it('picks the model by factor and mode, keeps alpha, and leaves shrinking to Lanczos', async () => {
    const img = await raw(sample('objects/coffee.jpg'), 90, 60);
    expect((await upscaleRaster(img, { width: 270, height: 180 }, 'general')).method).toBe('esrgan-x4');
    const small = await upscaleRaster(img, { width: 270, height: 180 }, 'smallDetails');
    expect(small.method).toBe('esrgan-x2');
    expect([small.raster.width, small.raster.height]).toEqual([270, 180]);
    expect((await upscaleRaster(img, { width: 45, height: 30 })).method).toBe('lanczos');

    const rgba: Raster = { data: new Uint8Array(90 * 60 * 4), width: 90, height: 60, channels: 4 };
    for (let i = 0; i < 90 * 60; i++) {
      rgba.data.set(img.data.subarray(i * 3, i * 3 + 3), i * 4);
      rgba.data[i * 4 + 3] = i % 90 < 45 ? 255 : 0;
    }
    const up = await upscaleRaster(rgba, { width: 180, height: 120 });
    expect(up.raster.channels).toBe(4);
    expect(up.raster.data[(10 * 180 + 20) * 4 + 3]).toBe(255);
    expect(up.raster.data[(10 * 180 + 160) * 4 + 3]).toBe(0);
  });
});

describe('correctImage with an enlarging resize', () => {
  it('upscales with the model, counts imageResizeCount and enforces the limits', async () => {
    const small = await sharp(sample('objects/coffee.jpg')).resize(120, 80).jpeg().toBuffer();
    const r = await correctImage(small, { scale: 200, preset: 'none' });
    expect(r.info).toMatchObject({ width: 240, height: 160 });
    expect(r.usage).toMatchObject({ imageResizeCount: 1, classicResizeCount: 0 });
    const thin = await sharp(sample('objects/coffee.jpg')).resize(150, 60, { fit: 'fill' }).jpeg().toBuffer();
    await expect(correctImage(thin, { scale: 200 })).rejects.toThrow(/at least 64 pixels on the shorter side; the image has 60/);
    await expect(correctImage(small, { width: 9000, resize: 'smallDetails' })).rejects.toThrow(/would be 9000 px; the limit is 8192 px for resize=smallDetails/);
  });
});
