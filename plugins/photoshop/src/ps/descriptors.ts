/**
 * Every Action Manager descriptor the panel sends, one typed builder each, in
 * the form Photoshop records them (Plugins > Development > Record Action).
 * Pure functions: `commands.ts` plays them; tests compare them with recordings.
 * Type aliases, not interfaces, so they fit `batchPlay`'s open descriptor type.
 */

/**
 * No dialog, ever: `silent` fails with a scripting error where `dontDisplay` would
 * still show UI on an error or a missing parameter (batchplay.md:148-151).
 */
const NO_DIALOG = { dialogOptions: 'silent' } as const;

export type SelectDocumentDescriptor = {
  _obj: 'select';
  _target: [{ _ref: 'document'; _id: number }];
  documentID: number;
  _options: typeof NO_DIALOG;
};

/** Make a document the active one (File > the document's tab). */
export function selectDocument(documentId: number): SelectDocumentDescriptor {
  return { _obj: 'select', _target: [{ _ref: 'document', _id: documentId }], documentID: documentId, _options: NO_DIALOG };
}

export type SelectLayerDescriptor = {
  _obj: 'select';
  _target: [{ _ref: 'layer'; _id: number }];
  makeVisible: false;
  layerID: [number];
  _options: typeof NO_DIALOG;
};

/**
 * Make one layer of the active document the only selected layer, without
 * changing its visibility. A new layer is then created directly above it.
 */
export function selectLayer(layerId: number): SelectLayerDescriptor {
  return { _obj: 'select', _target: [{ _ref: 'layer', _id: layerId }], makeVisible: false, layerID: [layerId], _options: NO_DIALOG };
}

export type MakeLayerDescriptor = {
  _obj: 'make';
  _target: [{ _ref: 'layer' }];
  using: { _obj: 'layer'; name: string };
  _options: typeof NO_DIALOG;
};

/**
 * Create an empty pixel layer directly above the selected layer (Layer > New >
 * Layer) and select it. Its pixels are written afterwards with `imaging.putPixels`.
 */
export function makePixelLayer(name: string): MakeLayerDescriptor {
  return { _obj: 'make', _target: [{ _ref: 'layer' }], using: { _obj: 'layer', name }, _options: NO_DIALOG };
}

/**
 * Layer properties the panel reads with batchPlay, named as in the layer descriptor Photoshop answers a `get`
 * with: whether it has a vector mask, its effects (layer style), whether its user mask is on (absent without a
 * user mask), and its Blend If ranges (Layer Style > Blending Options).
 */
export type LayerProperty = 'layerEffects' | 'hasVectorMask' | 'userMaskEnabled' | 'blendRange';

export type GetLayerPropertyDescriptor = {
  _obj: 'get';
  _target: [{ _property: LayerProperty }, { _ref: 'layer'; _id: number }, { _ref: 'document'; _id: number }];
  _options: typeof NO_DIALOG;
};

/**
 * Read one property of a layer: the "get" command with a property reference first, then the object's id
 * references (batchplay.md:226-240, "Getting state from Photoshop"; reference forms at batchplay.md:216-222).
 */
export function getLayerProperty(property: LayerProperty, layerId: number, documentId: number): GetLayerPropertyDescriptor {
  return { _obj: 'get', _target: [{ _property: property }, { _ref: 'layer', _id: layerId }, { _ref: 'document', _id: documentId }], _options: NO_DIALOG };
}

/** Every descriptor this panel can send. */
export type PanelDescriptor = SelectDocumentDescriptor | SelectLayerDescriptor | MakeLayerDescriptor | GetLayerPropertyDescriptor;
