/**
 * One image that Figma cannot read, or will not take, among several: that
 * image fails or is skipped with a reason, and the others go on — in the
 * plan, while its bytes are read, when a result is handed over (a result cut
 * short after its header), when the accepted results are put in, and in
 * Restore. The reads fail through the simulator's `imageFaults` (a download
 * that did not work); the result is refused by the simulator's decoder.
 */
import { validatePfcParams, type CorrectionBackend } from '@pfc/core';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkResult } from '../src/main/apply';
import { ORIGINALS_KEY } from '../src/main/fills';
import { DEFAULT_OPTIONS } from '../src/shared/run-options';
import { runCorrection, type ItemUpdate, type RunCallbacks } from '../src/ui/runner';
import { jpegCutAfterHeader } from './broken-images';
import { correct, croppedPhoto, croppingBackend, paintOf } from './cropping-service';
import { connect, freshSim, makeImage, streamOf, wired } from './helpers';
import { imageFill, type SimFigma } from './sim/figma';
import type { SimShape } from './sim/nodes';
import { hashesOf, opts, restore, restoreWhy } from './user-steps';

const LOAD_FAILED = 'Image failed to load';

/** A service that inverts each image, and answers for the image `cutWidth` px wide a JPEG cut short after its header. */
function invertingBackend(cutWidth?: number): CorrectionBackend {
  return {
    kind: 'web',
    validate: (p) => validatePfcParams(p as Record<string, unknown>),
    async correct(input) {
      const img = sharp(input as Uint8Array);
      const out = new Uint8Array(await img.negate().jpeg().toBuffer());
      const body = (await img.metadata()).width === cutWidth ? jpegCutAfterHeader(out) : out;
      return { body: streamOf(body), contentType: 'image/jpeg', backend: 'web', warnings: [], info: {} };
    },
  };
}

/** Three photos, 50, 60 and 70 px wide, each on its own layer, selected. */
async function threePhotos(sim: SimFigma): Promise<{ layers: SimShape[]; hashes: string[] }> {
  const hashes = await Promise.all([50, 60, 70].map(async (w) => sim.addImage(await makeImage(w, 40, 'jpeg', { r: w, g: 90, b: 160 }))));
  const layers = hashes.map((h, i) => sim.rect(`Photo ${i + 1}`, [imageFill(h)]));
  sim.place(...layers);
  sim.select(...layers);
  return { layers, hashes };
}

/** The UI's run loop with every result accepted: the summary and the last update of each image's row. */
async function run(sim: SimFigma, backend: CorrectionBackend, onPlan: RunCallbacks['onPlan'] = () => undefined) {
  const rows = new Map<string, ItemUpdate>();
  const { summary, plan } = await runCorrection(await wired(sim), backend, DEFAULT_OPTIONS, new AbortController().signal, { onPlan, onItem: (hash, u) => rows.set(hash, u) });
  return { summary, plan, rows };
}

let CUT: Uint8Array;
beforeAll(async () => {
  CUT = jpegCutAfterHeader(await makeImage(60, 40));
});

