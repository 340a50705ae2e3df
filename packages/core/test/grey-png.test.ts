import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { greyPngAsRgb } from '../src/index';
import { curvTable, greyIccProfile } from './helpers/icc-profiles';
import { chunk, chunksOf, decoded, expectSamePixels, greyPng, iccpChunk, ihdrOf, sharpGrey, streamOf, transcode, typesOf } from './helpers/png-files';

// Chunks, refusals and corrupt data: grey-png-chunks.test.ts; ICC profiles: grey-png-icc.test.ts.

describe('greyPngAsRgb', () => {
  describe('keeps every pixel', () => {
    for (const [width, height] of [
      [1, 1],
      [33, 17],
      [640, 427],
    ] as const) {
      for (const options of [{}, { sixteen: true }, { alpha: true }, { alpha: true, sixteen: true }]) {
        it(`of a ${width}×${height} ${options.sixteen ? 16 : 8}-bit grey${options.alpha ? ' + alpha' : ''} PNG made by sharp`, async () => {
          const grey = await sharpGrey(width, height, options);
          const rgb = await transcode(grey);
          await expectSamePixels(grey, rgb);
          expect(ihdrOf(rgb!)).toEqual({ width, height, depth: options.sixteen ? 16 : 8, colourType: options.alpha ? 6 : 2, interlace: 0 });
        });
      }
    }

    const kinds = [
      { depth: 1 },
      { depth: 2 },
      { depth: 4 },
      { depth: 8 },
      { depth: 16 },
      { depth: 8, alpha: true },
      { depth: 16, alpha: true },
    ] as const;
    for (const kind of kinds) {
      for (const interlaced of [false, true]) {
        it(`of ${kind.depth}-bit grey${'alpha' in kind ? ' + alpha' : ''}${interlaced ? ', Adam7 interlaced' : ''}, every filter type, 1×1 to 33×17`, async () => {
          for (const [width, height] of [
            [1, 1],
            [3, 2],
            [9, 7],
            [33, 17],
          ]) {
            const grey = greyPng({ width: width!, height: height!, interlaced, ...kind });
            const rgb = await transcode(grey);
            await expectSamePixels(grey, rgb);
            expect(ihdrOf(rgb!)).toMatchObject({ depth: Math.max(8, kind.depth), interlace: interlaced ? 1 : 0 });
          }
        });
      }
    }

    it('scales 1-, 2- and 4-bit samples as decoders do: 0 → 0, the largest → 255, the rest evenly', async () => {
      for (const depth of [1, 2, 4] as const) {
        const max = 2 ** depth - 1;
        const grey = greyPng({ width: max + 1, height: 1, depth, sample: (x) => x });
        const { samples } = await decoded((await transcode(grey))!, 'srgb');
        expect([...samples].filter((_, i) => i % 3 === 0)).toEqual(Array.from({ length: max + 1 }, (_, v) => (v * 255) / max));
      }
    });

    it('of flat, ramp and patterned rows, whichever single filter type the input uses', async () => {
      for (const sample of [() => 0, (x: number) => x * 9, (x: number, y: number) => (x * y) % 251]) {
        for (const filter of [0, 1, 2, 3, 4]) {
          const grey = greyPng({ width: 21, height: 6, depth: 8, sample, filterOf: () => filter });
          await expectSamePixels(grey, await transcode(grey));
        }
      }
    });

    it('across many IDAT chunks, one of them empty', async () => {
      const grey = greyPng({ width: 40, height: 30, depth: 4, interlaced: true, idatBytes: 7 });
      expect(typesOf(grey).filter((t) => t === 'IDAT').length).toBeGreaterThan(20);
      await expectSamePixels(grey, await transcode(grey));
    });
  });

  describe('streams', () => {
    it('gives the same bytes however the input is cut: one byte at a time, random sizes, empty pieces', async () => {
      const grey = greyPng({ width: 9, height: 7, depth: 2, interlaced: true, before: [chunk('tRNS', Buffer.from([0, 1])), chunk('tEXt', 'Title\0x')], after: [chunk('tEXt', 'b\0c')] });
      const whole = (await transcode(grey))!;
      await expectSamePixels(grey, whole);
      expect(await transcode(grey, () => 1)).toEqual(whole);

      const profiled = greyPng({ width: 9, height: 7, depth: 8, before: [iccpChunk(greyIccProfile(2, 'Gamma 2.2 (4096 entries)', [['kTRC', curvTable(4096, (x) => x ** 2.2)]]))] });
      const profiledWhole = (await transcode(profiled))!;
      expect(typesOf(profiledWhole)).toEqual(['IHDR', 'iCCP', 'IDAT', 'IEND']);
      expect(await transcode(profiled, () => 1)).toEqual(profiledWhole);

      const larger = greyPng({ width: 150, height: 100, depth: 16, alpha: true, interlaced: true, idatBytes: 1000, before: [chunk('tEXt', 'Title\0y')] });
      const largerWhole = (await transcode(larger))!;
      await expectSamePixels(larger, largerWhole);
      let seed = 99;
      const randomSize = () => (seed = (seed * 1103515245 + 12345) >>> 0) % 300;
      for (let round = 0; round < 3; round++) expect(await transcode(larger, randomSize)).toEqual(largerWhole);
    });

    it('cancelling the output cancels the input', async () => {
      const grey = greyPng({ width: 300, height: 300, depth: 8, idatBytes: 4096 });
      let cancelled!: () => void;
      const inputCancelled = new Promise<void>((resolve) => (cancelled = resolve));
      const rgb = (await greyPngAsRgb(streamOf(grey, () => 512, () => cancelled())))!;
      const reader = rgb.getReader();
      await reader.read();
      await reader.cancel();
      await inputCancelled;
    });

    it('converts a 4000×3000 grey photo reading the input as it writes, into a PNG of sensible size', async () => {
      const [width, height] = [4000, 3000];
      const pixels = Buffer.alloc(width * height);
      let seed = 1;
      for (let y = 0, i = 0; y < height; y++) {
        for (let x = 0; x < width; x++, i++) {
          seed = (seed * 1103515245 + 12345) >>> 0;
          pixels[i] = 128 + 100 * Math.sin(x / 300) * Math.cos(y / 200) + (seed >>> 29);
        }
      }
      const grey = await sharp(pixels, { raw: { width, height, channels: 1 } }).toColourspace('b-w').png().toBuffer();
      let read = 0;
      let readAtFirstIdat: number | undefined;
      const rgb = (await greyPngAsRgb(streamOf(grey, () => 16384, undefined).pipeThrough(new TransformStream({ transform: (c, controller) => ((read += c.length), controller.enqueue(c)) }))))!;
      const parts: Uint8Array[] = [];
      for await (const part of rgb as unknown as AsyncIterable<Uint8Array>) {
        if (readAtFirstIdat === undefined && chunksOf(Buffer.concat(parts.concat(part))).some((c) => c.type === 'IDAT')) readAtFirstIdat = read;
        parts.push(part);
      }
      const out = Buffer.concat(parts);
      expect(readAtFirstIdat).toBeLessThan(grey.length / 4);
      const { samples, channels } = await decoded(out, 'srgb');
      expect(channels).toBe(3);
      const rgbOfPixels = Buffer.alloc(pixels.length * 3);
      pixels.forEach((v, i) => rgbOfPixels.fill(v, 3 * i, 3 * i + 3));
      expect(Buffer.from(samples).equals(rgbOfPixels)).toBe(true);
      expect(out.length).toBeLessThan(grey.length); // sharp writes the grey unfiltered; filtered rows compress better, three samples a pixel or not
      const idats = chunksOf(out).filter((c) => c.type === 'IDAT');
      expect(idats.slice(0, -1).every((c) => c.data.length >= 64 * 1024 && c.data.length < 128 * 1024)).toBe(true);
    }, 60_000);
  });
});
