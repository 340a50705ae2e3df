/**
 * JPEG output keeps a 4:2:0 source's chroma subsampling and writes 4:4:4
 * for everything else (`keptSubsampling`, image/encode.ts).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { PfcParams } from '@pfc/core';
import { correctImage } from '../src/correct';
import { lumaSampling } from '../src/image/encode';

const sample = (rel: string) => readFileSync(fileURLToPath(new URL(`../../../samples/${rel}`, import.meta.url)));

async function subsamplingOf(input: Buffer, params: PfcParams = {}): Promise<string | undefined> {
  const { output } = await correctImage(input, params, { findFaces: null });
  return (await sharp(output).metadata()).chromaSubsampling;
}

describe('JPEG chroma subsampling of the output', () => {
  const rocket = sample('outdoors/rocket.jpg');

  it('a 4:2:0 JPEG stays 4:2:0 (with and without its metadata)', async () => {
    expect((await sharp(rocket).metadata()).chromaSubsampling).toBe('4:2:0');
    expect(await subsamplingOf(rocket)).toBe('4:2:0');
    expect(await subsamplingOf(rocket, { preserveMetadata: false })).toBe('4:2:0');
  });

  it('a 4:4:4 JPEG stays 4:4:4', async () => {
    const full = await sharp(rocket).jpeg({ quality: 95, chromaSubsampling: '4:4:4' }).toBuffer();
    expect((await sharp(full).metadata()).chromaSubsampling).toBe('4:4:4');
    expect(await subsamplingOf(full)).toBe('4:4:4');
  });

  it('a 4:2:2 JPEG (as many cameras write) comes out 4:4:4, though sharp calls it 4:2:0', async () => {
    // samples/outdoors/rocket.jpg at 160 px, written by ImageMagick with -sampling-factor 2x1.
    const camera = readFileSync(fileURLToPath(new URL('fixtures/rocket-422.jpg', import.meta.url)));
    expect((await sharp(camera).metadata()).chromaSubsampling).toBe('4:2:0');
    expect(lumaSampling(camera)).toBe('2x1');
    expect(await subsamplingOf(camera)).toBe('4:4:4');
    expect(lumaSampling(rocket)).toBe('2x2');
    expect(lumaSampling(await sharp(rocket).jpeg({ chromaSubsampling: '4:4:4' }).toBuffer())).toBe('1x1');
  });

  it('a PNG written as JPEG is 4:4:4', async () => {
    expect(await subsamplingOf(sample('objects/chelsea.png'), { outputType: 'jpg' })).toBe('4:4:4');
  });
});
