/**
 * Colour correction on real photos: degraded copies come back closer to the
 * original, good originals barely move, `none` leaves pixels identical, and
 * the groups differ in the documented direction.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { meanDeltaE2000 } from '../src/colour/deltaE';
import { correctImage } from '../src/correct';
import { EngineError } from '../src/errors';
import { channelMean, flatten, linearGains, meanSaturation, png, rgb, sample } from './colour-helpers';

const ASTRONAUT = sample('portraits/astronaut.jpg');
const COFFEE = sample('objects/coffee.jpg');

async function correctedRgb(input: Buffer, params = {}) {
  const r = await correctImage(input, params);
  return { result: r, pixels: await rgb(r.output) };
}

describe('correctImage: colour', () => {
  it('leaves every pixel untouched with preset=none (PNG in, PNG out)', async () => {
    const orig = await rgb(COFFEE);
    const input = await png(orig);
    const { result, pixels } = await correctedRgb(input, { preset: 'none' });
    expect(result.info.format).toBe('png');
    expect(Buffer.from(pixels.data).equals(Buffer.from(orig.data))).toBe(true);
    expect(result.usage.imageCorrectionCount).toBe(0);
    expect(result.applied.preset).toBe('none');
  });

  it('brings an under-exposed, warm-cast photo much closer to the original', async () => {
    const orig = await rgb(ASTRONAUT);
    const degraded = linearGains(orig, [0.6, 0.45, 0.3]);
    const before = meanDeltaE2000(orig.data, degraded.data, 3);
    const { result, pixels } = await correctedRgb(await png(degraded));
    const after = meanDeltaE2000(orig.data, pixels.data, 3);
    expect(before).toBeGreaterThan(10);
    expect(after).toBeLessThan(before * 0.6);
    // The cast was warm: red is pulled back relative to blue.
    const ratio = (img: typeof orig) => channelMean(img, 0) / channelMean(img, 2);
    expect(ratio(pixels)).toBeLessThan(ratio(degraded));
    expect(result.usage.imageCorrectionCount).toBe(1);
  });

  it('restores a flat, low-contrast photo', async () => {
    const orig = await rgb(COFFEE);
    const flat = flatten(orig, 0.22, 0.56);
    const before = meanDeltaE2000(orig.data, flat.data, 3);
    const { pixels } = await correctedRgb(await png(flat));
    expect(meanDeltaE2000(orig.data, pixels.data, 3)).toBeLessThan(before / 3);
  });

  it('leaves the exposure of a bright, partly blown photo alone (it may be a high-key scene)', async () => {
    // On the analysis copy over-exposure, a blown sky and a high-key scene look
    // alike, so the engine does not darken (README "Colour correction", step 3).
    const orig = await rgb(COFFEE);
    const over = linearGains(orig, [2, 2, 2]);
    const before = meanDeltaE2000(orig.data, over.data, 3);
    const { pixels } = await correctedRgb(await png(over));
    expect(Math.abs(channelMean(pixels, 1) - channelMean(over, 1))).toBeLessThan(3);
    expect(meanDeltaE2000(orig.data, pixels.data, 3)).toBeLessThan(before + 0.5);
  });

  it('moves a good original by less than ΔE 3', async () => {
    for (const input of [ASTRONAUT, COFFEE]) {
      const orig = await rgb(input);
      const { pixels } = await correctedRgb(await png(orig));
      expect(meanDeltaE2000(orig.data, pixels.data, 3)).toBeLessThan(3);
    }
  });

  it('applies the groups as documented: Attractions more vivid than Pro', async () => {
    // Muted, so that it needs the vibrance (coffee's own colours are vivid, see colour/finish.ts).
    const input = await sharp(COFFEE).modulate({ saturation: 0.15 }).png().toBuffer();
    const pro = await correctedRgb(input, { preset: 'Pro' });
    const vivid = await correctedRgb(input, { preset: 'Attractions and Cruise Lines' });
    expect(meanSaturation(vivid.pixels)).toBeGreaterThan(meanSaturation(pro.pixels) + 0.01);
    expect(pro.result.applied).toMatchObject({ preset: 'Pro', aiSelection: true });
  });

  it('keeps the input format and JPEG quality, and the size', async () => {
    const lo = await correctImage(ASTRONAUT, { outputQuality: 40 });
    const hi = await correctImage(ASTRONAUT, { outputQuality: 100 });
    expect(lo.info).toEqual({ width: 512, height: 512, format: 'jpeg' });
    expect(lo.output.length).toBeLessThan(hi.output.length);
    expect(lo.outputDimensions).toBeUndefined();
    expect((await correctImage(ASTRONAUT, { outputType: 'png' })).info.format).toBe('png');
  });

  it('keeps EXIF with preserveMetadata (default) and strips it with false', async () => {
    const tagged = await sharp(ASTRONAUT).withExif({ IFD0: { Copyright: 'Public domain, NASA' } }).jpeg().toBuffer();
    const kept = await sharp((await correctImage(tagged, {})).output).metadata();
    expect(kept.exif?.toString('latin1')).toContain('Public domain, NASA');
    const stripped = await sharp((await correctImage(tagged, { preserveMetadata: false })).output).metadata();
    expect(stripped.exif).toBeUndefined();
  });

  it('applies the EXIF orientation before correcting', async () => {
    const rotated = await sharp(await sharp(ASTRONAUT).resize(200, 100, { fit: 'fill' }).toBuffer()).withMetadata({ orientation: 6 }).jpeg().toBuffer();
    const r = await correctImage(rotated, {});
    expect([r.info.width, r.info.height]).toEqual([100, 200]);
    expect(r.originalDimensions).toEqual({ width: 100, height: 200 });
  });

  it('resizes by the first resize strategy and reports the output size', async () => {
    const r = await correctImage(ASTRONAUT, { long: 256, scale: 50 });
    expect(r.info).toMatchObject({ width: 256, height: 256 });
    expect(r.outputDimensions).toEqual({ width: 256, height: 256 });
    expect(r.usage.classicResizeCount).toBe(1);
  });

  it('refuses images outside the documented limits with the limit named', async () => {
    const tiny = await sharp({ create: { width: 20, height: 300, channels: 3, background: '#808080' } }).png().toBuffer();
    await expect(correctImage(tiny, {})).rejects.toThrow(/image is 20×300 px; the Web API needs more than 32 px on each side/);
    const strip = await sharp({ create: { width: 2200, height: 100, channels: 3, background: '#808080' } }).png().toBuffer();
    await expect(correctImage(strip, {})).rejects.toThrow(/image is 2200×100 px; the aspect ratio must be below 21:1/);
    const gif = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#808080' } }).gif().toBuffer();
    await expect(correctImage(gif, {})).rejects.toBeInstanceOf(EngineError);
    await expect(correctImage(Buffer.from('not an image'), {})).rejects.toThrow(/JPEG and PNG/);
  });

  it('judges the size limits from the header, before decoding (also past sharp\'s own 268 MP)', async () => {
    // A small JPEG whose frame header claims a large size: its scan is far too short to decode as that,
    // so only a check made before the decode can name the limit.
    const claiming = async (width: number, height: number) => {
      const jpeg = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#808080' } }).jpeg().toBuffer();
      const sof = jpeg.indexOf(Buffer.from([0xff, 0xc0]));
      jpeg.writeUInt16BE(height, sof + 5);
      jpeg.writeUInt16BE(width, sof + 7);
      return jpeg;
    };
    await expect(correctImage(await claiming(15000, 14000), {})).rejects.toThrow(/image is 15000×14000 px \(210 MP\); images must be below 200 MP/);
    await expect(correctImage(await claiming(16500, 16500), {})).rejects.toThrow(/image is 16500×16500 px \(272 MP\); images must be below 200 MP/);
  });
});
