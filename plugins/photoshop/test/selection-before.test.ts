/**
 * Selection only is checked before anything is sent: a selection Photoshop will not hand over, or one that covers
 * none of the pixels to be corrected, would make the paid result either a document of its own or a layer its mask
 * hides entirely. Checked on what reached the emulator, the layers, the history and the documents open.
 */
import { describe, expect, it } from 'vitest';
import { pixelLayer } from './helpers';
import { DEFAULT_CHOICES, toParams } from '../src/correct/options';
import { keptDocuments, photoWith, press, RESULT, tree } from './press';
import type { DocState, LayerNode } from './sim/index';

const SOURCE = 700;
/** Where the layer has pixels: the rows below are transparent. */
const ROWS = 40;

/** A layer holding the photo in its top ROWS rows only. */
function topLayer(rgba: Uint8Array, width: number): LayerNode {
  const pixels = rgba.slice();
  for (let i = ROWS * width; i < pixels.length / 4; i++) pixels[i * 4 + 3] = 0;
  return pixelLayer(SOURCE, 'sky', pixels);
}

/** Rows `from` to `to` of the document selected. */
function selectRows(doc: DocState, from: number, to: number): void {
  doc.selection = new Uint8Array(doc.width * doc.height).fill(255, from * doc.width, to * doc.width);
}

async function photo() {
  const first = await photoWith();
  first.doc.layers.unshift(topLayer(first.rgba, first.doc.width));
  return first;
}

const ONLY = { selectionOnly: true };

describe('Selection only, checked before anything is sent', () => {
  it('a selection Photoshop will not hand over is refused before the job: nothing sent, nothing changed', async () => {
    const { host, sim, doc } = await photo();
    selectRows(doc, 0, 10);
    const before = [tree(doc.layers), doc.history.map((h) => h.name)];
    Object.assign(host.ps.imaging, { getSelection: () => Promise.reject(new Error('The selection is being edited')) });

    const { outcome, jobs, storage } = await press(host, doc, 'layer', SOURCE, undefined, ONLY);

    expect(outcome).toMatchObject({
      status: 'failed',
      message: 'Selection only: the selection could not be read (The selection is being edited); nothing was sent: select again, or clear Selection only',
    });
    expect([jobs, storage]).toEqual([0, 0]);
    expect([tree(doc.layers), doc.history.map((h) => h.name)]).toEqual(before);
    expect(keptDocuments(sim, doc)).toEqual([]);
  });

  it('a selection outside the layer\'s pixels is refused before the job: its result would be hidden by its mask', async () => {
    const { host, doc } = await photo();
    selectRows(doc, ROWS + 4, doc.height);
    const before = [tree(doc.layers), doc.history.map((h) => h.name)];

    const { outcome, jobs, storage } = await press(host, doc, 'layer', SOURCE, undefined, ONLY);

    expect(outcome).toMatchObject({
      status: 'failed',
      message: 'Selection only: the selection covers none of "sky", so its result would not show; nothing was sent: select part of it, or clear Selection only',
    });
    expect([jobs, storage]).toEqual([0, 0]);
    expect([tree(doc.layers), doc.history.map((h) => h.name)]).toEqual(before);
  });

  it('a selection touching the layer by one row is corrected, shown in that row of the layer only', async () => {
    const { host, doc } = await photo();
    selectRows(doc, ROWS - 1, doc.height);

    const { outcome, jobs } = await press(host, doc, 'layer', SOURCE, undefined, ONLY);

    expect([outcome.status, jobs]).toEqual(['done', 1]);
    const mask = doc.layers.find((l) => l.name === RESULT)!.mask!;
    // Below ROWS the layer has no pixels (its mask is white there, as a new mask is).
    const shownRows = new Set([...mask.keys()].filter((i) => mask[i]! > 0).map((i) => Math.floor(i / doc.width)).filter((y) => y < ROWS));
    expect([...shownRows]).toEqual([ROWS - 1]);
  });

  it('the same selection without Selection only, or for a resize (a new document, unmasked), is not in the way', async () => {
    const { host, sim, doc } = await photo();
    selectRows(doc, ROWS + 4, doc.height);

    const plain = await press(host, doc, 'layer', SOURCE);
    const resized = await press(host, doc, 'layer', SOURCE, undefined, ONLY, toParams({ ...DEFAULT_CHOICES, resize: 'long', resizeValue: 40 }));

    expect([plain.outcome.status, plain.jobs, resized.outcome.status, resized.jobs]).toEqual(['done', 1, 'done', 1]);
    expect(keptDocuments(sim, doc).map((d) => Math.max(d.width, d.height))).toEqual([40]);
  });
});