describe('a corrected image Figma cannot decode', () => {
  it('fails its row with a clear message, changes nothing for it, and the other images are still corrected', async () => {
    // The plugin's own check reads the header only, and takes the result: Figma's decoder refuses it.
    expect(() => checkResult(CUT)).not.toThrow();
    const sim = freshSim();
    const { layers, hashes } = await threePhotos(sim);
    const { summary, rows } = await run(sim, invertingBackend(60));
    expect(summary).toEqual({ done: 2, failed: 1, skipped: 0, rejected: 0, cancelled: false });
    expect(rows.get(hashes[1]!)).toMatchObject({ phase: 'failed', error: expect.stringMatching(/^the corrected image could not be read: Figma refused it as an image \(Image is invalid/) });
    expect(layers.map((l, i) => hashesOf(l)[0] === hashes[i])).toEqual([false, true, false]);
    expect(layers[1]!.getPluginData(ORIGINALS_KEY)).toBe('');
    // The three photos and the two results: the refused bytes are nowhere in the file.
    expect(sim.images.size).toBe(5);
  });
});

describe('an image Figma cannot read', () => {
  it('is skipped by the plan with a reason, and the others are corrected', async () => {
    const sim = freshSim();
    const { layers, hashes } = await threePhotos(sim);
    sim.imageFaults.set(hashes[1]!, new Error(LOAD_FAILED));
    const { summary, plan } = await run(sim, invertingBackend());
    expect(summary).toEqual({ done: 2, failed: 0, skipped: 1, rejected: 0, cancelled: false });
    expect(plan.skipped).toEqual([{ nodeId: layers[1]!.id, nodeName: 'Photo 2', reason: `could not be read from Figma (${LOAD_FAILED}), so it was left unchanged; run the plugin again to correct it` }]);
    expect(layers.map((l, i) => hashesOf(l)[0] === hashes[i])).toEqual([false, true, false]);
  });

  it('fails its row when its bytes cannot be read, and the others are corrected', async () => {
    const sim = freshSim();
    const { layers, hashes } = await threePhotos(sim);
    // Planned (its size was read), then the download of its bytes fails.
    const { summary, rows } = await run(sim, invertingBackend(), () => void sim.imageFaults.set(hashes[2]!, new Error(LOAD_FAILED)));
    expect(summary).toMatchObject({ done: 2, failed: 1 });
    expect(rows.get(hashes[2]!)).toMatchObject({ phase: 'failed', error: `Figma could not read the image (${LOAD_FAILED})` });
    expect(layers.map((l, i) => hashesOf(l)[0] === hashes[i])).toEqual([false, false, true]);
  });

  it('fails its apply, changing none of its layers, and the other results are put in', async () => {
    const t = await connect();
    const { layers, hashes } = await threePhotos(t.sim);
    const twin = t.sim.rect('Photo 1 again', [imageFill(hashes[0]!, { scaleMode: 'CROP', imageTransform: [[0.5, 0, 0.1], [0, 0.5, 0.2]] })]);
    t.sim.place(twin);
    t.sim.select(...layers, twin);
    const plan = await t.request('run/plan', opts());
    const results = await Promise.all([1, 2, 3].map((i) => makeImage(50 + 10 * i, 40, 'png', { r: i, g: 2, b: 3 })));
    for (const [i, job] of plan.images.entries()) await t.request('image/stage', { runId: plan.runId, hash: job.hash, bytes: results[i]! });
    // The user reviews; meanwhile the first photo's image can no longer be had (its size frames the CROP fill).
    t.sim.imageFaults.set(hashes[0]!, new Error(LOAD_FAILED));
    const applied = await Promise.allSettled(plan.images.map((job) => t.request('image/apply', { runId: plan.runId, hash: job.hash, relaunchNote: 'x' })));
    expect(applied.map((a) => a.status)).toEqual(['rejected', 'fulfilled', 'fulfilled']);
    expect(((applied[0] as PromiseRejectedResult).reason as Error).message).toBe(`Figma could not read the image (${LOAD_FAILED})`);
    expect([...layers, twin].map((l) => hashesOf(l)[0] === hashes[0])).toEqual([true, false, false, true]);
    expect(twin.getPluginData(ORIGINALS_KEY)).toBe('');
  });

  it('puts it in where no fill needs its size (Fill and Fit fills scale any image to the layer)', async () => {
    const t = await connect();
    const { layers, hashes } = await threePhotos(t.sim);
    const fit = t.sim.rect('Photo 1 fitted', [imageFill(hashes[0]!, { scaleMode: 'FIT' })]);
    t.sim.place(fit);
    t.sim.select(...layers, fit);
    const plan = await t.request('run/plan', opts());
    const result = await makeImage(60, 40, 'png', { r: 1, g: 2, b: 3 });
    await t.request('image/stage', { runId: plan.runId, hash: hashes[0]!, bytes: result });
    t.sim.imageFaults.set(hashes[0]!, new Error(LOAD_FAILED));
    const applied = await t.request('image/apply', { runId: plan.runId, hash: hashes[0]!, relaunchNote: 'x' });
    expect(applied.fillsChanged).toBe(2);
    expect([layers[0]!, fit].map((l) => hashesOf(l)[0])).toEqual([applied.newHash, applied.newHash]);
    expect((fit.fills as ImagePaint[])[0]!.scaleMode).toBe('FIT');
    expect(JSON.parse(fit.getPluginData(ORIGINALS_KEY))).toEqual({ [applied.newHash]: hashes[0] });
  });

  it('leaves one layer in Restore, selected and named, restores the others, and restores it once it can be read', async () => {
    const sim = freshSim();
    const photos: Awaited<ReturnType<typeof croppedPhoto>>[] = [];
    for (const red of [10, 120, 230]) photos.push(await croppedPhoto(sim, `Cropped ${red}`, { r: red, g: 90, b: 40 }));
    const layers = photos.map((p) => p.layer);
    sim.select(...layers);
    await correct(sim, croppingBackend({ x: 100, y: 0, width: 300, height: 300 }, true));
    // The user moves each crop: the original is given their framing, worked out from both images' sizes.
    for (const layer of layers) layer.fills = [{ ...paintOf(layer), imageTransform: [[2 / 3, 0, 1 / 3], [0, 1 / 3, 0.5]] }];
    const corrected = paintOf(layers[1]!).imageHash!;
    sim.imageFaults.set(corrected, new Error(LOAD_FAILED));

    expect(await restore(sim, ...layers)).toBe("Restored the original image on 2 layers; 1 layer's image could not be read: left as it is, selected");
    expect(layers.map((l) => paintOf(l).imageHash === photos[layers.indexOf(l)]!.original)).toEqual([true, false, true]);
    expect(sim.page.selection.map((n) => n.name)).toEqual(['Cropped 120']);
    expect(restoreWhy(sim)).toContain(`"Cropped 120": Figma could not read its image (restore it again later)`);

    sim.imageFaults.delete(corrected);
    sim.endToasts();
    expect(await restore(sim, layers[1]!)).toBe('Restored the original image on 1 layer; 1 fill you reframed keeps your framing');
    expect(paintOf(layers[1]!).imageHash).toBe(photos[1]!.original);
  });
});
