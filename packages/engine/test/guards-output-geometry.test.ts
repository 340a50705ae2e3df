/**
 * Output guarantees a user sees in the file correctImage writes: its size
 * under each resize strategy, its format, its transparency. Every check
 * reads the output bytes back with sharp (not the engine's own `info`).
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { correctImage } from '../src/correct';
import { sample } from './colour-helpers';

const COFFEE = sample('objects/coffee.jpg');
const NO_FACES = { findFaces: null } as const;

/** A photo as a file of exactly `width` × `height` pixels. */
const photo = (width: number, height: number, format: 'png' | 'jpeg' = 'png'): Promise<Buffer> => sharp(COFFEE).resize(width, height, { fit: 'fill' }).toFormat(format).toBuffer();

async function sizeOf(file: Buffer): Promise<[number, number]> {
  const m = await sharp(file).metadata();
  return [m.width, m.height];
}

/** The size of the file `input` comes back as, uncorrected (`preset: 'none'`) but resized by `resize`. */
async function resizedSize(input: Buffer, resize: Record<string, number>): Promise<[number, number]> {
  return sizeOf((await correctImage(input, { preset: 'none', ...resize }, NO_FACES)).output);
}

/**
 * A 120 × 80 RGBA PNG: the photo on the left half opaque, the right half
 * fully transparent, a band across the middle half-transparent (alpha 128).
 */
async function transparentPhoto(): Promise<{
  file: Buffer;
  alpha: Uint8Array;
}> {
  const W = 120;
  const H = 80;
  const { data } = await sharp(COFFEE).resize(W, H, { fit: 'fill' }).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const rgba = Buffer.alloc(W * H * 4);
  const alpha = new Uint8Array(W * H);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const p = y * W + x;
      const a = x >= W / 2 ? 0 : y >= 30 && y < 50 ? 128 : 255;
      alpha[p] = a;
      rgba[4 * p] = data[3 * p]!;
      rgba[4 * p + 1] = data[3 * p + 1]!;
      rgba[4 * p + 2] = data[3 * p + 2]!;
      rgba[4 * p + 3] = a;
    }
  }
  const file = await sharp(rgba, { raw: { width: W, height: H, channels: 4 } })
    .png()
    .toBuffer();
  return { file, alpha };
}

describe('output size: every resize strategy, as the file has it', () => {
  it('long and short act on the long and the short side (landscape 300 × 200)', async () => {
    const input = await photo(300, 200);
    expect(await resizedSize(input, { long: 150 })).toEqual([150, 100]);
    expect(await resizedSize(input, { short: 100 })).toEqual([150, 100]);
  });

  it('long and short on a portrait photo (200 × 300)', async () => {
    const input = await photo(200, 300);
    expect(await resizedSize(input, { long: 150 })).toEqual([100, 150]);
    expect(await resizedSize(input, { short: 100 })).toEqual([100, 150]);
  });

  it('width and height set that side and keep the aspect ratio', async () => {
    const input = await photo(300, 200);
    expect(await resizedSize(input, { width: 150 })).toEqual([150, 100]);
    expect(await resizedSize(input, { height: 50 })).toEqual([75, 50]);
  });

  it('scale is a percentage', async () => {
    const input = await photo(300, 200);
    expect(await resizedSize(input, { scale: 50 })).toEqual([150, 100]);
    expect(await resizedSize(input, { scale: 25 })).toEqual([75, 50]);
  });

  it('the computed side is rounded to the nearest pixel, not truncated', async () => {
    // 301 × 201 to height 100: width 149.75 → 150; to width 100: height 66.78 → 67.
    const input = await photo(301, 201);
    expect(await resizedSize(input, { height: 100 })).toEqual([150, 100]);
    expect(await resizedSize(input, { width: 100 })).toEqual([100, 67]);
  });

  it('the resized file shows the photo, not a crop of it (a scaled copy matches sharp’s own resize)', async () => {
    const input = await photo(300, 200);
    const out = (await correctImage(input, { preset: 'none', long: 150 }, NO_FACES)).output;
    const got = await sharp(out).raw().toBuffer();
    const want = await sharp(input).resize(150, 100, { fit: 'fill', kernel: 'lanczos3' }).raw().toBuffer();
    let diff = 0;
    for (let i = 0; i < got.length; i++) diff += Math.abs(got[i]! - want[i]!);
    expect(diff / got.length).toBeLessThan(2);
  });
});

