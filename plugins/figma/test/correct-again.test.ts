/**
 * A second correction of an image this plugin corrected before (other
 * options, or "Correct again") starts from its original, kept in the file:
 * the earlier result is replaced, never corrected on top of (sharpening,
 * contrast and colour twice over). Driven through the UI's run loop against
 * services that record the bytes they were sent; checked on those bytes, the
 * layer's fills, its records and what Restore brings back.
 */
import { createHash } from 'node:crypto';
import { validatePfcParams, type CorrectionBackend, type JobRecord } from '@pfc/core';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { ORIGINALS_KEY } from '../src/main/fills';
import { DEFAULT_OPTIONS } from '../src/shared/run-options';
import { AUTOCROP, correct, croppedJob, croppedPhoto, croppingBackend, expectClose, FRAMING, paintOf } from './cropping-service';
import { connect, freshSim, makeImage, streamOf } from './helpers';
import { withoutHiddenFills } from './user-steps';
import { imageFill, type SimFigma } from './sim/figma';
import type { SimShape } from './sim/nodes';

const sha1 = (bytes: Uint8Array) => createHash('sha1').update(bytes).digest('hex');

/**
 * A service that brightens what it is sent by `gain` (another result for
 * other options), crops it to `box` when given (reporting the crop, as the
 * Web API's auto crop does), and records the hash of every image it was sent.
 */
function recordingService(gain: number, box?: { x: number; y: number; width: number; height: number }) {
  const sent: string[] = [];
  const backend: CorrectionBackend = {
    kind: 'container',
    validate: (p) => validatePfcParams(p as Record<string, unknown>),
    async correct(input, params) {
      const bytes = input as Uint8Array;
      sent.push(sha1(bytes));
      const { width = 0, height = 0 } = await sharp(bytes).metadata();
      let image = sharp(bytes).linear(gain, 0);
      if (box) image = image.extract({ left: box.x, top: box.y, width: box.width, height: box.height });
      if (params.long) image = image.resize(params.long, params.long, { fit: 'inside' });
      const body = streamOf(new Uint8Array(await image.jpeg().toBuffer()));
      const job: JobRecord | undefined = box ? croppedJob({ width, height }, box) : undefined;
      return { body, contentType: 'image/jpeg', backend: 'container', warnings: [], info: {}, ...(job ? { job } : {}) };
    },
  };
  return { backend, sent };
}

/** The bytes of the image `hash` in the file. */
function bytesOf(sim: SimFigma, hash: string): Uint8Array {
  const image = sim.images.get(hash) as unknown as { bytes: Uint8Array } | undefined;
  if (!image) throw new Error(`no image ${hash}`);
  return image.bytes;
}

/** A new session on `layer`: the plugin closed and opened again with the layer selected. */
function reselect(sim: SimFigma, layer: SimShape): void {
  sim.closePlugin();
  sim.select(layer);
}

async function photoLayer(sim: SimFigma) {
  const original = sim.addImage(await makeImage(400, 300));
  const paint = imageFill(original, { opacity: 0.8 });
  const layer = sim.rect('Photo', [paint]);
  sim.place(layer);
  sim.select(layer);
  return { original, paint, layer };
}

