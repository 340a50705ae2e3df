/**
 * Parameters that turn a correction off leave the user's pixels alone: a
 * custom preset with every parameter off, the clipart skip, and a strength
 * of 0 for white balance, contrast and exposure (README "Parameters",
 * "Custom preset files", "Skip modes"). Checked on the output file's pixels.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { correctImage } from '../src/correct';
import { formatPresetFile } from '../src/presets/custom';
import { channelMean, flatten, linearGains, png, rgb, sample, type Rgb } from './colour-helpers';

const COFFEE = sample('objects/coffee.jpg');
const NO_FACES = { findFaces: null } as const;
const presetFile = (params: Record<string, number>) => new TextEncoder().encode(formatPresetFile({ params }));

/** A small copy of the photo (fast, and the same look as the full size). */
async function small(): Promise<Rgb> {
  return rgb(await sharp(COFFEE).resize(240, 160, { fit: 'fill' }).png().toBuffer());
}

async function corrected(input: Buffer, params: Record<string, number>): Promise<Rgb> {
  return rgb((await correctImage(input, { preset: 'Mine', skip: 'none' }, { ...NO_FACES, presetFile: presetFile(params) })).output);
}

/** Standard deviation of the green channel: how much contrast the image has. */
function spread(img: Rgb): number {
  const m = channelMean(img, 1);
  let s = 0;
  let n = 0;
  for (let i = 1; i < img.data.length; i += 3, n++) s += (img.data[i]! - m) ** 2;
  return Math.sqrt(s / n);
}

/** Flat synthetic graphics the scene detector calls clipart. */
async function clipart(): Promise<Buffer> {
  const W = 240;
  const H = 160;
  const data = Buffer.alloc(W * H * 3);
  const colours = [
    [230, 60, 40],
    [40, 90, 200],
    [250, 250, 250],
    [30, 30, 30],
  ];
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const c = colours[(Math.floor(x / 60) + Math.floor(y / 80)) % colours.length]!;
      data.set(c, 3 * (y * W + x));
    }
  }
  return sharp(data, { raw: { width: W, height: H, channels: 3 } })
    .png()
    .toBuffer();
}

/**
 * A photo every group would correct (dark, warm cast, flat): a good original
 * may come out of a correction unchanged, so it cannot tell "off" from "on".
 */
async function needsCorrection(): Promise<Rgb> {
  return flatten(linearGains(await small(), [0.5, 0.4, 0.3]), 0.1, 0.7);
}

describe('corrections turned off leave the pixels as they were', () => {
  it('the photo used below is one the default correction changes', async () => {
    const orig = await needsCorrection();
    const r = await correctImage(await png(orig), {}, NO_FACES);
    expect(Buffer.from((await rgb(r.output)).data).equals(Buffer.from(orig.data))).toBe(false);
  });

  it('preset=none writes the source pixels unchanged (PNG in, PNG out), also with faces looked for', async () => {
    const orig = await needsCorrection();
    for (const options of [NO_FACES, {}]) {
      const r = await correctImage(await png(orig), { preset: 'none' }, options);
      expect(r.info.format).toBe('png');
      expect(Buffer.from((await rgb(r.output)).data).equals(Buffer.from(orig.data))).toBe(true);
    }
  });

  it('a custom preset with every parameter off writes the source pixels unchanged (PNG in, PNG out)', async () => {
    const orig = await needsCorrection();
    const input = await png(orig);
    const r = await correctImage(input, { preset: 'Off' }, { ...NO_FACES, presetFile: presetFile({}) });
    expect(r.info.format).toBe('png');
    expect(Buffer.from((await rgb(r.output)).data).equals(Buffer.from(orig.data))).toBe(true);
  });

  it('clipart skipped under the default skip rule keeps its pixels exactly', async () => {
    const graphic = await clipart();
    const warm = presetFile({ warmth: 1, saturation: 0.5 });
    const r = await correctImage(graphic, { preset: 'Warm' }, { ...NO_FACES, presetFile: warm });
    expect(r.applied.skipped).toMatch(/clipart/);
    expect(Buffer.from((await rgb(r.output)).data).equals(Buffer.from((await rgb(graphic)).data))).toBe(true);
  });

  it('sharpen 0 (with another parameter on) does not sharpen: every pixel stays within a level of the source', async () => {
    const orig = await small();
    const out = await corrected(await png(orig), { sharpen: 0, saturation: 0.001 });
    let off = 0;
    for (let i = 0; i < orig.data.length; i++) off = Math.max(off, Math.abs(out.data[i]! - orig.data[i]!));
    expect(off).toBeLessThanOrEqual(1);
  });

  it('whiteBalance 0 keeps a colour cast; 1 removes it', async () => {
    const astronaut = await rgb(await sharp(sample('portraits/astronaut.jpg')).resize(240, 240).png().toBuffer());
    const cast = linearGains(astronaut, [1, 0.75, 0.5]);
    const input = await png(cast);
    const ratio = (img: Rgb) => channelMean(img, 0) / channelMean(img, 2);
    // Saturation 0.001: a parameter set that is not all off, and moves nothing measurable.
    const off = await corrected(input, { whiteBalance: 0, saturation: 0.001 });
    const on = await corrected(input, { whiteBalance: 1, saturation: 0.001 });
    expect(Math.abs(ratio(off) / ratio(cast) - 1)).toBeLessThan(0.02);
    expect(ratio(on)).toBeLessThan(ratio(off) * 0.95);
  });

  it('contrast 0 leaves a flat photo flat; 1 stretches it', async () => {
    const flat = flatten(await small(), 0.22, 0.56);
    const input = await png(flat);
    const off = await corrected(input, { contrast: 0, saturation: 0.001 });
    const on = await corrected(input, { contrast: 1, saturation: 0.001 });
    expect(Math.abs(spread(off) / spread(flat) - 1)).toBeLessThan(0.03);
    expect(spread(on)).toBeGreaterThan(spread(flat) * 1.2);
  });

  it('exposure 0 leaves a dark photo dark; 1 brightens it', async () => {
    const dark = linearGains(await small(), [0.25, 0.25, 0.25]);
    const input = await png(dark);
    const off = await corrected(input, { exposure: 0, saturation: 0.001 });
    const on = await corrected(input, { exposure: 1, saturation: 0.001 });
    expect(Math.abs(channelMean(off, 1) - channelMean(dark, 1))).toBeLessThan(1.5);
    expect(channelMean(on, 1)).toBeGreaterThan(channelMean(dark, 1) + 10);
  });
});
