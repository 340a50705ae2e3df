import { readFileSync } from 'node:fs';
import sharp, { type JpegOptions } from 'sharp';
import { describe, expect, it } from 'vitest';
import { greyJpegAsYcc, rgbProfileForGrey, sniffMedia } from '../src/index';
import { greyProfile, jpegWithIcc, rgbProfile } from '../../../test/support/icc';
import { curvTable, embeddedIcc, greyIccProfile, iccChunks, isIccSegment, jpegSegments, jpegWithIccChunks, toneProfiles, withoutIcc } from './helpers/icc-profiles';
import { decoded, expectSamePixels, greyPixels, shownDifference } from './helpers/jpeg-files';

// Fixtures sharp cannot make (it exposes no restart interval or sampling
// factors), written once with libjpeg's jpeg_set_defaults plus:
// restart_interval 5, 61×45 (48 blocks: RST0…RST7 wrap around);
// component id 7, sampling 2×2, restart_interval 2, 45×30.
const FIXTURES = new URL('./fixtures/', import.meta.url);
const fixture = (name: string) => readFileSync(new URL(name, FIXTURES));

async function greyJpeg(width: number, height: number, options: JpegOptions = {}, exif?: string): Promise<Buffer> {
  let image = sharp(greyPixels(width, height), { raw: { width, height, channels: 1 } }).toColourspace('b-w');
  if (exif) image = image.withExif({ IFD0: { ImageDescription: exif } });
  const jpeg = await image.jpeg(options).toBuffer();
  expect(sniffMedia(jpeg)?.components).toBe(1);
  return jpeg;
}

interface SegmentAt {
  marker: number;
  offset: number;
  length: number;
}

/** Marker segments from SOI up to and including SOS (test data has no fill bytes). */
function segments(jpeg: Uint8Array): SegmentAt[] {
  const found: SegmentAt[] = [];
  for (let at = 2; found.at(-1)?.marker !== 0xda; ) {
    const length = (jpeg[at + 2]! << 8) | jpeg[at + 3]!;
    found.push({ marker: jpeg[at + 1]!, offset: at, length });
    at += 2 + length;
  }
  return found;
}

const segment = (jpeg: Uint8Array, marker: number) => segments(jpeg).find((s) => s.marker === marker)!;

/** `jpeg` with an APPn segment inserted after SOI. */
function withApp(jpeg: Buffer, marker: number, payload: Buffer): Buffer {
  const head = Buffer.from([0xff, marker, (payload.length + 2) >> 8, (payload.length + 2) & 0xff]);
  return Buffer.concat([jpeg.subarray(0, 2), head, payload, jpeg.subarray(2)]);
}

/** A copy of `jpeg` with the byte at `offset` set to `value`. */
function patched(jpeg: Buffer, offset: number, value: number): Buffer {
  const copy = Buffer.from(jpeg);
  copy[offset] = value;
  return copy;
}

/** The grey's Huffman tables renumbered from id 0 to id 1 (DHT and SOS), so the chroma tables must take id 0. */
function withTableIds1(jpeg: Buffer): Buffer {
  const copy = Buffer.from(jpeg);
  for (const dht of segments(copy).filter((s) => s.marker === 0xc4)) {
    for (let at = dht.offset + 4; at < dht.offset + 2 + dht.length; ) {
      copy[at] = copy[at]! | 1;
      at += 17 + copy.subarray(at + 1, at + 17).reduce((sum, n) => sum + n, 0);
    }
  }
  const sos = segment(copy, 0xda);
  copy[sos.offset + 6] = 0x11;
  return copy;
}

