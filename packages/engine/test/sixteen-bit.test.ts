/**
 * 16-bit RGB sources (a raw converter's or Photoshop's 16-bit PNG export)
 * come out showing the colours they had. sharp treats them apart: it
 * converts one with an embedded profile to Display P3, not sRGB, on decoding
 * (its processing profile for 16-bit RGB), and its withMetadata() way over
 * such a source converts the output from P3 whether or not the source had a
 * profile. Nothing is corrected here (preset none), so every output must
 * show the source's colours, as a colour-managed viewer shows them.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { correctImage } from '../src/correct';
import { decodeRaster } from '../src/image/raster';
import { noiseBytes } from './noise';

const W = 240;
const H = 160;
const RAW = { raw: { width: W, height: H, channels: 3 as const } };

/** Saturated colours (far outside sRGB when read as P3) over a grey ramp, with some noise: what every file below shows. */
function shown(): Buffer {
  const noise = noiseBytes(W * H * 3, 5);
  const out = Buffer.alloc(W * H * 3);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const i = 3 * (y * W + x);
      const band = Math.floor((y * 4) / H);
      const f = x / (W - 1);
      const c = [[250 * f, 20, 20], [20, 250 * f, 20], [20, 20, 250 * f], [250 * f, 250 * f, 250 * f]][band]!;
      for (let k = 0; k < 3; k++) out[i + k] = Math.min(255, c[k]! + (noise[i + k]! >> 6));
    }
  }
  return out;
}

const SHOWN = shown();

/** The 16-bit PNGs: the same colours with an sRGB profile, as Display P3 numbers with a P3 profile, and with EXIF but no profile. */
async function sources(): Promise<[string, Buffer][]> {
  const base = () => sharp(SHOWN, RAW);
  return [
    ['sRGB profile', await base().withIccProfile('srgb').toColourspace('rgb16').png().toBuffer()],
    ['Display P3 profile', await base().withIccProfile('p3').toColourspace('rgb16').png().toBuffer()],
    ['EXIF, no profile', await base().toColourspace('rgb16').withExif({ IFD0: { Make: 'Camera' } }).png().toBuffer()],
  ];
}

/** An 8-bit file's pixels as a colour-managed viewer shows them (converted from its profile to sRGB). */
async function asShown(file: Buffer): Promise<Buffer> {
  return sharp(file).toColourspace('srgb').removeAlpha().raw().toBuffer();
}

function meanDifference(a: Uint8Array, b: Uint8Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i]! - b[i]!);
  return sum / a.length;
}

describe('16-bit RGB sources', () => {
  it('the sources are what the test means: 16-bit, and a P3 one holds other numbers than it shows', async () => {
    for (const [name, file] of await sources()) expect((await sharp(file).metadata()).depth, name).toBe('ushort');
    const [, p3] = (await sources())[1]!;
    const numbers = await sharp(p3, { ignoreIcc: true }).toColourspace('srgb').raw({ depth: 'uchar' }).toBuffer();
    expect(meanDifference(numbers, SHOWN)).toBeGreaterThan(4);
  });

  it('decode to the sRGB pixels the file shows', async () => {
    for (const [name, file] of await sources()) {
      const raster = await decodeRaster(file);
      expect(meanDifference(raster.data, SHOWN), name).toBeLessThan(1);
    }
  });

  it.each([true, false])('come out showing their colours (preserveMetadata %s)', async (preserveMetadata) => {
    for (const [name, file] of await sources()) {
      const { output } = await correctImage(file, { preset: 'none', preserveMetadata }, { findFaces: null });
      expect(meanDifference(await asShown(output), SHOWN), name).toBeLessThan(1);
      const meta = await sharp(output).metadata();
      expect([meta.depth, meta.icc !== undefined], name).toEqual(['uchar', preserveMetadata]);
      if (name.startsWith('EXIF')) expect(meta.exif?.toString('latin1').includes('Camera') ?? false, name).toBe(preserveMetadata);
    }
  });
});