describe('output format', () => {
  it('removeBackground without an outputType writes PNG, as the Web API documents', async () => {
    const jpeg = await photo(120, 80, 'jpeg');
    const r = await correctImage(jpeg, { preset: 'none', removeBackground: true }, NO_FACES);
    expect((await sharp(r.output).metadata()).format).toBe('png');
  });

  it('outputType jpg turns a PNG into a JPEG file, png a JPEG into a PNG file', async () => {
    const png = await photo(120, 80, 'png');
    const jpeg = await photo(120, 80, 'jpeg');
    expect((await sharp((await correctImage(png, { preset: 'none', outputType: 'jpg' }, NO_FACES)).output).metadata()).format).toBe('jpeg');
    expect((await sharp((await correctImage(jpeg, { preset: 'none', outputType: 'png' }, NO_FACES)).output).metadata()).format).toBe('png');
  });
});

/** The quantisation tables (DQT segments) of a JPEG: what its quality setting wrote. */
function quantTables(jpeg: Buffer): string {
  const out: string[] = [];
  for (let at = 2; at + 4 <= jpeg.length && jpeg[at] === 0xff && jpeg[at + 1] !== 0xda; at += 2 + jpeg.readUInt16BE(at + 2)) {
    if (jpeg[at + 1] === 0xdb) out.push(jpeg.subarray(at, at + 2 + jpeg.readUInt16BE(at + 2)).toString('hex'));
  }
  return out.join(' ');
}

describe('JPEG quality', () => {
  it('outputQuality is the quality the file is written at (its quantisation tables), with and without metadata', async () => {
    const input = await photo(120, 80, 'png');
    for (const q of [40, 75, 100]) {
      const want = quantTables(await sharp(input).jpeg({ quality: q }).toBuffer());
      expect(want).not.toBe('');
      for (const preserveMetadata of [true, false]) {
        const out = (await correctImage(input, { preset: 'none', outputType: 'jpg', outputQuality: q, preserveMetadata }, NO_FACES)).output;
        expect(quantTables(out), `quality ${q}, preserveMetadata ${preserveMetadata}`).toBe(want);
      }
    }
  });

  it('without outputQuality the file is written at quality 90', async () => {
    const input = await photo(120, 80, 'jpeg');
    const want = quantTables(await sharp(input).jpeg({ quality: 90 }).toBuffer());
    expect(quantTables((await correctImage(input, { preset: 'none' }, NO_FACES)).output)).toBe(want);
  });
});

describe('transparency', () => {
  for (const preserveMetadata of [true, false]) {
    it(`a PNG with alpha stays transparent where it was, corrected or not (preserveMetadata ${preserveMetadata})`, async () => {
      const { file, alpha } = await transparentPhoto();
      for (const preset of ['none', 'Universal'] as const) {
        const out = (await correctImage(file, { preset, preserveMetadata }, NO_FACES)).output;
        const meta = await sharp(out).metadata();
        expect(meta.format).toBe('png');
        expect(meta.hasAlpha).toBe(true);
        const { data, info } = await sharp(out).raw().toBuffer({ resolveWithObject: true });
        expect(info.channels).toBe(4);
        let off = 0;
        for (let p = 0; p < alpha.length; p++) off = Math.max(off, Math.abs(data[4 * p + 3]! - alpha[p]!));
        expect(off).toBeLessThanOrEqual(1);
      }
    });
  }

  for (const preserveMetadata of [true, false]) {
    it(`written as JPEG, transparent areas come out white (flattened on white), opaque ones keep the photo (preserveMetadata ${preserveMetadata})`, async () => {
      const { file } = await transparentPhoto();
      const out = (await correctImage(file, { preset: 'none', outputType: 'jpg', preserveMetadata }, NO_FACES)).output;
      const { data, info } = await sharp(out).raw().toBuffer({ resolveWithObject: true });
      expect(info.channels).toBe(3);
      // The middle of the transparent right half, away from JPEG ringing at the edge.
      let minValue = 255;
      for (let y = 10; y < 70; y++) for (let x = 75; x < 115; x++) for (let k = 0; k < 3; k++) minValue = Math.min(minValue, data[3 * (y * info.width + x) + k]!);
      expect(minValue).toBeGreaterThanOrEqual(245);
      // The opaque left half still shows the photo (not a flat fill).
      const left = await sharp(file).extract({ left: 5, top: 5, width: 40, height: 20 }).removeAlpha().raw().toBuffer();
      const got = await sharp(out).extract({ left: 5, top: 5, width: 40, height: 20 }).raw().toBuffer();
      let diff = 0;
      for (let i = 0; i < got.length; i++) diff += Math.abs(got[i]! - left[i]!);
      expect(diff / got.length).toBeLessThan(6);
    });
  }
});
