/**
 * The container's folders (`/input`, `/output`, `/presets`) and the retention
 * of what it wrote there. Every name from a request passes the contract's
 * sanity check and must resolve inside its folder (no symlink out), so no
 * request reaches a file elsewhere. Writes go through `@pfc/node-io`'s durable
 * atomic write (hidden temp file in the same folder, fsync, rename).
 */
import { createWriteStream } from 'node:fs';
import { lstat, mkdir, readFile, realpath, rm, stat } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { join, relative, resolve, sep, isAbsolute } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { imageKeyProblem, type ContainerErrorId } from '@pfc/core';
import { writeAtomic } from '@pfc/node-io';

/** A failure with the container's error id (the server answers its documented status). */
export class ContainerFailure extends Error {
  constructor(
    readonly id: ContainerErrorId,
    message: string,
    /** Status override (413 for a body over the limit). */
    readonly status?: number,
  ) {
    super(message);
    this.name = 'ContainerFailure';
  }
}

/** One-shot injected failures of file-system steps the emulator cannot provoke on demand (disk full, close errors). */
export type InjectableFault = 'temporaryFileCreationMessage' | 'temporaryFileWritingMessage' | 'temporaryOutputFileMessage' | 'temporaryCloseOutputFileMessage';

export interface Folders {
  input: string;
  output: string;
  presets: string;
}

/** Bytes of a body's start handed to `receive`'s check (enough for the JPEG and PNG signatures). */
const HEAD_BYTES = 16;

interface Tracked {
  path: string;
  createdAt: number;
}

export class ContainerFiles {
  /** Files this container wrote (uploads and outputs), by path: the retention sweep deletes only these. */
  private readonly tracked = new Map<string, Tracked>();
  private readonly faults: InjectableFault[] = [];

  constructor(
    readonly folders: Folders,
    private readonly now: () => number,
  ) {}

  static async open(folders: Folders, now: () => number): Promise<ContainerFiles> {
    for (const dir of Object.values(folders)) await mkdir(dir, { recursive: true });
    return new ContainerFiles({ input: resolve(folders.input), output: resolve(folders.output), presets: resolve(folders.presets) }, now);
  }

  /** Make the next step that can fail with `id` fail with it (test seam; see the README). */
  inject(id: InjectableFault): void {
    this.faults.push(id);
  }

  private take(id: InjectableFault): boolean {
    const i = this.faults.indexOf(id);
    if (i < 0) return false;
    this.faults.splice(i, 1);
    return true;
  }

  /**
   * The path of `name` inside `dir`, or a `ContainerFailure(invalidIdMessage)`.
   * Checks the name (separators, `..`, NUL …) and, for existing files, that the
   * real path is still inside the folder (a symlink out is refused).
   */
  async inside(dir: string, name: string): Promise<string> {
    const problem = imageKeyProblem(name);
    if (problem) throw new ContainerFailure('invalidIdMessage', `image key fails the sanity check: ${problem}`);
    const path = join(dir, name);
    const rel = relative(dir, path);
    if (rel === '' || rel.startsWith('..') || isAbsolute(rel) || rel.includes(sep)) throw new ContainerFailure('invalidIdMessage', 'image key fails the sanity check');
    try {
      const real = await realpath(path);
      const realDir = await realpath(dir);
      if (relative(realDir, real).startsWith('..') || isAbsolute(relative(realDir, real))) {
        throw new ContainerFailure('invalidIdMessage', 'image key resolves outside the folder');
      }
    } catch (err) {
      if (err instanceof ContainerFailure) throw err;
      // Not there (yet): the name itself was checked above.
    }
    return path;
  }

  /** Whether `path` is a regular file (not a folder, not a dangling link). */
  async isFile(path: string): Promise<boolean> {
    try {
      return (await stat(path)).isFile();
    } catch {
      return false;
    }
  }

