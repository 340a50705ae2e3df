/**
 * The sRGB-tagged JPEG and PNG without sharp's colour transform
 * (`image/srgb-tag.ts`) must be the very files `withMetadata()` writes: the
 * same header (EXIF with resolution and pixel dimensions, ICC profile, PNG's
 * resolution chunk) and the same image data.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { encodeRaster } from '../src/image/encode';
import { rasterToSharp, type Raster } from '../src/image/raster';
import { encodeSrgbJpeg, encodeSrgbPng } from '../src/image/srgb-tag';
import { noiseBytes } from './noise';

const JPEG = { quality: 90, chromaSubsampling: '4:4:4', optimiseCoding: false };

function noise(width: number, height: number, channels: 3 | 4, seed: number): Raster {
  return { data: noiseBytes(width * height * channels, seed), width, height, channels };
}

/** What sharp writes with the metadata options the engine uses for a source without metadata of its own. */
function viaSharp(img: Raster, density: number | undefined, jpeg = JPEG): Promise<Buffer> {
  return rasterToSharp(img).withMetadata(density ? { density } : {}).flatten({ background: '#ffffff' }).jpeg(jpeg).toBuffer();
}

describe('encodeSrgbJpeg', () => {
  const cases: [string, Raster, number | undefined][] = [
    ['1×1', noise(1, 1, 3, 1), undefined],
    ['odd size, 72 dpi', noise(333, 71, 3, 2), 72],
    ['wide, 300 dpi', noise(65500, 2, 3, 3), 300],
    ['tall, fractional dpi', noise(3, 40000, 3, 4), 96.5],
    ['RGBA flattened', noise(120, 90, 4, 5), 150],
  ];
  it.each(cases)('%s: the bytes of sharp’s withMetadata encode', async (_name, img, density) => {
    const ours = await encodeSrgbJpeg(rasterToSharp(img).flatten({ background: '#ffffff' }), img, JPEG, { density });
    expect(ours?.equals(await viaSharp(img, density))).toBe(true);
    const meta = await sharp(ours!).metadata();
    expect([meta.width, meta.height, meta.icc !== undefined, meta.exif !== undefined]).toEqual([img.width, img.height, true, true]);
  });

  it('other JPEG options: 4:2:0, optimised coding, quality 55', async () => {
    const img = noise(257, 129, 3, 6);
    const jpeg = { quality: 55, chromaSubsampling: '4:2:0', optimiseCoding: true };
    expect((await encodeSrgbJpeg(rasterToSharp(img), img, jpeg, { density: 72 }))?.equals(await viaSharp(img, 72, jpeg))).toBe(true);
  });

  it.each(cases.filter(([, img]) => img.width * img.height < 1e5))('PNG, %s: the bytes of sharp’s withMetadata encode', async (_name, img, density) => {
    const ours = await encodeSrgbPng(rasterToSharp(img), img, { compressionLevel: 6 }, { density });
    const theirs = await rasterToSharp(img).withMetadata(density ? { density } : {}).png({ compressionLevel: 6 }).toBuffer();
    expect(ours?.equals(theirs)).toBe(true);
    const meta = await sharp(ours!).metadata();
    expect([meta.width, meta.height, meta.channels, meta.icc !== undefined, meta.exif !== undefined]).toEqual([img.width, img.height, img.channels, true, true]);
  });

  it('encodeRaster of a source without metadata: the file of withMetadata({ density })', async () => {
    const img = noise(200, 150, 3, 7);
    const source = await sharp(Buffer.from(img.data), { raw: { width: 200, height: 150, channels: 3 } }).jpeg().toBuffer();
    const out = await encodeRaster(img, { format: 'jpeg', quality: 90, metadataFrom: source });
    expect(out.equals(await viaSharp(img, (await sharp(source).metadata()).density))).toBe(true);
    const png = await encodeRaster(img, { format: 'png', metadataFrom: source });
    expect(png.equals(await rasterToSharp(img).withMetadata({ density: (await sharp(source).metadata()).density! }).png({ compressionLevel: 6 }).toBuffer())).toBe(true);
  });
});
