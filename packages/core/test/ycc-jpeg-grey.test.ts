/**
 * yccJpegAsGrey: a colour JPEG with no colour in it (every pixel R = G = B,
 * as the service returns a greyscale photo sent as colour) as a greyscale
 * JPEG, checked against libjpeg-turbo's decoding (sharp, `failOn: 'warning'`):
 * every grey sample is the colour JPEG's decoded R = G = B.
 */
import { readFileSync } from 'node:fs';
import sharp, { type JpegOptions } from 'sharp';
import { describe, expect, it } from 'vitest';
import { greyJpegAsYcc, greyProfileForRgb, sniffMedia, yccJpegAsGrey } from '../src/index';
import { greyProfile, jpegWithIcc, rgbProfile, SRGB_D50 } from '../../../test/support/icc';
import { embeddedIcc, iccProfile, jpegSegments, tagData, withoutIcc } from './helpers/icc-profiles';
import { decoded, expectSamePixels, greyPixels, shownDifference } from './helpers/jpeg-files';

const FIXTURES = new URL('./fixtures/', import.meta.url);
const fixture = (name: string) => readFileSync(new URL(name, FIXTURES));

/**
 * A colour JPEG of a greyscale picture: R = G = B in every pixel, as sharp (libjpeg-turbo) encodes it; with `tint`,
 * a 4 × 4 patch of strong blue there (a single faint pixel may quantise to no colour at all, and the JPEG is then grey).
 */
async function neutralJpeg(width: number, height: number, options: JpegOptions = {}, tint?: { x: number; y: number }): Promise<Buffer> {
  const grey = greyPixels(width, height);
  const rgb = Buffer.alloc(grey.length * 3);
  grey.forEach((v, i) => rgb.fill(v, 3 * i, 3 * i + 3));
  for (let y = tint?.y ?? height; y < Math.min(height, (tint?.y ?? 0) + 4); y++) {
    for (let x = tint!.x; x < Math.min(width, tint!.x + 4); x++) rgb.set([20, 40, 230], 3 * (y * width + x));
  }
  return sharp(rgb, { raw: { width, height, channels: 3 } }).jpeg(options).toBuffer();
}

async function expectGrey(ycc: Buffer): Promise<Uint8Array> {
  const grey = yccJpegAsGrey(ycc);
  expect(grey).toBeDefined();
  expect(sniffMedia(grey!)).toMatchObject({ format: 'jpeg', components: 1, grey: true });
  // The samples as stored (a profile would have sharp convert them); the tones shown are checked apart.
  await expectSamePixels(withoutIcc(grey!), withoutIcc(ycc));
  return grey!;
}