describe('greyJpegAsYcc', () => {
  const sizes = [
    [1, 1],
    [7, 9],
    [33, 17],
    [640, 427],
  ] as const;
  for (const [width, height] of sizes) {
    for (const quality of [50, 100]) {
      for (const optimiseCoding of [true, false]) {
        it(`keeps every pixel of a ${width}×${height} grey JPEG, quality ${quality}, ${optimiseCoding ? 'optimised' : 'standard'} Huffman tables`, async () => {
          const grey = await greyJpeg(width, height, { quality, optimiseCoding });
          await expectSamePixels(grey, greyJpegAsYcc(grey));
        });
      }
    }
  }

  it('keeps every pixel with trellis quantisation and another quantisation table', async () => {
    const grey = await greyJpeg(99, 51, { quality: 80, trellisQuantisation: true, quantisationTable: 3 });
    await expectSamePixels(grey, greyJpegAsYcc(grey));
  });

  it('keeps EXIF', async () => {
    const grey = await greyJpeg(40, 24, { quality: 90 }, 'grey test scene');
    const ycc = greyJpegAsYcc(grey)!;
    await expectSamePixels(grey, ycc);
    expect((await sharp(ycc).metadata()).exif?.toString('latin1')).toContain('grey test scene');
  });

  it('keeps every pixel across restart markers, RST0…RST7 wrapping around', async () => {
    const grey = fixture('grey-restart-interval-5.jpg');
    expect(segment(grey, 0xdd)).toBeDefined();
    expect(grey.includes(Buffer.from([0xff, 0xd7]))).toBe(true);
    await expectSamePixels(grey, greyJpegAsYcc(grey));
  });

  it('keeps every pixel of a component with id 7 and sampling factors 2×2', async () => {
    const grey = fixture('grey-sampling-2x2-id-7-restart-2.jpg');
    expect(grey.subarray(segment(grey, 0xc0).offset + 10, segment(grey, 0xc0).offset + 12)).toEqual(Buffer.from([7, 0x22]));
    await expectSamePixels(grey, greyJpegAsYcc(grey));
  });

  it('gives the chroma Huffman tables the id the grey scan does not use', async () => {
    const grey = withTableIds1(await greyJpeg(48, 40, { quality: 85 }));
    await expectSamePixels(grey, greyJpegAsYcc(grey));
  });

  it('keeps XMP and comments; drops an MPF index, whose offsets point at images after EOI that the output leaves out', async () => {
    const xmp = Buffer.from('http://ns.adobe.com/xap/1.0/\0<x:xmpmeta xmlns:x="adobe:ns:meta/"/>', 'latin1');
    const grey = withApp(withApp(withApp(await greyJpeg(24, 16), 0xe1, xmp), 0xfe, Buffer.from('a comment')), 0xe2, Buffer.from('MPF\0II*\0', 'latin1'));
    const ycc = Buffer.from(greyJpegAsYcc(grey)!);
    await expectSamePixels(grey, ycc);
    expect([ycc.includes(xmp), ycc.includes('a comment'), ycc.includes('MPF\0')]).toEqual([true, true, false]);
  });

  it('drops an Adobe APP14 segment, whose transform flag would make decoders read the components as RGB', async () => {
    const adobe = Buffer.from([...Buffer.from('Adobe', 'latin1'), 0, 100, 0, 0, 0, 0, 0]); // version 100, flags 0, transform 0
    const grey = withApp(await greyJpeg(24, 16, { quality: 90 }), 0xee, adobe);
    await expectSamePixels(grey, greyJpegAsYcc(grey));
  });

  it('refuses a colour JPEG; converts a progressive grey one as progressive (grey-jpeg-progressive.test)', async () => {
    const colour = await sharp(Buffer.alloc(16 * 8 * 3, 90), { raw: { width: 16, height: 8, channels: 3 } }).jpeg().toBuffer();
    expect(greyJpegAsYcc(colour)).toBeUndefined();
    expect(greyJpegAsYcc(await greyJpeg(33, 17))).toBeDefined();
    const progressive = await greyJpeg(33, 17, { progressive: true });
    expect((await sharp(greyJpegAsYcc(progressive)!).metadata()).isProgressive).toBe(true);
  });

  it('refuses lossless, arithmetic-coded, 12-bit and DNL-height frames, and a second scan', async () => {
    const grey = await greyJpeg(33, 17);
    const sof = segment(grey, 0xc0).offset;
    expect(greyJpegAsYcc(patched(grey, sof + 1, 0xc3))).toBeUndefined();
    expect(greyJpegAsYcc(patched(grey, sof + 1, 0xc9))).toBeUndefined();
    expect(greyJpegAsYcc(patched(grey, sof + 4, 12))).toBeUndefined();
    expect(greyJpegAsYcc(patched(patched(grey, sof + 5, 0), sof + 6, 0))).toBeUndefined();
    const secondScan = Buffer.concat([grey.subarray(0, -2), grey.subarray(segment(grey, 0xda).offset)]);
    expect(greyJpegAsYcc(secondScan)).toBeUndefined();
  });

  it('refuses truncated data anywhere, random bytes and other formats', async () => {
    const grey = await greyJpeg(64, 48, { quality: 90 });
    const dataStart = segment(grey, 0xda).offset + 2 + segment(grey, 0xda).length;
    for (const end of [2, 20, dataStart, dataStart + 100, grey.length - 3, grey.length - 1]) expect(greyJpegAsYcc(grey.subarray(0, end))).toBeUndefined();
    let seed = 7;
    const random = Uint8Array.from({ length: 4096 }, () => (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24);
    expect(greyJpegAsYcc(random)).toBeUndefined();
    expect(greyJpegAsYcc(Uint8Array.from([0xff, 0xd8, 0xff, ...random]))).toBeUndefined();
    expect(greyJpegAsYcc(new Uint8Array(0))).toBeUndefined();
    expect(greyJpegAsYcc(await sharp(greyPixels(8, 8), { raw: { width: 8, height: 8, channels: 1 } }).png().toBuffer())).toBeUndefined();
  });
});

/** The ICC profile `jpeg` carries, as sharp reads it. */
async function iccOf(jpeg: Uint8Array): Promise<Buffer | undefined> {
  return (await sharp(jpeg).metadata()).icc;
}

describe('greyJpegAsYcc with an ICC profile', () => {
  for (const { name, profile, lcmsGreyExact } of toneProfiles()) {
    it(`keeps the JPEG data bit for bit and the tones a viewer shows, the grey profile swapped for its RGB one: ${name}`, async () => {
      const plain = await greyJpeg(96, 64, { quality: 90 });
      const grey = jpegWithIcc(plain, profile);
      const ycc = greyJpegAsYcc(grey);
      expect(ycc).toBeDefined();
      expect(await sharp(ycc!).metadata()).toMatchObject({ format: 'jpeg', channels: 3, width: 96, height: 64 });
      const icc = await iccOf(ycc!);
      expect(icc?.subarray(16, 20).toString('latin1')).toBe('RGB ');
      expect(icc?.equals(rgbProfileForGrey(profile)!)).toBe(true);
      // Only the profile changed: without it, the output is the profile-less transcode of the same JPEG.
      expect(withoutIcc(ycc!).equals(greyJpegAsYcc(plain)!)).toBe(true);
      // The same tones (lcms, within a level where its grey transform is exact: see toneProfiles) …
      expect(await shownDifference(ycc!, grey)).toBeLessThanOrEqual(lcmsGreyExact ? 1 : 5);
      // … which are not the grey numbers read as sRGB: the profile mattered.
      const numbers = (await decoded(plain, 'srgb')).data;
      const shown = (await decoded(grey, 'srgb')).data;
      expect(shown.reduce((max, v, i) => Math.max(max, Math.abs(v - numbers[i]!)), 0)).toBeGreaterThanOrEqual(5);
    });
  }

  it('refuses any profile when asked to (profiles: false, for a result that will go without one); a JPEG without a profile is converted still', async () => {
    const plain = await greyJpeg(40, 24, { quality: 90 });
    const grey = jpegWithIcc(plain, greyProfile('Gray Gamma 2.2', 2.2));
    expect(greyJpegAsYcc(grey)).toBeDefined();
    expect(greyJpegAsYcc(grey, { profiles: false })).toBeUndefined();
    expect(greyJpegAsYcc(plain, { profiles: false })).toEqual(greyJpegAsYcc(plain));
  });

  it('writes the RGB profile where the first ICC segment was, keeping the other segments in their order', async () => {
    const plain = await greyJpeg(40, 24, { quality: 90 }, 'grey test scene');
    const afterFirst = 2 + jpegSegments(plain)[0]![1].length;
    const grey = jpegWithIccChunks(plain, iccChunks(greyProfile('Gray Gamma 2.2', 2.2), 2), afterFirst);
    const ycc = greyJpegAsYcc(grey)!;
    const markers = (jpeg: Uint8Array) => jpegSegments(jpeg).map((s) => (isIccSegment(s) ? 'ICC' : s[0]));
    const before = markers(grey).filter((m, i, all) => m !== 'ICC' || all[i - 1] !== 'ICC');
    expect(markers(ycc)).toEqual([...before.slice(0, -1), 0xc4, 0xda]);
    expect((await sharp(ycc).metadata()).exif?.toString('latin1')).toContain('grey test scene');
  });

  describe('split over several APP2 segments', () => {
    // A profile over 64 KB: a 40000-entry table takes three input segments here, and its RGB profile two.
    const big = greyIccProfile(2, 'Gamma 2.2 (40000 entries)', [['kTRC', curvTable(40000, (x) => x ** 2.2)]]);
    const chunks = iccChunks(big, 3);

    it('reassembles it by sequence number, whatever the order of the segments, and writes the RGB one over as many as it needs', async () => {
      const plain = await greyJpeg(64, 48, { quality: 90 });
      const inOrder = jpegWithIccChunks(plain, chunks);
      const ycc = greyJpegAsYcc(inOrder)!;
      expect(ycc).toBeDefined();
      for (const order of [[2, 0, 1], [1, 2, 0], [2, 1, 0]]) {
        expect(Buffer.from(greyJpegAsYcc(jpegWithIccChunks(plain, order.map((k) => chunks[k]!)))!).equals(ycc), order.join()).toBe(true);
      }
      const rgb = rgbProfileForGrey(big)!;
      expect(rgb.length).toBeGreaterThan(65519);
      const written = embeddedIcc(ycc);
      expect(written.numbering).toEqual([
        [1, 2],
        [2, 2],
      ]);
      expect(written.profile.equals(rgb)).toBe(true);
      expect((await iccOf(ycc))?.equals(rgb)).toBe(true);
      expect(withoutIcc(ycc).equals(greyJpegAsYcc(plain)!)).toBe(true);
      expect(await shownDifference(ycc, inOrder)).toBeLessThanOrEqual(1);
    });

    it('refuses a missing, repeated or misnumbered segment', async () => {
      const plain = await greyJpeg(24, 16);
      const [one, two, three] = chunks as [[number, number, Uint8Array], [number, number, Uint8Array], [number, number, Uint8Array]];
      const sets: [number, number, Uint8Array][][] = [
        [one, two],
        [one, three],
        [one, two, three, three],
        [one, two, [2, 3, three[2]]],
        [one, two, [4, 3, three[2]]],
        [[0, 3, one[2]], two, three],
        [one, two, [3, 4, three[2]]],
        [[1, 0, one[2]]],
      ];
      for (const set of sets) expect(greyJpegAsYcc(jpegWithIccChunks(plain, set)), set.map(([s, c]) => `${s}/${c}`).join(' ')).toBeUndefined();
      expect(greyJpegAsYcc(jpegWithIccChunks(plain, [one, two, three]))).toBeDefined();
    });
  });

  it('refuses a profile it cannot convert: RGB, CMYK, a Lab connection space, malformed or cut short', async () => {
    const plain = await greyJpeg(33, 17);
    const srgbLike = rgbProfile('sRGB-like', { r: [0.436, 0.2225, 0.0139], g: [0.3851, 0.7169, 0.0971], b: [0.1431, 0.0606, 0.7141] }, 2.2);
    const curve: [string, Uint8Array] = ['kTRC', curvTable(256, (x) => x ** 2)];
    const gamma22 = greyProfile('Gray Gamma 2.2', 2.2);
    const wrongSize = Buffer.from(gamma22);
    wrongSize.writeUInt32BE(gamma22.length + 8, 0);
    for (const profile of [srgbLike, greyIccProfile(2, 'CMYK', [curve], { space: 'CMYK' }), greyIccProfile(2, 'Lab grey', [curve], { pcs: 'Lab ' }), gamma22.subarray(0, 200), wrongSize, Buffer.alloc(0)]) {
      expect(greyJpegAsYcc(jpegWithIcc(plain, profile))).toBeUndefined();
    }
  });
});
