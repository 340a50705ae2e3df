/**
 * Safety net for speed work on the correction pipeline: `correctImage` must
 * give the pixels of the plain, step-by-step pipeline the README describes
 * (decode → 400 px analysis copy and point sample → scene → preset → plan → per-channel
 * look-up tables → vibrance per pixel → unsharp mask on luma). The
 * reference below is written for clarity, not speed, and shares only the
 * planner and the curves with the engine; a faster pipeline that changes
 * pixels by more than {@link MAX_LEVELS} fails here. Outputs are PNG, so no
 * encoder noise hides a difference.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { PfcParams } from '@pfc/core';
import { channelLuts } from '../src/colour/apply';
import { acutance } from '../src/colour/finish';
import { planCorrection } from '../src/colour/plan';
import { correctImage } from '../src/correct';
import { decodeRaster, pointSample, thumbnailRaster, type Raster } from '../src/image/raster';
import { resolvePreset } from '../src/presets/resolve';
import { detectScene } from '../src/scene/detect';
import type { StepTimings } from '../src/timings';
import { sample } from './colour-helpers';

/** Largest per-channel difference (8-bit levels) allowed between the engine and the reference. */
const MAX_LEVELS = 1;

const tune = (name: string) => readFileSync(fileURLToPath(new URL(`../../../bench/photos/tune/${name}`, import.meta.url)));

/** The README's pipeline, one step after the other. Faces: none (as `findFaces: null`). */
async function referencePixels(input: Buffer, params: PfcParams): Promise<Raster> {
  const image = await decodeRaster(input);
  const thumb = await thumbnailRaster(image, 400);
  // The levels read the photo's ends from whole pixels of it, not resampled ones.
  const points = pointSample(image, 400);
  const preset = resolvePreset(params.preset, detectScene(thumb, []).scene);
  // The finishing steps' need: the acutance is measured on the full image, at the mask's σ.
  const sigma = Math.max(0.6, Math.min(2, Math.max(image.width, image.height) / 1500));
  const { plan } = planCorrection(thumb, preset.params, 'still', undefined, { acutance: acutance(image, sigma), points });
  const luts = channelLuts(plan);
  const ch = image.channels;
  const out = new Uint8Array(image.data);
  for (let i = 0; i < out.length; i += ch) {
    const [r, g, b] = [0, 1, 2].map((c) => luts[c as 0 | 1 | 2][image.data[i + c]!]!) as [number, number, number];
    out.set([r, g, b], i);
    const max = Math.max(r, g, b);
    const min = Math.min(r, g, b);
    if (max === min) continue;
    // Vibrance: muted colours gain more chroma than vivid ones, skin-like hues half as much.
    const sat = (max - min) / 255;
    const skin = r > g && g > b && r - b < 170 ? 0.5 : 1;
    const factor = (1 + plan.saturation) * (1 + plan.vibrance * skin * (1 - sat) ** 2);
    const y = 0.299 * r + 0.587 * g + 0.114 * b;
    out.set([r, g, b].map((v) => Math.min(255, Math.max(0, Math.round(y + (v - y) * factor)))), i);
  }
  if (plan.sharpen > 0) {
    // Unsharp mask on luma, σ from the image size (0.6..2 px, above): encoded Rec. 601 luma, its Gaussian
    // blur (libvips, integer kernel to 10 % of its peak), the difference in L units (2.55 levels)
    // through libvips' cored curve, added to R, G and B alike.
    const [m1, m2, x1] = [0.5 * plan.sharpen, 1.5 * plan.sharpen, 2];
    const luma = new Uint16Array(image.width * image.height);
    for (let p = 0; p < luma.length; p++) luma[p] = 77 * out[p * ch]! + 150 * out[p * ch + 1]! + 29 * out[p * ch + 2]!;
    const blurred = new Uint16Array(
      (await sharp(luma, { raw: { width: image.width, height: image.height, channels: 1 } }).blur({ sigma, minAmplitude: 0.1, precision: 'integer' }).toColourspace('grey16').raw({ depth: 'ushort' }).toBuffer()).buffer.slice(0),
    );
    for (let p = 0; p < luma.length; p++) {
      const v = (luma[p]! - blurred[p]!) / 256 / 2.55;
      const y = Math.abs(v) < x1 ? v * m1 : Math.sign(v) * (x1 * m1 + (Math.abs(v) - x1) * m2);
      const delta = Math.min(10, Math.max(-20, y)) * 2.55;
      for (let c = 0; c < 3; c++) out[p * ch + c] = Math.min(255, Math.max(0, Math.round(out[p * ch + c]! + delta)));
    }
  }
  let pixels = sharp(out, { raw: { width: image.width, height: image.height, channels: ch } });
  // Then the classic resize (Lanczos-3) to the width asked for, if any.
  if (params.width !== undefined) pixels = pixels.resize({ width: params.width, kernel: 'lanczos3' });
  const { data, info } = await pixels.raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data), width: info.width, height: info.height, channels: ch };
}

async function enginePixels(input: Buffer, params: PfcParams, timings?: StepTimings): Promise<Raster> {
  const r = await correctImage(input, { ...params, outputType: 'png' }, { findFaces: null, ...(timings ? { timings } : {}) });
  const { data, info } = await sharp(r.output).raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data), width: info.width, height: info.height, channels: info.channels as 3 | 4 };
}

