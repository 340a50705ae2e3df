/**
 * A document edited while the service worked (painted, flipped, stepped back, a layer hidden; with Selection only, the
 * selection changed) is not covered by a result made from the pixels read before: the result opens as a document of
 * its own. Steps that leave what was read as it was (a selection, another layer's edit under Correct Layer, an undo
 * back to the state read) add the layer as usual. Checked on the layers, their pixels, the history and the documents.
 */
import { describe, expect, it } from 'vitest';
import { boundsNow, expectKept, fastClock, flatBackend, KEPT, PAINTED, photo, pressWithDialogLeftOpen, RED, resultPixels, selectedAt, SOURCE } from './kept-fixture';
import { keptDocuments, PARAMS, press, RESULT, serviceCounts, tree } from './press';
import { compositeOf } from './sim/index';

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
