/**
 * rgbPngAsGrey: an RGB(A) PNG whose every pixel is R = G = B (what the
 * service returns for a greyscale photo sent as RGB) as the greyscale PNG it
 * is, checked against libpng's decoding (sharp): every grey sample is the
 * RGB image's R = G = B, alpha kept, at the same depth, interlaced alike.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { greyPngAsRgb, NotGreyError, rgbPngAsGrey } from '../src/index';
import { greyProfile, rgbProfile, SRGB_D50 } from '../../../test/support/icc';
import { tagData } from './helpers/icc-profiles';
import { bytesOf, chunk, chunksOf, embeddedProfile, expectSamePixels, firstChunk, greyPng, iccpChunk, rebuilt, streamOf, transcode, typesOf } from './helpers/png-files';

async function greyAgain(png: Uint8Array, sizes?: () => number): Promise<Buffer | undefined> {
  const grey = await rgbPngAsGrey(streamOf(png, sizes));
  return grey && bytesOf(grey);
}

/** A colour PNG of grey pixels, made from a grey one by the way there (lossless, checked by its own tests). */
async function neutral(image: Parameters<typeof greyPng>[0]): Promise<{ grey: Buffer; rgb: Buffer }> {
  const grey = greyPng(image);
  return { grey, rgb: (await transcode(grey))! };
}

describe('rgbPngAsGrey', () => {
  for (const depth of [8, 16] as const) {
    for (const alpha of [false, true]) {
      for (const interlaced of [false, true]) {
        it(`${depth}-bit ${alpha ? 'RGBA' : 'RGB'}${interlaced ? ', interlaced' : ''}: every sample back, in pieces of any size`, async () => {
          const { grey, rgb } = await neutral({ width: 37, height: 23, depth, alpha, interlaced });
          const back = await greyAgain(rgb, () => 1 + Math.floor(Math.random() * 700));
          await expectSamePixels(back!, rgb);
          expect(firstChunk(back!, 'IHDR').data).toEqual(firstChunk(grey, 'IHDR').data);
        });
      }
    }
  }

  it('an RGB PNG written by libpng (sharp) with R = G = B: the same samples, smaller', async () => {
    const pixels = Buffer.alloc(64 * 48 * 3);
    for (let i = 0; i < 64 * 48; i++) pixels.fill((i * 37) % 251, 3 * i, 3 * i + 3);
    const rgb = await sharp(pixels, { raw: { width: 64, height: 48, channels: 3 } }).png().toBuffer();
    const back = await greyAgain(rgb);
    await expectSamePixels(back!, rgb);
    expect(back!.length).toBeLessThan(rgb.length);
  });

  it('the chunks that describe samples come back as a grey image has them; text kept; a suggested palette dropped', async () => {
    const text = chunk('tEXt', 'Comment\0black and white');
    const { grey, rgb } = await neutral({ width: 9, height: 5, depth: 16, before: [chunk('sBIT', Uint8Array.of(12)), chunk('bKGD', Uint8Array.of(0x12, 0x34)), chunk('tRNS', Uint8Array.of(0, 7)), text] });
    const withPalette = rebuilt(rgb, (chunks) => chunks.flatMap((c) => (c.type === 'IDAT' && c === chunks.find((d) => d.type === 'IDAT') ? [chunk('PLTE', Uint8Array.of(1, 2, 3)), c.bytes] : [c.bytes])));
    const back = (await greyAgain(withPalette))!;
    for (const type of ['sBIT', 'bKGD', 'tRNS', 'tEXt']) expect(firstChunk(back, type).data, type).toEqual(firstChunk(grey, type).data);
    expect(typesOf(back)).not.toContain('PLTE');
  });

  it("a grey profile made RGB on the way there comes back as that grey profile's curve, under its name", async () => {
    const profile = greyProfile('Gray Gamma 1.8 (test)', 1.8);
    const { rgb } = await neutral({ width: 8, height: 8, depth: 8, before: [iccpChunk(profile, { name: 'Photoshop ICC profile' })] });
    const back = (await greyAgain(rgb))!;
    const embedded = embeddedProfile(back);
    expect(embedded.name).toBe('Photoshop ICC profile');
    expect(tagData(embedded.profile, 'kTRC')).toEqual(tagData(profile, 'kTRC'));
  });

  it('colour anywhere, even in the last pixel, fails the stream with NotGreyError', async () => {
    for (const interlaced of [false, true]) {
      const { rgb } = await neutral({ width: 16, height: 9, depth: 8, interlaced });
      const pixels = await sharp(rgb).raw().toBuffer();
      pixels[pixels.length - 1] = pixels.at(-1)! ^ 0x10;
      const tinted = await sharp(pixels, { raw: { width: 16, height: 9, channels: 3 } }).png({ adaptiveFiltering: true, progressive: interlaced }).toBuffer();
      expect((await sharp(tinted).metadata()).isProgressive).toBe(interlaced);
      const grey = await rgbPngAsGrey(streamOf(tinted));
      await expect(bytesOf(grey!)).rejects.toBeInstanceOf(NotGreyError);
    }
  });

  it('refuses before the image what cannot be grey: a coloured background or transparent colour, an RGB profile with three curves; not RGB', async () => {
    const { rgb } = await neutral({ width: 8, height: 8, depth: 8 });
    const before = (extra: Buffer) => rebuilt(rgb, (chunks) => chunks.flatMap((c) => (c.type === 'IHDR' ? [c.bytes, extra] : [c.bytes])));
    expect(await greyAgain(before(chunk('bKGD', Uint8Array.of(0, 1, 0, 2, 0, 1))))).toBeUndefined();
    expect(await greyAgain(before(chunk('tRNS', Uint8Array.of(0, 1, 0, 1, 0, 2))))).toBeUndefined();
    expect(await greyAgain(before(iccpChunk(rgbProfile('sRGB-ish', SRGB_D50, 2.2))))).toBeDefined();
    const mixed = rgbProfile('mixed', SRGB_D50, 2.2);
    mixed.set(tagData(rgbProfile('other', SRGB_D50, 1.8), 'rTRC')!, mixed.indexOf(tagData(mixed, 'rTRC')!));
    expect(await greyAgain(before(iccpChunk(mixed)))).toBeUndefined();
    expect(await greyAgain(greyPng({ width: 8, height: 8, depth: 8 }))).toBeUndefined();
    expect(chunksOf(rgb)[0]!.type).toBe('IHDR');
  });

  it('is the exact way back of greyPngAsRgb on a 16-bit grey-alpha image of 300 × 200', async () => {
    const grey = greyPng({ width: 300, height: 200, depth: 16, alpha: true });
    const rgb = await bytesOf((await greyPngAsRgb(streamOf(grey)))!);
    const back = (await greyAgain(rgb))!;
    await expectSamePixels(back, rgb);
  });
});
