/**
 * Guards found by a mutation audit of node-io: each test below fails when the
 * behaviour it names is broken (a fsync of the wrong folder, a descriptor left
 * open per file, a cancel that does not cancel, an owner or mode bit lost…),
 * and checks what is on disk rather than how it was done.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  appendFileDurable, copyFileAtomic, isTempName, makeFolder, moveFileAtomic, processAlive, streamIntoNewFile, writeAtomic, writeFileAtomic, writeStreamAtomic,
} from '../src/index';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'node-io-guards-'));
});
afterEach(() => {
  vi.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
});

const root = process.getuid?.() === 0;

/** The prototype of node's FileHandle, whose methods the spies below wrap. */
async function fileHandleProto(): Promise<Record<string, (...args: never[]) => Promise<unknown>>> {
  const probe = join(tmpdir(), `.node-io-guards-probe-${process.pid}`);
  const fh = await open(probe, 'w');
  const proto = Object.getPrototypeOf(fh) as Record<string, (...args: never[]) => Promise<unknown>>;
  await fh.close();
  rmSync(probe);
  return proto;
}

/** Every fsync made through a FileHandle, with the path it was opened on (files and folders). */
async function spyOnSync(): Promise<string[]> {
  const proto = await fileHandleProto();
  const original = proto.sync!;
  const synced: string[] = [];
  vi.spyOn(proto, 'sync').mockImplementation(async function (this: { fd: number }) {
    synced.push(readlinkSync(`/proc/self/fd/${this.fd}`));
    return original.call(this);
  });
  return synced;
}

/** Descriptors this process holds open on anything under `folder` (a leak grows with the number of files). */
function openUnder(folder: string): string[] {
  const out: string[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      if (target === folder || target.startsWith(`${folder}/`)) out.push(target);
    } catch {
      // closed meanwhile (the listing's own descriptor)
    }
  }
  return out;
}

const entries = (folder = dir) => readdirSync(folder).sort();

describe('writeAtomic: what lands on disk', () => {
  it('the result is the very file that was flushed, renamed (not copied) over the old one, which a reader holding it keeps whole', async () => {
    const dest = join(dir, 'photo.jpg');
    writeFileSync(dest, 'original');
    // A reader (a viewer, a backup tool) that holds the old file by another name.
    linkSync(dest, join(dir, 'reader'));
    let tempInode = -1;
    await writeFileAtomic(dest, 'corrected', { verify: async (tmp) => void (tempInode = statSync(tmp).ino) });
    expect(statSync(dest).ino).toBe(tempInode);
    expect(readFileSync(dest, 'utf8')).toBe('corrected');
    expect(readFileSync(join(dir, 'reader'), 'utf8')).toBe('original');
  });

  it('with a staging folder, the temporary file is made there and the destination\'s folder (which holds the rename) is flushed', async () => {
    const staging = join(dir, 'staging');
    const out = join(dir, 'out');
    mkdirSync(staging);
    mkdirSync(out);
    const synced = await spyOnSync();
    let tempFolder = '';
    await writeAtomic(join(out, 'a.bin'), async (tmp) => {
      tempFolder = dirname(tmp);
      writeFileSync(tmp, 'x', { flag: 'wx' });
    }, { tempDir: staging });
    expect(tempFolder).toBe(staging);
    expect(readFileSync(join(out, 'a.bin'), 'utf8')).toBe('x');
    expect(entries(staging)).toEqual([]);
    // The temporary file, then the folder the rename changed.
    expect(synced).toHaveLength(2);
    expect(synced[1]).toBe(out);
  });

  it('a write cancelled before it starts writes nothing and replaces nothing', async () => {
    const dest = join(dir, 'photo.jpg');
    writeFileSync(dest, 'original');
    let produced = false;
    const write = writeAtomic(dest, async (tmp) => {
      produced = true;
      writeFileSync(tmp, 'new');
    }, { signal: AbortSignal.abort() });
    await expect(write).rejects.toMatchObject({ name: 'AbortError' });
    expect(produced).toBe(false);
    expect(readFileSync(dest, 'utf8')).toBe('original');
    expect(entries()).toEqual(['photo.jpg']);
  });

  it('exclusive: false replaces an existing file as a plain write does', async () => {
    const dest = join(dir, 'report.html');
    writeFileSync(dest, 'old');
    await writeFileAtomic(dest, 'new', { exclusive: false });
    await writeFileAtomic(dest, 'newer', { exclusive: () => false });
    expect(readFileSync(dest, 'utf8')).toBe('newer');
    expect(entries()).toEqual(['report.html']);
  });

  it('keeps no descriptor open on the file or its folder, after a write, a copy, a move and an append', async () => {
    writeFileSync(join(dir, 'src'), 'bytes');
    for (let i = 0; i < 3; i++) await writeFileAtomic(join(dir, `w${i}`), 'x', { mode: 0o600 });
    await copyFileAtomic(join(dir, 'src'), join(dir, 'copy'));
    // A refused copy closes its source too.
    await expect(copyFileAtomic(join(dir, 'src'), join(dir, 'copy'), { exclusive: true })).rejects.toMatchObject({ name: 'DestinationExistsError' });
    writeFileSync(join(dir, 'scratch'), 'encoded');
    await moveFileAtomic(join(dir, 'scratch'), join(dir, 'moved'));
    await appendFileDurable(join(dir, 'journal'), 'line\n');
    await makeFolder(join(dir, 'a', 'b'));
    expect(openUnder(dir)).toEqual([]);
  });
});