describe('A second correction starts from the original', () => {
  it('sends the original, not the earlier result; the new result replaces it, and Restore brings the original back', async () => {
    const sim = freshSim();
    const { original, paint, layer } = await photoLayer(sim);
    const first = recordingService(1.2);
    await correct(sim, first.backend, DEFAULT_OPTIONS);
    const firstResult = paintOf(layer).imageHash ?? '';
    expect(first.sent).toEqual([sha1(bytesOf(sim, original))]);
    expect(firstResult).not.toBe(original);

    reselect(sim, layer);
    const second = recordingService(0.8);
    const updates = await correct(sim, second.backend, { ...DEFAULT_OPTIONS, preset: 'Pro' });
    // What the service got is the original, byte for byte; not the earlier result.
    expect(second.sent).toEqual([sha1(bytesOf(sim, original))]);
    const secondResult = paintOf(layer).imageHash ?? '';
    expect([secondResult === firstResult, secondResult === original]).toEqual([false, false]);
    // The result is the original made darker, not the brightened result made darker (0.8 × 1.2).
    const expected = await sharp(bytesOf(sim, original)).linear(0.8, 0).jpeg().toBuffer();
    expect(sha1(bytesOf(sim, secondResult))).toBe(sha1(expected));
    expect(updates.find((u) => u.phase === 'done')?.notes).toContain('corrected before: corrected again from its original, replacing the earlier correction');
    expect(JSON.parse(layer.getPluginData(ORIGINALS_KEY))).toEqual({ [secondResult]: original });
    expect(paintOf(layer).opacity).toBeCloseTo(0.8, 6);

    reselect(sim, layer);
    await connect(sim, { command: 'restore' });
    await expect.poll(() => sim.notifications.at(-1)?.message).toBe('Restored the original image on 1 layer');
    expect(layer.fills).toEqual([paint]);
  });

  it('"Correct again" on a layer auto-cropped before frames the new, uncropped result as the original was framed', async () => {
    const sim = freshSim();
    const { original, layer } = await croppedPhoto(sim);
    // Auto crop, reported: 300×300 px from x = 100, made 150×150.
    await correct(sim, croppingBackend({ x: 100, y: 0, width: 300, height: 300 }, true));
    expect(paintOf(layer).scaleMode).toBe('CROP');

    reselect(sim, layer);
    const again = recordingService(0.9);
    await correct(sim, again.backend, DEFAULT_OPTIONS);
    expect(again.sent).toEqual([sha1(bytesOf(sim, original))]);
    // The whole 400×300 original came back corrected: the layer shows what it showed at first, with the first framing.
    expect(paintOf(layer).scaleMode).toBe('CROP');
    expectClose(paintOf(layer).imageTransform, FRAMING);
    expectClose(sim.imageView(layer), { pixel: { x: 1, y: 1 }, shown: { x: 100, y: 60, width: 200, height: 100 } });
  });

  it('a second auto crop of the original is framed from the first framing, and Restore still brings back the first paint', async () => {
    const sim = freshSim();
    const { original, paint, layer } = await croppedPhoto(sim);
    await correct(sim, croppingBackend({ x: 100, y: 0, width: 300, height: 300 }, true));

    reselect(sim, layer);
    // The original cropped otherwise: 300×200 px from x = 50, y = 50 (no resize).
    const again = recordingService(0.9, { x: 50, y: 50, width: 300, height: 200 });
    await correct(sim, again.backend, { ...AUTOCROP, resize: { kind: 'none' } });
    expect(again.sent).toEqual([sha1(bytesOf(sim, original))]);
    // Still x 100–300, y 60–160 of the original: x 50–250, y 10–110 of the 300×200 result.
    expectClose(sim.imageView(layer), { pixel: { x: 1, y: 1 }, shown: { x: 50, y: 10, width: 200, height: 100 } });

    reselect(sim, layer);
    await connect(sim, { command: 'restore' });
    await expect.poll(() => sim.notifications.at(-1)?.message).toBe('Restored the original image on 1 layer');
    expect(layer.fills).toEqual([paint]);
  });

  it('a layer showing the original beside one showing its earlier result: the original is sent once, and both get the new result', async () => {
    const sim = freshSim();
    const { original, layer } = await photoLayer(sim);
    const twin = sim.rect('Same photo', [imageFill(original)]);
    sim.place(twin);
    await correct(sim, recordingService(1.2).backend, DEFAULT_OPTIONS);
    expect(paintOf(twin).imageHash).toBe(original);

    sim.closePlugin();
    sim.select(layer, twin);
    const second = recordingService(0.8);
    const updates = await correct(sim, second.backend, DEFAULT_OPTIONS);
    expect(second.sent).toEqual([sha1(bytesOf(sim, original))]);
    const result = paintOf(layer).imageHash ?? '';
    expect(paintOf(twin).imageHash).toBe(result);
    for (const l of [layer, twin]) expect(JSON.parse(l.getPluginData(ORIGINALS_KEY))).toEqual({ [result]: original });
    expect(updates.find((u) => u.phase === 'done')?.notes).toContain('corrected before: corrected again from its original, replacing the earlier correction');

    sim.closePlugin();
    sim.select(layer, twin);
    await connect(sim, { command: 'restore' });
    await expect.poll(() => sim.notifications.at(-1)?.message).toBe('Restored the original image on 2 layers');
    expect([paintOf(layer).imageHash, paintOf(twin).imageHash]).toEqual([original, original]);
  });

  it('corrects the earlier result once more, and says so, where the original is no longer in the file', async () => {
    const sim = freshSim();
    const { original, layer } = await photoLayer(sim);
    await correct(sim, recordingService(1.2).backend, DEFAULT_OPTIONS);
    const firstResult = paintOf(layer).imageHash ?? '';
    // The layer keeps its original in a hidden fill: the user deletes that fill, and once the file is reopened the
    // original, on no layer, is gone (reopen.ts).
    layer.fills = withoutHiddenFills(layer);
    sim.reopenFile();
    expect(sim.getImageByHash(original)).toBeNull();

    reselect(sim, layer);
    const second = recordingService(0.8);
    const updates = await correct(sim, second.backend, DEFAULT_OPTIONS);
    expect(second.sent).toEqual([sha1(bytesOf(sim, firstResult))]);
    expect(updates.find((u) => u.phase === 'done')?.notes).toContain('corrected before, and its original is no longer in this file: the corrected image is corrected once more');
  });
});
