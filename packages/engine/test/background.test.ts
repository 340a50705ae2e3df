/**
 * Background removal and replacement on a real portrait with the engine's
 * person mask: transparent, colour, image and generated backdrops, and the
 * three shadows (darker background right where each kind casts it).
 */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composeBackground } from '../src/background/compose';
import { backgroundSvg, generateBackground, promptColours, promptTheme } from '../src/background/generate';
import { subjectBox, type Plane8 } from '../src/background/shadow';
import type { Raster } from '../src/image/raster';
import { closeEngineWorkers, segmentPerson } from '../src/vision';
import { sample } from './colour-helpers';

afterAll(() => closeEngineWorkers());

let portrait: Raster;
let mask: Plane8;
/** A drawn figure (head and shoulders) on grey, standing free, with its exact mask: the shadow geometry on its own. */
let figure: Raster;
let figureMask: Plane8;
beforeAll(async () => {
  const { data, info } = await sharp(sample('portraits/grace_hopper.jpg')).raw().toBuffer({ resolveWithObject: true });
  portrait = { data, width: info.width, height: info.height, channels: 3 };
  mask = await segmentPerson({ ...portrait, channels: 3 });
  const shape = (fill: string, bg: string) =>
    Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="400" height="300"><rect width="400" height="300" fill="${bg}"/><circle cx="200" cy="80" r="40" fill="${fill}"/><rect x="140" y="125" width="120" height="95" rx="30" fill="${fill}"/></svg>`);
  const f = await sharp(shape('#304060', '#808080')).removeAlpha().raw().toBuffer();
  figure = { data: f, width: 400, height: 300, channels: 3 };
  figureMask = { data: await sharp(shape('#ffffff', '#000000')).extractChannel(0).raw().toBuffer(), width: 400, height: 300 };
});

const lum = (img: Raster, x: number, y: number): number => {
  const i = (y * img.width + x) * img.channels;
  return 0.299 * img.data[i]! + 0.587 * img.data[i + 1]! + 0.114 * img.data[i + 2]!;
};
/** Mean luma of the background (mask < 10) inside a box. */
function backgroundLuma(img: Raster, m: Plane8, box: { left: number; top: number; right: number; bottom: number }): number {
  let s = 0;
  let n = 0;
  for (let y = Math.max(0, box.top); y <= Math.min(img.height - 1, box.bottom); y++) {
    for (let x = Math.max(0, box.left); x <= Math.min(img.width - 1, box.right); x++) {
      if (m.data[y * img.width + x]! < 10) {
        s += lum(img, x, y);
        n++;
      }
    }
  }
  return n ? s / n : NaN;
}

describe('composeBackground', () => {
  it('makes the background transparent and keeps the subject opaque', async () => {
    const box = subjectBox(mask)!;
    const out = await composeBackground(portrait, mask, { mode: 'transparent' });
    expect(out.channels).toBe(4);
    const alpha = (x: number, y: number) => out.data[(y * out.width + x) * 4 + 3]!;
    expect(alpha(Math.round((box.left + box.right) / 2), Math.round((box.top + box.bottom) / 2))).toBeGreaterThan(240);
    expect(alpha(out.width - 5, 5)).toBeLessThan(10);
    const alphas = Uint8Array.from({ length: out.width * out.height }, (_, i) => out.data[i * 4 + 3]!);
    expect(Buffer.from(alphas).equals(Buffer.from(mask.data))).toBe(true);
  });

  it('fills a colour behind the subject', async () => {
    const out = await composeBackground(portrait, mask, { mode: 'colour', colour: '#00c000' });
    const corner = (portrait.width - 3) * 3;
    expect(mask.data[portrait.width - 3]).toBe(0);
    expect(Array.from(out.data.subarray(corner, corner + 3))).toEqual([0, 192, 0]);
    const box = subjectBox(mask)!;
    const cx = Math.round((box.left + box.right) / 2);
    const cy = Math.round(box.top + (box.bottom - box.top) * 0.3);
    expect(lum(out, cx, cy)).toBeCloseTo(lum(portrait, cx, cy), 0);
  });

  it('puts an image behind the subject, scaled to cover', async () => {
    const coffee = sample('objects/coffee.jpg');
    const out = await composeBackground(portrait, mask, { mode: 'image', image: coffee });
    const expected = await sharp(coffee).resize(portrait.width, portrait.height, { fit: 'cover' }).raw().toBuffer();
    for (const [x, y] of [[portrait.width - 4, 3], [portrait.width - 4, 100]] as const) {
      expect(mask.data[y * portrait.width + x]).toBe(0);
      const i = (y * portrait.width + x) * 3;
      expect(Math.abs(out.data[i]! - expected[i]!)).toBeLessThanOrEqual(2);
    }
  });

  it('casts each shadow where its kind puts it, and none in the generative mode', async () => {
    const box = subjectBox(figureMask)!;
    expect(box).toEqual({ left: 140, top: 40, right: 259, bottom: 219 });
    const plain = await composeBackground(figure, figureMask, { mode: 'colour', colour: '#ffffff' });
    const right = { left: 262, top: 130, right: 275, bottom: 215 };
    const below = { left: 160, top: 222, right: 240, bottom: 260 };
    const farCorner = { left: 0, top: 0, right: 30, bottom: 30 };
    for (const kind of ['soft', 'hard', 'floating'] as const) {
      const shaded = await composeBackground(figure, figureMask, { mode: 'colour', colour: '#ffffff', shadow: kind });
      const where = kind === 'floating' ? below : right;
      const elsewhere = kind === 'floating' ? right : below;
      expect(backgroundLuma(plain, figureMask, where), kind).toBe(255);
      expect(backgroundLuma(shaded, figureMask, where), kind).toBeLessThan(235);
      expect(backgroundLuma(shaded, figureMask, elsewhere), kind).toBeGreaterThan(backgroundLuma(shaded, figureMask, where));
      expect(backgroundLuma(shaded, figureMask, farCorner), kind).toBe(255);
    }
    const gen = await composeBackground(figure, figureMask, { mode: 'generative', prompt: 'white studio', shadow: 'hard' });
    const genPlain = await composeBackground(figure, figureMask, { mode: 'generative', prompt: 'white studio' });
    expect(Buffer.from(gen.data).equals(Buffer.from(genPlain.data))).toBe(true);
  });
});

describe('generateBackground', () => {
  it('is the same for the same prompt and differs between prompts', async () => {
    const a = await generateBackground('sunset at the beach', 160, 120);
    const b = await generateBackground('sunset at the beach', 160, 120);
    const c = await generateBackground('snowy mountains', 160, 120);
    expect(Buffer.from(a.data).equals(Buffer.from(b.data))).toBe(true);
    expect(Buffer.from(a.data).equals(Buffer.from(c.data))).toBe(false);
    expect(backgroundSvg('city at night', 50, 40)).toBe(backgroundSvg('city at night', 50, 40));
  });

  it('reads themes and colour names from the prompt', async () => {
    expect(promptTheme('Sunset at the beach')).toBe('sunset');
    expect(promptTheme('a tropical beach with palm trees')).toBe('beach');
    expect(promptTheme('city lights')).toBe('city');
    expect(promptTheme('something nice')).toBe('abstract');
    expect(promptColours('a blue studio, gold accents')).toEqual(['#0000ff', '#ffd700']);
    const blue = await generateBackground('blue studio backdrop', 120, 90);
    let r = 0;
    let bl = 0;
    for (let i = 0; i < blue.data.length; i += 3) {
      r += blue.data[i]!;
      bl += blue.data[i + 2]!;
    }
    expect(bl).toBeGreaterThan(r * 3);
    // A sunset sky is warm at the horizon and darker at the top.
    const sunset = await generateBackground('sunset', 120, 90);
    expect(lum(sunset, 60, 2)).toBeLessThan(lum(sunset, 60, 50));
  });
});
