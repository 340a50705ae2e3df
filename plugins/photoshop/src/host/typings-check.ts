/**
 * Compile-time proof that the published host typings fit the narrow interfaces
 * in `types.ts` (compiled alone by `tsconfig.typings.json`; never bundled).
 * If Photoshop's or UXP's typings change a signature the panel relies on,
 * `npm run typecheck` fails here.
 *
 * Two gaps in `@adobe/cc-ext-uxp-types` 7.3 are bridged by checking the
 * classes instead of the instances: it declares no `storage.localFileSystem`
 * instance (only the `FileSystemProvider` class) and puts `secureStorage` at
 * the module's top level, while UXP serves it as `require('uxp').storage.secureStorage`.
 */
import type * as Photoshop from 'photoshop';
import type { storage, SecureStorage } from 'uxp';
import type {
  PhotoshopModule,
  PsDocument,
  PsDocumentCreateOptions,
  PsExecutionContext,
  PsFileEntry,
  PsImaging,
  PsLayer,
  UxpModule,
  UxpSecureStorage,
} from './types';

/** Compiles only when `Real` is assignable to `Narrow`. */
type Fits<Real extends Narrow, Narrow> = [Real, Narrow];

type RealLayer = import('photoshop/dom/Layer').Layer;
type RealDocument = import('photoshop/dom/Document').Document;
type RealContext = import('photoshop/dom/CoreModules').ExecutionContext;
type RealDocuments = import('photoshop/dom/collections/Documents').Documents;
type RealCreateOptions = import('photoshop/dom/types/DocumentTypes').DocumentCreateOptions;

export type Checks = [
  Fits<RealLayer, PsLayer>,
  Fits<RealDocument, PsDocument>,
  Fits<RealContext, PsExecutionContext>,
  Fits<typeof Photoshop.imaging, PsImaging>,
  Fits<typeof Photoshop.core, PhotoshopModule['core']>,
  Fits<typeof Photoshop.action, PhotoshopModule['action']>,
  Fits<Omit<typeof Photoshop.app, 'documents'>, Omit<PhotoshopModule['app'], 'documents'>>,
  Fits<RealDocuments, readonly PsDocument[]>,
  Fits<ReturnType<RealDocuments['add']>, ReturnType<PhotoshopModule['app']['documents']['add']>>,
  // The panel's options go into the real add(): its `mode` and `fill` are Constants enums whose values are
  // the strings the panel passes ('RGBColorMode', 'transparent': Constants.d.ts NewDocumentMode.RGB, DocumentFill.TRANSPARENT).
  Fits<Omit<PsDocumentCreateOptions, 'mode' | 'fill'>, Omit<RealCreateOptions, 'mode' | 'fill'>>,
  Fits<`${typeof Photoshop.constants.NewDocumentMode.RGB}`, 'RGBColorMode'>,
  Fits<`${typeof Photoshop.constants.DocumentFill.TRANSPARENT}`, 'transparent'>,
  Fits<typeof Photoshop.constants, PhotoshopModule['constants']>,
  // The typings' File class omits its Entry base (name, delete); UXP's File is an Entry.
  Fits<storage.File & storage.Entry, PsFileEntry>,
  Fits<storage.FileSystemProvider, UxpModule['storage']['localFileSystem']>,
  Fits<typeof storage.formats, UxpModule['storage']['formats']>,
  Fits<SecureStorage, UxpSecureStorage>,
];