describe('yccJpegAsGrey', () => {
  const SIZES: [number, number][] = [[64, 48], [61, 45], [17, 9], [8, 8], [1, 1], [33, 47], [301, 199]];
  for (const subsampling of ['4:4:4', '4:2:0'] as const) {
    it(`${subsampling}: every size, whole MCUs or padded in both directions, keeps every sample`, async () => {
      for (const [w, h] of SIZES) await expectGrey(await neutralJpeg(w, h, { chromaSubsampling: subsampling }));
    });
  }

  it('optimised Huffman tables, low and high quality, EXIF and a comment kept', async () => {
    for (const options of [{ optimiseCoding: true, quality: 90 }, { quality: 20 }, { quality: 100 }] satisfies JpegOptions[]) {
      await expectGrey(await neutralJpeg(120, 80, { ...options, chromaSubsampling: '4:2:0' }));
    }
    const tagged = await sharp(await neutralJpeg(40, 30)).withExif({ IFD0: { ImageDescription: 'kept' } }).jpeg({ chromaSubsampling: '4:2:0' }).toBuffer();
    const grey = await expectGrey(tagged);
    expect(Buffer.from(grey).includes('kept')).toBe(true);
  });

  it('undoes greyJpegAsYcc: the grey JPEG comes back sample for sample, across restart markers and other sampling factors', async () => {
    for (const source of [fixture('grey-restart-interval-5.jpg'), fixture('grey-sampling-2x2-id-7-restart-2.jpg')]) {
      const ycc = Buffer.from(greyJpegAsYcc(source)!);
      const back = await expectGrey(ycc);
      const [a, b] = await Promise.all([decoded(source, 'b-w'), decoded(back, 'b-w')]);
      expect(b.data.equals(a.data)).toBe(true);
    }
  });

  it('refuses any colour: a small tinted patch, in 4:4:4 and in 4:2:0, in the last block or inside; a colour photo', async () => {
    for (const chromaSubsampling of ['4:4:4', '4:2:0'] as const) {
      expect(yccJpegAsGrey(await neutralJpeg(64, 48, { chromaSubsampling }, { x: 60, y: 44 }))).toBeUndefined();
      expect(yccJpegAsGrey(await neutralJpeg(64, 48, { chromaSubsampling }, { x: 20, y: 5 }))).toBeUndefined();
    }
    const photo = await sharp({ create: { width: 32, height: 32, channels: 3, background: { r: 200, g: 120, b: 40 } } }).jpeg().toBuffer();
    expect(yccJpegAsGrey(photo)).toBeUndefined();
  });

  it('refuses what it cannot rewrite: progressive, a greyscale JPEG already, truncated data, not a JPEG', async () => {
    const neutral = await neutralJpeg(64, 48);
    expect(yccJpegAsGrey(await neutralJpeg(64, 48, { progressive: true }))).toBeUndefined();
    expect(yccJpegAsGrey(await sharp(greyPixels(16, 16), { raw: { width: 16, height: 16, channels: 1 } }).toColourspace('b-w').jpeg().toBuffer())).toBeUndefined();
    for (const cut of [neutral.length - 2, neutral.length - 40, Math.round(neutral.length / 2), 300, 3]) expect(yccJpegAsGrey(neutral.subarray(0, cut)), `cut at ${cut}`).toBeUndefined();
    expect(yccJpegAsGrey(new Uint8Array([0x89, 0x50, 0x4e, 0x47]))).toBeUndefined();
  });

  it('refuses components stored as RGB (libjpeg\'s rule): an Adobe segment with transform 0, or ids R, G, B without JFIF', async () => {
    // sharp writes no JFIF segment for raw input: libjpeg reads the components by their ids, then.
    const neutral = await neutralJpeg(32, 32, { chromaSubsampling: '4:4:4' });
    expect(jpegSegments(neutral).map(([marker]) => marker)).not.toContain(0xe0);
    await expectGrey(neutral);
    expect(yccJpegAsGrey(insertAfterSoi(neutral, adobe(0)))).toBeUndefined();
    await expectGrey(insertAfterSoi(neutral, adobe(1)));
    expect(yccJpegAsGrey(withIds(neutral, [0x52, 0x47, 0x42]))).toBeUndefined();
    // With JFIF the components are YCbCr whatever their ids.
    await expectGrey(insertAfterSoi(withIds(neutral, [0x52, 0x47, 0x42]), JFIF));
  });

  it('an sRGB profile becomes a grey one with the same curve: the tones shown stay the same', async () => {
    const tagged = await sharp(await neutralJpeg(96, 64)).withIccProfile('srgb').jpeg({ chromaSubsampling: '4:2:0' }).toBuffer();
    const grey = await expectGrey(tagged);
    const rgbIcc = embeddedIcc(tagged).profile;
    const greyIcc = embeddedIcc(grey).profile;
    expect(greyIcc.subarray(12, 24).toString('latin1')).toBe('mntrGRAYXYZ ');
    expect(tagData(greyIcc, 'kTRC')).toEqual(tagData(rgbIcc, 'rTRC'));
    expect(await shownDifference(grey, tagged)).toBeLessThanOrEqual(1);
  });

  it('the RGB profile made for a grey one becomes that grey profile again, by name and curve', async () => {
    const original = greyProfile('Gray Gamma 1.8 (test)', 1.8);
    const greyJpeg = jpegWithIcc(await sharp(greyPixels(40, 30), { raw: { width: 40, height: 30, channels: 1 } }).toColourspace('b-w').jpeg().toBuffer(), original);
    const back = await expectGrey(Buffer.from(greyJpegAsYcc(greyJpeg)!));
    const profile = embeddedIcc(back).profile;
    expect(tagData(profile, 'kTRC')).toEqual(tagData(original, 'kTRC'));
    expect(Buffer.from(tagData(profile, 'desc')!).toString('latin1')).toContain('Gray Gamma 1.8 (test)');
    expect(await shownDifference(back, greyJpeg)).toBe(0);
  });

  it('keeps the colour JPEG where its profile cannot describe grey: three different curves', async () => {
    const curves = [1.8, 2.2, 2.4].map((g) => rgbProfile('x', SRGB_D50, g).subarray(0));
    const mixed = iccProfile({
      version: 0x02100000, space: 'RGB ',
      tags: [['rXYZ', tagData(curves[0]!, 'rXYZ')!], ['gXYZ', tagData(curves[0]!, 'gXYZ')!], ['bXYZ', tagData(curves[0]!, 'bXYZ')!],
        ['rTRC', tagData(curves[0]!, 'rTRC')!], ['gTRC', tagData(curves[1]!, 'gTRC')!], ['bTRC', tagData(curves[2]!, 'bTRC')!]],
    });
    expect(greyProfileForRgb(mixed)).toBeUndefined();
    expect(yccJpegAsGrey(jpegWithIcc(await neutralJpeg(16, 16), mixed))).toBeUndefined();
    expect(yccJpegAsGrey(jpegWithIcc(await neutralJpeg(16, 16), rgbProfile('same curve', SRGB_D50, 2.2)))).toBeDefined();
  });
});

/** A JFIF APP0 segment: version 1.01, no density unit, 1:1, no thumbnail. */
const JFIF = Buffer.from([0xff, 0xe0, 0, 16, ...Buffer.from('JFIF\0', 'latin1'), 1, 1, 0, 0, 1, 0, 1, 0, 0]);

function insertAfterSoi(jpeg: Buffer, segment: Buffer): Buffer {
  return Buffer.concat([jpeg.subarray(0, 2), segment, jpeg.subarray(2)]);
}

/** An Adobe APP14 segment: "Adobe", version 100, flags 0 and 0, then the colour transform. */
function adobe(transform: number): Buffer {
  return Buffer.from([0xff, 0xee, 0, 14, ...Buffer.from('Adobe'), 0, 100, 0, 0, 0, 0, transform]);
}

/** `jpeg` with its frame's and scan's component ids replaced (in order). */
function withIds(jpeg: Buffer, ids: number[]): Buffer {
  const out = Buffer.from(jpeg);
  for (const [marker, bytes] of jpegSegments(out)) {
    const at = out.indexOf(bytes);
    if (marker === 0xc0) ids.forEach((id, k) => (out[at + 10 + 3 * k] = id));
    if (marker === 0xda) ids.forEach((id, k) => (out[at + 5 + 2 * k] = id));
  }
  return out;
}
