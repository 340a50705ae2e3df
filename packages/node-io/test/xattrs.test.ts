import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getAttribute, listAttributes, setAttribute } from '@napi-rs/xattr';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { copyExtendedAttributes, copyFileAtomic, extendedAttributesAvailable, isTempName, writeFileAtomic } from '../src/index';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'node-io-xattr-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** What a KDE or macOS user's photo carries: tags, a rating, a comment, a binary plist. */
const USER_ATTRIBUTES: Record<string, Buffer> = {
  'user.xdg.tags': Buffer.from('holiday,print'),
  'user.baloo.rating': Buffer.from('8'),
  'user.xdg.comment': Buffer.from('Grandma\u2019s garden, 1987'),
  'user.binary': Buffer.from([0, 255, 0, 1, 2, 0]),
};

async function tagged(path: string, attributes: Record<string, Buffer> = USER_ATTRIBUTES): Promise<void> {
  for (const [name, value] of Object.entries(attributes)) await setAttribute(path, name, value);
}

async function attributesOf(path: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of (await listAttributes(path)).sort()) out[name] = (await getAttribute(path, name))!.toString('hex');
  return out;
}

const hex = (attributes: Record<string, Buffer>) => Object.fromEntries(Object.entries(attributes).map(([k, v]) => [k, v.toString('hex')]));

/** This test machine's temporary folder keeps user attributes (ext4, xfs, btrfs, tmpfs since Linux 6.6). */
async function fileSystemKeepsAttributes(): Promise<boolean> {
  const probe = join(dir, '.probe');
  writeFileSync(probe, '');
  try {
    await setAttribute(probe, 'user.probe', 'x');
    return true;
  } catch {
    return false;
  } finally {
    rmSync(probe);
  }
}

describe('extended attributes', () => {
  it('the module loads on this platform', async () => {
    expect(await extendedAttributesAvailable()).toBe(process.platform !== 'win32');
  });

  it("a copy keeps the source's extended attributes, byte for byte, with its mode", async (ctx) => {
    if (!(await fileSystemKeepsAttributes())) ctx.skip();
    const src = join(dir, 'photo.jpg');
    writeFileSync(src, 'jpeg bytes');
    await tagged(src);
    chmodSync(src, 0o444);
    const dest = join(dir, '.pfc-originals', 'photo.jpg');
    await copyFileAtomic(src, dest);
    expect(await attributesOf(dest)).toEqual(hex(USER_ATTRIBUTES));
    expect(statSync(dest).mode & 0o777).toBe(0o444);
  });

  it('a write in place of a file gives the new bytes the old file\u2019s attributes', async (ctx) => {
    if (!(await fileSystemKeepsAttributes())) ctx.skip();
    const photo = join(dir, 'photo.jpg');
    writeFileSync(photo, 'original');
    await tagged(photo);
    await writeFileAtomic(photo, 'corrected', { extendedAttributesFrom: photo });
    expect(readFileSync(photo, 'utf8')).toBe('corrected');
    expect(await attributesOf(photo)).toEqual(hex(USER_ATTRIBUTES));
  });

  it('without the option a replacement carries nothing over (what a plain rename does)', async (ctx) => {
    if (!(await fileSystemKeepsAttributes())) ctx.skip();
    const photo = join(dir, 'photo.jpg');
    writeFileSync(photo, 'original');
    await tagged(photo);
    await writeFileAtomic(photo, 'report');
    expect(await attributesOf(photo)).toEqual({});
  });

  it("never copies the system's own attributes (security.*: SELinux labels, capabilities)", async (ctx) => {
    if (!(await fileSystemKeepsAttributes())) ctx.skip();
    const src = join(dir, 'a');
    writeFileSync(src, 'x');
    await tagged(src, { 'user.keep': Buffer.from('1') });
    const canSetSecurity = await setAttribute(src, 'security.pfc-test', 'label').then(() => true, () => false);
    if (!canSetSecurity) ctx.skip();
    const dest = join(dir, 'b');
    writeFileSync(dest, 'y');
    expect(await copyExtendedAttributes(src, dest)).toBe(1);
    expect(Object.keys(await attributesOf(dest))).toEqual(['user.keep']);
  });

  it('an attribute the destination cannot take fails the write, names it, and leaves the old file as it was', async (ctx) => {
    // A 10 KB value: tmpfs keeps it, ext4's one-block limit (4 KiB without ea_inode) does not.
    const shm = '/dev/shm';
    if (!existsSync(shm) || !(await fileSystemKeepsAttributes())) ctx.skip();
    const srcDir = mkdtempSync(join(shm, 'node-io-xattr-'));
    try {
      const src = join(srcDir, 'photo.jpg');
      writeFileSync(src, 'original');
      const big = Buffer.alloc(10_000, 7);
      if (!(await setAttribute(src, 'user.big', big).then(() => true, () => false))) ctx.skip();
      const probe = join(dir, 'probe');
      writeFileSync(probe, '');
      if (await setAttribute(probe, 'user.big', big).then(() => true, () => false)) ctx.skip();
      rmSync(probe);
      const dest = join(dir, 'photo.jpg');
      writeFileSync(dest, 'kept');
      await expect(copyFileAtomic(src, dest)).rejects.toMatchObject({ name: 'ExtendedAttributeError', attribute: 'user.big', message: expect.stringContaining('user.big') });
      expect(readFileSync(dest, 'utf8')).toBe('kept');
      expect(readdirSync(dir).filter(isTempName)).toEqual([]);
    } finally {
      rmSync(srcDir, { recursive: true, force: true });
    }
  });

  it('a source deleted meanwhile has nothing to carry; an unreadable one is an error naming it', async () => {
    const dest = join(dir, 'b');
    writeFileSync(dest, 'y');
    expect(await copyExtendedAttributes(join(dir, 'gone'), dest)).toBe(0);
    await expect(copyExtendedAttributes(join(dest, 'not-a-folder'), dest)).rejects.toMatchObject({ code: 'ENOTDIR', path: join(dest, 'not-a-folder') });
  });
});
