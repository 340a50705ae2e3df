/**
 * A photo's extended attributes (macOS Finder tags, KDE Dolphin's tags,
 * ratings and comments) are part of the user's file: in place, the corrected
 * file keeps them, the kept original keeps them, and a restore keeps the
 * file's tags as they are then (or gives the original's back to a deleted one).
 * Checked on disk with `@napi-rs/xattr` directly, on a real folder.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { getAttribute, listAttributes, setAttribute, setAttributeSync } from '@napi-rs/xattr';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { extendedAttributesAvailable } from '../src/files';
import { type BatchEvent, planBatch, restoreOriginals, runBatch } from '../src/index';
import { EXTENDED_ATTRIBUTES_NOT_KEPT } from '../src/runner';

// An installation without the native module (a VS Code .vsix alone): see the last test.
vi.mock('../src/files', async (importOriginal) => {
  const orig = await importOriginal<typeof import('../src/files')>();
  return { ...orig, extendedAttributesAvailable: vi.fn(orig.extendedAttributesAvailable) };
});
import { CORRECTED_MARK, FakeBackend, inPlace, jpegBytes, tempDir, writeTree } from './helpers';

const TAGS = { 'user.xdg.tags': 'family,print', 'user.baloo.rating': '10', 'user.xdg.comment': 'Lisbon, 2019' };

async function tag(path: string, attributes: Record<string, string> = TAGS): Promise<void> {
  for (const [name, value] of Object.entries(attributes)) await setAttribute(path, name, value);
}

async function attributesOf(path: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of (await listAttributes(path)).sort()) out[name] = String(await getAttribute(path, name));
  return out;
}

/** Whether the test folder's file system keeps user attributes (ext4, xfs, btrfs; tmpfs since Linux 6.6). */
async function keepsAttributes(root: string): Promise<boolean> {
  const probe = join(root, 'probe');
  writeFileSync(probe, '');
  return setAttribute(probe, 'user.probe', '1').then(() => true, () => false);
}

describe('extended attributes, in place', () => {
  it('the corrected file and its kept original keep the tags; a restore gives back the bytes and the tags', async (ctx) => {
    const root = tempDir();
    if (!(await keepsAttributes(root))) ctx.skip();
    const original = jpegBytes(120, 80);
    writeTree(root, { 'a.jpg': original, 'b.jpg': jpegBytes(100, 100) });
    await tag(join(root, 'a.jpg'));

    const summary = await inPlace(root, new FakeBackend());
    expect(summary.corrected).toBe(2);
    const photo = join(root, 'a.jpg');
    expect(readFileSync(photo)).toEqual(Buffer.concat([original, CORRECTED_MARK]));
    expect(await attributesOf(photo)).toEqual(TAGS);
    expect(await attributesOf(join(root, '.pfc-originals/a.jpg'))).toEqual(TAGS);
    // A file without attributes gains none.
    expect(await attributesOf(join(root, 'b.jpg'))).toEqual({});

    // Retagged after the correction: the restore puts back the original's bytes and keeps the tags as they are now.
    await setAttribute(photo, 'user.xdg.tags', 'family,print,best');
    const { restored } = await restoreOriginals({ folder: root });
    expect(restored.map((r) => r.path).sort()).toEqual([photo, join(root, 'b.jpg')]);
    expect(readFileSync(photo)).toEqual(original);
    expect(await attributesOf(photo)).toEqual({ ...TAGS, 'user.xdg.tags': 'family,print,best' });
  });

  it('a corrected file deleted since: the restore gives it back with the tags its original was kept with', async (ctx) => {
    const root = tempDir();
    if (!(await keepsAttributes(root))) ctx.skip();
    writeTree(root, { 'a.jpg': jpegBytes(120, 80) });
    await tag(join(root, 'a.jpg'));
    expect((await inPlace(root, new FakeBackend())).corrected).toBe(1);
    rmSync(join(root, 'a.jpg'));
    expect((await restoreOriginals({ folder: root })).restored).toHaveLength(1);
    expect(await attributesOf(join(root, 'a.jpg'))).toEqual(TAGS);
  });

  it('a copy into another folder is a new file: it carries no attributes (as an export)', async (ctx) => {
    const root = tempDir();
    if (!(await keepsAttributes(root))) ctx.skip();
    writeTree(root, { 'in/a.jpg': jpegBytes(120, 80) });
    await tag(join(root, 'in/a.jpg'));
    const plan = await planBatch({ inputs: [join(root, 'in')], output: { kind: 'mirror', dir: join(root, 'out') } });
    expect((await runBatch(plan, { backend: new FakeBackend(), retryDelayMs: 1 })).corrected).toBe(1);
    expect(await attributesOf(join(root, 'out/a.jpg'))).toEqual({});
    expect(await attributesOf(join(root, 'in/a.jpg'))).toEqual(TAGS);
  });

  it('a file retagged while it is corrected is left as it is, tags and bytes (the next run corrects it)', async (ctx) => {
    const root = tempDir();
    if (!(await keepsAttributes(root))) ctx.skip();
    const original = jpegBytes(120, 80);
    writeTree(root, { 'a.jpg': original });
    const photo = join(root, 'a.jpg');
    const backend = new FakeBackend({ onCall: () => setAttributeSync(photo, 'user.xdg.tags', 'tagged meanwhile') });
    const summary = await inPlace(root, backend);
    expect(summary.results[0]).toMatchObject({ status: 'failed', errorName: 'ChangedWhileCorrectingError' });
    expect(readFileSync(photo)).toEqual(original);
    expect(await attributesOf(photo)).toEqual({ 'user.xdg.tags': 'tagged meanwhile' });
  });
});

