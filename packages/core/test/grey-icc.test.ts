import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { greyJpegAsYcc, rgbProfileForGrey } from '../src/index';
import { rgbProfileForGrey as fromMediaEntry } from '../src/media/sniff';
import { greyProfile, jpegWithIcc, rgbProfile } from '../../../test/support/icc';
import {
  curvTable,
  D50,
  D50_ENCODED,
  dotGain,
  gammaWithToe,
  greyIccProfile,
  iccProfile,
  mluc,
  para,
  sf32,
  srgbLevel,
  tagData,
  tagTable,
  textDescription,
  toneProfiles,
  xyz,
  xyzNumbers,
  type Xyz,
} from './helpers/icc-profiles';

const v2Gamma22 = () => greyProfile('Gray Gamma 2.2', 2.2);
const v2DotGain = () => greyIccProfile(2, 'Dot Gain 20%', [['kTRC', curvTable(256, dotGain(20))]], { cls: 'prtr' });
const v4Para = () => greyIccProfile(4, 'Gray Gamma 1.8 with a linear toe', [['chad', sf32([1, 0, 0, 0, 1, 0, 0, 0, 1])], ['kTRC', para(3, gammaWithToe(1.8, 0.099))]]);

/** The profile, or a failed expectation: the tests below read it. */
function converted(grey: Uint8Array): Buffer {
  const rgb = rgbProfileForGrey(grey);
  expect(rgb).toBeDefined();
  return Buffer.from(rgb!);
}

const text = (b: Uint8Array, at: number, length: number) => Buffer.from(b.subarray(at, at + length)).toString('latin1');

/** The header fields and tag table a reader checks first: size, signatures, aligned tags inside the profile. */
function expectWellFormed(rgb: Buffer): void {
  expect(rgb.readUInt32BE(0)).toBe(rgb.length);
  expect(rgb.length % 4).toBe(0);
  expect([text(rgb, 12, 4), text(rgb, 16, 4), text(rgb, 20, 4), text(rgb, 36, 4)]).toEqual(['mntr', 'RGB ', 'XYZ ', 'acsp']);
  expect(rgb.subarray(84, 128).every((byte) => byte === 0)).toBe(true);
  const tableEnd = 132 + 12 * tagTable(rgb).length;
  for (const tag of tagTable(rgb)) {
    expect(tag.offset % 4, tag.sig).toBe(0);
    expect(tag.offset, tag.sig).toBeGreaterThanOrEqual(tableEnd);
    expect(tag.offset + tag.size, tag.sig).toBeLessThanOrEqual(rgb.length);
  }
}

function colorantSums(rgb: Buffer): Xyz {
  const [r, g, b] = ['rXYZ', 'gXYZ', 'bXYZ'].map((sig) => xyzNumbers(tagData(rgb, sig)!));
  return [0, 1, 2].map((i) => r![i]! + g![i]! + b![i]!) as Xyz;
}

/**
 * Every value 0…255 as a colour-managed viewer (lcms, in sharp) shows it: in
 * a grey JPEG under `grey`, and in the same JPEG data as R = G = B
 * (greyJpegAsYcc without a profile) under `rgb`. Quality 100, so the ramp
 * stays close to its numbers.
 */
async function shownRamps(grey: Uint8Array, rgb: Uint8Array): Promise<{ greyShown: Buffer; rgbShown: Buffer; ramp: Buffer }> {
  const width = 256;
  const plain = await sharp(Buffer.from(Array.from({ length: width * 8 }, (_, i) => i % width)), { raw: { width, height: 8, channels: 1 } })
    .toColourspace('b-w')
    .jpeg({ quality: 100 })
    .toBuffer();
  const [greyShown, rgbShown] = await Promise.all(
    [jpegWithIcc(plain, Buffer.from(grey)), jpegWithIcc(Buffer.from(greyJpegAsYcc(plain)!), Buffer.from(rgb))].map((jpeg) => sharp(jpeg).toColourspace('srgb').raw().toBuffer()),
  );
  const ramp = await sharp(plain).toColourspace('b-w').raw().toBuffer();
  // The decoded grey samples, each three times (as the sRGB renderings' R, G, B).
  return { greyShown: greyShown!, rgbShown: rgbShown!, ramp: Buffer.from(Array.from({ length: 3 * ramp.length }, (_, i) => ramp[Math.floor(i / 3)]!)) };
}

