/**
 * Corrected files at public addresses that expire after the retention time.
 * An expired address answers 410 until the emulator restarts.
 */
import { randomUUID } from 'node:crypto';
import { link, copyFile, stat } from 'node:fs/promises';
import type { DataStore, OutputExtension } from '../storage';

export interface ResultFile {
  outputId: string;
  path: string;
  extension: OutputExtension;
  contentType: string;
  size: number;
  expiresAt: number;
  expired: boolean;
  /** The bytes were removed by a sweep. */
  deleted: boolean;
}

export class ResultStore {
  private readonly files = new Map<string, ResultFile>();

  constructor(
    private readonly store: DataStore,
    private readonly now: () => number,
    private readonly retentionMs: number,
  ) {}

  /** Stores new output bytes (atomically) under a fresh id. */
  async add(data: Buffer, extension: OutputExtension, contentType: string): Promise<ResultFile> {
    const outputId = randomUUID();
    const path = this.store.outputPath(outputId, extension);
    await this.store.writeAtomic(path, data);
    return this.register(outputId, path, extension, contentType, data.length);
  }

  /** Publishes a finished file (written in the store's tmp folder) by renaming it into place: large outputs never pass through memory. */
  async adopt(file: string, extension: OutputExtension, contentType: string): Promise<ResultFile> {
    const outputId = randomUUID();
    const path = this.store.outputPath(outputId, extension);
    await this.store.publish(file, path);
    return this.register(outputId, path, extension, contentType, (await stat(path)).size);
  }

  /** A new address for an existing output (cache hit), with its own retention; shares the bytes by hard link. */
  async duplicate(from: ResultFile): Promise<ResultFile> {
    const outputId = randomUUID();
    const path = this.store.outputPath(outputId, from.extension);
    await link(from.path, path).catch(() => copyFile(from.path, path));
    return this.register(outputId, path, from.extension, from.contentType, from.size);
  }

  private register(outputId: string, path: string, extension: OutputExtension, contentType: string, size: number): ResultFile {
    const r: ResultFile = { outputId, path, extension, contentType, size, expiresAt: this.now() + this.retentionMs, expired: false, deleted: false };
    this.files.set(outputId, r);
    return r;
  }

  /** The result, or undefined when unknown. Expiry is checked against the clock here, not only by the sweep. */
  get(outputId: string): ResultFile | undefined {
    const r = this.files.get(outputId);
    if (r && !r.expired && r.expiresAt <= this.now()) r.expired = true;
    return r;
  }

  /** A result still reachable (not expired). */
  live(outputId: string): ResultFile | undefined {
    const r = this.get(outputId);
    return r && !r.expired ? r : undefined;
  }

  /** Deletes the files of expired results (their ids stay known, answering 410). */
  async sweep(): Promise<void> {
    for (const r of this.files.values()) {
      if (r.expiresAt <= this.now() && !r.expired) r.expired = true;
      if (r.expired && !r.deleted) {
        await this.store.remove(r.path);
        r.deleted = true;
      }
    }
  }
}
