/**
 * A result the document can no longer take — closed, its source layer deleted, a lock set while the service worked
 * (locks.test.ts) — is paid for: it is kept as a new document of the document's size, its pixels where the source
 * was, so that Layer > Duplicate Layer puts it back in place. The document itself is left as the user left it.
 * Checked on the documents open, their pixels, the history and the emulator's record of jobs.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_CHOICES, toParams } from '../src/correct/options';
import { runCorrections } from '../src/correct/run';
import { resolveTargets } from '../src/correct/targets';
import { expectKept, fastClock, flatBackend, KEPT, PAINTED, photo, pressWithDialogLeftOpen, RED, resultPixels, SOURCE } from './kept-fixture';
import { keptDocuments, PARAMS, press, RESULT, serviceCounts, tree } from './press';

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
