/**
 * Restore after a correction that changed a fill's framing (a crop): each
 * fill the plugin wrote gets its whole original paint back; what the user did
 * since is kept, or left alone with a reason. Driven as a user does: a run
 * through the UI's run loop, edits in the properties panel (setting fills),
 * then the Restore command in a later session; checked on the layer's fills
 * and the notification.
 */
import { describe, expect, it } from 'vitest';
import { ORIGINALS_KEY, PAINTS_KEY } from '../src/main/fills';
import { AUTOCROP, correct, croppedPhoto, croppingBackend, expectClose, FRAMING, paintOf } from './cropping-service';
import { freshSim, makeImage } from './helpers';
import { keeperOf, restore, restoreWhy } from './user-steps';
import { imageFill } from './sim/figma';

/** The service crops 300×300 px from x = 100 of the 400×300 original (to 150×150) without saying so: CROP fills become FILL. */
const UNREPORTED_CROP = croppingBackend({ x: 100, y: 0, width: 300, height: 300 }, false);
/** The same crop, reported (`autoCrop`): CROP fills keep their framing, re-expressed. */
const REPORTED_CROP = croppingBackend({ x: 100, y: 0, width: 300, height: 300 }, true);

describe('Restore puts back each fill the correction changed as it was', () => {
  it('brings back a CROP fill the correction set to Fill, with its imageTransform, from a small record', async () => {
    const sim = freshSim();
    const { paint, layer } = await croppedPhoto(sim);
    await correct(sim, UNREPORTED_CROP);
    expect(paintOf(layer).scaleMode).toBe('FILL');
    expect(layer.getPluginData(PAINTS_KEY).length).toBeLessThan(250);

    expect(await restore(sim, layer)).toBe('Restored the original image on 1 layer');
    expect(layer.fills).toEqual([paint]);
    expect([layer.getPluginData(ORIGINALS_KEY), layer.getPluginData(PAINTS_KEY), layer.getRelaunchData()]).toEqual(['', '', {}]);
  });

  it('puts back a TILE fill with its exact scalingFactor, and rotation, filters, opacity, blend mode and a hidden fill unchanged', async () => {
    const sim = freshSim();
    const original = sim.addImage(await makeImage(400, 300));
    const fills = [
      imageFill(original, { scaleMode: 'TILE', scalingFactor: 0.9, rotation: 90, filters: { contrast: 0.2, temperature: -0.3 }, opacity: 0.8, blendMode: 'MULTIPLY' }),
      imageFill(original, { scaleMode: 'FIT', rotation: 270, visible: false }),
    ];
    const layer = sim.rect('Tiled', fills);
    sim.place(layer);
    sim.select(layer);
    await correct(sim, REPORTED_CROP, { ...AUTOCROP, includeHidden: true });
    // Tiles as wide on the canvas as before: 0.9 × 400 / 150.
    expect(paintOf(layer).scalingFactor).toBeCloseTo(2.4, 6);

    expect(await restore(sim, layer)).toBe('Restored the original image on 1 layer');
    expect(layer.fills).toEqual(fills);
  });

  it('keeps the opacity and filters the user gave a corrected fill, and puts back its image and framing', async () => {
    const sim = freshSim();
    const { original, layer } = await croppedPhoto(sim);
    await correct(sim, UNREPORTED_CROP);
    layer.fills = [{ ...paintOf(layer), opacity: 0.4, filters: { exposure: 0.3 } }];

    expect(await restore(sim, layer)).toBe('Restored the original image on 1 layer');
    expect(layer.fills).toEqual([imageFill(original, { scaleMode: 'CROP', imageTransform: FRAMING, opacity: 0.4, filters: { exposure: 0.3 } })]);
  });

  it('gives the original image the framing the user chose after the correction, and says so', async () => {
    const sim = freshSim();
    const { original, layer } = await croppedPhoto(sim);
    await correct(sim, REPORTED_CROP);
    // The user moves the crop on the 150×150 result: its x 50–150, y 75–125, i.e. x 200–400, y 150–250 of the original.
    layer.fills = [{ ...paintOf(layer), imageTransform: [[2 / 3, 0, 1 / 3], [0, 1 / 3, 0.5]] }];

    expect(await restore(sim, layer)).toBe('Restored the original image on 1 layer; 1 fill you reframed keeps your framing');
    expect([paintOf(layer).imageHash, paintOf(layer).scaleMode]).toEqual([original, 'CROP']);
    expectClose(sim.imageView(layer), { pixel: { x: 1, y: 1 }, shown: { x: 200, y: 150, width: 200, height: 100 } });
  });

  it('leaves a fill the user reframed in a way the original cannot show undistorted, says why, and restores it once set back', async () => {
    const sim = freshSim();
    const { original, paint, layer } = await croppedPhoto(sim);
    const backdrop = imageFill(sim.addImage(await makeImage(400, 300, 'png', { r: 20, g: 40, b: 90 })), { opacity: 0.5 });
    layer.fills = [paint, backdrop];
    await correct(sim, UNREPORTED_CROP);
    // Each original kept in a hidden fill, after the others (keepers.ts).
    const keepers = (layer.fills as Paint[]).slice(2);
    expect(keepers).toEqual(expect.arrayContaining([keeperOf(original), keeperOf(backdrop.imageHash!)]));
    // The user crops the corrected (Fill) photo again: which part of the original that is, is not known.
    const reframed = { ...paintOf(layer), scaleMode: 'CROP' as const, imageTransform: [[1, 0, 0], [0, 0.5, 0.25]] as Transform };
    layer.fills = [reframed, paintOf(layer, 1), ...keepers];

    // The toast (100 characters) says how many were left, selected for the user to find; its Why button says why.
    expect(await restore(sim, layer)).toBe('Restored the original image on 1 layer; 1 layer changed since is left as it is, selected');
    expect(sim.currentPage.selection.map((n) => n.id)).toEqual([layer.id]);
    expect(restoreWhy(sim)).toEqual([
      'Restored the original image on 1 layer', '1 layer changed since is left as it is, selected', '"Cropped": reframed so the original would be distorted',
    ]);
    // The fill left still leads back to the photo's original, which stays kept; the backdrop's keeper went with it.
    expect(layer.fills).toEqual([reframed, backdrop, keeperOf(original)]);
    expect(layer.getRelaunchData()).toHaveProperty('restore');

    // Set back to Fill in the properties panel (the crop's transform no longer applies, whatever Figma keeps of it),
    // in a later session of the file.
    layer.fills = [{ ...reframed, scaleMode: 'FILL' }, backdrop, keeperOf(original)];
    sim.reopenFile();
    expect(await restore(sim, layer)).toBe('Restored the original image on 1 layer');
    expect(layer.fills).toEqual([paint, backdrop]);
    expect(layer.getRelaunchData()).toEqual({});
  });

  it('with many layers changed since, the toast (100 characters) says how many were left, they are selected, and Why names each', async () => {
    const sim = freshSim();
    const original = sim.addImage(await makeImage(400, 300));
    const names = ['Hero banner photograph', 'Team portrait, second row', 'Product shot on white', 'Office at dusk', 'Detail'];
    const layers = names.map((name) => {
      const layer = sim.rect(name, [imageFill(original)]);
      sim.place(layer);
      return layer;
    });
    sim.select(...layers);
    await correct(sim, UNREPORTED_CROP);
    const other = imageFill(sim.addImage(await makeImage(300, 300, 'png')));
    for (const layer of layers.slice(1)) layer.fills = [other];

    const toast = await restore(sim, ...layers);
    expect(toast).toBe('Restored the original image on 1 layer; 4 layers changed since are left as they are, selected');
    expect(sim.currentPage.selection.map((n) => n.name)).toEqual(names.slice(1));
    // Every name and why, however many: the window has the room the toast has not.
    expect(restoreWhy(sim).slice(2)).toEqual(names.slice(1).map((name) => `"${name}": another image`));
  });

  it('a frame of photos, selected and corrected, offers Correct again and Restore original when selected again; they go once it is restored', async () => {
    const sim = freshSim();
    const original = sim.addImage(await makeImage(400, 300));
    const photos = [sim.rect('Left', [imageFill(original)]), sim.rect('Right', [imageFill(original)])];
    const frame = sim.frame('Spread', photos);
    sim.place(frame);
    sim.select(frame);
    await correct(sim, UNREPORTED_CROP);
    expect(Object.keys(frame.getRelaunchData()).sort()).toEqual(['correct-again', 'restore']);
    expect(Object.keys(photos[0]!.getRelaunchData()).sort()).toEqual(['correct-again', 'restore']);

    expect(await restore(sim, frame)).toBe('Restored the original image on 2 layers');
    expect(frame.getRelaunchData()).toEqual({});
    expect(photos.map((p) => p.getRelaunchData())).toEqual([{}, {}]);
  });

  it('leaves a layer that shows another image since the correction, and names it', async () => {
    const sim = freshSim();
    const { layer } = await croppedPhoto(sim);
    await correct(sim, UNREPORTED_CROP);
    const other = imageFill(sim.addImage(await makeImage(300, 300, 'png')), { scaleMode: 'FIT' });
    layer.fills = [other];

    expect(await restore(sim, layer)).toBe('Nothing restored; 1 layer changed since is left as it is, selected; "Cropped": another image');
    expect(sim.currentPage.selection.map((n) => n.id)).toEqual([layer.id]);
    expect(layer.fills).toEqual([other]);
  });

  it('after two corrections ("Correct again"), brings back the fill as it was before the first', async () => {
    const sim = freshSim();
    const { paint, layer } = await croppedPhoto(sim);
    await correct(sim, UNREPORTED_CROP);
    sim.closePlugin();
    sim.select(layer);
    await correct(sim, croppingBackend({ x: 0, y: 0, width: 150, height: 100 }, false));
    expect(paintOf(layer).imageHash).not.toBe(paint.imageHash);

    expect(await restore(sim, layer)).toBe('Restored the original image on 1 layer');
    expect(layer.fills).toEqual([paint]);
  });

  it.each([
    ['reported', REPORTED_CROP, (original: string) => imageFill(original, { scaleMode: 'CROP', imageTransform: FRAMING })],
    ['not reported', UNREPORTED_CROP, (original: string) => imageFill(original)],
  ] as const)('restores a layer corrected by a version that kept no paint record as that version did (crop %s): the original image, refitted', async (_, backend, expected) => {
    const sim = freshSim();
    const { original, layer } = await croppedPhoto(sim);
    await correct(sim, backend);
    layer.setPluginData(PAINTS_KEY, '');

    expect(await restore(sim, layer)).toBe('Restored the original image on 1 layer');
    expectClose(layer.fills, [expected(original)]);
    expect(layer.getPluginData(ORIGINALS_KEY)).toBe('');
  });
});
