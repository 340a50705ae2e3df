import { deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { greyPngAsRgb } from '../src/index';
import { rgbProfile } from '../../../test/support/icc';
import {
  SIGNATURE,
  bytesOf,
  chunk,
  chunksOf,
  decoded,
  expectSamePixels,
  firstChunk,
  greyPng,
  iccpChunk,
  scanlinesOf,
  streamOf,
  transcode,
  typesOf,
  withByteFlipped,
  withIdatData,
  withTextBetweenIdats,
} from './helpers/png-files';

describe('greyPngAsRgb', () => {
  describe('transparency and the chunks that describe samples', () => {
    it('turns a grey tRNS into the RGB tRNS of that grey: the same pixels are transparent (8-bit)', async () => {
      const grey = greyPng({ width: 33, height: 17, depth: 8, sample: (x, y) => (x + y) % 7, before: [chunk('tRNS', Buffer.from([0, 3]))] });
      const rgb = (await transcode(grey))!;
      expect(firstChunk(rgb, 'tRNS').data).toEqual(Buffer.from([0, 3, 0, 3, 0, 3]));
      await expectSamePixels(grey, rgb);
      expect((await decoded(rgb, 'srgb')).channels).toBe(4);
    });

    it('scales a sub-8-bit tRNS as the samples are (2-bit grey 2 → 170), interlaced too', async () => {
      for (const interlaced of [false, true]) {
        const grey = greyPng({ width: 9, height: 7, depth: 2, interlaced, before: [chunk('tRNS', Buffer.from([0, 2]))] });
        const rgb = (await transcode(grey))!;
        expect(firstChunk(rgb, 'tRNS').data).toEqual(Buffer.from([0, 170, 0, 170, 0, 170]));
        await expectSamePixels(grey, rgb);
      }
    });

    it('keeps a 16-bit tRNS at 16 bits', async () => {
      const grey = greyPng({ width: 9, height: 7, depth: 16, sample: (x) => (x % 3) * 0x1234, before: [chunk('tRNS', Buffer.from([0x12, 0x34]))] });
      const rgb = (await transcode(grey))!;
      expect(firstChunk(rgb, 'tRNS').data).toEqual(Buffer.from([0x12, 0x34, 0x12, 0x34, 0x12, 0x34]));
      await expectSamePixels(grey, rgb);
    });

    it('writes sBIT for each of R, G, B (then alpha) and bKGD as an RGB colour, scaled as samples', async () => {
      const grey = greyPng({ width: 5, height: 4, depth: 4, before: [chunk('sBIT', Buffer.from([3])), chunk('bKGD', Buffer.from([0, 5]))] });
      const rgb = (await transcode(grey))!;
      expect(firstChunk(rgb, 'sBIT').data).toEqual(Buffer.from([3, 3, 3]));
      expect(firstChunk(rgb, 'bKGD').data).toEqual(Buffer.from([0, 85, 0, 85, 0, 85]));
      expect((await sharp(rgb).metadata()).background).toEqual({ r: 85, g: 85, b: 85 });

      const withAlpha = greyPng({ width: 5, height: 4, depth: 16, alpha: true, before: [chunk('sBIT', Buffer.from([12, 5])), chunk('bKGD', Buffer.from([0x80, 0x01]))] });
      const rgba = (await transcode(withAlpha))!;
      expect(firstChunk(rgba, 'sBIT').data).toEqual(Buffer.from([12, 12, 12, 5]));
      expect(firstChunk(rgba, 'bKGD').data).toEqual(Buffer.from([0x80, 0x01, 0x80, 0x01, 0x80, 0x01]));
      await expectSamePixels(withAlpha, rgba);
    });

    it('refuses a tRNS, sBIT or bKGD no decoder would read as the image has it', async () => {
      const refused = [
        { depth: 8, before: [chunk('tRNS', Buffer.from([0, 3, 0]))] },
        { depth: 2, before: [chunk('tRNS', Buffer.from([0, 4]))] },
        { depth: 8, alpha: true, before: [chunk('tRNS', Buffer.from([0, 3]))] },
        { depth: 4, before: [chunk('sBIT', Buffer.from([5]))] },
        { depth: 8, alpha: true, before: [chunk('sBIT', Buffer.from([8]))] },
        { depth: 1, before: [chunk('bKGD', Buffer.from([0, 2]))] },
      ] as const;
      for (const image of refused) expect(await transcode(greyPng({ width: 3, height: 2, ...image }))).toBeUndefined();
    });
  });

  describe('metadata', () => {
    const exif = Buffer.from('MM\0*\0\0\0\x08\0\0\0\0\0\0', 'latin1');
    const before = [
      chunk('gAMA', Buffer.from([0, 0, 0xb1, 0x8f])),
      chunk('pHYs', Buffer.from([0, 0, 0x0b, 0x13, 0, 0, 0x0b, 0x13, 1])),
      chunk('tEXt', 'Title\0grey test scene'),
      chunk('iTXt', Buffer.from('Description\0\0\0en\0\0une scène grise', 'utf8')),
      chunk('eXIf', exif),
      chunk('prVt', 'safe to copy'),
      chunk('prVT', 'unsafe to copy'),
    ];
    const after = [chunk('tEXt', 'Comment\0written after the image'), chunk('laTe', 'safe, after'), chunk('laTE', 'unsafe, after')];

    it('keeps the chunks that do not depend on the colour type byte for byte, in order, before and after the image; unknown ones only when safe to copy', async () => {
      const grey = greyPng({ width: 20, height: 10, depth: 8, before, after });
      const rgb = (await transcode(grey))!;
      await expectSamePixels(grey, rgb);
      expect(typesOf(rgb)).toEqual(['IHDR', 'gAMA', 'pHYs', 'tEXt', 'iTXt', 'eXIf', 'prVt', 'IDAT', 'tEXt', 'laTe', 'IEND']);
      const kept = chunksOf(rgb).filter((c) => !['IHDR', 'IDAT', 'IEND'].includes(c.type));
      expect(kept.map((c) => c.bytes)).toEqual([...before.slice(0, 6), ...after.slice(0, 2)]);
      expect((await sharp(rgb).metadata()).exif).toEqual(exif);
    });

    it('drops what follows IEND', async () => {
      const grey = Buffer.concat([greyPng({ width: 4, height: 4, depth: 8 }), Buffer.from('trailing junk')]);
      expect(typesOf((await transcode(grey))!).at(-1)).toBe('IEND');
      expect((await transcode(grey))!.subarray(-12)).toEqual(chunk('IEND'));
    });

    it('drops, after the image, chunks that must precede it (tRNS, iCCP, acTL)', async () => {
      const grey = greyPng({ width: 4, height: 4, depth: 8, after: [chunk('tRNS', Buffer.from([0, 1])), chunk('iCCP', 'x\0\0'), chunk('acTL', Buffer.alloc(8))] });
      expect(typesOf((await transcode(grey))!)).toEqual(['IHDR', 'IDAT', 'IEND']);
    });
  });

  describe('refuses (undefined) and cancels the input', () => {
    const srgbLike = rgbProfile('sRGB-like', { r: [0.436, 0.2225, 0.0139], g: [0.3851, 0.7169, 0.0971], b: [0.1431, 0.0606, 0.7141] }, 2.2);
    const refused: [string, () => Promise<Uint8Array>][] = [
      ['an RGB PNG', () => sharp(Buffer.alloc(8 * 4 * 3, 90), { raw: { width: 8, height: 4, channels: 3 } }).png().toBuffer()],
      ['a palette PNG', () => sharp(Buffer.alloc(8 * 4 * 3, 90), { raw: { width: 8, height: 4, channels: 3 } }).png({ palette: true }).toBuffer()],
      ['a grey JPEG', () => sharp(Buffer.alloc(8 * 8, 90), { raw: { width: 8, height: 8, channels: 1 } }).toColourspace('b-w').jpeg().toBuffer()],
      ['an RGB ICC profile on grey samples', async () => greyPng({ width: 4, height: 4, depth: 8, before: [iccpChunk(srgbLike)] })],
      ['an animation (acTL)', async () => greyPng({ width: 4, height: 4, depth: 8, before: [chunk('acTL', Buffer.from([0, 0, 0, 1, 0, 0, 0, 0]))] })],
      ['a frame control chunk (fcTL)', async () => greyPng({ width: 4, height: 4, depth: 8, before: [chunk('fcTL', Buffer.alloc(26))] })],
      ['a palette in a grey PNG', async () => greyPng({ width: 4, height: 4, depth: 8, before: [chunk('PLTE', Buffer.alloc(6))] })],
      ['an unknown critical chunk', async () => greyPng({ width: 4, height: 4, depth: 8, before: [chunk('CRIt', 'must understand')] })],
      ['a second IHDR', async () => greyPng({ width: 4, height: 4, depth: 8, before: [firstChunk(greyPng({ width: 4, height: 4, depth: 8 }), 'IHDR').bytes] })],
      ['a chunk type that is not letters', async () => greyPng({ width: 4, height: 4, depth: 8, before: [chunk('t3Xt', 'x')] })],
    ];
    for (const [name, make] of refused) {
      it(name, async () => {
        let cancelled = false;
        expect(await greyPngAsRgb(streamOf(await make(), () => 16, () => (cancelled = true)))).toBeUndefined();
        expect(cancelled).toBe(true);
      });
    }

    /** A grey PNG with its IHDR fields changed (CRC recomputed). */
    const withIhdr = (fields: { depth?: number; colourType?: number; compression?: number; filter?: number; interlace?: number }) => {
      const png = greyPng({ width: 4, height: 4, depth: 8 });
      const ihdr = Buffer.from(firstChunk(png, 'IHDR').data);
      const values = [fields.depth, fields.colourType, fields.compression, fields.filter, fields.interlace];
      values.forEach((v, i) => v !== undefined && (ihdr[8 + i] = v));
      return Buffer.concat([png.subarray(0, 8), chunk('IHDR', ihdr), png.subarray(33)]);
    };

    it('a bit depth not defined for the colour type, undefined methods and interlacing, a zero size', async () => {
      expect(await transcode(withIhdr({}))).toBeDefined();
      for (const fields of [{ depth: 4, colourType: 4 }, { depth: 3 }, { depth: 32 }, { compression: 1 }, { filter: 1 }, { interlace: 2 }, { colourType: 2 }, { colourType: 3 }]) {
        expect(await transcode(withIhdr(fields))).toBeUndefined();
      }
      const png = greyPng({ width: 4, height: 4, depth: 8 });
      const ihdr = Buffer.from(firstChunk(png, 'IHDR').data);
      ihdr.writeUInt32BE(0, 0);
      expect(await transcode(Buffer.concat([png.subarray(0, 8), chunk('IHDR', ihdr), png.subarray(33)]))).toBeUndefined();
    });

    it('data cut short or with a bad CRC before the image data', async () => {
      const grey = greyPng({ width: 4, height: 4, depth: 8, before: [chunk('tEXt', 'Title\0x')] });
      const idat = grey.indexOf('IDAT') - 4;
      for (const end of [4, 8, 20, 33, 40, idat, idat + 6]) expect(await transcode(grey.subarray(0, end))).toBeUndefined();
      const badCrc = Buffer.from(grey);
      badCrc[idat - 1]! ^= 1;
      expect(await transcode(badCrc)).toBeUndefined();
      const badIhdrCrc = Buffer.from(grey);
      badIhdrCrc[30]! ^= 1;
      expect(await transcode(badIhdrCrc)).toBeUndefined();
    });

    it('nothing, random bytes, and random bytes after a PNG signature', async () => {
      expect(await transcode(new Uint8Array(0))).toBeUndefined();
      let seed = 7;
      const random = Uint8Array.from({ length: 4096 }, () => (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24);
      expect(await transcode(random)).toBeUndefined();
      expect(await transcode(Buffer.concat([SIGNATURE, random]))).toBeUndefined();
    });

    it('an input stream that fails while the header is read', async () => {
      const failing = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(SIGNATURE);
          controller.error(new Error('disk gone'));
        },
      });
      expect(await greyPngAsRgb(failing)).toBeUndefined();
    });
  });

  describe('errors the returned stream on corrupt data after the header', () => {
    const image = { width: 33, height: 17, depth: 8 } as const;
    /** The last byte of the first IDAT's CRC changed. */
    const idatCrcFlipped = (png: Buffer) => withByteFlipped(png, firstChunk(png, 'IDAT').offset + firstChunk(png, 'IDAT').bytes.length - 1);
    const textDataFlipped = (png: Buffer) => withByteFlipped(png, firstChunk(png, 'tEXt').offset + 8);
    const corrupt: [string, () => Buffer, RegExp][] = [
      ['truncated image data', () => greyPng(image).subarray(0, greyPng(image).indexOf('IDAT') + 40), /ends inside the IDAT chunk/],
      ['a bad CRC on an IDAT', () => idatCrcFlipped(greyPng({ ...image, idatBytes: 64 })), /CRC mismatch in the IDAT chunk/],
      ['a filter type that is not defined', () => greyPng({ ...image, filterOf: (n) => (n === 3 ? 5 : 1) }), /filter type 5/],
      ['too little image data', () => greyPng({ ...image, spoil: (s) => s.subarray(0, s.length - 10) }), /ends before the last row/],
      ['too much image data', () => greyPng({ ...image, spoil: (s) => Buffer.concat([s, Buffer.from([0, 1, 2])]) }), /more than the rows of the image/],
      ['image data that is not zlib', () => withIdatData(greyPng(image), Buffer.from('not a zlib stream at all')), /does not inflate/],
      ['a zlib stream cut short', () => withIdatData(greyPng(image), deflateSync(scanlinesOf(image)).subarray(0, 50)), /does not inflate/],
      ['no IEND', () => greyPng(image).subarray(0, -12), /ends before its IEND/],
      ['IDAT chunks that are not consecutive', () => withTextBetweenIdats(greyPng({ ...image, idatBytes: 100 })), /unexpected IDAT chunk/],
      ['a bad CRC after the image data', () => textDataFlipped(greyPng({ ...image, after: [chunk('tEXt', 'a\0b')] })), /CRC mismatch in the tEXt chunk/],
    ];
    for (const [name, make, message] of corrupt) {
      it(name, async () => {
        const rgb = await greyPngAsRgb(streamOf(make()));
        expect(rgb).toBeDefined();
        await expect(bytesOf(rgb!)).rejects.toThrow(message);
        await expect(bytesOf((await greyPngAsRgb(streamOf(make(), () => 100)))!)).rejects.toMatchObject({ name: 'PngDataError', message: expect.stringMatching(/^corrupt PNG: /) });
      });
    }
  });
});
