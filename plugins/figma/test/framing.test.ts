/**
 * A correction that changes the image's shape (the service's auto crop) must
 * leave every fill showing what it showed: a CROP fill the same part of the
 * picture, undistorted; a TILE fill tiles of the same size; and a Restore the
 * original framing. Checked on what the layer shows (sim/paint-view.ts), with
 * the UI's run loop driving the plugin as the Apply button does.
 */
import { describe, expect, it } from 'vitest';
import { connect, freshSim, makeImage } from './helpers';
import { correct, croppingBackend, expectClose, FRAMING, paintOf } from './cropping-service';
import { imageFill, type SimFigma } from './sim/figma';

/** A 400×300 image in a CROP, a TILE and a FILL fill, all selected. */
async function photoLayers(sim: SimFigma) {
  const original = sim.addImage(await makeImage(400, 300));
  const cropped = sim.rect('Cropped', [imageFill(original, { scaleMode: 'CROP', imageTransform: FRAMING })]);
  cropped.width = 200;
  cropped.height = 100;
  const tiled = sim.rect('Tiled', [imageFill(original, { scaleMode: 'TILE', scalingFactor: 0.5 })]);
  const filled = sim.rect('Filled', [imageFill(original)]);
  sim.place(cropped, tiled, filled);
  sim.select(cropped, tiled, filled);
  return { original, cropped, tiled, filled };
}

describe('a correction that crops the image', () => {
  it('keeps a CROP fill showing the same part of the picture, undistorted, and a TILE fill its tile size; Restore brings the original framing back', async () => {
    const sim = freshSim();
    const { original, cropped, tiled, filled } = await photoLayers(sim);
    expectClose(sim.imageView(cropped), { pixel: { x: 1, y: 1 }, shown: { x: 100, y: 60, width: 200, height: 100 } });
    const tile = sim.imageView(tiled).tile;

    // The service keeps 300×300 px from x = 100 and scales them to 150×150.
    const updates = await correct(sim, croppingBackend({ x: 100, y: 0, width: 300, height: 300 }, true));
    expect(paintOf(cropped).scaleMode).toBe('CROP');
    // Each result pixel stands for 2×2 of the original: twice as large on the canvas, as much in x as in y …
    const view = sim.imageView(cropped);
    expectClose(view.pixel, { x: 2, y: 2 });
    // … over the same part of the original (result pixels × 2, shifted by the crop's corner).
    const shown = view.shown!;
    expectClose({ x: 100 + 2 * shown.x, y: 2 * shown.y, width: 2 * shown.width, height: 2 * shown.height }, { x: 100, y: 60, width: 200, height: 100 });
    // A tile is the whole image: square now, and as wide on the canvas as before.
    expectClose(sim.imageView(tiled).tile, { width: tile!.width, height: tile!.width });
    expect(paintOf(filled).scaleMode).toBe('FILL');
    expect(updates.find((u) => u.phase === 'done')?.notes?.join('\n')).not.toMatch(/set to Fill/);

    // Restore, in a later session.
    sim.closePlugin();
    sim.select(cropped, tiled, filled);
    await connect(sim, { command: 'restore' });
    await expect.poll(() => sim.notifications.at(-1)?.message).toBe('Restored the original image on 3 layers');
    expect(paintOf(cropped).imageHash).toBe(original);
    expectClose(paintOf(cropped).imageTransform, FRAMING);
    expectClose(sim.imageView(tiled).tile, tile!);
  });

  it.each([
    ['the service does not report the crop', { x: 100, y: 0, width: 300, height: 300 }, false],
    ['the crop cuts into the part the layer showed', { x: 200, y: 0, width: 200, height: 300 }, true],
  ] as const)('turns a CROP fill into Fill, undistorted, and says so, when %s', async (_, box, reports) => {
    const sim = freshSim();
    const { cropped } = await photoLayers(sim);
    const updates = await correct(sim, croppingBackend(box, reports));
    expect(paintOf(cropped).scaleMode).toBe('FILL');
    expect(paintOf(cropped).imageTransform).toBeUndefined();
    const { pixel } = sim.imageView(cropped);
    expect(pixel.x).toBeCloseTo(pixel.y, 9);
    expect(updates.find((u) => u.phase === 'done')?.notes).toContainEqual(expect.stringMatching(/^"Cropped": the corrected image has another shape.*set to Fill/));
  });
});
