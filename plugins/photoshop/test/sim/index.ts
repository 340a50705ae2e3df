/**
 * A simulated Photoshop + UXP host for tests: `host` is what the panel's code
 * gets from `require('photoshop')` / `require('uxp')`; `sim` lets a test set
 * up documents and inspect what the panel did.
 */
import type { Host } from '../../src/host/types';
import type { SimCodec } from './codec';
import { createSimPhotoshop, SimPhotoshopCore } from './photoshop';
import { newDocument, type DocState } from './state';
import { createSimUxp, SimFolder, SimSecureStorage } from './uxp';
import type { SimImaging } from './imaging';

export interface Sim {
  core: SimPhotoshopCore;
  imaging: SimImaging;
  temp: SimFolder;
  secureStorage: SimSecureStorage;
  /** Open a document holding these pixels (3 channels: a Background layer; 4: a transparent layer). */
  openDocument(init: Parameters<typeof newDocument>[0]): DocState;
}

export function createSimHost(codec: SimCodec): { host: Host; sim: Sim } {
  const core = new SimPhotoshopCore(codec);
  const ps = createSimPhotoshop(core);
  const temp = new SimFolder();
  const secureStorage = new SimSecureStorage();
  const uxp = createSimUxp(temp, secureStorage);
  return {
    host: { ps, uxp },
    sim: {
      core,
      imaging: ps.imaging as SimImaging,
      temp,
      secureStorage,
      openDocument: (init) => core.addDocument(newDocument(init)),
    },
  };
}

export { SimPhotoshopCore } from './photoshop';
export * from './state';