describe('an installation that cannot read extended attributes', () => {
  it('says so before an in-place run replaces anything, and not before a run into another folder', async () => {
    const root = tempDir();
    writeTree(root, { 'in/a.jpg': jpegBytes(120, 80) });
    const module = vi.mocked(extendedAttributesAvailable);
    const loads = module.getMockImplementation()!;
    module.mockResolvedValue(false);
    onTestFinished(() => void module.mockImplementation(loads));
    const noticesOf = async (output: Parameters<typeof planBatch>[0]['output']): Promise<string[]> => {
      const events: BatchEvent[] = [];
      const plan = await planBatch({ inputs: [join(root, 'in')], output });
      await runBatch(plan, { backend: new FakeBackend(), retryDelayMs: 1, onEvent: (e) => events.push(e) });
      const firstStart = events.findIndex((e) => e.type === 'start');
      return events.slice(0, firstStart).flatMap((e) => (e.type === 'notice' ? [e.message] : []));
    };
    expect(await noticesOf({ kind: 'mirror', dir: join(root, 'out') })).toEqual([]);
    expect(await noticesOf({ kind: 'in-place' })).toEqual([EXTENDED_ATTRIBUTES_NOT_KEPT]);
  });
});

describe('in place, an edit that keeps size, modification time and inode', () => {
  it('is noticed by its change time: the edited file is left as it is', async () => {
    const root = tempDir();
    const original = jpegBytes(120, 80, { filler: 'before the edit, 26 bytes.' });
    const edited = jpegBytes(120, 80, { filler: 'after an edit, 26 bytes...' });
    expect(edited.length).toBe(original.length);
    writeTree(root, { 'a.jpg': original });
    const photo = join(root, 'a.jpg');
    // exiftool -P and `touch -r` rewrite a file in place and put its modification time back.
    const backend = new FakeBackend({
      onCall: () => {
        const times = join(root, 'times-of-a');
        writeFileSync(times, '');
        execFileSync('touch', ['-r', photo, times]);
        writeFileSync(photo, edited);
        execFileSync('touch', ['-r', times, photo]);
      },
    });
    const before = statSync(photo, { bigint: true });
    const summary = await inPlace(root, backend);
    const after = statSync(photo, { bigint: true });
    // The edit this test stands for: every field the check compared before is as it was.
    expect([after.size, after.mtimeNs, after.ino]).toEqual([before.size, before.mtimeNs, before.ino]);
    expect(summary.results[0]).toMatchObject({ status: 'failed', errorName: 'ChangedWhileCorrectingError' });
    expect(readFileSync(photo)).toEqual(edited);
    expect(readFileSync(join(root, '.pfc-originals/a.jpg'))).toEqual(original);
  });
});
