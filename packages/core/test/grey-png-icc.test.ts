import { deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { greyPngAsRgb, rgbProfileForGrey } from '../src/index';
import { greyProfile, pngWithIcc, rgbProfile } from '../../../test/support/icc';
import { curvTable, dotGain, greyIccProfile, srgbLevel, toneProfiles } from './helpers/icc-profiles';
import { chunk, chunksOf, embeddedProfile, greyPng, iccpChunk, streamOf, transcode, typesOf, withoutIccp } from './helpers/png-files';

describe('greyPngAsRgb', () => {
  describe('with an ICC profile', () => {
    const WIDTH = 256;
    const HEIGHT = 3;
    /** Every 8-bit level along a row; at 16 bits the same levels moved down a little row by row, so not all on the 8-bit grid. */
    const greyOf = (depth: 8 | 16) => (x: number, y: number) => (depth === 8 ? x : Math.max(0, x * 257 - y * 97));
    const alphaOf = (depth: 8 | 16) => (x: number, y: number) => (((x * 7 + y * 50) & 0xff) * (depth === 8 ? 1 : 257));
    const written = (depth: 8 | 16, alpha: boolean, interlaced: boolean) => async () =>
      greyPng({ width: WIDTH, height: HEIGHT, depth, alpha, interlaced, sample: (x, y, c) => (c === 0 ? greyOf(depth)(x, y) : alphaOf(depth)(x, y)) });
    const shapes: { name: string; depth: 8 | 16; plain: () => Promise<Buffer> }[] = [
      {
        name: '8-bit grey made by sharp',
        depth: 8,
        plain: () => sharp(Uint8Array.from({ length: WIDTH * HEIGHT }, (_, i) => greyOf(8)(i % WIDTH, 0)), { raw: { width: WIDTH, height: HEIGHT, channels: 1 } }).toColourspace('b-w').png().toBuffer(),
      },
      { name: '8-bit grey + alpha', depth: 8, plain: written(8, true, false) },
      { name: '8-bit grey, Adam7 interlaced', depth: 8, plain: written(8, false, true) },
      { name: '16-bit grey', depth: 16, plain: written(16, false, false) },
      { name: '16-bit grey + alpha, Adam7 interlaced', depth: 16, plain: written(16, true, true) },
    ];

    const typesBeforeImage = (png: Uint8Array) => typesOf(png).slice(0, typesOf(png).indexOf('IDAT'));

    interface Shown {
      data: Buffer;
      channels: number;
    }

    /** The PNG as a colour-managed viewer (lcms, in sharp) shows it: 8-bit sRGB, alpha kept. */
    async function shown(png: Uint8Array): Promise<Shown> {
      const { data, info } = await sharp(png).toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
      return { data, channels: info.channels };
    }

    /** Largest difference of R, G and B (alpha left out) from another rendering, or from the level `expected` gives a pixel. */
    function colourDifference(a: Shown, expected: Shown | ((pixel: number) => number)): number {
      if (typeof expected !== 'function') expect(a.data.length).toBe(expected.data.length);
      let max = 0;
      for (let i = 0; i < a.data.length; i++) {
        if (a.channels === 4 && i % 4 === 3) continue;
        const level = typeof expected === 'function' ? expected(Math.floor(i / a.channels)) : expected.data[i]!;
        max = Math.max(max, Math.abs(a.data[i]! - level));
      }
      return max;
    }

    // sharp shows 8-bit grey under its profile, but leaves 16-bit grey (libvips' grey16) unmanaged: its
    // pipeline skips the embedded profile for that interpretation and shows the numbers as sRGB. So the
    // oracles are lcms showing the grey PNG itself at 8 bits (within the tolerance grey-jpeg uses, see
    // toneProfiles), and at both depths the exact tones: the kTRC's Y, sRGB-encoded. The RGB output is
    // within a level of those at 8 bits; at 16 bits sharp's lcms transform is coarser and its cast to
    // 8 bits truncates (up to 1.7 levels off here, 4.7 near the Dot Gain 30 % knee).
    for (const { name, profile, trc, lcmsGreyExact } of toneProfiles()) {
      it(`swaps it for its RGB profile, in place and under its name, keeping the samples bit for bit and the tones a viewer shows: ${name}`, async () => {
        const rgbOfProfile = Buffer.from(rgbProfileForGrey(profile)!);
        expect(rgbOfProfile.subarray(16, 20).toString('latin1')).toBe('RGB ');
        for (const shape of shapes) {
          const plain = await shape.plain();
          const grey = pngWithIcc(plain, profile);
          const rgb = (await transcode(grey))!;
          expect(rgb, shape.name).toBeDefined();
          expect(typesBeforeImage(rgb), shape.name).toEqual(typesBeforeImage(grey));
          expect(typesBeforeImage(rgb).slice(0, 2)).toEqual(['IHDR', 'iCCP']);
          expect(embeddedProfile(rgb), shape.name).toEqual({ name: 'test profile', method: 0, profile: rgbOfProfile });
          expect((await sharp(rgb).metadata()).icc?.equals(rgbOfProfile), shape.name).toBe(true);
          // Only the profile changed: without it, the output is the profile-less transcode of the same PNG, byte for byte.
          expect(withoutIccp(rgb).equals((await transcode(plain))!), shape.name).toBe(true);

          const max = 2 ** shape.depth - 1;
          const exact = (pixel: number) => srgbLevel(trc(greyOf(shape.depth)(pixel % WIDTH, Math.floor(pixel / WIDTH)) / max));
          const [rgbShown, greyShown, numbers] = await Promise.all([rgb, grey, plain].map(shown));
          // The tones the grey profile gives …
          expect(colourDifference(rgbShown!, exact), shape.name).toBeLessThanOrEqual(shape.depth === 8 ? 1 : lcmsGreyExact ? 2 : 5);
          if (shape.depth === 8) expect(colourDifference(rgbShown!, greyShown!), shape.name).toBeLessThanOrEqual(lcmsGreyExact ? 1 : 5);
          // … which are not the grey numbers read as sRGB: the profile mattered.
          expect(colourDifference(numbers!, exact), shape.name).toBeGreaterThanOrEqual(5);
          if (shape.depth === 8) expect(colourDifference(greyShown!, numbers!), shape.name).toBeGreaterThanOrEqual(5);
        }
      });
    }

    it('refuses any profile when asked to (profiles: false, for a result that will go without one) and cancels the input; a PNG without one is converted still', async () => {
      const plain = greyPng({ width: 9, height: 7, depth: 8 });
      const grey = pngWithIcc(plain, greyProfile('Gray Gamma 2.2', 2.2));
      expect(await transcode(grey)).toBeDefined();
      expect(await transcode(grey, undefined, { profiles: true })).toEqual(await transcode(grey));
      let cancelled = false;
      expect(await greyPngAsRgb(streamOf(grey, () => 16, () => (cancelled = true)), { profiles: false })).toBeUndefined();
      expect(cancelled).toBe(true);
      expect(await transcode(plain, undefined, { profiles: false })).toEqual(await transcode(plain));
    });

    it('keeps the colour chunks around it where they were: gAMA, cHRM, sRGB and cICP mean the same for R = G = B as for grey', async () => {
      const before = [
        chunk('gAMA', Buffer.from([0, 0, 0xb1, 0x8f])),
        chunk('cHRM', Buffer.from([31270, 32900, 64000, 33000, 30000, 60000, 15000, 6000].flatMap((v) => [v >>> 24, (v >>> 16) & 0xff, (v >>> 8) & 0xff, v & 0xff]))),
        chunk('sRGB', Buffer.from([0])),
        iccpChunk(greyIccProfile(2, 'Dot Gain 20%', [['kTRC', curvTable(256, dotGain(20))]], { cls: 'prtr' }), { name: 'Dot Gain 20%' }),
        chunk('cICP', Buffer.from([1, 13, 0, 1])),
        chunk('tEXt', 'Title\0grey'),
      ];
      const grey = greyPng({ width: 9, height: 7, depth: 8, before });
      const rgb = (await transcode(grey))!;
      expect(typesOf(rgb)).toEqual(['IHDR', 'gAMA', 'cHRM', 'sRGB', 'iCCP', 'cICP', 'tEXt', 'IDAT', 'IEND']);
      const others = chunksOf(rgb).filter((c) => !['IHDR', 'iCCP', 'IDAT', 'IEND'].includes(c.type));
      expect(others.map((c) => c.bytes)).toEqual(before.filter((_, i) => i !== 3));
      expect(embeddedProfile(rgb).name).toBe('Dot Gain 20%');
      expect(withoutIccp(rgb).equals((await transcode(withoutIccp(grey)))!)).toBe(true);
    });

    it('keeps any name PNG allows (1–79 printable Latin-1 bytes, single spaces inside); writes "ICC profile" for one it does not', async () => {
      const profile = greyProfile('Gray Gamma 1.8', 1.8);
      const names: [string, string][] = [
        ['x'.repeat(79), 'x'.repeat(79)],
        ['G', 'G'],
        ['Graustufen · Gamma 1,8 ü', 'Graustufen · Gamma 1,8 ü'],
        [' leading space', 'ICC profile'],
        ['trailing space ', 'ICC profile'],
        ['two  spaces', 'ICC profile'],
        ['a\ttab', 'ICC profile'],
        ['no\xa0break', 'ICC profile'],
      ];
      for (const [name, written] of names) {
        const rgb = (await transcode(greyPng({ width: 5, height: 3, depth: 8, before: [iccpChunk(profile, { name })] })))!;
        expect(embeddedProfile(rgb), name).toEqual({ name: written, method: 0, profile: Buffer.from(rgbProfileForGrey(profile)!) });
      }
    });

    describe('refuses a malformed or unconvertible one, and cancels the input', () => {
      const profile = greyProfile('Gray Gamma 2.2', 2.2);
      const deflated = deflateSync(profile);
      const badChecksum = Buffer.from(deflated);
      badChecksum[badChecksum.length - 1]! ^= 1;
      // A profile rgbProfileForGrey converts, but over 16 MB inflated (8.4 million curve entries; deflated to a few kilobytes).
      const huge = () => greyIccProfile(2, 'huge', [['kTRC', curvTable(8_400_000, () => 0.5)]]);
      const cases: [string, () => Buffer][] = [
        ['no NUL within the first 80 bytes (a name over 79 bytes)', () => iccpChunk(profile, { name: 'x'.repeat(80) })],
        ['an empty name', () => iccpChunk(profile, { name: '' })],
        ['a compression method other than zlib (0)', () => iccpChunk(profile, { method: 1 })],
        ['no compression method', () => chunk('iCCP', 'Gray Gamma 2.2\0')],
        ['no compressed data', () => iccpChunk(profile, { compressed: new Uint8Array(0) })],
        ['data that is not zlib', () => iccpChunk(profile, { compressed: Buffer.from('not a zlib stream') })],
        ['a bad zlib checksum', () => iccpChunk(profile, { compressed: badChecksum })],
        ['a zlib stream cut short', () => iccpChunk(profile, { compressed: deflated.subarray(0, -6) })],
        ['a profile cut short', () => iccpChunk(profile, { compressed: deflateSync(profile.subarray(0, 200)) })],
        ['a second iCCP chunk', () => Buffer.concat([iccpChunk(profile), iccpChunk(profile)])],
        ['an RGB profile on grey samples', () => iccpChunk(rgbProfile('sRGB-like', { r: [0.436, 0.2225, 0.0139], g: [0.3851, 0.7169, 0.0971], b: [0.1431, 0.0606, 0.7141] }, 2.2))],
        ['a grey profile with a Lab connection space', () => iccpChunk(greyIccProfile(2, 'Lab grey', [['kTRC', curvTable(256, (x) => x ** 2)]], { pcs: 'Lab ' }))],
        ['a profile over 16 MB inflated', () => iccpChunk(huge())],
      ];
      for (const [name, iccp] of cases) {
        it(name, async () => {
          const png = greyPng({ width: 4, height: 4, depth: 8, before: [iccp()] });
          let cancelled = false;
          expect(await greyPngAsRgb(streamOf(png, () => 16, () => (cancelled = true)))).toBeUndefined();
          expect(cancelled).toBe(true);
        });
      }

      it('(the cases are one fault away from a profile it converts)', async () => {
        expect(await transcode(greyPng({ width: 4, height: 4, depth: 8, before: [iccpChunk(profile)] }))).toBeDefined();
        const big = huge();
        expect(big.length).toBeGreaterThan(16 * 1024 * 1024);
        expect(rgbProfileForGrey(big)).toBeDefined();
      });
    });
  });
});
