/**
 * Pressing the panel's buttons on a photo, against the emulator, and what a test reads back: the layer tree as the
 * Layers panel shows it and what reached the service.
 */
import type { CorrectionBackend } from '@pfc/core';
import { DEFAULT_CHOICES, toParams } from '../src/correct/options';
import { runCorrections, type Outcome, type RunOptions } from '../src/correct/run';
import { resolveTargets, type Scope } from '../src/correct/targets';
import { emulatorForFile } from './emulator-engine';
import { loadSample, rgbToRgba, simHost } from './helpers';
import type { SimImaging } from './sim/imaging';
import type { DocState, LayerNode } from './sim/index';

type SimHost = ReturnType<typeof simHost>;

export const emulator = emulatorForFile();
export const PARAMS = toParams(DEFAULT_CHOICES);
/** The result layer's name, and its history step's, for the default choices. */
export const RESULT = 'Perfectly Clear: Universal';

/** A photo opened as a JPEG (one Background layer), with `layers` put above it (topmost first). */
export async function photoWith(layers: (rgba: Uint8Array) => LayerNode[] = () => []) {
  const { host, sim } = simHost();
  const photo = await loadSample('portraits/astronaut.jpg', 64);
  const doc = sim.openDocument({ title: 'astronaut.jpg', width: photo.width, height: photo.height, pixels: photo.pixels, channels: 3 });
  const rgba = rgbToRgba(photo.pixels);
  doc.layers.unshift(...layers(rgba));
  return { host, sim, doc, rgba };
}

/** The layer tree as the Layers panel shows it: names, visibility, clipping, locks. */
export function tree(layers: LayerNode[]): unknown[] {
  return layers.map((l) => [l.name, l.visible, l.clipped ?? false, l.locks ?? {}, ...(l.children ? [tree(l.children)] : [])]);
}

/** The emulator's jobs and the requests its storage (uploads, downloads) received so far. */
export function serviceCounts(): { jobs: number; storage: number } {
  return { jobs: emulator.handle().jobs().length, storage: emulator.handle().stats().storage.requests };
}

/**
 * Select `layerId` (if given) and press Correct Layer or Correct Document (on the emulator unless `backend` is given,
 * with the panel's `options`): the outcome, and what reached the service.
 */
export async function press(
  host: SimHost['host'], doc: DocState, scope: Scope, layerId?: number, backend: CorrectionBackend = emulator.backend(), options: RunOptions = {}, params = PARAMS,
): Promise<{ outcome: Outcome; jobs: number; storage: number }> {
  if (layerId !== undefined) doc.activeLayerIds = [layerId];
  const before = serviceCounts();
  const [outcome] = await runCorrections(host, backend, resolveTargets(host, scope), params, options);
  // Whatever the outcome (added, kept, refused, cancelled, failed), every image data read or made is released:
  // Photoshop keeps undisposed image data in its memory until the plug-in unloads.
  if ((host.ps.imaging as SimImaging).live.size > 0) throw new Error(`${(host.ps.imaging as SimImaging).live.size} image data not disposed after "${outcome?.message}"`);
  const after = serviceCounts();
  return { outcome: outcome!, jobs: after.jobs - before.jobs, storage: after.storage - before.storage };
}

/** The documents open beside `doc`: those a run opened. */
export function keptDocuments(sim: SimHost['sim'], doc: DocState): DocState[] {
  return [...sim.core.docs.values()].filter((d) => d.id !== doc.id);
}