  /**
   * Stream an upload into `/input` as `key`. Maps failures onto the documented
   * ids: the body could not be read → bodyRequestMessage; the temp file could
   * not be created → temporaryFileCreationMessage; written or closed →
   * temporaryFileWritingMessage. Nothing is left behind on failure.
   * `checkHead` sees the first 16 bytes once the body is in, before the file
   * is kept; a `ContainerFailure` it throws discards the upload.
   */
  async receive(req: IncomingMessage, key: string, maxBytes: number, checkHead?: (head: Buffer) => void): Promise<{ path: string; size: number }> {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBytes) throw new ContainerFailure('bodyRequestMessage', `the body is larger than the limit of ${maxBytes} bytes`, 413);
    const dest = await this.inside(this.folders.input, key);
    let size = 0;
    let head = Buffer.alloc(0);
    let stage: 'create' | 'write' | 'read' = 'create';
    const meter = new Transform({
      transform(chunk: Buffer, _enc, done) {
        size += chunk.length;
        if (head.length < HEAD_BYTES) head = Buffer.concat([head, chunk.subarray(0, HEAD_BYTES - head.length)]);
        if (size > maxBytes) done(new ContainerFailure('bodyRequestMessage', `the body is larger than the limit of ${maxBytes} bytes`, 413));
        else done(null, chunk);
      },
    });
    try {
      await writeAtomic(dest, async (tmp) => {
        if (this.take('temporaryFileCreationMessage')) throw Object.assign(new Error('injected: no space left on device'), { code: 'ENOSPC' });
        const out = createWriteStream(tmp, { flags: 'wx' });
        await new Promise<void>((ok, fail) => out.once('open', () => ok()).once('error', fail));
        stage = 'read';
        out.once('error', () => (stage = 'write'));
        if (this.take('temporaryFileWritingMessage')) {
          out.destroy();
          stage = 'write';
          throw Object.assign(new Error('injected: input/output error on close'), { code: 'EIO' });
        }
        await pipeline(req, meter, out);
        stage = 'write';
        checkHead?.(head);
      });
    } catch (err) {
      if (err instanceof ContainerFailure) throw err;
      if (stage === 'create') throw new ContainerFailure('temporaryFileCreationMessage', `the temporary input file could not be created (${codeOf(err)})`);
      if (stage === 'write') throw new ContainerFailure('temporaryFileWritingMessage', `the temporary input file could not be written or closed (${codeOf(err)})`);
      throw new ContainerFailure('bodyRequestMessage', 'the request body could not be read');
    }
    this.track(dest);
    return { path: dest, size };
  }

  /** Write a corrected file into `/output` atomically; failures → temporaryOutputFileMessage / temporaryCloseOutputFileMessage. */
  async writeOutput(name: string, data: Buffer): Promise<string> {
    const dest = await this.inside(this.folders.output, name);
    let stage: 'create' | 'close' = 'create';
    try {
      await writeAtomic(dest, async (tmp) => {
        if (this.take('temporaryOutputFileMessage')) throw Object.assign(new Error('injected: no space left on device'), { code: 'ENOSPC' });
        const out = createWriteStream(tmp, { flags: 'wx' });
        await new Promise<void>((ok, fail) => out.once('open', () => ok()).once('error', fail));
        stage = 'close';
        if (this.take('temporaryCloseOutputFileMessage')) {
          out.destroy();
          throw Object.assign(new Error('injected: input/output error on close'), { code: 'EIO' });
        }
        await new Promise<void>((ok, fail) => out.end(data, () => ok()).once('error', fail));
      });
    } catch (err) {
      if (stage === 'create') throw new ContainerFailure('temporaryOutputFileMessage', `the output file could not be created (${codeOf(err)})`);
      throw new ContainerFailure('temporaryCloseOutputFileMessage', `the output file could not be written or closed (${codeOf(err)})`);
    }
    this.track(dest);
    return dest;
  }

  /** A preset or ICC profile from `/presets`, or undefined. */
  async preset(fileName: string): Promise<Buffer | undefined> {
    const path = await this.inside(this.folders.presets, fileName);
    return (await this.isFile(path)) ? readFile(path) : undefined;
  }

  private track(path: string): void {
    this.tracked.set(path, { path, createdAt: this.now() });
  }

  /**
   * Delete tracked files older than `ttlMs`. A file that cannot be deleted is
   * reported (the container's info-level `cleanUpFileMessage`) and kept for the next sweep.
   */
  async sweep(ttlMs: number, report: (path: string, err: unknown) => void): Promise<number> {
    let deleted = 0;
    const cutoff = this.now() - ttlMs;
    for (const t of [...this.tracked.values()]) {
      if (t.createdAt > cutoff) continue;
      try {
        const info = await lstat(t.path).catch(() => undefined);
        if (info?.isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
        await rm(t.path, { force: true });
        this.tracked.delete(t.path);
        deleted++;
      } catch (err) {
        report(t.path, err);
      }
    }
    return deleted;
  }
}

function codeOf(err: unknown): string {
  const c = (err as { code?: unknown }).code;
  return typeof c === 'string' ? c : err instanceof Error ? err.message : 'unknown error';
}
