/**
 * The container and background-removal servers, started without folders of
 * their own, keep the user's photos in a scratch folder: the same kind the
 * Web API emulator uses (owner marker, removed on close, by the exit hook, or
 * by the next start once its process is dead).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBgrServer } from '../src/bgr/server';
import { createContainerServer } from '../src/container/server';
import { OWNER_FILE, SCRATCH_PREFIX } from '../src/scratch';

let tmp: string;
let savedTmpdir: string | undefined;

beforeEach(() => {
  savedTmpdir = process.env.TMPDIR;
  tmp = mkdtempSync(join(tmpdir(), 'pfc-scratch-test-'));
  // os.tmpdir() reads TMPDIR on every call.
  process.env.TMPDIR = tmp;
});

afterEach(() => {
  if (savedTmpdir === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmpdir;
  rmSync(tmp, { recursive: true, force: true });
});

const scratch = (): string[] => readdirSync(tmp).filter((n) => n.startsWith(SCRATCH_PREFIX));

describe.each([
  ['colour-correction container', () => createContainerServer()],
  ['background-removal container', () => createBgrServer()],
])('the %s without folders of its own', (_name, start) => {
  it('works in a marked scratch folder that close() removes', async () => {
    const server = await start();
    try {
      const dirs = scratch();
      expect(dirs).toHaveLength(1);
      const owner = JSON.parse(readFileSync(join(tmp, dirs[0]!, OWNER_FILE), 'utf8')) as { pid: number };
      expect(owner.pid).toBe(process.pid);
    } finally {
      await server.close();
    }
    expect(scratch()).toEqual([]);
    expect(existsSync(tmp)).toBe(true);
  });
});
