/**
 * Escape in Photoshop's progress bar at every single call the panel makes into Photoshop while it corrects a
 * document: as it reads, as it makes the result layer, writes its pixels and mask, names, hides and restacks layers,
 * and as it suspends and resumes history. After a cancel Photoshop refuses every further call (executeasmodal.md:104,
 * :291; the simulator refuses DOM setters and history calls too). Whatever the step, the user sees the run cancelled
 * with the document as it was: the same layers, pixels, masks and history, no half-made layer, nothing left open.
 */
import { describe, expect, it } from 'vitest';
import type { PfcParams } from '@pfc/core';
import { pixelLayer } from './helpers';
import { photoWith, press, RESULT } from './press';
import { DEFAULT_CHOICES, toParams } from '../src/correct/options';
import type { Scope } from '../src/correct/targets';
import { cloneLayers, type DocState, type LayerNode } from './sim/index';

const SOURCE = 700;
const EARLIER = 701;

/** A half-transparent user mask: the left half hidden. */
function halfMask(width: number, height: number): Uint8Array {
  const mask = new Uint8Array(width * height).fill(255);
  for (let i = 0; i < mask.length; i++) if (i % width < width / 2) mask[i] = 0;
  return mask;
}

interface Case {
  scope: Scope;
  /** Layers over the photo's Background (topmost first). */
  layers: (rgba: Uint8Array, width: number, height: number) => LayerNode[];
  layerId?: number;
  strength?: number;
  selectionOnly?: boolean;
  params?: PfcParams;
}

const CASES: Record<string, Case> = {
  // Read without the earlier result on top (hidden in a dropped suspension), which the new layer then hides.
  'Correct Document over an earlier result': {
    scope: 'document',
    layers: (rgba) => [pixelLayer(EARLIER, RESULT, rgba)],
  },
  // A masked layer at 60 % opacity, taken over at 50 % strength: its look is read and matched, the source hidden.
  'Correct Layer at 50 % on a masked layer at 60 % opacity under an earlier result': {
    scope: 'layer',
    layerId: SOURCE,
    strength: 50,
    layers: (rgba, width, height) => [
      pixelLayer(EARLIER, RESULT, rgba),
      pixelLayer(SOURCE, 'face', rgba, { opacity: 60, mask: halfMask(width, height) }),
    ],
  },
  // Masked to the selection: the selection is read, and becomes the new layer's mask.
  'Correct Layer on the selection only': {
    scope: 'layer',
    layerId: SOURCE,
    selectionOnly: true,
    layers: (rgba) => [pixelLayer(SOURCE, 'face', rgba)],
  },
  // A resize opens a new document, which a cancel must not leave half-made.
  'a resize, whose result opens as a new document': {
    scope: 'document',
    params: toParams({ ...DEFAULT_CHOICES, resize: 'long', resizeValue: 40 }),
    layers: () => [],
  },
};

/** The photo set up for `c`, and the document as the user sees it before pressing the button. */
async function setUp(c: Case) {
  const made = await photoWith();
  made.doc.layers.unshift(...c.layers(made.rgba, made.doc.width, made.doc.height));
  if (c.layerId !== undefined) made.doc.activeLayerIds = [c.layerId]; // the user selects the layer to correct
  if (c.selectionOnly) made.doc.selection = halfMask(made.doc.width, made.doc.height);
  return { ...made, before: seen(made.doc) };
}

/** What the user sees of a document: its layers (names, look, pixels, masks), the selected layers, its History panel. */
function seen(doc: DocState) {
  return { layers: cloneLayers(doc.layers), active: [...doc.activeLayerIds], history: doc.history.map((h) => h.name) };
}

/** Press the button for `c`; `onCall` hears each call into Photoshop, by name, as it starts. */
async function pressWith(c: Case, onCall: (call: string, n: number, sim: Awaited<ReturnType<typeof setUp>>['sim']) => void) {
  const setup = await setUp(c);
  let n = 0;
  setup.sim.core.beforeCall = (call) => onCall(call, n++, setup.sim);
  const { outcome } = await press(setup.host, setup.doc, c.scope, c.layerId, undefined, { strength: c.strength, selectionOnly: c.selectionOnly }, c.params);
  setup.sim.core.beforeCall = undefined;
  return { ...setup, outcome };
}

describe.each(Object.entries(CASES))('Escape in Photoshop at each step of %s', (_, c) => {
  it('leaves the document as it was, whatever the step, and says the run was cancelled', async () => {
    const calls: string[] = [];
    const uncancelled = await pressWith(c, (call) => calls.push(call));
    expect(uncancelled.outcome.status).toBe('done');
    // The run reads, then makes the layer (or document), writes its pixels, sets its look and commits history.
    expect(calls).toEqual(expect.arrayContaining(['getPixels', 'putPixels']));

    for (const [at, call] of calls.entries()) {
      const run = await pressWith(c, (_call, n, sim) => n === at && sim.core.cancelCurrentModal());
      const step = `Escape at call ${at}, ${call}`;
      expect(run.outcome, step).toMatchObject({ status: 'cancelled', message: 'cancelled: the document was left unchanged' });
      expect(seen(run.doc), step).toEqual(run.before);
      expect([...run.sim.core.docs.keys()], `${step}: no document left open`).toEqual([run.doc.id]);
      expect(run.sim.imaging.live.size, `${step}: image data released`).toBe(0);
      expect(run.doc.suspension, `${step}: history not left suspended`).toBeUndefined();
    }
  }, 120_000);
});
