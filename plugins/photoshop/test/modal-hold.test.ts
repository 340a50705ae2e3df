/**
 * Photoshop is held (`executeAsModal`: "a modal user interaction state,
 * affecting much of the UI", executeasmodal.md:14) only for what must run
 * there: reading and writing pixels. Fitting a result to its source — a
 * cut-out's split into pixels and mask, a resample — is pure work on pixels
 * that takes seconds on large images, and is done before the scope opens.
 */
import { startEmulator, type EmulatorHandle } from '@pfc/emulator';
import { createWebBackend } from '@pfc/core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEFAULT_CHOICES, toParams } from '../src/correct/options';
import { runCorrections } from '../src/correct/run';
import { resolveTargets } from '../src/correct/targets';
import { testEngine } from './emulator-engine';
import { simHost } from './helpers';

/** Whether Photoshop was held at each call of the fitting steps, by step. */
const held: Record<string, boolean[]> = { cutoutParts: [], resample: [] };
let inModal: () => boolean = () => false;

vi.mock('../src/image/pixels', async (importOriginal) => {
  const pixels = await importOriginal<typeof import('../src/image/pixels')>();
  const watched = <F extends (...args: never[]) => unknown>(name: string, f: F): F =>
    ((...args: Parameters<F>) => {
      held[name]!.push(inModal());
      return f(...args);
    }) as F;
  return { ...pixels, cutoutParts: watched('cutoutParts', pixels.cutoutParts), resample: watched('resample', pixels.resample) };
});

/** A dim, shaded RGB image, which the default correction brightens. */
function shaded(width: number, height: number): Uint8Array {
  const out = new Uint8Array(width * height * 3);
  for (let i = 0; i < width * height; i++) out.set([40 + ((i % width) >> 4), 50, 60 + (Math.floor(i / width) >> 4)], i * 3);
  return out;
}

let emu: EmulatorHandle;
beforeAll(async () => {
  emu = await startEmulator({ webPort: 0, engine: testEngine });
});
afterAll(async () => {
  await emu?.close();
});

describe('what runs while Photoshop is held', () => {
  it.each([
    ['a background removal', 'cutoutParts', { ...DEFAULT_CHOICES, background: 'transparent' }],
    ['a correction', 'resample', DEFAULT_CHOICES],
  ] as const)('%s is fitted to its layer before the modal scope, and the layer is added', async (_, step, choices) => {
    const { host, sim } = simHost();
    inModal = () => sim.core.inModal;
    const doc = sim.openDocument({ title: 'photo.psd', width: 600, height: 400, pixels: shaded(600, 400), channels: 3 });
    const backend = createWebBackend({ baseURL: emu.web, apiKey: 'test-key', poll: { initialDelayMs: 20, maxDelayMs: 100 } });
    held[step]!.length = 0;

    const [outcome] = await runCorrections(host, backend, resolveTargets(host, 'layer'), toParams(choices));

    expect(outcome).toMatchObject({ status: 'done' });
    expect(doc.layers).toHaveLength(2);
    expect(held[step]).toEqual([false]);
  }, 60_000);
});