describe('copyFileAtomic of a large file', () => {
  /** Every read made through a FileHandle: its length and what it returned. */
  async function spyOnReads(onRead: () => void = () => undefined): Promise<{ asked: number[]; got: number }> {
    const proto = await fileHandleProto();
    const original = proto.read!;
    const reads = { asked: [] as number[], got: 0 };
    vi.spyOn(proto, 'read').mockImplementation(async function (this: unknown, ...args: never[]) {
      const [, , length] = args as unknown as [Buffer, number, number];
      reads.asked.push(length);
      const r = (await original.apply(this, args)) as { bytesRead: number };
      reads.got += r.bytesRead;
      onRead();
      return r;
    });
    return reads;
  }

  it('reads the source in bounded pieces, however large it is (memory does not grow with file size)', async () => {
    const src = join(dir, 'video.mp4');
    writeFileSync(src, Buffer.alloc(5 * 1024 * 1024, 3));
    const reads = await spyOnReads();
    await copyFileAtomic(src, join(dir, 'copy.mp4'));
    expect(readFileSync(join(dir, 'copy.mp4')).equals(readFileSync(src))).toBe(true);
    expect(reads.got).toBe(5 * 1024 * 1024);
    expect(Math.max(...reads.asked)).toBeLessThanOrEqual(1024 * 1024);
  });

  it('a cancel during the copy stops reading the source, leaves the destination as it was and no temporary file', async () => {
    const src = join(dir, 'video.mp4');
    writeFileSync(src, Buffer.alloc(8 * 1024 * 1024, 3));
    const dest = join(dir, 'backup.mp4');
    writeFileSync(dest, 'before');
    const stop = new AbortController();
    const reads = await spyOnReads(() => stop.abort());
    await expect(copyFileAtomic(src, dest, { signal: stop.signal })).rejects.toMatchObject({ name: 'AbortError' });
    expect(reads.got).toBeGreaterThan(0);
    expect(reads.got).toBeLessThan(8 * 1024 * 1024);
    expect(readFileSync(dest, 'utf8')).toBe('before');
    expect(entries()).toEqual(['backup.mp4', 'video.mp4']);
  });
});

