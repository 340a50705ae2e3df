/** What a button corrects: the active document, the active layer, or every open document. */
import type { Host, PsLayerKind } from '../host/types';
import { containerWord } from '../ps/locks';

export type Scope = 'document' | 'layer' | 'all';

export interface Target {
  documentId: number;
  /** The document's title, for messages. */
  title: string;
  /** The layer to correct; undefined for the document composite. */
  layerId?: number;
  layerName?: string;
}

/** Layer kinds whose rendered pixels can be corrected (adjustment and fill layers have none of their own). */
const CORRECTABLE: readonly PsLayerKind[] = ['pixel', 'smartObject', 'text'];

/** A button was pressed while Photoshop has nothing it can act on; said as is to the user. */
export class NothingToCorrectError extends Error {
  override name = 'NothingToCorrectError';
}

/** The targets of a button, checked before anything is read or sent. */
export function resolveTargets(host: Host, scope: Scope): Target[] {
  const { app } = host.ps;
  if (scope === 'all') {
    if (app.documents.length === 0) throw new NothingToCorrectError('No document is open.');
    return app.documents.map((d) => ({ documentId: d.id, title: d.title }));
  }
  const doc = app.activeDocument;
  if (!doc) throw new NothingToCorrectError('No document is open.');
  if (scope === 'document') return [{ documentId: doc.id, title: doc.title }];
  const layer = doc.activeLayers[0];
  if (!layer) throw new NothingToCorrectError(`Select a layer in "${doc.title}" first.`);
  if (layer.kind === 'group' && containerWord(doc, layer) === 'artboard') {
    throw new NothingToCorrectError(`"${layer.name}" is an artboard; Correct Layer works on pixel, smart object and text layers. Select one inside it.`);
  }
  if (!CORRECTABLE.includes(layer.kind)) {
    throw new NothingToCorrectError(
      `"${layer.name}" is a ${layer.kind} layer; Correct Layer works on pixel, smart object and text layers. Select one, or use Correct Document.`,
    );
  }
  return [{ documentId: doc.id, title: doc.title, layerId: layer.id, layerName: layer.name }];
}
