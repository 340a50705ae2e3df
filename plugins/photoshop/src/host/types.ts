/**
 * The part of Photoshop's and UXP's JavaScript API this panel uses, as narrow
 * structural interfaces. `typings-check.ts` proves that the published typings
 * (`@types/photoshop`, `@adobe/cc-ext-uxp-types`) are assignable to them, so
 * the panel calls nothing Photoshop does not have; the simulated host in
 * `test/sim` implements them, so tests drive the same surface.
 *
 * Kept free of DOM and Node types: it compiles against the UXP typings (which
 * redeclare DOM globals) as well as against lib.dom.
 */

/** Values of `constants.LayerKind` (the enum's string values). */
export type PsLayerKind =
  | 'blackAndWhite' | 'brightnessContrast' | 'channelMixer' | 'colorBalance' | 'curves' | 'exposure'
  | 'gradientFill' | 'gradientMap' | 'hueSaturation' | 'inversion' | 'levels' | 'pixel' | 'pattern'
  | 'photoFilter' | 'posterize' | 'selectiveColor' | 'smartObject' | 'solidColor' | 'text' | 'threshold'
  | 'threeD' | 'vibrance' | 'video' | 'group' | 'colorLookup';

/** Values of `constants.DocumentMode`. */
export type PsDocumentMode =
  | 'bitmapMode' | 'CMYKColorMode' | 'duotoneMode' | 'grayscaleMode' | 'indexedColorMode'
  | 'labColorMode' | 'multichannelMode' | 'RGBColorMode';

/** Values of `constants.BitsPerChannelType`. */
export type PsBitsPerChannel = 'bitDepth1' | 'bitDepth8' | 'bitDepth16' | 'bitDepth32';

