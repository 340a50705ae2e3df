/**
 * `updateThumbnail`: the EXIF thumbnail kept from the source shows the
 * uncorrected photo; with updateThumbnail it is regenerated from the output,
 * and the rest of the EXIF stays.
 */
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { correctImage } from '../src/correct';
import { readExifThumbnail, setExifThumbnail } from '../src/image/exif-thumbnail';
import { closeEngineWorkers } from '../src/vision';
import { sample } from './colour-helpers';

afterAll(() => closeEngineWorkers());

const meanRgb = async (jpeg: Buffer) => (await sharp(jpeg).stats()).channels.slice(0, 3).map((c) => Math.round(c.mean));

describe('EXIF thumbnail', () => {
  it('reads back what was written, also into a JPEG without EXIF', async () => {
    const red = await sharp({ create: { width: 160, height: 120, channels: 3, background: '#ff0000' } }).jpeg().toBuffer();
    const bare = await sharp(sample('objects/coffee.jpg')).jpeg().toBuffer();
    expect(readExifThumbnail(bare)).toBeUndefined();
    const tagged = setExifThumbnail(bare, red);
    expect(readExifThumbnail(tagged)?.equals(red)).toBe(true);
    // Still a valid JPEG with the same pixels.
    expect((await sharp(tagged).raw().toBuffer()).equals(await sharp(bare).raw().toBuffer())).toBe(true);
  });

  it('keeps the stale source thumbnail by default and regenerates it with updateThumbnail', async () => {
    const red = await sharp({ create: { width: 160, height: 160, channels: 3, background: '#ff0000' } }).jpeg().toBuffer();
    const src = await sharp(sample('portraits/astronaut.jpg')).withExif({ IFD0: { Copyright: 'Public domain, NASA' } }).jpeg().toBuffer();
    const tagged = setExifThumbnail(src, red);
    const kept = await correctImage(tagged, {});
    expect(await meanRgb(readExifThumbnail(kept.output)!)).toEqual(await meanRgb(red));
    const fresh = await correctImage(tagged, { updateThumbnail: true });
    const thumb = readExifThumbnail(fresh.output)!;
    const meta = await sharp(thumb).metadata();
    expect(Math.max(meta.width!, meta.height!)).toBe(160);
    const expected = await meanRgb(await sharp(fresh.output).resize(160, 160).jpeg().toBuffer());
    (await meanRgb(thumb)).forEach((v, c) => expect(Math.abs(v - expected[c]!)).toBeLessThan(4));
    expect((await sharp(fresh.output).metadata()).exif?.toString('latin1')).toContain('Public domain, NASA');
    // Without metadata there is no EXIF and so no thumbnail.
    expect(readExifThumbnail((await correctImage(tagged, { updateThumbnail: true, preserveMetadata: false })).output)).toBeUndefined();
  });
});