describe('permissions and owner', () => {
  it('a move gives the file the requested mode', async () => {
    const src = join(dir, 'scratch.jpg');
    writeFileSync(src, 'encoded', { mode: 0o600 });
    await moveFileAtomic(src, join(dir, 'out.jpg'), { mode: 0o644 });
    expect(statSync(join(dir, 'out.jpg')).mode & 0o7777).toBe(0o644);
  });

  it('a copy keeps the set-group-ID and sticky bits of the source', async () => {
    const src = join(dir, 'tool');
    writeFileSync(src, '#!/bin/sh\n');
    chmodSync(src, 0o3750);
    if ((statSync(src).mode & 0o7777) !== 0o3750) return; // this file system or user cannot set them
    await copyFileAtomic(src, join(dir, 'tool copy'));
    expect(statSync(join(dir, 'tool copy')).mode & 0o7777).toBe(0o3750);
  });

  it.runIf(root)('a copy keeps the source\'s owner and group, and its set-user-ID bit with them (root)', async () => {
    const src = join(dir, 'photo.jpg');
    writeFileSync(src, 'bytes');
    chownSync(src, 1234, 2345);
    chmodSync(src, 0o4755);
    await copyFileAtomic(src, join(dir, 'backup.jpg'));
    const st = statSync(join(dir, 'backup.jpg'));
    expect([st.uid, st.gid]).toEqual([1234, 2345]);
    expect(st.mode & 0o7777).toBe(0o4755);
  });

  it.runIf(root)('a change of group alone is made when the owner is already right (root)', async () => {
    const dest = join(dir, 'kept.jpg');
    await writeFileAtomic(dest, 'x', { owner: { uid: 0, gid: 2345 } });
    expect([statSync(dest).uid, statSync(dest).gid]).toEqual([0, 2345]);
  });

  it.runIf(root)('where the owner may not be given (a user\'s process), the group still is, and the write succeeds', async () => {
    // A kernel's answer to a process that is not root: EPERM for another owner, a group change allowed.
    const proto = await fileHandleProto();
    const original = proto.chown!;
    vi.spyOn(proto, 'chown').mockImplementation(async function (this: { fd: number; stat(): Promise<{ uid: number }> }, ...args: never[]) {
      const [uid] = args as unknown as [number, number];
      if (uid !== (await this.stat()).uid) throw Object.assign(new Error('EPERM: operation not permitted, fchown'), { code: 'EPERM' });
      return original.apply(this, args);
    });
    const dest = join(dir, 'in-place.jpg');
    await writeFileAtomic(dest, 'x', { owner: { uid: 4321, gid: 2345 }, mode: 0o640 });
    const st = statSync(dest);
    expect([st.uid, st.gid]).toEqual([0, 2345]);
    expect(st.mode & 0o7777).toBe(0o640);
  });
});

describe('extended attributes', () => {
  it('a copy given extendedAttributesFrom gets that file\'s attributes, not the source\'s', async (ctx) => {
    const { getAttribute, listAttributes, setAttribute } = await import('@napi-rs/xattr');
    const src = join(dir, 'restored.jpg');
    const original = join(dir, 'original.jpg');
    writeFileSync(src, 'bytes');
    writeFileSync(original, 'old bytes');
    if (!(await setAttribute(original, 'user.xdg.tags', Buffer.from('holiday')).then(() => true, () => false))) ctx.skip();
    await setAttribute(src, 'user.scratch', Buffer.from('1'));
    const dest = join(dir, 'photo.jpg');
    await copyFileAtomic(src, dest, { extendedAttributesFrom: original });
    expect(await listAttributes(dest)).toEqual(['user.xdg.tags']);
    expect((await getAttribute(dest, 'user.xdg.tags'))?.toString()).toBe('holiday');
  });
});

