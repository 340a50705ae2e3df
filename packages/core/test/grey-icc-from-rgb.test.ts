/**
 * greyProfileForRgb: the grey profile that shows grey v as an RGB matrix/TRC
 * profile shows R = G = B = v. Checked on its tags and, through lcms (sharp),
 * on the tones a colour-managed viewer shows.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { greyJpegAsYcc, greyProfileForRgb, rgbProfileForGrey } from '../src/index';
import { greyProfile, jpegWithIcc, rgbProfile, SRGB_D50 } from '../../../test/support/icc';
import { embeddedIcc, iccProfile, tagData, tagTable } from './helpers/icc-profiles';
import { greyPixels, shownDifference } from './helpers/jpeg-files';

/** libvips's sRGB (v4, one shared `para` curve), as sharp embeds it. */
async function srgbProfile(): Promise<Buffer> {
  const jpeg = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#808080' } }).withIccProfile('srgb').jpeg().toBuffer();
  return embeddedIcc(jpeg).profile;
}

describe('greyProfileForRgb', () => {
  it("sRGB v4: a v4 grey display profile whose kTRC is sRGB's curve, white point and adaptation kept", async () => {
    const rgb = await srgbProfile();
    const grey = greyProfileForRgb(rgb)!;
    expect(Buffer.from(grey.subarray(8, 24)).toString('latin1').slice(4)).toBe('mntrGRAYXYZ ');
    expect(grey[8]).toBe(rgb[8]);
    expect(tagTable(grey).map((t) => t.sig)).toEqual(['desc', 'cprt', 'wtpt', 'chad', 'kTRC']);
    expect(tagData(grey, 'kTRC')).toEqual(tagData(rgb, 'rTRC'));
    expect(tagData(grey, 'wtpt')).toEqual(tagData(rgb, 'wtpt'));
    expect(Buffer.from(tagData(grey, 'desc')!).toString('utf16le')).not.toBe('');
  });

  it('shows every grey level as the RGB profile shows R = G = B (lcms)', async () => {
    for (const rgb of [await srgbProfile(), rgbProfile('RGB gamma 1.8 (test)', SRGB_D50, 1.8)]) {
      const ramp = await sharp(greyPixels(256, 16), { raw: { width: 256, height: 16, channels: 1 } }).toColourspace('b-w').jpeg({ quality: 100 }).toBuffer();
      // The same samples as R = G = B, losslessly.
      const asRgb = Buffer.from(greyJpegAsYcc(ramp)!);
      expect(await shownDifference(jpegWithIcc(ramp, Buffer.from(greyProfileForRgb(rgb)!)), jpegWithIcc(asRgb, rgb))).toBeLessThanOrEqual(1);
    }
  });

  it('gives back the grey profile an RGB one was made from, under its own name', () => {
    const original = greyProfile('Dot Gain 20% (test)', 2.2);
    const back = greyProfileForRgb(rgbProfileForGrey(original)!)!;
    expect(tagData(back, 'kTRC')).toEqual(tagData(original, 'kTRC'));
    expect(Buffer.from(tagData(back, 'desc')!).toString('latin1')).toContain('Dot Gain 20% (test)');
    expect(Buffer.from(tagData(back, 'desc')!).toString('latin1')).not.toContain('RGB');
  });

  it('refuses what cannot describe grey: colorants off the white, a LUT, a grey or CMYK profile, a malformed one', () => {
    const shifted = { ...SRGB_D50, b: [SRGB_D50.b[0], SRGB_D50.b[1], SRGB_D50.b[2] + 0.01] as [number, number, number] };
    expect(greyProfileForRgb(rgbProfile('off white', shifted, 2.2))).toBeUndefined();
    const good = rgbProfile('good', SRGB_D50, 2.2);
    expect(greyProfileForRgb(good)).toBeDefined();
    const withLut = iccProfile({ version: 0x02100000, space: 'RGB ', tags: [...tagTable(good).map((t) => [t.sig, tagData(good, t.sig)!] as [string, Uint8Array]), ['A2B0', new Uint8Array(32)]] });
    expect(greyProfileForRgb(withLut)).toBeUndefined();
    expect(greyProfileForRgb(greyProfile('grey', 2.2))).toBeUndefined();
    expect(greyProfileForRgb(iccProfile({ version: 0x02100000, space: 'CMYK', tags: tagTable(good).map((t) => [t.sig, tagData(good, t.sig)!]) }))).toBeUndefined();
    expect(greyProfileForRgb(good.subarray(0, good.length - 10))).toBeUndefined();
    expect(greyProfileForRgb(new Uint8Array(12))).toBeUndefined();
  });
});
