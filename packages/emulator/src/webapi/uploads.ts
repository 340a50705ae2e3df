/** Upload tickets and the files sent to their pre-signed addresses. */
import { randomUUID } from 'node:crypto';
import type { Dimensions } from '@pfc/core';
import sharp from 'sharp';
import type { DataStore, ReceivedFile } from '../storage';
import { sniff, type Sniffed } from './filetype';

export interface UploadedFile extends ReceivedFile {
  path: string;
  sniffed: Sniffed;
  /** Auto-oriented size read from the header of a JPEG or PNG; undefined when unreadable. */
  dimensions?: Dimensions;
  uploadedAt: number;
  /** The file is deleted after this time (ms since epoch). */
  expiresAt: number;
}

export interface UploadRecord {
  fileKey: string;
  /** Account (key digest) that requested the ticket: a fileKey is usable by that key only. */
  owner: string;
  /** The `fileType` the ticket was requested for; `/pfc` must name the same (the job also compares the content). */
  fileType: 'image' | 'video';
  createdAt: number;
  file?: UploadedFile;
}

export class UploadRegistry {
  private readonly records = new Map<string, UploadRecord>();

  constructor(
    private readonly store: DataStore,
    private readonly now: () => number,
    /** How long uploaded files are kept, ms. */
    private readonly retentionMs: number,
  ) {}

  create(owner: string, fileType: 'image' | 'video'): UploadRecord {
    const record: UploadRecord = { fileKey: randomUUID(), owner, fileType, createdAt: this.now() };
    this.records.set(record.fileKey, record);
    return record;
  }

  /**
   * Looks a fileKey up case-insensitively (clients may upper-case UUIDs). With
   * `owner`, a ticket of another account is not found: the signed PUT carries
   * no key, `/pfc` does.
   */
  get(fileKey: string, owner?: string): UploadRecord | undefined {
    const record = this.records.get(fileKey.toLowerCase());
    return record && (owner === undefined || record.owner === owner) ? record : undefined;
  }

  /** Records a completed upload; re-uploading to the same ticket replaces the file, as object stores do. */
  async completed(record: UploadRecord, received: ReceivedFile): Promise<UploadedFile> {
    const path = this.store.uploadPath(record.fileKey);
    const sniffed = sniff(received.head);
    let dimensions: Dimensions | undefined;
    if (sniffed.kind === 'image' && sniffed.supported) {
      try {
        const m = await sharp(path, { limitInputPixels: false }).metadata();
        dimensions = m.autoOrient ?? { width: m.width, height: m.height };
      } catch {
        dimensions = undefined; // unreadable: the job will say so
      }
    }
    const now = this.now();
    record.file = { ...received, path, sniffed, dimensions, uploadedAt: now, expiresAt: now + this.retentionMs };
    return record.file;
  }

  /** Deletes files past their retention and forgets their tickets. */
  async sweep(): Promise<void> {
    const now = this.now();
    for (const [key, r] of this.records) {
      const expired = r.file ? r.file.expiresAt <= now : r.createdAt + this.retentionMs <= now;
      if (!expired) continue;
      this.records.delete(key);
      if (r.file) await this.store.remove(r.file.path);
    }
  }
}
