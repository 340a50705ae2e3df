/**
 * A result the document can no longer take — closed, its source layer deleted, a lock set while the service worked
 * (locks.test.ts) — is paid for: it is kept as a new document of the document's size, its pixels where the source
 * was, so that Layer > Duplicate Layer puts it back in place. The document itself is left as the user left it.
 * Checked on the documents open, their pixels, the history and the emulator's record of jobs.
 */
import { readAll, type CorrectionBackend } from '@pfc/core';
import sharp from 'sharp';
import { describe, expect, it, vi } from 'vitest';
import { pixelLayer, withCorrect } from './helpers';
import { DEFAULT_CHOICES, toParams } from '../src/correct/options';
import { runCorrections } from '../src/correct/run';
import { resolveTargets } from '../src/correct/targets';
import { emulator, keptDocuments, PARAMS, photoWith, press, RESULT, serviceCounts, tree } from './press';
import { boundsOf, compositeOf, snapshot, type DocState, type LayerNode } from './sim/index';

/** Where the source layer has pixels: the rest of the canvas is transparent, so its bounds are not the canvas. */
const BOUNDS = { left: 4, top: 6, right: 60, bottom: 58 };
const SOURCE = 900;

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
function flatBackend(meanwhile: () => void = () => undefined): CorrectionBackend {
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
async function photo() {
  const first = await photoWith();
  first.doc.layers.unshift(partLayer(first.rgba, first.doc.width));
  // Opened so: the History panel's first state holds the layer too (what Undo goes back to).
  first.doc.history = [snapshot(first.doc, 'Open')];
  return first;
}

/** The pixels Correct Layer (or Correct Document) adds on the photo when nothing gets in its way. */
async function resultPixels(scope: 'layer' | 'document' = 'layer'): Promise<Uint8Array> {
  const { host, doc } = await photo();
  const { outcome } = await press(host, doc, scope, scope === 'layer' ? SOURCE : undefined, flatBackend());
  expect(outcome.status).toBe('done');
  return doc.layers.find((l) => l.name === RESULT)!.pixels!;
}

/** The one document the run opened: the document's size, one layer holding exactly the pixels the layer would have had. */
async function expectKept(sim: Awaited<ReturnType<typeof photo>>['sim'], doc: DocState): Promise<void> {
  const kept = keptDocuments(sim, doc);
  expect(kept.map((d) => [d.title, d.width, d.height, d.layers.length])).toEqual([['astronaut (Perfectly Clear)', doc.width, doc.height, 1]]);
  expect(Buffer.from(kept[0]!.layers[0]!.pixels!).equals(Buffer.from(await resultPixels()))).toBe(true);
}

/** Where the simulated user paints inside the source's bounds (which stay the same), and with what. */
const PAINTED = { left: 10, top: 10, right: 16, bottom: 16 };
const RED = [255, 0, 0, 255];

const KEPT = 'so the result could not be added as a layer; it was opened as a new document, "astronaut (Perfectly Clear)", instead (Layer > Duplicate Layer… puts it back in place)';

describe('a result the document can no longer take is kept as a document of its own', () => {
  it('the document closed while the service worked', async () => {
    const { host, sim, doc } = await photo();

    const { outcome, jobs } = await press(host, doc, 'layer', SOURCE, flatBackend(() => sim.core.closeDocument(doc.id)));

    expect(jobs).toBe(1);
    expect(outcome).toMatchObject({ status: 'failed', message: `the document was closed before the result arrived, ${KEPT}` });
    await expectKept(sim, doc);
  });

  it('the source layer deleted while the service worked: the document is left as the user left it', async () => {
    const { host, sim, doc } = await photo();
    const history = doc.history.map((h) => h.name);

    const { outcome, jobs } = await press(host, doc, 'layer', SOURCE, flatBackend(() => (doc.layers = doc.layers.filter((l) => l.id !== SOURCE))));

    expect(jobs).toBe(1);
    expect(outcome).toMatchObject({ status: 'failed', message: `the source layer was deleted before the result arrived, ${KEPT}` });
    expect([tree(doc.layers), doc.history.map((h) => h.name)]).toEqual([[['Background', true, false, {}]], history]);
    await expectKept(sim, doc);
  });

  it('the source layer moved while the service worked (Move tool): not added where the layer no longer is; kept as a document', async () => {
    const { host, sim, doc } = await photo();
    const moved = () => sim.core.userMovesLayer(doc.id, SOURCE, 3, -2);
    const history = [...doc.history.map((h) => h.name), 'Move'];

    const { outcome, jobs } = await press(host, doc, 'layer', SOURCE, flatBackend(moved));

    expect(jobs).toBe(1);
    expect(outcome).toMatchObject({ status: 'failed', message: `"face" was moved, transformed or painted past its edges while the service worked, so the result would no longer line up with it, ${KEPT}` });
    expect([tree(doc.layers).length, doc.history.map((h) => h.name)]).toEqual([2, history]);
    await expectKept(sim, doc);
  });

  it('the document cropped while the service worked: its result is not put at the old place on the new canvas; kept as a document of the size it was read at', async () => {
    const { host, sim, doc } = await photo();
    const [width, height] = [doc.width, doc.height];
    const cropped = () => sim.core.userCrops(doc.id, { left: 8, top: 8, right: width, bottom: height });

    const { outcome, jobs } = await press(host, doc, 'document', undefined, flatBackend(cropped));

    expect(jobs).toBe(1);
    expect(outcome).toMatchObject({
      status: 'failed',
      message: `"astronaut.jpg" changed size while the service worked (${width}×${height} px when read, ${width - 8}×${height - 8} px now), ${KEPT}`,
    });
    expect([tree(doc.layers).length, doc.history.at(-1)?.name]).toEqual([2, 'Crop']);
    expect(keptDocuments(sim, doc).map((d) => [d.width, d.height])).toEqual([[width, height]]);
  });

  it('Photoshop refuses the new layer for a reason the panel does not foresee (out of memory): the document is left as it was; kept as a document', async () => {
    const { host, sim, doc } = await photo();
    const [layers, history] = [tree(doc.layers), doc.history.map((h) => h.name)];
    let refused = 0;
    // The first pixels put into a document: the result's layer. Photoshop's own words for a full scratch disk or RAM.
    sim.core.beforeCall = (call) => {
      if (call === 'putPixels' && refused++ === 0) throw new Error('Could not complete your request because there is not enough memory (RAM).');
    };

    const { outcome, jobs } = await press(host, doc, 'layer', SOURCE, flatBackend());
    sim.core.beforeCall = undefined;

    expect(jobs).toBe(1);
    expect(outcome).toMatchObject({ status: 'failed', message: `Photoshop could not add the layer (Could not complete your request because there is not enough memory (RAM).), ${KEPT}` });
    expect([tree(doc.layers), doc.history.map((h) => h.name)]).toEqual([layers, history]);
    await expectKept(sim, doc);
  });

  it('the simulated user cannot move, crop, paint, flip, undo or switch documents while the panel holds Photoshop (executeasmodal.md:14)', async () => {
    const { host, sim, doc } = await photo();
    sim.core.onModal = () => {
      expect(() => sim.core.userMovesLayer(doc.id, SOURCE, 1, 1)).toThrow('modal state');
      expect(() => sim.core.userCrops(doc.id, { left: 0, top: 0, right: 4, bottom: 4 })).toThrow('modal state');
      expect(() => sim.core.userPaints(doc.id, SOURCE, PAINTED, RED)).toThrow('modal state');
      expect(() => sim.core.userFlipsLayer(doc.id, SOURCE)).toThrow('modal state');
      expect(() => sim.core.userUndoes(doc.id)).toThrow('modal state');
      expect(() => sim.core.userSwitchesTo(doc.id)).toThrow('modal state');
      expect(() => sim.core.userSelects(doc.id, PAINTED)).toThrow('modal state');
    };
    const { outcome } = await press(host, doc, 'layer', SOURCE, flatBackend());
    expect(outcome.status).toBe('done');
  });

  it('Selection only with a selection Photoshop no longer hands over when the result arrives: not added over the whole layer; kept as a document, saying why', async () => {
    const { host, sim, doc } = await photo();
    doc.selection = new Uint8Array(doc.width * doc.height).fill(255, 0, doc.width * 10);
    const history = doc.history.map((h) => h.name);
    // Read before sending (selection-before.test.ts), Photoshop refuses it once the job is done (a state imaging.md
    // does not describe; any refusal stands for it).
    const refuse = () => Object.assign(host.ps.imaging, { getSelection: () => Promise.reject(new Error('The selection is being edited')) });

    const { outcome, jobs } = await press(host, doc, 'layer', SOURCE, flatBackend(refuse), { selectionOnly: true });

    expect(jobs).toBe(1);
    expect(outcome).toMatchObject({ status: 'failed', message: `the selection could not be read (The selection is being edited), ${KEPT}` });
    expect([tree(doc.layers).length, doc.history.map((h) => h.name)]).toEqual([2, history]);
    await expectKept(sim, doc);
  });

  it('a resized result opens as a new document though its document was closed while the service worked', async () => {
    const { host, sim, doc } = await photo();
    const closing = flatBackend(() => sim.core.closeDocument(doc.id));

    const [outcome] = await runCorrections(host, closing, resolveTargets(host, 'document'), toParams({ ...DEFAULT_CHOICES, resize: 'long', resizeValue: 40 }));

    expect(outcome).toMatchObject({ status: 'done', message: 'resized result opened as a new document, "astronaut (Perfectly Clear)"' });
    expect(keptDocuments(sim, doc).map((d) => Math.max(d.width, d.height))).toEqual([40]);
  });

  it('a cancelled run keeps nothing: no document is opened', async () => {
    const { host, sim, doc } = await photo();
    const stop = new AbortController();
    doc.activeLayerIds = [SOURCE];
    const closedThenCancelled = flatBackend(() => {
      sim.core.closeDocument(doc.id);
      stop.abort();
    });

    const [outcome] = await runCorrections(host, closedThenCancelled, resolveTargets(host, 'layer'), PARAMS, { signal: stop.signal });

    expect(outcome?.status).toBe('cancelled');
    expect(keptDocuments(sim, doc)).toEqual([]);
  });
});

/**
 * The clock, running `factor` times faster from now on: Photoshop's two-minute hold on a result passes in a moment.
 * The simulator's own retry of executeAsModal and the panel's deadline both read `Date.now`.
 */
function fastClock(factor: number): { restore: () => void } {
  const real = Date.now.bind(Date);
  const start = real();
  const spy = vi.spyOn(Date, 'now').mockImplementation(() => start + (real() - start) * factor);
  return { restore: () => spy.mockRestore() };
}

/** Correct Layer on the partial layer while the user opens a dialog as the service works and leaves it open for over two minutes. */
async function pressWithDialogLeftOpen(host: Awaited<ReturnType<typeof photo>>['host'], sim: Awaited<ReturnType<typeof photo>>['sim'], doc: DocState) {
  let clock: { restore: () => void } | undefined;
  const dialogLeftOpen = flatBackend(() => {
    sim.core.heldByOther = 'com.example.other';
    clock = fastClock(1000);
  });
  const { outcome } = await press(host, doc, 'layer', SOURCE, dialogLeftOpen);
  clock?.restore();
  return outcome;
}

describe('a result Photoshop stays too busy to take', () => {
  it.each([
    ['Photoshop 25.10 or later, which retries itself for the timeOut asked', true],
    ['Photoshop before 25.10, where the panel retries', false],
  ])('is kept for the session, not dropped, and placed by Add Kept Result once Photoshop is free, with no second job (%s)', async (_, retriesForTimeOut) => {
    const { host, sim, doc } = await photo();
    sim.core.retriesForTimeOut = retriesForTimeOut;
    const before = tree(doc.layers);

    const outcome = await pressWithDialogLeftOpen(host, sim, doc);

    expect(outcome).toMatchObject({
      status: 'failed',
      message: expect.stringMatching(/^Photoshop stayed busy with another plug-in or a dialog for 120 s, so the result could not be added \(.*com\.example\.other.*\); the result is kept: close the dialog, then press Add Kept Result$/),
    });
    expect(tree(doc.layers)).toEqual(before);
    expect(outcome.placeAgain).toBeTypeOf('function');

    // Pressed while the dialog is still open: after the wait, it stays kept.
    const clock = fastClock(1000);
    const stillBusy = await outcome.placeAgain!();
    clock.restore();
    expect(stillBusy).toMatchObject({ status: 'failed', message: outcome.message });
    // Cancel in the panel while it waits again: the wait ends at once (also while Photoshop retries itself), still kept.
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 600);
    const cancelledAt = Date.now();
    const kept = await stillBusy.placeAgain!(stop.signal);
    expect(Date.now() - cancelledAt).toBeLessThan(2000);
    expect(kept).toMatchObject({ status: 'cancelled', message: 'cancelled: the document was left unchanged; the result is still kept (Add Kept Result)' });
    expect(tree(doc.layers)).toEqual(before);

    sim.core.heldByOther = undefined; // the user closes the dialog
    const jobs = serviceCounts();
    const placed = await kept.placeAgain!();

    expect(placed).toMatchObject({ status: 'done', message: `added layer "${RESULT}"` });
    expect(placed.placeAgain).toBeUndefined();
    expect(serviceCounts()).toEqual(jobs);
    expect(doc.layers.map((l) => l.name)).toEqual([RESULT, 'face', 'Background']);
    expect(Buffer.from(doc.layers[0]!.pixels!).equals(Buffer.from(await resultPixels()))).toBe(true);
  });
});

