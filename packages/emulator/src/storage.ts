/**
 * The data folder: uploads, outputs and preset files. Every path is built from
 * a server-generated UUID checked by `assertId`, so nothing a client sends can
 * name a file outside the folder. Writes go to `tmp/` and are renamed into place
 * (`@pfc/node-io`'s atomic write).
 */
import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { join, resolve } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { moveFileAtomic, writeAtomic, writeFileAtomic, type AtomicWriteOptions } from '@pfc/node-io';
import { HttpError } from './http/respond';
import { createScratchDir, removeScratchDir } from './scratch';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** True for a lower-case UUID as this server generates them. */
export function isId(value: string): boolean {
  return UUID.test(value);
}

function assertId(value: string): string {
  if (!isId(value)) throw new Error('refusing a path built from a value that is not a server-generated id');
  return value;
}

/** What a streamed upload produced. */
export interface ReceivedFile {
  /** Bytes written. */
  size: number;
  /** Hex SHA-256 of the content (the cache key's file part). */
  sha256: string;
  /** The first bytes, for file-type detection by content. */
  head: Buffer;
}

const HEAD_BYTES = 64;

/** Extensions of published outputs: images, and videos (corrected MP4/MOV). */
export type OutputExtension = 'jpg' | 'png' | 'mp4' | 'mov';

export class DataStore {
  private constructor(
    readonly root: string,
    /** Whether the folder was created here (and is removed by `destroy`). */
    readonly ownsRoot: boolean,
  ) {}

  /** Opens (creating if needed) a data folder; without one, a fresh temporary folder. */
  static async open(dir?: string): Promise<DataStore> {
    const root = dir ? resolve(dir) : await createScratchDir();
    for (const sub of ['uploads', 'outputs', 'presets', 'tmp']) await mkdir(join(root, sub), { recursive: true });
    return new DataStore(root, !dir);
  }

  uploadPath(fileKey: string): string {
    return join(this.root, 'uploads', assertId(fileKey));
  }

  outputPath(outputId: string, ext: OutputExtension): string {
    return join(this.root, 'outputs', `${assertId(outputId)}.${ext}`);
  }

  presetPath(presetId: string): string {
    return join(this.root, 'presets', `${assertId(presetId)}.preset`);
  }

  /** A fresh path in the store's `tmp/` folder (same file system as the outputs, so a rename publishes atomically). */
  tmpPath(): string {
    return join(this.root, 'tmp', randomUUID());
  }

  /**
   * Streams a request body to `dest` (never holding it in memory), hashing it
   * on the way. Over `maxBytes` → 413 and nothing is kept. The file appears at
   * `dest` only when complete.
   */
  async receive(req: IncomingMessage, dest: string, maxBytes: number): Promise<ReceivedFile> {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBytes) {
      throw new HttpError(413, `the file is larger than the limit of ${maxBytes} bytes`, { limitBytes: maxBytes });
    }
    const hash = createHash('sha256');
    let size = 0;
    const headChunks: Buffer[] = [];
    let headSize = 0;
    let tooLarge = false;
    const meter = new Transform({
      transform(chunk: Buffer, _enc, done) {
        size += chunk.length;
        if (size > maxBytes) {
          // Keep reading but drop the bytes, so the client (which sends the whole body before
          // reading) still receives the 413 instead of a reset connection.
          tooLarge = true;
          done();
          return;
        }
        if (headSize < HEAD_BYTES) {
          headChunks.push(chunk.subarray(0, HEAD_BYTES - headSize));
          headSize += Math.min(chunk.length, HEAD_BYTES - headSize);
        }
        hash.update(chunk);
        done(null, chunk);
      },
    });
    await writeAtomic(
      dest,
      async (tmp) => {
        await pipeline(req, meter, createWriteStream(tmp, { flags: 'wx' })).catch(() => {
          throw new HttpError(400, 'the upload was interrupted before it completed');
        });
        if (tooLarge) throw new HttpError(413, `the file is larger than the limit of ${maxBytes} bytes`, { limitBytes: maxBytes });
      },
      this.writeOptions,
    );
    return { size, sha256: hash.digest('hex'), head: Buffer.concat(headChunks) };
  }

  /** Writes bytes atomically (temp in `tmp/` + rename). */
  async writeAtomic(dest: string, data: Buffer): Promise<void> {
    await writeFileAtomic(dest, data, this.writeOptions);
  }

  /** Publishes a complete file written in `tmp/` under `dest`. */
  async publish(file: string, dest: string): Promise<void> {
    await moveFileAtomic(file, dest, this.writeOptions);
  }

  /**
   * Temporary files go to `tmp/`. A data folder the user chose outlives the
   * process, so its files are flushed to disk; the embedded emulator's own
   * temporary folder is removed on exit, so flushing it would only cost time.
   */
  private get writeOptions(): AtomicWriteOptions {
    return { tempDir: join(this.root, 'tmp'), durable: !this.ownsRoot };
  }

  async remove(path: string): Promise<void> {
    await rm(path, { force: true });
  }

  /** Removes the folder when it was created by `open()` without a path. */
  async destroy(): Promise<void> {
    if (this.ownsRoot) await removeScratchDir(this.root);
  }
}