/** Pixel rectangle; right and bottom are exclusive. */
export interface PsRect {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

export interface PsBounds extends PsRect {
  readonly width: number;
  readonly height: number;
}

export interface PsLayer {
  readonly id: number;
  readonly name: string;
  readonly kind: PsLayerKind;
  /** Bounds of the layer's non-transparent pixels, in document pixels, with its effects (a drop shadow widens them). */
  readonly bounds: PsBounds;
  /**
   * Bounds of the layer's own pixels, without effects: the region `imaging.getPixels` reads for the layer
   * (ImagingModule.d.ts, getPixels: "get the valid pixel bounds for a layer by calling `boundsNoEffects`").
   */
  readonly boundsNoEffects: PsBounds;
  /** Shown in the document (settable inside `executeAsModal`; classes/layer.md `visible`). */
  visible: boolean;
  /**
   * The Background: always opaque and at the bottom; its stacking order, blend mode and opacity cannot be changed
   * (Photoshop Help, "Convert background and layers"; setting its blend mode throws, classes/layer.md:38).
   */
  readonly isBackgroundLayer: boolean;
  /** Lock All: "prevents edits to pixels and properties of this layer" (classes/layer.md:37, Photoshop 22.5). */
  readonly allLocked: boolean;
  /** Lock Image Pixels: "prevents the pixels of this layer from being edited" (classes/layer.md:57). */
  readonly pixelsLocked: boolean;
  /** Lock Position: "prevents the layer from being moved" (classes/layer.md:58). */
  readonly positionLocked: boolean;
  /** Lock Transparent Pixels: "prevents the transparent pixels from being edited" (classes/layer.md:60). */
  readonly transparentPixelsLocked: boolean;
  /** Child layers of a group; null for other kinds. */
  readonly layers: readonly PsLayer[] | null;
  readonly parent: PsLayer | null;
  /** `constants.BlendMode` value, e.g. `normal`, `multiply` (settable inside `executeAsModal`). */
  blendMode: string;
  /** Master opacity in percent (settable inside `executeAsModal`). */
  opacity: number;
  /**
   * Fill opacity in percent: the opacity of the layer's own pixels, not of its effects (settable inside
   * `executeAsModal`; classes/layer.md `fillOpacity`, Photoshop 23.0).
   */
  fillOpacity: number;
  /**
   * Clipped to the layer below it (Layer > Create Clipping Mask), which then bounds it. Setting it false releases
   * the layers clipped above it as well ("Releasing a clipping mask will also release the layers above",
   * classes/layer.md `isClippingMask`, 23.0).
   */
  isClippingMask: boolean;
  /** The user mask's density in percent (Properties panel; classes/layer.md `layerMaskDensity`, 23.0). */
  layerMaskDensity: number;
  /** The user mask's feather in pixels, 0–1000 (Properties panel; classes/layer.md `layerMaskFeather`, 23.0). */
  layerMaskFeather: number;
  /** Restack this layer relative to another (must run inside `executeAsModal`). */
  move(relativeObject: PsLayer, insertLocation: string): unknown;
}

export interface PsDocument {
  readonly id: number;
  /** The document's name as shown on its tab. */
  readonly title: string;
  /** Pixels. */
  readonly width: number;
  /** Pixels. */
  readonly height: number;
  /** Pixels per inch. */
  readonly resolution: number;
  readonly mode: PsDocumentMode;
  readonly bitsPerChannel: PsBitsPerChannel;
  /**
   * Name of the document's colour profile (custom or the working profile), e.g. `sRGB IEC61966-2.1`; `"None"` when
   * the document is not colour managed (classes/document.md:94, `dom/Document.d.ts:204-210`).
   */
  readonly colorProfileName: string;
  /** Top-level layers, topmost first. */
  readonly layers: readonly PsLayer[];
  readonly activeLayers: readonly PsLayer[];
  /** "The artboards in the document" (classes/document.md:88): groups at the top level that are artboards. */
  readonly artboards: readonly PsLayer[];
  /** "The object containing the document's currently active selection" (classes/document.md:74-78; PS 25.0). */
  readonly selection: PsSelection;
  /** "History states of the document" (classes/document.md:103; PS 22.5), oldest first, as the History panel lists them. */
  readonly historyStates: readonly PsHistoryState[];
  /** "Currently active history state of the document" (classes/document.md:86; PS 22.5). */
  readonly activeHistoryState: PsHistoryState;
}

/** One state in the History panel (classes/historystate.md). */
export interface PsHistoryState {
  /** Represents "this history state for the lifetime of this document" (classes/historystate.md:29). */
  readonly id: number;
  /** "The name of this history state as it appears on history panel" (classes/historystate.md:30), in Photoshop's UI language. */
  readonly name: string;
}

/** The document's selection (classes/selection.md): "If there is no active selection, the `bounds` will return `null`" (:23). */
export interface PsSelection {
  readonly bounds: PsBounds | null;
}

/** An Action Manager descriptor as `batchPlay` takes and returns it. */
export interface PsDescriptor {
  _obj: string;
  // Descriptors are open-ended by design (Photoshop's action language).
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  [key: string]: any;
}

export interface PsBatchPlayOptions {
  synchronousExecution?: boolean;
  modalBehavior?: 'wait' | 'execute' | 'fail';
  dialogOptions?: 'silent' | 'dontDisplay' | 'display';
}

export interface PsHistorySuspension {
  historySuspensionID: number;
}

/** What `executeAsModal` passes to its callback. */
export interface PsExecutionContext {
  /** True once the user pressed Escape or Cancel in Photoshop's progress bar. */
  readonly isCancelled: boolean;
  hostControl: {
    suspendHistory(params: { documentID: number; name: string }): Promise<PsHistorySuspension>;
    /** `commit: false` drops every change since `suspendHistory`. */
    resumeHistory(params: PsHistorySuspension & { finalName?: string }, commit?: boolean): Promise<void>;
    /** Close this document without saving if the scope ends by an exception or a cancel. */
    registerAutoCloseDocument(documentID: number): Promise<void>;
    unregisterAutoCloseDocument(documentID: number): Promise<void>;
  };
  reportProgress(params: { value?: number; commandName?: string }): void;
}

export type PsColorSpace = 'RGB' | 'Grayscale' | 'Lab';

export interface PsImageData {
  readonly width: number;
  readonly height: number;
  readonly colorSpace: PsColorSpace;
  readonly colorProfile: string;
  readonly hasAlpha: boolean;
  readonly components: number;
  readonly componentSize: 8 | 16 | 32;
  getData(options: { chunky?: boolean; fullRange?: boolean }): Promise<Uint8Array | Uint16Array | Float32Array>;
  dispose(): Promise<void> | void;
}

export interface PsGetPixelsOptions {
  documentID?: number;
  layerID?: number;
  sourceBounds?: PsRect;
  /** Scale the pixels down to this size (one side keeps the aspect ratio); Photoshop may read a cached pyramid level. */
  targetSize?: { width?: number; height?: number };
  colorSpace?: string;
  colorProfile?: string;
  componentSize?: -1 | 8 | 16 | 32;
  applyAlpha?: boolean;
}

export interface PsImaging {
  getPixels(options: PsGetPixelsOptions): Promise<{ imageData: PsImageData; sourceBounds: PsRect; level: number }>;
  putPixels(options: {
    documentID?: number;
    layerID: number;
    imageData: PsImageData;
    replace?: boolean;
    /** Where the pixels go; only `left` and `top` are used (imaging.md:194). */
    targetBounds?: PsRect | { left: number; top: number; width?: number; height?: number };
    commandName?: string;
  }): Promise<void>;
  createImageDataFromBuffer(
    buffer: Uint8Array | Uint16Array | Float32Array,
    options: { width: number; height: number; components: number; chunky?: boolean; colorSpace: string; colorProfile?: string; fullRange?: boolean },
  ): Promise<PsImageData>;
  /** The layer's user (pixel) mask as one grey component (imaging.md "getLayerMask"). */
  getLayerMask(options: { documentID?: number; layerID: number; kind?: 'user' }): Promise<{ imageData: PsImageData; sourceBounds: PsRect }>;
  /** The active selection as one grey component; rejects (or comes back empty) when nothing is selected. */
  getSelection(options: { documentID?: number }): Promise<{ imageData: PsImageData; sourceBounds: PsRect }>;
  putLayerMask(options: { documentID?: number; layerID: number; kind?: 'user'; imageData: PsImageData; replace?: boolean; targetBounds?: { left: number; top: number } }): Promise<void>;
  /** JPEG bytes of the image data (a number array, or base64 text with `base64: true`). */
  encodeImageData(options: { imageData: PsImageData; base64?: boolean }): Promise<number[] | string>;
}

/** The `photoshop` module, as far as the panel uses it. */
export interface PhotoshopModule {
  app: {
    readonly documents: readonly PsDocument[] & {
      /** A new document (inside `executeAsModal`); `mode` and `fill` take `constants` string values. */
      add(options: PsDocumentCreateOptions): Promise<PsDocument | null>;
    };
    /** Null at run time when no document is open. */
    readonly activeDocument: PsDocument | null;
  };
  core: {
    /**
     * `timeOut` (Photoshop 25.10+, seconds): while another plug-in or a dialog holds the modal state, retry until
     * then instead of failing at once (ps_reference/objects/returnobjects/executeasmodaloptions).
     */
    executeAsModal<T>(fn: (context: PsExecutionContext) => Promise<T>, options: { commandName: string; timeOut?: number }): Promise<T>;
  };
  action: {
    batchPlay(commands: PsDescriptor[], options: PsBatchPlayOptions): Promise<PsDescriptor[]>;
  };
  imaging: PsImaging;
  constants: {
    ElementPlacement: { readonly PLACEBEFORE: string };
  };
}

/** `DocumentCreateOptions` of `documents.add`, as far as the panel sets them. */
export interface PsDocumentCreateOptions {
  name?: string;
  width?: number;
  height?: number;
  resolution?: number;
  mode?: string;
  fill?: string;
  depth?: number;
  profile?: string;
}

/** A file in UXP's file system (`storage.File`). */
export interface PsFileEntry {
  readonly name: string;
  read(options: { format?: symbol }): Promise<string | ArrayBuffer>;
  write(data: string | ArrayBuffer, options: { format?: symbol; append?: boolean }): Promise<unknown>;
  delete(): Promise<unknown>;
}

export interface PsFolderEntry {
  createFile(name: string, options: { overwrite?: boolean }): Promise<PsFileEntry>;
}

export interface UxpSecureStorage {
  /** Resolves with the stored bytes; rejects or resolves empty when the key is absent. */
  getItem(key: string): Promise<Uint8Array | null | undefined>;
  setItem(key: string, value: string | ArrayBuffer | Uint8Array): Promise<void>;
  removeItem(key: string): Promise<void>;
}

/** The `uxp` module, as far as the panel uses it. */
export interface UxpModule {
  storage: {
    localFileSystem: {
      getTemporaryFolder(): Promise<PsFolderEntry>;
    };
    formats: { readonly binary: symbol; readonly utf8: symbol };
    secureStorage: UxpSecureStorage;
  };
}

/** Both host modules, handed to every wrapper (so tests can pass simulated ones). */
export interface Host {
  ps: PhotoshopModule;
  uxp: UxpModule;
}