/**
 * An edit inside the source's bounds while the service worked leaves its place as it was, so only the history tells:
 * Photoshop records each edit as a state of its own (classes/historystate.md:29, the simulator does too). The result,
 * made from the pixels read before, would hide that work, so it is kept as a document of its own instead.
 */
describe('a document edited while the service worked is not covered by a result made before the edit', () => {
  const EDITED = (what: string) => `"astronaut.jpg" was edited (History: ${what}) while the service worked, and the result, made from the pixels read before, would hide that work, ${KEPT}`;

  it('the source layer painted on inside its bounds: the painting stays in sight, the result opens as a document', async () => {
    const { host, sim, doc } = await photo();
    const bounds = boundsNow(doc, SOURCE);

    const { outcome, jobs } = await press(host, doc, 'layer', SOURCE, flatBackend(() => sim.core.userPaints(doc.id, SOURCE, PAINTED, RED)));

    expect(jobs).toBe(1);
    expect(boundsNow(doc, SOURCE)).toEqual(bounds);
    expect(outcome).toMatchObject({ status: 'failed', message: EDITED('Brush Tool') });
    expect([tree(doc.layers).length, doc.history.map((h) => h.name)]).toEqual([2, ['Open', 'Brush Tool']]);
    expect([...compositeOf(doc, doc.layers).subarray((12 * doc.width + 12) * 4, (12 * doc.width + 12) * 4 + 4)]).toEqual(RED);
    await expectKept(sim, doc);
  });

  it('the source layer flipped horizontally (the same bounds): the result opens as a document', async () => {
    const { host, sim, doc } = await photo();
    const bounds = boundsNow(doc, SOURCE);

    const { outcome } = await press(host, doc, 'layer', SOURCE, flatBackend(() => sim.core.userFlipsLayer(doc.id, SOURCE)));

    expect(boundsNow(doc, SOURCE)).toEqual(bounds);
    expect(outcome).toMatchObject({ status: 'failed', message: EDITED('Flip Horizontal') });
    expect(tree(doc.layers)).toHaveLength(2);
    await expectKept(sim, doc);
  });

  it('Correct Document: another layer painted on (any edit changes the composite): the result opens as a document', async () => {
    const { host, sim, doc } = await photo();
    const background = doc.layers.at(-1)!;
    const paintBackground = () => sim.core.userPaints(doc.id, background.id, { left: 0, top: 0, right: 4, bottom: 4 }, RED);

    const { outcome } = await press(host, doc, 'document', undefined, flatBackend(paintBackground));

    expect(outcome).toMatchObject({ status: 'failed', message: EDITED('Brush Tool') });
    expect([tree(doc.layers).length, keptDocuments(sim, doc).length]).toEqual([2, 1]);
  });

  it('Correct Document: a layer hidden in the Layers panel (no History state, as by default): the result opens as a document', async () => {
    const { host, sim, doc } = await photo();
    const history = doc.history.length;
    const background = doc.layers.at(-1)!;

    const { outcome } = await press(host, doc, 'document', undefined, flatBackend(() => sim.core.userTogglesVisibility(doc.id, background.id)));

    // The simulated click added no state: only the layers' visibility tells.
    expect(outcome).toMatchObject({
      status: 'failed',
      message: `"astronaut.jpg" was edited (Layers panel: "Background" hidden) while the service worked, and the result, made from the pixels read before, would hide that work, ${KEPT}`,
    });
    expect([tree(doc.layers), doc.history.length]).toEqual([[['face', true, false, {}], ['Background', false, false, {}]], history]);
    expect(keptDocuments(sim, doc)).toHaveLength(1);
  });

  it('Correct Layer: another layer hidden, or the layer hidden and shown again: what was read is unchanged, the layer is added', async () => {
    for (const meanwhile of ['another hidden', 'hidden and shown again'] as const) {
      const { host, sim, doc } = await photo();
      const background = doc.layers.at(-1)!;
      const toggle = meanwhile === 'another hidden'
        ? () => sim.core.userTogglesVisibility(doc.id, background.id)
        : () => [SOURCE, SOURCE].forEach((id) => sim.core.userTogglesVisibility(doc.id, id));

      const { outcome } = await press(host, doc, 'layer', SOURCE, flatBackend(toggle));

      expect(outcome, meanwhile).toMatchObject({ status: 'done', message: `added layer "${RESULT}"` });
      expect(keptDocuments(sim, doc), meanwhile).toEqual([]);
    }
  });

  it('undone back to the state read: nothing to hide, the layer is added', async () => {
    const { host, sim, doc } = await photo();
    const paintedThenUndone = () => {
      sim.core.userPaints(doc.id, SOURCE, PAINTED, RED);
      sim.core.userUndoes(doc.id);
    };

    const { outcome } = await press(host, doc, 'layer', SOURCE, flatBackend(paintedThenUndone));

    expect(outcome).toMatchObject({ status: 'done', message: `added layer "${RESULT}"` });
    expect(keptDocuments(sim, doc)).toEqual([]);
  });

  it('undone past the state read (the pixels sent are no longer the document\'s): the result opens as a document', async () => {
    const { host, sim, doc } = await photo();
    sim.core.userPaints(doc.id, SOURCE, PAINTED, RED);

    const { outcome } = await press(host, doc, 'layer', SOURCE, flatBackend(() => sim.core.userUndoes(doc.id)));

    expect(outcome).toMatchObject({
      status: 'failed',
      message: `"astronaut.jpg" was stepped back in its history past the state it was read in (Undo or the History panel) while the service worked, and the result, made from the pixels read before, would hide that work, ${KEPT}`,
    });
    expect(keptDocuments(sim, doc)).toHaveLength(1);
  });

  it('the document changed and Photoshop stays busy as the result would open as a document: kept for Add Kept Result, then opened as a document', async () => {
    const { host, sim, doc } = await photo();
    let clock: { restore: () => void } | undefined;
    // The layer's scope refuses the edited document; then a dialog holds Photoshop for over two minutes.
    sim.core.onModal = (commandName) => {
      if (commandName !== RESULT || sim.core.heldByOther) return;
      sim.core.heldByOther = 'com.example.other';
      clock = fastClock(1000);
    };

    const { outcome, jobs } = await press(host, doc, 'layer', SOURCE, flatBackend(() => sim.core.userPaints(doc.id, SOURCE, PAINTED, RED)));
    clock?.restore();
    sim.core.onModal = undefined;

    expect(jobs).toBe(1);
    expect(outcome).toMatchObject({
      status: 'failed',
      message: expect.stringMatching(/^Photoshop stayed busy with another plug-in or a dialog for 120 s, so the result could not be opened as a new document \("astronaut\.jpg" was edited \(History: Brush Tool\) while the service worked, .*, so it could not be added as a layer\) \(.*\); the result is kept: close the dialog, then press Add Kept Result$/),
    });
    expect(outcome.placeAgain).toBeTypeOf('function');
    expect([tree(doc.layers).length, keptDocuments(sim, doc)]).toEqual([2, []]);

    sim.core.heldByOther = undefined; // the user closes the dialog
    const jobsBefore = serviceCounts();
    const placed = await outcome.placeAgain!();

    expect(placed).toMatchObject({ status: 'failed', message: EDITED('Brush Tool') });
    expect(serviceCounts()).toEqual(jobsBefore);
    await expectKept(sim, doc);
  });

  it('the panel\'s own result added meanwhile is no edit of the user\'s: a kept result is still added as a layer (replacing it)', async () => {
    const { host, sim, doc } = await photo();
    const outcome = await pressWithDialogLeftOpen(host, sim, doc);
    sim.core.heldByOther = undefined;
    // The user closes the dialog and corrects the layer once more before pressing Add Kept Result.
    expect((await press(host, doc, 'layer', SOURCE, flatBackend())).outcome.status).toBe('done');

    const placed = await outcome.placeAgain!();

    expect(placed).toMatchObject({ status: 'done', message: `added layer "${RESULT}"` });
    expect(doc.history.map((h) => h.name)).toEqual(['Open', RESULT, RESULT]);
    expect(keptDocuments(sim, doc)).toEqual([]);
  });
});

