/**
 * What the user decides in the window reaches the service and the canvas: the
 * background and AI Art options in the emulator's job record and in the image
 * Figma holds; a rejected result stays off the canvas. Driven through the UI's
 * run loop (review, then "Apply accepted") on the simulated Figma.
 */
import { validatePfcParams, type CorrectionBackend } from '@pfc/core';
import { startEmulator, type EmulatorHandle } from '@pfc/emulator';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBackend } from '../src/ui/backend';
import { DEFAULT_OPTIONS, type RunOptions } from '../src/ui/options';
import { applyAccepted, correctForPreview, runCorrection, type ItemUpdate } from '../src/ui/runner';
import { freshSim, makeImage, nodeThumbnail, wired } from './helpers';
import { imageFill, type SimFigma } from './sim/figma';
import type { SimShape } from './sim/nodes';

let emu: EmulatorHandle;
beforeAll(async () => {
  // An engine that renders AI Art as the image itself: enough to see what was asked for.
  emu = await startEmulator({ webPort: 0, engine: { art: async (image) => image } });
});
afterAll(async () => {
  await emu?.close();
});

const backendOf = () => openBackend({ backend: 'emulator', emulatorURL: emu.web, containerURL: '', bgrURL: '', apiKey: null, bgrLicenceKey: null });
const hashOf = (layer: SimShape) => (layer.fills as ImagePaint[])[0]!.imageHash!;

async function photos(sim: SimFigma, count: number): Promise<SimShape[]> {
  const layers: SimShape[] = [];
  for (let i = 0; i < count; i++) layers.push(sim.rect(`Photo ${i + 1}`, [imageFill(sim.addImage(await makeImage(120 + 20 * i, 80, 'jpeg', { r: 40 * i, g: 120, b: 60 })))]));
  sim.place(...layers);
  sim.select(...layers);
  return layers;
}

/** Correct one photo with `options`, accepting the result; the service's job and the image Figma holds. */
async function correctOne(options: RunOptions) {
  const sim = freshSim();
  const [layer] = await photos(sim, 1);
  const before = emu.jobs().length;
  const { summary } = await runCorrection(await wired(sim), backendOf(), options, new AbortController().signal, { onPlan: () => undefined, onItem: () => undefined }, { thumbnail: nodeThumbnail });
  expect(summary).toMatchObject({ done: 1, failed: 0 });
  const jobs = emu.jobs().slice(before);
  expect(jobs).toHaveLength(1);
  return { job: jobs[0]!, inFigma: await sharp(sim.imageBytes(hashOf(layer!))).metadata() };
}

describe('background and AI Art options reach the service', () => {
  it('a removed background left transparent is asked for as PNG, and Figma holds a PNG with alpha', async () => {
    const { job, inFigma } = await correctOne({ ...DEFAULT_OPTIONS, removeBackground: true, background: 'transparent' });
    expect(job.requested).toMatchObject({ removeBackground: true, outputType: 'png' });
    expect([inFigma.format, inFigma.hasAlpha]).toEqual(['png', true]);
  });

  it('a background with a shadow asks for the colour and the shadow the user chose', async () => {
    const { job } = await correctOne({ ...DEFAULT_OPTIONS, removeBackground: true, background: 'shadow', bgColor: '#336699', bgShadow: 'hard' });
    expect(job.requested).toMatchObject({ removeBackground: true, bgColor: '#336699', bgShadow: 'hard' });
  });

  it('AI Art asks for the style and the output size the user chose', async () => {
    const { job } = await correctOne({ ...DEFAULT_OPTIONS, aiArt: 'oilPainting', aiArtOutputSize: '4k' });
    expect(job.requested).toMatchObject({ aiArt: 'oilPainting', aiArtOutputSize: '4k' });
  });
});

describe('reviewing the results', () => {
  it('puts only the accepted results on the canvas; a rejected one leaves its layer as it was', async () => {
    const sim = freshSim();
    const layers = await photos(sim, 2);
    const originals = layers.map(hashOf);
    const bridge = await wired(sim);
    const run = await correctForPreview(bridge, backendOf(), DEFAULT_OPTIONS, new AbortController().signal, { onPlan: () => undefined, onItem: () => undefined }, { thumbnail: nodeThumbnail });
    expect(run.previews.size).toBe(2);
    // Nothing changes on the canvas before the user applies.
    expect(layers.map(hashOf)).toEqual(originals);

    const { summary, message } = await applyAccepted(bridge, run, new Set([originals[0]!]), () => undefined);
    expect(summary).toMatchObject({ done: 1, rejected: 1, failed: 0 });
    expect(message).toBe('1 image corrected, 1 rejected');
    expect(hashOf(layers[0]!)).not.toBe(originals[0]);
    expect(layers[1]!.fills).toEqual([imageFill(originals[1]!)]);
    expect(sim.notifications.at(-1)?.message).toBe('1 image corrected, 1 rejected');
  });
});

describe('what is not sent, or not kept', () => {
  it('options the service would refuse (remembered from elsewhere) are refused before anything is sent', async () => {
    const sim = freshSim();
    const [layer] = await photos(sim, 1);
    const original = hashOf(layer!);
    const before = emu.jobs().length;
    const updates: ItemUpdate[] = [];
    // "Correct again" starts from the options saved on the layer, which do not pass through the form's checks.
    const options: RunOptions = { ...DEFAULT_OPTIONS, outputType: 'jpg', outputQuality: 20 };
    const { summary } = await runCorrection(await wired(sim), backendOf(), options, new AbortController().signal, { onPlan: () => undefined, onItem: (_, u) => updates.push(u) }, { thumbnail: nodeThumbnail });
    expect(summary).toMatchObject({ done: 0, failed: 1 });
    expect(updates.find((u) => u.phase === 'failed')?.error).toMatch(/^Invalid options: .*outputQuality/);
    expect(emu.jobs().length).toBe(before);
    expect(hashOf(layer!)).toBe(original);
  });

  it('a result that arrives after Cancel is not kept for review', async () => {
    const sim = freshSim();
    await photos(sim, 1);
    const images = sim.images.size;
    const controller = new AbortController();
    const result = await makeImage(120, 80);
    // The service answers; its result is still downloading when the user cancels.
    const backend: CorrectionBackend = {
      kind: 'container',
      validate: (p) => validatePfcParams(p as Record<string, unknown>),
      correct: async () => {
        const body = new ReadableStream<Uint8Array>({
          start: (c) => {
            controller.signal.addEventListener('abort', () => {
              c.enqueue(result);
              c.close();
            });
            setTimeout(() => controller.abort(), 10);
          },
        });
        return { body, contentType: 'image/jpeg', backend: 'container', warnings: [], info: {} };
      },
    };
    const updates: ItemUpdate[] = [];
    const run = await correctForPreview(await wired(sim), backend, DEFAULT_OPTIONS, controller.signal, { onPlan: () => undefined, onItem: (_, u) => updates.push(u) }, { thumbnail: nodeThumbnail });
    expect(run.previews.size).toBe(0);
    expect(run.summary.cancelled).toBe(true);
    expect(updates.at(-1)?.phase).toBe('cancelled');
    // Nothing was handed to Figma.
    expect(sim.images.size).toBe(images);
  });
});
