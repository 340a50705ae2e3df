/**
 * The finishing steps by measured need (colour/finish.ts): a crisp photo is
 * not sharpened further and a colourful one gets no vibrance boost, while a
 * soft or muted one (or one greyed by a veil) gets the preset's amount; a
 * user's own amount is applied as given.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { correctRaster } from '../src/colour/correct';
import { acutance, finishAmount } from '../src/colour/finish';
import { planCorrection } from '../src/colour/plan';
import type { ColourParams } from '../src/colour/params';
import type { Raster } from '../src/image/raster';
import { applyLook } from '../src/look';
import { resolvePreset } from '../src/presets/resolve';
import { formatPresetFile } from '../src/presets/custom';
import { SCENE } from '../src/scene/categories';
import { AUTO, flatten, linearScene, moved } from './colour-helpers';

/** The Universal preset's finishing amounts on top of the automatic corrections. */
const FINISHED: ColourParams = { ...AUTO, sharpen: 0.4, vibrance: 0.2 };

/**
 * Blocks of 3 px, each its own lightness and one of four hues of chroma `c`
 * (0..1): step edges everywhere, detail down to the pixel, as in a crisp photo.
 */
const blocks =
  (c: number) =>
  (x: number, y: number): [number, number, number] => {
    const i = Math.floor(y / 3) * 83 + Math.floor(x / 3);
    const l = 0.005 + ((i * 37) % 61) / 75;
    const hue = [
      [1, 1 - c, 1 - c],
      [1 - c, 1, 1 - c * 0.5],
      [1 - c, 1 - c * 0.4, 1],
      [1, 1 - c * 0.2, 1 - c],
    ][i % 4]!;
    return hue.map((h) => l * h) as [number, number, number];
  };

const W = 240;
const H = 180;
/** Linear light `x` seen through a veil (haze 30 %, as the quality benchmark's). */
const veil = (x: number) => 0.7 * x + 0.3 * 0.7;

/** The raster out of focus: a Gaussian blur of σ px. */
async function blurred(img: Raster, sigma: number): Promise<Raster> {
  const data = await sharp(img.data, { raw: { width: img.width, height: img.height, channels: 3 } }).blur(sigma).raw().toBuffer();
  return { ...img, data: new Uint8Array(data) };
}

describe('sharpening by measured need', () => {
  it('reads a crisp pattern as crisp and the same pattern out of focus as soft, whatever its contrast', async () => {
    const crisp = linearScene(W, H, blocks(0.3));
    const soft = await blurred(crisp, 1.2);
    expect(acutance(crisp, 1)).toBeGreaterThan(0.5);
    expect(acutance(soft, 1)).toBeLessThan(0.35);
    // A flat curve scales fine and coarse detail alike.
    const flat = { ...crisp, ...flatten(crisp, 0.2, 0.6), channels: 3 as const };
    expect(acutance(flat, 1)).toBeCloseTo(acutance(crisp, 1), 1);
  });

  it('sharpens a soft photo by the preset amount and a crisp one not at all', async () => {
    const crisp = linearScene(W, H, blocks(0.3));
    const soft = await blurred(crisp, 1.2);
    const crispPlan = planCorrection(crisp, FINISHED);
    const softPlan = planCorrection(soft, FINISHED);
    expect(crispPlan.diagnostics.need!.sharpen).toBe(0);
    expect(crispPlan.plan.sharpen).toBe(0);
    expect(softPlan.plan.sharpen).toBeCloseTo(FINISHED.sharpen, 5);
  });

  it('takes the full image\'s acutance when given (the analysis copy is reduced, so crisp whatever the photo is)', () => {
    const crisp = linearScene(W, H, blocks(0.3));
    expect(planCorrection(crisp, FINISHED, 'still', undefined, { acutance: 0.3 }).plan.sharpen).toBeCloseTo(FINISHED.sharpen, 5);
  });
});

describe('vibrance by measured need', () => {
  it('boosts a muted scene by the preset amount and an already colourful one not at all', () => {
    const muted = planCorrection(linearScene(W, H, blocks(0.15)), FINISHED);
    const vivid = planCorrection(linearScene(W, H, blocks(0.8)), FINISHED);
    expect(muted.plan.vibrance).toBeCloseTo(FINISHED.vibrance, 5);
    expect(vivid.diagnostics.need!.vibrance).toBe(0);
    expect(vivid.plan.vibrance).toBe(0);
  });

  it('boosts a colourful scene greyed by a veil: the levels give back only part of its chroma', () => {
    const hazed = linearScene(W, H, (x, y) => blocks(0.8)(x, y).map(veil));
    expect(planCorrection(hazed, FINISHED).plan.vibrance).toBeGreaterThan(0.8 * FINISHED.vibrance);
  });
});

describe('a user\'s own finishing amount is applied as given', () => {
  it('keeps an amount the custom preset file sets, scales the amounts it takes from its base group', () => {
    const file = new TextEncoder().encode(formatPresetFile({ base: 'Universal', params: { sharpen: 1 } }));
    const mine = resolvePreset('Mine', SCENE.general, file);
    expect(mine.asGiven).toEqual(['sharpen']);
    expect(resolvePreset(undefined, SCENE.general).asGiven).toEqual([]);
    const need = { sharpen: 0, vibrance: 0 };
    expect(finishAmount('sharpen', mine.params, need, mine.asGiven)).toBe(1);
    expect(finishAmount('vibrance', mine.params, need, mine.asGiven)).toBe(0);
    // A crisp, colourful scene: the user's sharpening stays, the base's vibrance goes.
    const { plan } = planCorrection(linearScene(W, H, blocks(0.8)), mine.params, 'still', undefined, { asGiven: mine.asGiven });
    expect(plan.sharpen).toBe(1);
    expect(plan.vibrance).toBe(0);
  });

  it('leaves a negative vibrance (muting is a look, not a repair) as it is', () => {
    expect(finishAmount('vibrance', { ...FINISHED, vibrance: -0.3 }, { sharpen: 1, vibrance: 0 })).toBe(-0.3);
  });
});

describe('the look sharpens by the measured need', () => {
  it('does not sharpen a crisp photo under the default preset', async () => {
    const crisp = linearScene(W, H, blocks(0.8));
    const look = await applyLook(crisp, {}, { scene: SCENE.general });
    const unsharpened = await correctRaster(crisp, { ...look.colour, sharpen: 0 });
    expect(look.colour.sharpen).toBeGreaterThan(0);
    expect(moved(look.raster, unsharpened.raster)).toBe(0);
    // The job record says what was applied: the preset's amounts, none of which this photo needed.
    expect(look.finish).toEqual({ sharpen: 0, vibrance: 0 });
  });
});
