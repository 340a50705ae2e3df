import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { appendFileDurable, copyFileAtomic, DestinationExistsError, isTempName, moveFileAtomic, tempPathFor, truncateUtf8, writeAtomic, writeFileAtomic, writeStreamAtomic } from '../src/index';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'node-io-'));
});
afterEach(() => {
  vi.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
});

/** The prototype of node's FileHandle, whose `sync` the spies below replace. */
async function fileHandleProto(): Promise<{ sync: () => Promise<void> }> {
  const probe = await open(join(dir, '.probe'), 'w');
  const proto = Object.getPrototypeOf(probe) as { sync: () => Promise<void> };
  await probe.close();
  rmSync(join(dir, '.probe'));
  return proto;
}

/** Every fsync made through a FileHandle, with the path it was opened on (files and folders). */
async function spyOnSync(): Promise<string[]> {
  const proto = await fileHandleProto();
  const synced: string[] = [];
  const original = proto.sync;
  vi.spyOn(proto, 'sync').mockImplementation(async function (this: { fd: number }) {
    const { readlinkSync } = await import('node:fs');
    synced.push(readlinkSync(`/proc/self/fd/${this.fd}`));
    return original.call(this);
  });
  return synced;
}

const files = () => readdirSync(dir).filter((n) => n !== '.probe');