describe('as a user who is not root', () => {
  /** The built package, run by a child process under another user (as the worker-pool tests use it). */
  const dist = pathToFileURL(join(import.meta.dirname, '..', 'dist', 'index.js')).href;

  it.runIf(root)('a read-only, tagged photo is copied with its tags and its mode (the tags are given before the mode takes write permission away)', async (ctx) => {
    const { getAttribute, setAttribute } = await import('@napi-rs/xattr');
    const nobody = 65534;
    chmodSync(dir, 0o755);
    const home = join(dir, 'home');
    mkdirSync(home);
    chownSync(home, nobody, nobody);
    const src = join(home, 'photo.jpg');
    writeFileSync(src, 'jpeg');
    if (!(await setAttribute(src, 'user.xdg.tags', Buffer.from('holiday')).then(() => true, () => false))) ctx.skip();
    chownSync(src, nobody, nobody);
    chmodSync(src, 0o444);
    const dest = join(home, 'originals', 'photo.jpg');
    const code = `import { copyFileAtomic } from ${JSON.stringify(dist)};\nawait copyFileAtomic(${JSON.stringify(src)}, ${JSON.stringify(dest)});`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', code], { uid: nobody, gid: nobody, encoding: 'utf8' });
    expect(child.stderr).toBe('');
    expect(child.status).toBe(0);
    expect(statSync(dest).mode & 0o7777).toBe(0o444);
    expect(statSync(dest).uid).toBe(nobody);
    expect((await getAttribute(dest, 'user.xdg.tags'))?.toString()).toBe('holiday');
  });
});

describe('makeFolder', () => {
  it('is durable by default: each new folder\'s entry is flushed into the folder holding it', async () => {
    const synced = await spyOnSync();
    expect(await makeFolder(join(dir, 'a', 'b'))).toBe(join(dir, 'a'));
    expect(synced).toEqual([join(dir, 'a'), dir]);
  });
});

describe('isTempName', () => {
  it('never takes a user\'s file for a temporary one', () => {
    expect(isTempName('holiday.pfc-partial')).toBe(false);
    expect(isTempName('.hidden.jpg')).toBe(false);
    expect(isTempName('.a.jpg.1a-0f0f0f0f0f0f.pfc-partial')).toBe(true);
  });
});

describe('streams', () => {
  it('a cancel while the body stalls (a network stream that hangs) ends the write, with no temporary file and the old file kept', async () => {
    const dest = join(dir, 'download.jpg');
    writeFileSync(dest, 'original');
    // One chunk, then nothing: only the signal can end it.
    const body = new Readable({ read() {} });
    body.push(Buffer.from('partial'));
    const stop = new AbortController();
    const write = writeStreamAtomic(dest, body, { signal: stop.signal });
    // Until the first chunk is in the temporary file.
    for (let i = 0; i < 2000 && !entries().some((n) => isTempName(n) && statSync(join(dir, n)).size > 0); i++) await new Promise((r) => setImmediate(r));
    stop.abort();
    await expect(write).rejects.toMatchObject({ name: 'AbortError' });
    expect(readFileSync(dest, 'utf8')).toBe('original');
    expect(entries()).toEqual(['download.jpg']);
  });

  it('streamIntoNewFile never writes over an existing file', async () => {
    const path = join(dir, 'taken');
    writeFileSync(path, 'someone else\'s');
    await expect(streamIntoNewFile(Readable.from([Buffer.from('mine')]), path)).rejects.toMatchObject({ code: 'EEXIST' });
    expect(readFileSync(path, 'utf8')).toBe('someone else\'s');
  });

  it('writeStreamAtomic honours the write options: verify sees what was produced, the mode is applied, a refusal keeps the old file', async () => {
    const dest = join(dir, 'a.jpg');
    const seen: unknown[] = [];
    const written = await writeStreamAtomic(dest, Readable.from([Buffer.from('jpeg')]), { mode: 0o604, verify: async (_tmp, produced) => void seen.push(produced) });
    expect(seen).toEqual([written]);
    expect(written.bytes).toBe(4);
    expect(statSync(dest).mode & 0o777).toBe(0o604);
    await expect(writeStreamAtomic(dest, Readable.from([Buffer.from('bad')]), { verify: async () => Promise.reject(new Error('not a JPEG')) })).rejects.toThrow('not a JPEG');
    expect(readFileSync(dest, 'utf8')).toBe('jpeg');
    expect(entries()).toEqual(['a.jpg']);
  });
});

describe('processAlive', () => {
  it('tells a live process from one that has ended', () => {
    expect(processAlive(process.pid)).toBe(true);
    const ended = spawnSync(process.execPath, ['-e', '']);
    expect(ended.pid).toBeGreaterThan(0);
    expect(processAlive(ended.pid!)).toBe(false);
  });
});