/**
 * History steps that touch nothing the result was made from — a selection, with Correct Layer an edit to another layer
 * — leave the pixels read as they were: the source is read again (only then) and, the same, the layer is added as usual.
 */
describe('History steps that do not change what was read: the result is still added as a layer', () => {
  /** The user's rectangle selection, made while the service works. */
  const MARQUEE = { left: 20, top: 20, right: 40, bottom: 36 };

  it.each([['layer', SOURCE], ['document', undefined]] as const)('Correct %s: a selection made while the service worked: the layer is added, the selection kept, nothing opened', async (scope, layerId) => {
    const { host, sim, doc } = await photo();

    const { outcome, jobs } = await press(host, doc, scope, layerId, flatBackend(() => sim.core.userSelects(doc.id, MARQUEE)));

    expect(jobs).toBe(1);
    expect(outcome).toMatchObject({ status: 'done', message: `added layer "${RESULT}"` });
    expect(doc.layers.map((l) => [l.name, l.visible])).toEqual([[RESULT, true], ['face', true], ['Background', true]]);
    expect(Buffer.from(doc.layers[0]!.pixels!).equals(Buffer.from(await resultPixels(scope)))).toBe(true);
    expect(doc.history.map((h) => h.name)).toEqual(['Open', 'Rectangular Marquee', RESULT]);
    expect(selectedAt(doc, 25, 25)).toBe(255);
    expect(keptDocuments(sim, doc)).toEqual([]);
  });

  it('Correct Layer: another layer painted while the service worked: the layer is added, the painting stays in sight', async () => {
    const { host, sim, doc } = await photo();
    const background = doc.layers.at(-1)!;
    const paintBackground = () => sim.core.userPaints(doc.id, background.id, { left: 0, top: 0, right: 4, bottom: 4 }, RED);

    const { outcome } = await press(host, doc, 'layer', SOURCE, flatBackend(paintBackground));

    expect(outcome).toMatchObject({ status: 'done', message: `added layer "${RESULT}"` });
    expect(doc.layers.map((l) => [l.name, l.visible])).toEqual([[RESULT, true], ['face', true], ['Background', true]]);
    expect(Buffer.from(doc.layers[0]!.pixels!).equals(Buffer.from(await resultPixels()))).toBe(true);
    expect([...compositeOf(doc, doc.layers).subarray((1 * doc.width + 1) * 4, (1 * doc.width + 1) * 4 + 4)]).toEqual(RED);
    expect(doc.history.map((h) => h.name)).toEqual(['Open', 'Brush Tool', RESULT]);
    expect(keptDocuments(sim, doc)).toEqual([]);
  });

  it('background removal (its upload made to fit the service, its full-size source kept under the mask): a selection leaves it as read, a painted source does not', async () => {
    const removal = { ...PARAMS, removeBackground: true };
    const selected = await photo();
    const painted = await photo();

    const added = await press(selected.host, selected.doc, 'layer', SOURCE, flatBackend(() => selected.sim.core.userSelects(selected.doc.id, MARQUEE)), {}, removal);
    const kept = await press(painted.host, painted.doc, 'layer', SOURCE, flatBackend(() => painted.sim.core.userPaints(painted.doc.id, SOURCE, PAINTED, RED)), {}, removal);

    expect(added.outcome).toMatchObject({ status: 'done', message: expect.stringMatching(/^added layer "Perfectly Clear: .*background removed/) });
    expect(keptDocuments(selected.sim, selected.doc)).toEqual([]);
    expect(kept.outcome).toMatchObject({ status: 'failed', message: expect.stringContaining('was edited (History: Brush Tool) while the service worked, and the result, made from the pixels read before, would hide that work') });
    expect(keptDocuments(painted.sim, painted.doc)).toHaveLength(1);
  });

  it('the source read again only when History steps were added: one read of the pixels when none were, two when one was', async () => {
    const quiet = await photo();
    await press(quiet.host, quiet.doc, 'layer', SOURCE, flatBackend());
    const selecting = await photo();
    await press(selecting.host, selecting.doc, 'layer', SOURCE, flatBackend(() => selecting.sim.core.userSelects(selecting.doc.id, MARQUEE)));

    const reads = (sim: typeof quiet.sim) => sim.imaging.getPixelsLog.map((r) => [r.documentID, r.layerID, r.componentSize, r.targetSize]);
    expect(reads(quiet.sim)).toEqual([[quiet.doc.id, SOURCE, 8, undefined]]);
    expect(reads(selecting.sim)).toEqual([[selecting.doc.id, SOURCE, 8, undefined], [selecting.doc.id, SOURCE, 8, undefined]]);
  });

  it('Selection only: the selection changed while the service worked: not masked to a selection it was not asked for; kept as a document, saying why', async () => {
    const { host, sim, doc } = await photo();
    sim.core.userSelects(doc.id, { left: 8, top: 8, right: 30, bottom: 30 });
    const history = doc.history.map((h) => h.name);

    const { outcome } = await press(host, doc, 'layer', SOURCE, flatBackend(() => sim.core.userSelects(doc.id, MARQUEE)), { selectionOnly: true });

    expect(outcome).toMatchObject({
      status: 'failed',
      message: `"astronaut.jpg" was edited (History: Rectangular Marquee) while the service worked, which changed the selection Selection only masks the result to, ${KEPT}`,
    });
    expect([tree(doc.layers).length, doc.history.map((h) => h.name)]).toEqual([2, [...history, 'Rectangular Marquee']]);
    expect(selectedAt(doc, 25, 25)).toBe(255);
    await expectKept(sim, doc);
  });

  it('Selection only: another layer painted, the selection as it was: the layer is added, masked to that selection', async () => {
    const { host, sim, doc } = await photo();
    sim.core.userSelects(doc.id, MARQUEE);
    const background = doc.layers.at(-1)!;
    const paintBackground = () => sim.core.userPaints(doc.id, background.id, { left: 0, top: 0, right: 4, bottom: 4 }, RED);

    const { outcome } = await press(host, doc, 'layer', SOURCE, flatBackend(paintBackground), { selectionOnly: true });

    expect(outcome).toMatchObject({ status: 'done', message: `added layer "${RESULT}"` });
    const mask = doc.layers[0]!.mask!;
    expect([mask[25 * doc.width + 25], mask[10 * doc.width + 10]]).toEqual([255, 0]);
    expect(keptDocuments(sim, doc)).toEqual([]);
  });
});

/** The selection's value at a pixel (0 where nothing is selected). */
function selectedAt(doc: DocState, x: number, y: number): number {
  return doc.selection?.[y * doc.width + x] ?? 0;
}

/** A layer's bounds as Photoshop reports them (`boundsNoEffects`). */
function boundsNow(doc: DocState, layerId: number) {
  return boundsOf(doc, doc.layers.find((l) => l.id === layerId)!);
}