describe('writeAtomic', () => {
  it('writes the file, flushes it and its folder, and leaves no temporary file', async () => {
    const synced = await spyOnSync();
    const dest = join(dir, 'report.html');
    await writeFileAtomic(dest, 'hello');
    expect(readFileSync(dest, 'utf8')).toBe('hello');
    expect(files()).toEqual(['report.html']);
    // The temporary file (renamed into `dest` afterwards) and the folder holding the rename.
    expect(synced).toHaveLength(2);
    expect(isTempName(synced[0]!.split('/').pop()!)).toBe(true);
    expect(synced[1]).toBe(dir);
  });

  it('flushes the entry of each folder it makes into the folder holding it, and no folder that was there', async () => {
    const base = dir;
    const dest = join(base, 'out', 'a', 'b', 'photo.jpg');
    const synced = await spyOnSync();
    await writeFileAtomic(dest, 'x');
    // base holds out, out holds a, a holds b; then the file and b, which holds it.
    expect(synced.filter((p) => !isTempName(p.split('/').pop()!))).toEqual([join(base, 'out', 'a'), join(base, 'out'), base, join(base, 'out', 'a', 'b')]);
    synced.length = 0;
    await writeFileAtomic(join(base, 'out', 'a', 'b', 'second.jpg'), 'y');
    expect(synced.filter((p) => !isTempName(p.split('/').pop()!))).toEqual([join(base, 'out', 'a', 'b')]);
  });

  it('skips the flushes only when asked (scratch files)', async () => {
    const synced = await spyOnSync();
    await writeFileAtomic(join(dir, 'a'), 'x', { durable: false });
    expect(synced).toEqual([]);
  });

  it('leaves the old file and no temporary file when producing fails', async () => {
    const dest = join(dir, 'photo.jpg');
    writeFileSync(dest, 'original');
    await expect(
      writeAtomic(dest, async (tmp) => {
        writeFileSync(tmp, 'half');
        throw new Error('disk on fire');
      }),
    ).rejects.toThrow('disk on fire');
    expect(readFileSync(dest, 'utf8')).toBe('original');
    expect(files()).toEqual(['photo.jpg']);
  });

  it('leaves the old file when verify refuses the result, and when aborted', async () => {
    const dest = join(dir, 'photo.jpg');
    writeFileSync(dest, 'original');
    await expect(writeFileAtomic(dest, 'bad', { verify: async () => Promise.reject(new Error('not a JPEG')) })).rejects.toThrow('not a JPEG');
    const ctrl = new AbortController();
    ctrl.abort();
    await expect(writeFileAtomic(dest, 'late', { signal: ctrl.signal })).rejects.toThrow();
    expect(readFileSync(dest, 'utf8')).toBe('original');
    expect(files()).toEqual(['photo.jpg']);
  });

  it('an abort that comes while the result is being verified leaves the old file and no temporary file', async () => {
    const dest = join(dir, 'photo.jpg');
    writeFileSync(dest, 'original');
    const ctrl = new AbortController();
    // The user cancels while the check of the complete temporary file runs (it passes).
    const write = writeFileAtomic(dest, 'new', { signal: ctrl.signal, verify: async () => ctrl.abort() });
    await expect(write).rejects.toMatchObject({ name: 'AbortError' });
    expect(readFileSync(dest, 'utf8')).toBe('original');
    expect(files()).toEqual(['photo.jpg']);
  });

  it('fails when the folder cannot be flushed (the rename may not survive a power cut), but not where folders cannot be flushed at all', async () => {
    const proto = await fileHandleProto();
    const original = proto.sync;
    let folderError = 'EIO';
    vi.spyOn(proto, 'sync').mockImplementation(async function (this: { fd: number; stat: () => Promise<{ isDirectory(): boolean }> }) {
      if ((await this.stat()).isDirectory()) throw Object.assign(new Error(`${folderError}: fsync failed`), { code: folderError });
      return original.call(this);
    });
    await expect(writeFileAtomic(join(dir, 'report.html'), 'x')).rejects.toMatchObject({ code: 'EIO' });
    // A file system that refuses fsync on folders (some network and FUSE mounts) is not a failure.
    folderError = 'EINVAL';
    await writeFileAtomic(join(dir, 'other.html'), 'y');
    expect(readFileSync(join(dir, 'other.html'), 'utf8')).toBe('y');
  });

  it('exclusive: never replaces a file that appears after the caller\'s last check, and leaves no temporary file', async () => {
    const dest = join(dir, 'photo.jpg');
    let checkedAbsent = false;
    const write = writeFileAtomic(dest, 'result', {
      verify: async () => {
        checkedAbsent = !files().includes('photo.jpg');
        // The user saves a file of that name between the check and the write.
        writeFileSync(dest, 'the user\'s');
      },
      exclusive: () => checkedAbsent,
    });
    await expect(write).rejects.toBeInstanceOf(DestinationExistsError);
    expect(readFileSync(dest, 'utf8')).toBe('the user\'s');
    expect(files()).toEqual(['photo.jpg']);
    // Absent at the write: it is put in place, with one name only.
    const fresh = join(dir, 'fresh.jpg');
    await writeFileAtomic(fresh, 'result', { exclusive: true });
    expect(readFileSync(fresh, 'utf8')).toBe('result');
    expect(statSync(fresh).nlink).toBe(1);
    expect(files().sort()).toEqual(['fresh.jpg', 'photo.jpg']);
  });

  it('works for a destination whose name is 255 bytes long (multi-byte characters included)', async () => {
    const ascii = `${'a'.repeat(251)}.jpg`;
    const accented = `${'é'.repeat(125)}.jpg`; // 250 + 4 bytes
    for (const name of [ascii, accented]) {
      expect(Buffer.byteLength(name)).toBeLessThanOrEqual(255);
      await writeFileAtomic(join(dir, name), name);
      expect(readFileSync(join(dir, name), 'utf8')).toBe(name);
    }
    expect(files().sort()).toEqual([ascii, accented].sort());
  });

  it('gives the result the requested mode, even a read-only one', async () => {
    const dest = join(dir, 'ro.jpg');
    await writeFileAtomic(dest, 'x', { mode: 0o444 });
    expect(statSync(dest).mode & 0o777).toBe(0o444);
  });

  it('gives the result the requested times and, as far as the process may, owner (a backup or restore keeps the original\'s)', async () => {
    const dest = join(dir, 'kept.jpg');
    const mtime = new Date('2019-05-05T10:00:00.250Z');
    const root = process.getuid?.() === 0;
    // Root may give any owner; another user keeps its own (a group it is not in is refused quietly).
    const owner = root ? { uid: 1234, gid: 2345 } : { uid: process.getuid!(), gid: 0 };
    await writeFileAtomic(dest, 'original', { mode: 0o440, times: { atime: mtime, mtime }, owner });
    const st = statSync(dest);
    expect(st.mtime.getTime()).toBe(mtime.getTime());
    expect(st.mode & 0o777).toBe(0o440);
    expect(st.uid).toBe(owner.uid);
    if (root) expect(st.gid).toBe(owner.gid);
  });

  it('can stage the temporary file in another folder of the same file system', async () => {
    const staging = mkdtempSync(join(dir, 'tmp-'));
    await writeFileAtomic(join(dir, 'out.bin'), 'x', { tempDir: staging });
    expect(readdirSync(staging)).toEqual([]);
    expect(readFileSync(join(dir, 'out.bin'), 'utf8')).toBe('x');
  });
});

describe('tempPathFor', () => {
  it('is hidden, recognisable, unique, and short whatever the destination name', () => {
    const long = join(dir, `${'ж'.repeat(127)}.j`);
    const a = tempPathFor(long);
    const b = tempPathFor(long);
    expect(a).not.toBe(b);
    const name = a.split('/').pop()!;
    expect(name.startsWith('.')).toBe(true);
    expect(isTempName(name)).toBe(true);
    expect(Buffer.byteLength(name)).toBeLessThanOrEqual(100);
    expect(name).not.toContain('\uFFFD');
  });

  it('truncateUtf8 never splits a character', () => {
    expect(truncateUtf8('ééé', 5)).toBe('éé');
    expect(truncateUtf8('abc', 10)).toBe('abc');
  });
});

