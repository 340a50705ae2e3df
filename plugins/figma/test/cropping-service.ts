/**
 * A correction service that crops (the Web API's auto crop) and the UI's run
 * loop driving the plugin with it as the Apply button does, for the tests of
 * framing and of Restore after a crop.
 */
import { emptyJobUsage, validatePfcParams, type CorrectionBackend, type CropBox, type JobRecord } from '@pfc/core';
import sharp from 'sharp';
import { expect } from 'vitest';
import { DEFAULT_OPTIONS, type RunOptions } from '../src/shared/run-options';
import { runCorrection, type ItemUpdate } from '../src/ui/runner';
import { makeImage, streamOf, wired } from './helpers';
import { imageFill, type SimFigma } from './sim/figma';
import type { SimShape } from './sim/nodes';

/** The Web API's record of a finished auto-crop job (spec web-api-v2, "Job status record"). */
export function croppedJob(original: { width: number; height: number }, box: CropBox): JobRecord {
  const now = new Date().toISOString();
  const usage = { ...emptyJobUsage('MEDIUM'), imageCorrectionCount: 1, autoCropCount: 1 };
  return { _id: 'job-1', status: 'COMPLETED', statusText: '', code: 0, createdAt: now, updatedAt: now, usage, aiserver: true, timeTaken: 1, originalDimensions: original, autoCrop: box };
}

/** A service that crops every image to `box` and then applies the requested `long` resize; it reports the crop when `reports`. */
export function croppingBackend(box: CropBox, reports: boolean): CorrectionBackend {
  return {
    kind: 'web',
    validate: (p) => validatePfcParams(p as Record<string, unknown>),
    async correct(input, params) {
      const image = sharp(input as Uint8Array);
      const { width = 0, height = 0 } = await image.metadata();
      let out = image.extract({ left: box.x, top: box.y, width: box.width, height: box.height });
      if (params.long) out = out.resize(params.long, params.long, { fit: 'inside' });
      const body = streamOf(new Uint8Array(await out.jpeg().toBuffer()));
      return { body, contentType: 'image/jpeg', backend: 'web', warnings: [], info: {}, ...(reports ? { job: croppedJob({ width, height }, box) } : {}) };
    },
  };
}

export const AUTOCROP: RunOptions = { ...DEFAULT_OPTIONS, autocrop: true, resize: { kind: 'long', px: 150 } };

/** Shows 200×100 px of a 400×300 image, at 1 canvas unit per pixel, on a 200×100 layer. */
export const FRAMING: Transform = [
  [0.5, 0, 0.25],
  [0, 1 / 3, 0.2],
];

/** Correct the selection with `backend`, accepting every result; the progress rows' updates. */
export async function correct(sim: SimFigma, backend: CorrectionBackend, options: RunOptions = AUTOCROP): Promise<ItemUpdate[]> {
  const updates: ItemUpdate[] = [];
  await runCorrection(await wired(sim), backend, options, new AbortController().signal, { onPlan: () => undefined, onItem: (_, u) => updates.push(u) });
  return updates;
}

export const paintOf = (layer: SimShape, index = 0) => (layer.fills as ImagePaint[])[index]!;

/** Numbers in a structure rounded to 4 decimals: the fills' geometry goes through a few floating-point steps, and Figma keeps it in 32-bit floats (sim/nodes.ts). */
const rounded = (value: unknown): unknown => JSON.parse(JSON.stringify(value, (_, v: unknown) => (typeof v === 'number' ? Math.round(v * 1e4) / 1e4 + 0 : v)));

export function expectClose(actual: unknown, expected: unknown): void {
  expect(rounded(actual)).toEqual(rounded(expected));
}

/** A 200×100 layer showing 200×100 px of a 400×300 photo (CROP), selected; `colour` makes another photo. */
export async function croppedPhoto(sim: SimFigma, name = 'Cropped', colour?: { r: number; g: number; b: number }) {
  const original = sim.addImage(await makeImage(400, 300, 'jpeg', colour));
  const paint = imageFill(original, { scaleMode: 'CROP', imageTransform: FRAMING });
  const layer = sim.rect(name, [paint]);
  layer.width = 200;
  layer.height = 100;
  sim.place(layer);
  sim.select(layer);
  return { original, paint, layer };
}
