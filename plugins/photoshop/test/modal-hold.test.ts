/**
 * Photoshop is held (`executeAsModal`: "a modal user interaction state,
 * affecting much of the UI", executeasmodal.md:14) only for what must run
 * there: reading and writing pixels. Fitting a result to its source — a
 * cut-out's split into pixels and mask, a resample — and the strength's mix
 * with the source's pixels (decoded from the upload) are pure work on pixels
 * that takes seconds on large images, and is done before the scope opens.
 */
import { describe, expect, it, vi } from 'vitest';
import { DEFAULT_CHOICES, toParams, type PanelChoices } from '../src/correct/options';
import { runCorrections } from '../src/correct/run';
import { resolveTargets } from '../src/correct/targets';
import { emulatorForFile } from './emulator-engine';
import { rgbToRgba, simHost } from './helpers';
import type { LayerNode } from './sim/index';

const watch = vi.hoisted(() => {
  /** Whether Photoshop was held at each call of a watched step, by step. */
  const held: Record<string, boolean[]> = {};
  let holding: () => boolean = () => false;
  return {
    held,
    /** Take whether Photoshop is held from this (the test's simulator). */
    heldWhen(inModal: () => boolean): void {
      holding = inModal;
      for (const calls of Object.values(held)) calls.length = 0;
    },
    step<F extends (...args: never[]) => unknown>(name: string, f: F): F {
      return ((...args: Parameters<F>) => {
        (held[name] ??= []).push(holding());
        return f(...args);
      }) as F;
    },
  };
});

vi.mock('../src/image/pixels', async (importOriginal) => {
  const pixels = await importOriginal<typeof import('../src/image/pixels')>();
  return { ...pixels, cutoutParts: watch.step('cutoutParts', pixels.cutoutParts), resample: watch.step('resample', pixels.resample), mix: watch.step('mix', pixels.mix) };
});

vi.mock('../src/image/codec', async (importOriginal) => {
  const codec = await importOriginal<typeof import('../src/image/codec')>();
  return { ...codec, decodeImage: watch.step('decodeImage', codec.decodeImage) };
});

const { backend } = emulatorForFile();

/** A dim, shaded RGB image, which the default correction brightens. */
function shaded(width: number, height: number): Uint8Array {
  const out = new Uint8Array(width * height * 3);
  for (let i = 0; i < width * height; i++) out.set([40 + ((i % width) >> 4), 50, 60 + (Math.floor(i / width) >> 4)], i * 3);
  return out;
}

describe('what runs while Photoshop is held', () => {
  it.each([
    ['a background removal is fitted to its layer', 'cutoutParts', { ...DEFAULT_CHOICES, background: 'transparent' }, {}],
    ['a correction is fitted to its layer', 'resample', DEFAULT_CHOICES, {}],
    // Taken over for its mask's density, which only a read in a modal scope sees (the simulator refuses one outside).
    ['a correction at 50 % that takes over a layer masked at 60 % density is mixed with its pixels', 'mix', DEFAULT_CHOICES, { strength: 50, source: { mask: new Uint8Array(600 * 400), maskDensity: 60 } }],
  ] as [string, string, PanelChoices, { strength?: number; source?: Partial<LayerNode> }][])('%s before the modal scope, and the layer is added', async (_, step, choices, { strength, source }) => {
    const { host, sim } = simHost();
    watch.heldWhen(() => sim.core.inModal);
    const doc = sim.openDocument({ title: 'photo.psd', width: 600, height: 400, pixels: shaded(600, 400), channels: 3 });
    if (source) {
      // A layer like this over the Background, selected: Correct Layer's source.
      doc.layers.unshift({ id: 8800, name: 'source', kind: 'pixel', visible: true, isBackground: false, pixels: rgbToRgba(shaded(600, 400)), children: null, ...source });
      doc.activeLayerIds = [8800];
    }
    const layers = doc.layers.length;

    const [outcome] = await runCorrections(host, backend(), resolveTargets(host, 'layer'), toParams(choices), { strength });

    expect(outcome).toMatchObject({ status: 'done' });
    expect(doc.layers).toHaveLength(layers + 1);
    expect(watch.held[step]).toEqual([false]);
    // The upload's pixels, the result's and the source's are all decoded outside the scope too.
    expect(watch.held.decodeImage).toContain(false);
    expect(watch.held.decodeImage).not.toContain(true);
  }, 60_000);
});
