/**
 * A simulated `uxp` module: the plugin's temporary folder with binary file
 * I/O (kept in memory, inspectable by tests) and `secureStorage`.
 */
import { native } from './native';
import type { PsFileEntry, PsFolderEntry, UxpModule, UxpSecureStorage } from '../../src/host/types';

const formats = { binary: Symbol('binary'), utf8: Symbol('utf8') } as const;

export class SimFile implements PsFileEntry {
  bytes: Uint8Array | undefined;
  constructor(
    private readonly folder: SimFolder,
    readonly name: string,
  ) {}
  async read(options: { format?: symbol }): Promise<string | ArrayBuffer> {
    if (!this.bytes) throw new Error(`Could not find the file ${this.name}`);
    if (options.format === formats.binary) return this.bytes.slice().buffer;
    return new native.TextDecoder().decode(this.bytes);
  }
  async write(data: string | ArrayBuffer, options: { format?: symbol; append?: boolean }): Promise<number> {
    if (options.format === formats.binary) {
      // UXP writes binary data only from an ArrayBuffer.
      if (!(data instanceof ArrayBuffer)) throw new Error('binary data must be an ArrayBuffer');
      this.bytes = new Uint8Array(data.slice(0));
    } else {
      if (typeof data !== 'string') throw new Error('utf8 data must be a string');
      this.bytes = new native.TextEncoder().encode(data);
    }
    return this.bytes.byteLength;
  }
  async delete(): Promise<void> {
    this.folder.files.delete(this.name);
  }
}

export class SimFolder implements PsFolderEntry {
  readonly files = new Map<string, SimFile>();
  async createFile(name: string, options: { overwrite?: boolean }): Promise<PsFileEntry> {
    if (this.files.has(name) && !options.overwrite) throw new Error(`${name} already exists`);
    if (/[\\/:*?"<>|]/.test(name)) throw new Error(`invalid file name ${name}`);
    const file = new SimFile(this, name);
    this.files.set(name, file);
    return file;
  }
}

export class SimSecureStorage implements UxpSecureStorage {
  readonly items = new Map<string, Uint8Array>();
  async getItem(key: string): Promise<Uint8Array> {
    const v = this.items.get(key);
    // UXP rejects for a key that was never stored.
    if (!v) throw new Error(`no item for ${key}`);
    return v.slice();
  }
  async setItem(key: string, value: string | ArrayBuffer | Uint8Array): Promise<void> {
    const bytes = typeof value === 'string' ? new native.TextEncoder().encode(value) : new Uint8Array(value instanceof ArrayBuffer ? value : value.slice());
    if (bytes.byteLength === 0) throw new Error('value is empty');
    this.items.set(key, bytes);
  }
  async removeItem(key: string): Promise<void> {
    if (!this.items.delete(key)) throw new Error(`no item for ${key}`);
  }
}

export function createSimUxp(temp: SimFolder, secureStorage: SimSecureStorage): UxpModule {
  return {
    storage: {
      localFileSystem: { getTemporaryFolder: async () => temp },
      formats,
      secureStorage,
    },
  };
}
