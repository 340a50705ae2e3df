/**
 * The batchPlay descriptors the panel sends, against what Photoshop itself
 * records, as Adobe publishes it — not against the panel's own builders.
 */
import { describe, expect, it } from 'vitest';
import { makePixelLayer, selectDocument, selectLayer } from '../src/ps/descriptors';

/** Photoshop's recording of "Make layer", copied as JavaScript from the Actions panel (AdobeDocs/uxp-photoshop `src/pages/ps-reference/media/batchplay.md:115`). */
const RECORDED_MAKE_LAYER = { _obj: 'make', _target: [{ _ref: 'layer' }], layerID: 2 };

/** Command execution options batchPlay accepts in `_options` (batchplay.md:145-151). */
const DIALOG_OPTIONS = ['silent', 'dontDisplay', 'display'];

describe('batchPlay descriptors', () => {
  it('make layer is Photoshop\'s recorded command; the additions are the documented name and execution options', () => {
    const mine = makePixelLayer('Perfectly Clear: Pro');
    expect(mine._obj).toBe(RECORDED_MAKE_LAYER._obj);
    expect(mine._target).toEqual(RECORDED_MAKE_LAYER._target);
    // layerID in the recording is the id Photoshop gave the new layer: an output, not something to send.
    const extra = Object.keys(mine).filter((k) => !(k in RECORDED_MAKE_LAYER));
    expect(extra.sort()).toEqual(['_options', 'using']);
    expect(mine.using).toEqual({ _obj: 'layer', name: 'Perfectly Clear: Pro' });
  });

  it('never lets Photoshop show a dialog: dialogOptions "silent" (batchplay.md:149), on every descriptor', () => {
    for (const d of [makePixelLayer('x'), selectLayer(4), selectDocument(9)]) {
      expect(DIALOG_OPTIONS).toContain(d._options.dialogOptions);
      expect(d._options.dialogOptions).toBe('silent');
    }
  });

  /*
   * "select layer" and "select document": no recording is published. Searched: AdobeDocs/uxp-photoshop (snapshot
   * 6edd63fc0: batchplay.md shows only "make layer" (:115) and "get" (:226-240); no `_obj: "select"` anywhere) and
   * AdobeDocs/uxp-photoshop-plugin-samples (snapshot 1928d83: no select descriptor in any sample). The one published
   * trace of Photoshop's select is a notification: vanilla-js-sample/index.js:16-19 listens for "select" and reads
   * the `documentID` field the notification carries when a document was the target, the field selectDocument sends.
   * The rest (id references, makeVisible, layerID) follows the documented reference forms checked below; a real
   * recording (Plugins > Development > Record Action Commands, batchplay.md:137) should replace these checks.
   */
  it('select document carries documentID, as Photoshop\'s "select" notification does (vanilla-js-sample/index.js:16-19)', () => {
    expect(selectDocument(9)).toMatchObject({ _obj: 'select', documentID: 9 });
  });

  it('select targets by id references (_ref + _id), the form of action references batchplay.md:50-54 describes', () => {
    expect(selectLayer(4)._target).toEqual([{ _ref: 'layer', _id: 4 }]);
    expect(selectDocument(9)._target).toEqual([{ _ref: 'document', _id: 9 }]);
    expect(selectLayer(4).makeVisible).toBe(false); // selecting must not change visibility
  });
});
