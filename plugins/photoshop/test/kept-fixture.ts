/**
 * The photo, service and checks shared by the tests of results the document can no longer take (kept-result.test.ts)
 * and of edits made while the service worked (edits-meanwhile.test.ts).
 */
import { readAll, type CorrectionBackend } from '@pfc/core';
import sharp from 'sharp';
import { expect, vi } from 'vitest';
import { pixelLayer, withCorrect } from './helpers';
import { emulator, keptDocuments, photoWith, press, RESULT } from './press';
import { boundsOf, snapshot, type DocState, type LayerNode } from './sim/index';

/** Where the source layer has pixels: the rest of the canvas is transparent, so its bounds are not the canvas. */
const BOUNDS = { left: 4, top: 6, right: 60, bottom: 58 };
export const SOURCE = 900;

/** A layer holding `rgba` inside BOUNDS only, with a hole and a half-transparent band inside: a shape the result keeps. */
function partLayer(rgba: Uint8Array, width: number): LayerNode {
  const pixels = rgba.slice();
  for (let i = 0; i < pixels.length / 4; i++) {
    const [x, y] = [i % width, Math.floor(i / width)];
    if (x < BOUNDS.left || x >= BOUNDS.right || y < BOUNDS.top || y >= BOUNDS.bottom) pixels[i * 4 + 3] = 0;
    else if (x >= 20 && x < 30 && y >= 20 && y < 30) pixels[i * 4 + 3] = 0;
    else if (y >= 40 && y < 44) pixels[i * 4 + 3] = 128;
  }
  return pixelLayer(SOURCE, 'face', pixels);
}

/**
 * The emulator, but each result comes back without its alpha, as from a service that flattens (the panel gives the
 * result its source's shape, and so must the kept document), and `meanwhile` runs once the job is done, before the
 * result is back: what the user did while the service worked.
 */
export function flatBackend(meanwhile: () => void = () => undefined): CorrectionBackend {
  const inner = emulator.backend();
  const correct: CorrectionBackend['correct'] = async (input, params, options) => {
    const result = await inner.correct(input, params, options);
    const opaque = await sharp(await readAll(result.body)).removeAlpha().png().toBuffer();
    meanwhile();
    return { ...result, body: new Response(opaque).body! };
  };
  return withCorrect(inner, correct);
}

/** The photo with the partial layer on top. */
export async function photo() {
  const first = await photoWith();
  first.doc.layers.unshift(partLayer(first.rgba, first.doc.width));
  // Opened so: the History panel's first state holds the layer too (what Undo goes back to).
  first.doc.history = [snapshot(first.doc, 'Open')];
  return first;
}

/** The pixels Correct Layer (or Correct Document) adds on the photo when nothing gets in its way. */
export async function resultPixels(scope: 'layer' | 'document' = 'layer'): Promise<Uint8Array> {
  const { host, doc } = await photo();
  const { outcome } = await press(host, doc, scope, scope === 'layer' ? SOURCE : undefined, flatBackend());
  expect(outcome.status).toBe('done');
  return doc.layers.find((l) => l.name === RESULT)!.pixels!;
}

/** The one document the run opened: the document's size, one layer holding exactly the pixels the layer would have had. */
export async function expectKept(sim: Awaited<ReturnType<typeof photo>>['sim'], doc: DocState): Promise<void> {
  const kept = keptDocuments(sim, doc);
  expect(kept.map((d) => [d.title, d.width, d.height, d.layers.length])).toEqual([['astronaut (Perfectly Clear)', doc.width, doc.height, 1]]);
  expect(Buffer.from(kept[0]!.layers[0]!.pixels!).equals(Buffer.from(await resultPixels()))).toBe(true);
}

/** Where the simulated user paints inside the source's bounds (which stay the same), and with what. */
export const PAINTED = { left: 10, top: 10, right: 16, bottom: 16 };
export const RED = [255, 0, 0, 255];

export const KEPT = 'so the result could not be added as a layer; it was opened as a new document, "astronaut (Perfectly Clear)", instead (Layer > Duplicate Layer… puts it back in place)';

/** The selection's value at a pixel (0 where nothing is selected). */
export function selectedAt(doc: DocState, x: number, y: number): number {
  return doc.selection?.[y * doc.width + x] ?? 0;
}

/** A layer's bounds as Photoshop reports them (`boundsNoEffects`). */
export function boundsNow(doc: DocState, layerId: number) {
  return boundsOf(doc, doc.layers.find((l) => l.id === layerId)!);
}

/**
 * The clock, running `factor` times faster from now on: Photoshop's two-minute hold on a result passes in a moment.
 * The simulator's own retry of executeAsModal and the panel's deadline both read `Date.now`.
 */
export function fastClock(factor: number): { restore: () => void } {
  const real = Date.now.bind(Date);
  const start = real();
  const spy = vi.spyOn(Date, 'now').mockImplementation(() => start + (real() - start) * factor);
  return { restore: () => spy.mockRestore() };
}

/** Correct Layer on the partial layer while the user opens a dialog as the service works and leaves it open for over two minutes. */
export async function pressWithDialogLeftOpen(host: Awaited<ReturnType<typeof photo>>['host'], sim: Awaited<ReturnType<typeof photo>>['sim'], doc: DocState) {
  let clock: { restore: () => void } | undefined;
  const dialogLeftOpen = flatBackend(() => {
    sim.core.heldByOther = 'com.example.other';
    clock = fastClock(1000);
  });
  const { outcome } = await press(host, doc, 'layer', SOURCE, dialogLeftOpen);
  clock?.restore();
  return outcome;
}