describe('writeStreamAtomic', () => {
  it('streams a web or Node stream to disk and reports size and hash', async () => {
    const synced = await spyOnSync();
    const web = new Response('streamed bytes').body!;
    const written = await writeStreamAtomic(join(dir, 'a.bin'), web);
    expect(written.bytes).toBe(14);
    expect(written.hash).toBe('sha256:' + (await import('node:crypto')).createHash('sha256').update('streamed bytes').digest('hex'));
    const node = await writeStreamAtomic(join(dir, 'b.bin'), Readable.from([Buffer.from('x'), Buffer.from('y')]));
    expect(node.bytes).toBe(2);
    expect(readFileSync(join(dir, 'b.bin'), 'utf8')).toBe('xy');
    expect(synced).toHaveLength(4);
  });

  it('leaves no temporary file when the stream fails midway', async () => {
    const failing = new Readable({
      read() {
        this.push(Buffer.from('part'));
        this.destroy(new Error('connection reset'));
      },
    });
    await expect(writeStreamAtomic(join(dir, 'c.bin'), failing)).rejects.toThrow('connection reset');
    expect(files()).toEqual([]);
  });
});

describe('copyFileAtomic and moveFileAtomic', () => {
  it('copy keeps the source; move flushes and removes it', async () => {
    writeFileSync(join(dir, 'src'), 'bytes');
    await copyFileAtomic(join(dir, 'src'), join(dir, 'backup', 'copy'));
    expect(readFileSync(join(dir, 'backup', 'copy'), 'utf8')).toBe('bytes');
    const synced = await spyOnSync();
    await moveFileAtomic(join(dir, 'src'), join(dir, 'moved'));
    expect(files().sort()).toEqual(['backup', 'moved']);
    expect(synced).toEqual([join(dir, 'src'), dir]);
  });

  it("a copy keeps the source's mode and times, and is flushed with its folder", async () => {
    const src = join(dir, 'photo.jpg');
    writeFileSync(src, Buffer.alloc(600_000, 7));
    chmodSync(src, 0o640);
    const mtime = new Date('2021-05-04T03:02:01.000Z');
    utimesSync(src, new Date('2022-01-01T00:00:00.000Z'), mtime);
    const synced = await spyOnSync();
    const dest = join(dir, 'photo copy.jpg');
    await copyFileAtomic(src, dest);
    expect(readFileSync(dest).equals(readFileSync(src))).toBe(true);
    expect(statSync(dest).mode & 0o7777).toBe(0o640);
    expect(statSync(dest).mtime.toISOString()).toBe(mtime.toISOString());
    expect(synced.at(-1)).toBe(dir);
    expect(files().filter(isTempName)).toEqual([]);
  });

  it('a move that fails removes the source and writes nothing at the destination', async () => {
    const src = join(dir, 'scratch.jpg');
    writeFileSync(src, 'encoded');
    // The destination's folder does not exist: the rename fails.
    await expect(moveFileAtomic(src, join(dir, 'missing', 'out.jpg'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(files()).toEqual([]);
  });

  it('a copy never waits on a named pipe: it is refused, and nothing is written', async () => {
    const pipe = join(dir, 'pipe.jpg');
    execFileSync('mkfifo', [pipe]);
    await expect(copyFileAtomic(pipe, join(dir, 'copy.jpg'))).rejects.toMatchObject({ name: 'NotRegularFileError', message: 'not a regular file (a named pipe)' });
    expect(files().sort()).toEqual(['pipe.jpg']);
  });

  it('a cancelled copy leaves the destination as it was', async () => {
    const src = join(dir, 'big');
    writeFileSync(src, Buffer.alloc(4_000_000, 1));
    writeFileSync(join(dir, 'dest'), 'before');
    await expect(copyFileAtomic(src, join(dir, 'dest'), { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' });
    expect(readFileSync(join(dir, 'dest'), 'utf8')).toBe('before');
    expect(files().sort()).toEqual(['big', 'dest']);
  });
});

describe('appendFileDurable', () => {
  it('appends and flushes each line; the folder too when the file is new', async () => {
    const synced = await spyOnSync();
    const journal = join(dir, 'journal.jsonl');
    await appendFileDurable(journal, 'one\n');
    await appendFileDurable(journal, 'two\n');
    expect(readFileSync(journal, 'utf8')).toBe('one\ntwo\n');
    expect(synced).toEqual([journal, dir, journal]);
  });
});