function maxDifference(a: Buffer, b: Buffer): number {
  expect(a.length).toBe(b.length);
  return a.reduce((max, v, i) => Math.max(max, Math.abs(v - b[i]!)), 0);
}

describe('rgbProfileForGrey', () => {
  it('is exported from the package and from its media entry', () => {
    expect(fromMediaEntry).toBe(rgbProfileForGrey);
  });

  for (const { name, profile, trc, lcmsGreyExact } of toneProfiles()) {
    it(`shows every value R = G = B as the grey profile shows the grey value: ${name}`, async () => {
      const { greyShown, rgbShown, ramp } = await shownRamps(profile, converted(profile));
      // Against the tones themselves: the kTRC's Y, sRGB-encoded.
      const exact = [...ramp].map((v) => srgbLevel(trc(v / 255)));
      expect(rgbShown.reduce((max, v, i) => Math.max(max, Math.abs(v - exact[i]!)), 0)).toBeLessThanOrEqual(1);
      // Against lcms showing the grey JPEG itself (see ToneProfile.lcmsGreyExact for where it strays).
      expect(maxDifference(greyShown, rgbShown)).toBeLessThanOrEqual(lcmsGreyExact ? 1 : 5);
      // The grey profile matters: its tones are not the decoded numbers read as sRGB.
      expect(maxDifference(greyShown, ramp)).toBeGreaterThanOrEqual(5);
    });

    it(`is a well-formed RGB display profile, its colorants summing to the PCS illuminant exactly: ${name}`, () => {
      const rgb = converted(profile);
      expectWellFormed(rgb);
      expect(colorantSums(rgb)).toEqual([profile.readInt32BE(68), profile.readInt32BE(72), profile.readInt32BE(76)]);
      expect(rgb.subarray(8, 12)).toEqual(profile.subarray(8, 12));
      expect(rgb.subarray(24, 36)).toEqual(profile.subarray(24, 36));
      expect(rgb.subarray(64, 80)).toEqual(profile.subarray(64, 80));
    });
  }

  it('points rTRC, gTRC and bTRC at one copy of the grey kTRC, byte for byte', () => {
    for (const grey of [v2Gamma22(), v2DotGain(), v4Para()]) {
      const rgb = converted(grey);
      const trcs = tagTable(rgb).filter((t) => ['rTRC', 'gTRC', 'bTRC'].includes(t.sig));
      expect(trcs).toHaveLength(3);
      expect(new Set(trcs.map((t) => t.offset)).size).toBe(1);
      expect(tagData(rgb, 'rTRC')).toEqual(tagData(grey, 'kTRC'));
    }
  });

  it('has exactly the tags of a matrix/TRC display profile; copies wtpt, cprt and chad', () => {
    const grey = v4Para();
    const rgb = converted(grey);
    expect(tagTable(rgb).map((t) => t.sig)).toEqual(['desc', 'cprt', 'wtpt', 'chad', 'rXYZ', 'gXYZ', 'bXYZ', 'rTRC', 'gTRC', 'bTRC']);
    for (const sig of ['cprt', 'wtpt', 'chad']) expect(tagData(rgb, sig), sig).toEqual(tagData(grey, sig));
    const v2 = converted(v2Gamma22());
    expect(tagTable(v2).map((t) => t.sig)).toEqual(['desc', 'cprt', 'wtpt', 'rXYZ', 'gXYZ', 'bXYZ', 'rTRC', 'gTRC', 'bTRC']);
  });

  it('describes itself with the type of its version: v2 textDescriptionType, v4 mluc, naming the grey profile', () => {
    const v2 = converted(v2DotGain());
    expect(v2.readUInt32BE(8)).toBe(0x02100000);
    const desc2 = tagData(v2, 'desc')!;
    expect(text(desc2, 0, 4)).toBe('desc');
    const ascii = desc2.readUInt32BE(8);
    expect(text(desc2, 12, ascii)).toBe('RGB for Dot Gain 20% (greyscale data as RGB)\0');
    expect(desc2.length).toBe(12 + ascii + 4 + 4 + 3 + 67);

    const v4 = converted(v4Para());
    expect(v4.readUInt32BE(8)).toBe(0x04300000);
    const desc4 = tagData(v4, 'desc')!;
    expect(text(desc4, 0, 4)).toBe('mluc');
    expect(Buffer.from(desc4.subarray(28, 28 + desc4.readUInt32BE(20))).swap16().toString('utf16le')).toBe('RGB for Gray Gamma 1.8 with a linear toe (greyscale data as RGB)');
  });

  it('keeps a v4 para curve in a v4 profile (v2 has no para)', () => {
    const rgb = converted(v4Para());
    expect([rgb[8], text(tagData(rgb, 'rTRC')!, 0, 4)]).toEqual([4, 'para']);
  });

  it('gives the sRGB colorants adapted to D50', () => {
    const rgb = converted(v2Gamma22());
    const colorants = ['rXYZ', 'gXYZ', 'bXYZ'].map((sig) => xyzNumbers(tagData(rgb, sig)!).map((v) => v / 65536));
    const srgbD50 = [
      [0.436, 0.2225, 0.0139],
      [0.3851, 0.7169, 0.0971],
      [0.1431, 0.0606, 0.7141],
    ];
    colorants.forEach((c, i) => c.forEach((v, k) => expect(Math.abs(v - srgbD50[i]![k]!)).toBeLessThan(3e-4)));
  });

  it('sums the colorants to the illuminant as this header encodes it, when it rounds D50 another way', () => {
    const illuminant: Xyz = [D50_ENCODED[0] - 1, D50_ENCODED[1], D50_ENCODED[2] - 1];
    const grey = greyIccProfile(2, 'Rounded', [['kTRC', curvTable(256, (x) => x ** 2)]], { illuminant });
    expect(colorantSums(converted(grey))).toEqual(illuminant);
  });

  it('describes a grey profile without a readable name, or without copyright or white point, all the same', () => {
    const bare = iccProfile({ version: 0x02100000, tags: [['kTRC', curvTable(256, (x) => x ** 2)]] });
    const rgb = converted(bare);
    expectWellFormed(rgb);
    expect(text(tagData(rgb, 'desc')!, 12, 46)).toBe('RGB for a grey profile (greyscale data as RGB)');
    expect(text(tagData(rgb, 'cprt')!, 0, 4)).toBe('text');
    expect(xyzNumbers(tagData(rgb, 'wtpt')!)).toEqual(D50_ENCODED);
    const bareV4 = converted(iccProfile({ version: 0x04300000, tags: [['desc', mluc('Grau ü')], ['kTRC', para(0, [2.2])]] }));
    expect(text(tagData(bareV4, 'cprt')!, 0, 4)).toBe('mluc');
    const desc = tagData(bareV4, 'desc')!;
    expect(Buffer.from(desc.subarray(28)).swap16().toString('utf16le')).toBe('RGB for Grau ü (greyscale data as RGB)');
  });

  describe('refuses', () => {
    const kTrc: [string, Uint8Array] = ['kTRC', curvTable(256, (x) => x ** 2)];

    it('what is not an ICC profile, or not a grey one', () => {
      expect(rgbProfileForGrey(new Uint8Array(0))).toBeUndefined();
      expect(rgbProfileForGrey(new Uint8Array(200))).toBeUndefined();
      const noAcsp = v2Gamma22();
      noAcsp.write('xxxx', 36, 'latin1');
      expect(rgbProfileForGrey(noAcsp)).toBeUndefined();
      expect(rgbProfileForGrey(rgbProfile('sRGB-ish', { r: [0.436, 0.2225, 0.0139], g: [0.3851, 0.7169, 0.0971], b: [0.1431, 0.0606, 0.7141] }, 2.2))).toBeUndefined();
      expect(rgbProfileForGrey(greyIccProfile(2, 'CMYK', [kTrc], { space: 'CMYK' }))).toBeUndefined();
      expect(rgbProfileForGrey(converted(v2Gamma22()))).toBeUndefined();
    });

    it('a Lab connection space, a device link, and versions other than 2 and 4', () => {
      expect(rgbProfileForGrey(greyIccProfile(2, 'Lab grey', [kTrc], { pcs: 'Lab ' }))).toBeUndefined();
      expect(rgbProfileForGrey(greyIccProfile(4, 'Lab grey', [kTrc], { pcs: 'Lab ' }))).toBeUndefined();
      expect(rgbProfileForGrey(greyIccProfile(2, 'Link', [kTrc], { cls: 'link' }))).toBeUndefined();
      expect(rgbProfileForGrey(greyIccProfile(2, 'v5', [kTrc], { version: 0x05000000 }))).toBeUndefined();
      expect(rgbProfileForGrey(greyIccProfile(2, 'v2', [kTrc]))).toBeDefined();
    });

    it('no kTRC, a kTRC of another type, a para in a v2 profile, a curve its tag cannot hold', () => {
      expect(rgbProfileForGrey(greyIccProfile(2, 'No curve', []))).toBeUndefined();
      expect(rgbProfileForGrey(greyIccProfile(2, 'XYZ curve', [['kTRC', xyz(D50)]]))).toBeUndefined();
      expect(rgbProfileForGrey(greyIccProfile(2, 'v2 para', [['kTRC', para(0, [2.2])]]))).toBeUndefined();
      expect(rgbProfileForGrey(greyIccProfile(4, 'para type 5', [['kTRC', para(5, [2.2, 1, 0, 0, 0, 0, 0, 0])]]))).toBeUndefined();
      expect(rgbProfileForGrey(greyIccProfile(4, 'short para', [['kTRC', para(3, [2.2, 1, 0])]]))).toBeUndefined();
      const short = curvTable(256, (x) => x);
      short.writeUInt32BE(257, 8);
      expect(rgbProfileForGrey(greyIccProfile(2, 'short curv', [['kTRC', short]]))).toBeUndefined();
    });

    it('a grey LUT, which decides the tones instead of kTRC', () => {
      expect(rgbProfileForGrey(greyIccProfile(2, 'LUT', [kTrc, ['A2B0', Buffer.from('mft2\0\0\0\0', 'latin1')]]))).toBeUndefined();
    });

    it('a PCS illuminant other than D50, a malformed white point or chromatic adaptation', () => {
      expect(rgbProfileForGrey(greyIccProfile(2, 'D65', [kTrc], { illuminant: [62289, 65536, 71372] }))).toBeUndefined();
      expect(rgbProfileForGrey(iccProfile({ version: 0x02100000, tags: [['wtpt', textDescription('not an XYZ')], kTrc] }))).toBeUndefined();
      expect(rgbProfileForGrey(greyIccProfile(4, 'chad', [['chad', sf32([1, 0, 0])], kTrc]))).toBeUndefined();
    });

    it('a size field that is not the length, a tag past the end or inside the tag table, a signature twice, a huge tag count', () => {
      const grey = v2DotGain();
      const withSize = (size: number) => patchedU32(grey, 0, size);
      expect(rgbProfileForGrey(withSize(grey.length + 4))).toBeUndefined();
      expect(rgbProfileForGrey(withSize(grey.length - 4))).toBeUndefined();
      expect(rgbProfileForGrey(Buffer.concat([grey, Buffer.alloc(4)]))).toBeUndefined();
      const kTrcEntry = 132 + 12 * tagTable(grey).findIndex((t) => t.sig === 'kTRC');
      expect(rgbProfileForGrey(patchedU32(grey, kTrcEntry + 8, grey.length))).toBeUndefined();
      expect(rgbProfileForGrey(patchedU32(grey, kTrcEntry + 4, 128))).toBeUndefined();
      expect(rgbProfileForGrey(patchedU32(grey, 128, 0xffffffff))).toBeUndefined();
      const twice = Buffer.from(grey);
      twice.write('kTRC', 132, 'latin1');
      expect(rgbProfileForGrey(twice)).toBeUndefined();
    });

    it('the profile cut short anywhere, and never throws on damaged bytes', () => {
      for (const grey of [v2DotGain(), v4Para()]) {
        for (let end = 0; end < grey.length; end += 7) expect(rgbProfileForGrey(grey.subarray(0, end))).toBeUndefined();
        let seed = 99;
        const random = () => (seed = (seed * 1103515245 + 12345) >>> 0) >>> 8;
        for (let n = 0; n < 2000; n++) {
          const damaged = Buffer.from(grey);
          for (let k = 0; k < 3; k++) damaged[random() % 400] = random() & 0xff;
          expect(() => rgbProfileForGrey(damaged)).not.toThrow();
        }
      }
    });
  });
});

function patchedU32(b: Buffer, at: number, value: number): Buffer {
  const copy = Buffer.from(b);
  copy.writeUInt32BE(value >>> 0, at);
  return copy;
}