/** The input decoded (and resized as asked) without any correction. */
async function uncorrected(input: Buffer, params: PfcParams): Promise<Raster> {
  const image = await decodeRaster(input);
  if (params.width === undefined) return image;
  const { data, info } = await sharp(image.data, { raw: { width: image.width, height: image.height, channels: image.channels } })
    .resize({ width: params.width, kernel: 'lanczos3' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data), width: info.width, height: info.height, channels: image.channels };
}

function maxDifference(a: Raster, b: Raster): number {
  expect([a.width, a.height, a.channels]).toEqual([b.width, b.height, b.channels]);
  let max = 0;
  for (let i = 0; i < a.data.length; i++) max = Math.max(max, Math.abs(a.data[i]! - b.data[i]!));
  return max;
}

/** Coffee with a half-transparent disc cut out: RGBA in, alpha kept. */
async function withAlpha(): Promise<Buffer> {
  const disc = Buffer.from('<svg width="600" height="400"><circle cx="300" cy="200" r="150" fill="#000" fill-opacity="0.5"/></svg>');
  return sharp(await needy('objects/coffee.jpg')).ensureAlpha().composite([{ input: disc, blend: 'dest-out' }]).png().toBuffer();
}

/**
 * A sample photo that needs every step: its contrast flattened (levels, and
 * vibrance: the flat curve greyed its colours) and out of focus (sharpening).
 * The samples themselves are good photos, crisp and colourful, which the
 * engine leaves nearly as they are (colour/finish.ts).
 */
const needy = (name: string): Promise<Buffer> => sharp(sample(name)).linear(0.75, 16).blur(1.2).png().toBuffer();

/** Rocket as a camera photo: turned on its side with EXIF orientation 6 (upright when displayed), copyright, Display P3 profile. */
async function cameraPhoto(): Promise<Buffer> {
  return sharp(await needy('outdoors/rocket.jpg'))
    .rotate(-90)
    .withExif({ IFD0: { Copyright: 'Public domain, NASA', Orientation: '6' } })
    .withIccProfile('p3')
    .jpeg({ quality: 92 })
    .toBuffer();
}

const CASES: [string, () => Buffer | Promise<Buffer>, PfcParams][] = [
  ['coffee', () => needy('objects/coffee.jpg'), {}],
  ['rocket', () => needy('outdoors/rocket.jpg'), {}],
  ['astronaut', () => needy('portraits/astronaut.jpg'), {}],
  ['grace_hopper', () => needy('portraits/grace_hopper.jpg'), {}],
  ['chelsea (PNG)', () => sample('objects/chelsea.png'), {}],
  ['kde-eveningglow', () => tune('kde-eveningglow.jpg'), {}],
  ['mate-greenmeadow', () => tune('mate-greenmeadow.jpg'), {}],
  ['coffee, Pro (no vibrance)', () => needy('objects/coffee.jpg'), { preset: 'Pro' }],
  ['coffee at 1.8 MP (larger sharpening radius)', async () => sharp(sample('objects/coffee.jpg')).resize({ width: 1650 }).jpeg({ quality: 92 }).toBuffer(), {}],
  ['coffee with alpha', withAlpha, {}],
  ['grey rocket', async () => sharp(await needy('outdoors/rocket.jpg')).grayscale().png().toBuffer(), {}],
  ['camera photo (EXIF kept, orientation 6, P3 profile)', cameraPhoto, {}],
  ['camera photo, PNG out without metadata', cameraPhoto, { preserveMetadata: false }],
  ['coffee with alpha, EXIF kept', async () => sharp(await withAlpha()).withExif({ IFD0: { Copyright: 'x' } }).png().toBuffer(), {}],
  ['coffee resized to 450 px (sharpened before the resize)', () => needy('objects/coffee.jpg'), { width: 450 }],
];

describe('correctImage against the step-by-step reference pipeline', () => {
  it.each(CASES)('%s: same pixels (within one level)', async (_name, make, params) => {
    const input = await make();
    const [engine, reference] = await Promise.all([enginePixels(input, params), referencePixels(input, params)]);
    expect(maxDifference(engine, reference)).toBeLessThanOrEqual(MAX_LEVELS);
    // The reference does change the image, so an engine that returned its input would fail.
    expect(maxDifference(reference, await uncorrected(input, params))).toBeGreaterThan(MAX_LEVELS);
  });
});

describe('metadata kept without a second decode', () => {
  it('a camera photo keeps its EXIF and gets an sRGB profile; upright, so orientation 1', async () => {
    const r = await correctImage(await cameraPhoto(), {}, { findFaces: null });
    const meta = await sharp(r.output).metadata();
    expect(meta.exif?.toString('latin1')).toContain('Public domain, NASA');
    expect(meta.orientation ?? 1).toBe(1);
    expect(meta.icc).toBeDefined();
    expect([meta.width, meta.height]).toEqual([r.info.width, r.info.height]);
  });
});

describe('CorrectOptions.timings', () => {
  it('adds the wall time of each step that ran, and sums over calls', async () => {
    const input = await needy('objects/coffee.jpg');
    const timings: StepTimings = {};
    await enginePixels(input, {}, timings);
    const steps = ['decode', 'analysisCopy', 'planning', 'curves', 'sharpen', 'encode'] as const;
    for (const s of steps) expect(timings[s], s).toBeGreaterThan(0);
    // No face finder and no resize: those steps did not run.
    expect(timings.faces).toBeUndefined();
    expect(timings.resize).toBeUndefined();
    const first = { ...timings };
    await enginePixels(input, {}, timings);
    for (const s of steps) expect(timings[s]!).toBeGreaterThan(first[s]!);
  });
});
