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
import type { storage, SecureStorage, versions } from 'uxp';
import type {
  PhotoshopModule,
  PsDocument,
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

export type Checks = [
  Fits<RealLayer, PsLayer>,
  Fits<RealDocument, PsDocument>,
  Fits<RealContext, PsExecutionContext>,
  Fits<typeof Photoshop.imaging, PsImaging>,
  Fits<typeof Photoshop.core, PhotoshopModule['core']>,
  Fits<typeof Photoshop.action, PhotoshopModule['action']>,
  Fits<typeof Photoshop.app, PhotoshopModule['app']>,
  Fits<typeof Photoshop.constants, PhotoshopModule['constants']>,
  // The typings' File class omits its Entry base (name, delete); UXP's File is an Entry.
  Fits<storage.File & storage.Entry, PsFileEntry>,
  Fits<storage.FileSystemProvider, UxpModule['storage']['localFileSystem']>,
  Fits<typeof storage.formats, UxpModule['storage']['formats']>,
  Fits<SecureStorage, UxpSecureStorage>,
  Fits<typeof versions, UxpModule['versions']>,
];
