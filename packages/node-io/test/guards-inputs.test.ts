/**
 * Guards found by a mutation audit of node-io's input checks: every open of a
 * user's file, sync or not, refuses what is no regular file (a named pipe
 * would hang the run, a device may never end) with `NotRegularFileError`, and
 * keeps no descriptor of what it refused.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readlinkSync, readSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NotRegularFileError, openInput, openInputSync } from '../src/index';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'node-io-inputs-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Descriptors this process holds open on `paths`. */
function openOn(...paths: string[]): string[] {
  const out: string[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      if (paths.includes(target)) out.push(target);
    } catch {
      // closed meanwhile
    }
  }
  return out;
}

/** A named pipe, a folder and a character device (/dev/null), with the reason each is refused. */
function notRegular(): [string, string][] {
  const pipe = join(dir, 'pipe.jpg');
  execFileSync('mkfifo', [pipe]);
  const folder = join(dir, 'folder.jpg');
  mkdirSync(folder);
  return [
    [pipe, 'not a regular file (a named pipe)'],
    [folder, 'not a regular file (a folder)'],
    ['/dev/null', 'not a regular file (a character device)'],
  ];
}

async function listening(path: string): Promise<Server> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return server;
}

describe('openInput and openInputSync', () => {
  it('open a regular file for reading', async () => {
    const photo = join(dir, 'photo.jpg');
    writeFileSync(photo, 'jpeg');
    const fd = openInputSync(photo);
    const buf = Buffer.alloc(4);
    readSync(fd, buf);
    closeSync(fd);
    expect(buf.toString()).toBe('jpeg');
    const fh = await openInput(photo);
    expect((await fh.readFile()).toString()).toBe('jpeg');
    await fh.close();
  });

  it('refuse a named pipe, a folder and a device, naming what it is, and keep no descriptor of it', async () => {
    for (const [path, reason] of notRegular()) {
      // The test runner itself may hold /dev/null (its stdin): what counts is that none is added.
      const before = openOn(path);
      for (let i = 0; i < 3; i++) {
        expect(() => openInputSync(path)).toThrow(new NotRegularFileError(path, reason));
        await expect(openInput(path)).rejects.toMatchObject({ name: 'NotRegularFileError', path, message: reason });
      }
      expect(openOn(path)).toEqual(before);
    }
  });

  it('refuse a socket as what it is, not as an unreadable file (open(2) fails on it with ENXIO)', async () => {
    const socket = join(dir, 'photo.jpg');
    const server = await listening(socket);
    try {
      expect(existsSync(socket)).toBe(true);
      expect(() => openInputSync(socket)).toThrow(new NotRegularFileError(socket, 'not a regular file (a socket)'));
      await expect(openInput(socket)).rejects.toMatchObject({ name: 'NotRegularFileError', path: socket, message: 'not a regular file (a socket)' });
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it('a missing file is still the error it was (ENOENT), not a refusal', async () => {
    const gone = join(dir, 'gone.jpg');
    expect(() => openInputSync(gone)).toThrow(expect.objectContaining({ code: 'ENOENT' }));
    await expect(openInput(gone)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
