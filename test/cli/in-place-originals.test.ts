/**
 * Messy folders met after an in-place run, through the built `pfc`: a
 * corrected photo renamed or copied by the user, an original with its own
 * times, mode, owner and extended attributes (tags, ratings), and a tree deeper than the longest path the file
 * system takes. Each checks the bytes and metadata on disk, the messages and
 * the exit code, and what `pfc restore` gives back.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, renameSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getAttribute, listAttributes, removeAttribute, setAttribute } from '@napi-rs/xattr';
import { describe, expect, it } from 'vitest';
import { filesBelow, jsonLines, runPfc, SAMPLES, summaryOf } from './helpers';

const PHOTO_A = join(SAMPLES, 'objects/coffee.jpg');
const PHOTO_B = join(SAMPLES, 'outdoors/rocket.jpg');
const SLOW = 120_000;

function photosFolder(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'pfc-originals-'));
  for (const [rel, from] of Object.entries(files)) {
    mkdirSync(join(dir, rel, '..'), { recursive: true });
    copyFileSync(from, join(dir, rel));
  }
  return dir;
}

describe('pfc correct --in-place and pfc restore on messy folders', () => {
  it('a corrected photo renamed or copied by the user is left as is (not corrected twice, not kept as an original); restore brings the original back', { timeout: SLOW }, async () => {
    const dir = photosFolder({ 'photos/IMG_1.JPG': PHOTO_A, 'photos/b.jpg': PHOTO_B });
    const original = readFileSync(join(dir, 'photos/IMG_1.JPG'));
    expect((await runPfc(['correct', 'photos', '--in-place'], { cwd: dir })).code).toBe(0);
    const result = readFileSync(join(dir, 'photos/IMG_1.JPG'));
    // A photo manager renames it (on macOS a change of case alone does the same); the user also keeps a copy.
    renameSync(join(dir, 'photos/IMG_1.JPG'), join(dir, 'photos/img_1.jpg'));
    copyFileSync(join(dir, 'photos/img_1.jpg'), join(dir, 'photos/copy.jpg'));
    const again = await runPfc(['correct', 'photos', '--in-place', '--json'], { cwd: dir });
    expect(again.code, again.stdout + again.stderr).toBe(1);
    // Files run several at once, so their lines come in the order they finish.
    const failed = jsonLines(again.stdout).filter((l) => l.type === 'failed').sort((a, b) => String(a.rel).localeCompare(String(b.rel)));
    expect(failed.map((l) => [l.rel, l.errorName])).toEqual([['copy.jpg', 'AlreadyCorrectedError'], ['img_1.jpg', 'AlreadyCorrectedError']]);
    for (const l of failed) expect(l.error).toContain(`pfc's result for ${join(dir, 'photos/IMG_1.JPG')}`);
    expect(jsonLines(again.stdout).filter((l) => l.type === 'start')).toEqual([]);
    for (const name of ['img_1.jpg', 'copy.jpg']) expect(readFileSync(join(dir, 'photos', name)).equals(result), name).toBe(true);
    expect(filesBelow(join(dir, 'photos/.pfc-originals'))).toEqual(['IMG_1.JPG', 'b.jpg']);

    const restore = await runPfc(['restore', 'photos'], { cwd: dir });
    expect(restore.code, restore.stdout + restore.stderr).toBe(0);
    expect(readFileSync(join(dir, 'photos/IMG_1.JPG')).equals(original)).toBe(true);
  });

  it('restore gives the original back with its modification time, mode and (run as root) owner, not only its bytes', { timeout: SLOW }, async () => {
    const dir = photosFolder({ 'photos/a.jpg': PHOTO_A });
    const photo = join(dir, 'photos/a.jpg');
    const taken = new Date('2019-05-05T10:00:00Z');
    chmodSync(photo, 0o440);
    utimesSync(photo, taken, taken);
    const root = process.getuid?.() === 0;
    if (root) chownSync(photo, 1234, 2345);
    const before = statSync(photo);
    expect((await runPfc(['correct', 'photos', '--in-place'], { cwd: dir })).code).toBe(0);
    const corrected = statSync(photo);
    expect(corrected.mode & 0o7777).toBe(0o440);
    expect([corrected.uid, corrected.gid]).toEqual([before.uid, before.gid]);

    const restore = await runPfc(['restore', 'photos'], { cwd: dir });
    expect(restore.code, restore.stdout + restore.stderr).toBe(0);
    const after = statSync(photo);
    expect(readFileSync(photo).equals(readFileSync(PHOTO_A))).toBe(true);
    expect(after.mtime.getTime()).toBe(taken.getTime());
    expect(after.mode & 0o7777).toBe(0o440);
    expect([after.uid, after.gid]).toEqual([before.uid, before.gid]);
  });

  it("a photo's tags, rating and comment (extended attributes) stay with it corrected, in its kept original and after restore", { timeout: SLOW }, async (ctx) => {
    const dir = photosFolder({ 'photos/a.jpg': PHOTO_A, 'photos/b.jpg': PHOTO_B });
    const photo = join(dir, 'photos/a.jpg');
    // As KDE's Dolphin writes them (macOS Finder's are com.apple.metadata:* on APFS, the same mechanism).
    const tags = { 'user.baloo.rating': '8', 'user.xdg.comment': 'Our first coffee in Porto', 'user.xdg.tags': 'porto,to-print' };
    if (!(await setAttribute(photo, 'user.probe', '1').then(() => true, () => false))) ctx.skip();
    await removeAttribute(photo, 'user.probe');
    for (const [name, value] of Object.entries(tags)) await setAttribute(photo, name, value);
    // Read-only to its owner, as a photo library may keep it: the attributes must still be given.
    chmodSync(photo, 0o440);
    const attributesOf = async (path: string) =>
      Object.fromEntries(await Promise.all((await listAttributes(path)).sort().map(async (n) => [n, String(await getAttribute(path, n))])));

    const run = await runPfc(['correct', 'photos', '--in-place'], { cwd: dir });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(readFileSync(photo).equals(readFileSync(PHOTO_A))).toBe(false);
    expect(await attributesOf(photo)).toEqual(tags);
    expect(await attributesOf(join(dir, 'photos/.pfc-originals/a.jpg'))).toEqual(tags);
    expect(await attributesOf(join(dir, 'photos/b.jpg'))).toEqual({});

    const restore = await runPfc(['restore', 'photos'], { cwd: dir });
    expect(restore.code, restore.stdout + restore.stderr).toBe(0);
    expect(readFileSync(photo).equals(readFileSync(PHOTO_A))).toBe(true);
    expect(await attributesOf(photo)).toEqual(tags);
  });

  it.runIf(process.platform === 'linux')('a tree deeper than the longest path (4,096 bytes): what fits is corrected, the rest refused or left out with the reason, no crash', { timeout: SLOW }, async () => {
    const dir = photosFolder({ 'photos/top.jpg': PHOTO_B });
    const photos = join(dir, 'photos');
    // deep.jpg's own path is 4,080 bytes (readable), so the paths pfc would write for it (its result under
    // corrected/, its kept original under .pfc-originals/, their temporary files) are over 4,095; the folder below
    // it is over the limit itself and cannot be listed. mid.jpg's path is 4,056 bytes: its result and the result's
    // temporary file fit, in place and under out/, but in place its kept original's temporary file and place in the
    // history do not (they are checked before the upload too).
    const levels: string[] = [];
    let length = Buffer.byteLength(photos);
    while (4080 - length - '/deep.jpg'.length > 200) {
      levels.push('d'.repeat(99));
      length += 100;
    }
    const mid = 'm'.repeat(4056 - length - '/mid.jpg'.length - 1);
    levels.push('e'.repeat(4080 - length - '/deep.jpg'.length - 1));
    // Made one level at a time from inside (relative names): no call may name a path that long.
    const script = `const fs = require('node:fs'); const photo = fs.readFileSync(process.argv[1]); const mid = process.argv[2];
      for (const d of process.argv.slice(3)) {
        if (d.startsWith('e')) { fs.mkdirSync(mid); fs.writeFileSync(mid + '/mid.jpg', photo); }
        fs.mkdirSync(d); process.chdir(d); if (d.startsWith('e')) fs.writeFileSync('deep.jpg', photo);
      }
      fs.writeFileSync('deeper.jpg', photo);`;
    const made = spawnSync(process.execPath, ['-e', script, PHOTO_A, mid, ...levels, 'f'.repeat(99)], { cwd: photos });
    expect(made.status, made.stderr.toString()).toBe(0);

    const short = (rel: unknown): string => String(rel).replace(/^.*\//, '');
    const modes = [{ mode: ['--out', 'out'], corrected: ['mid.jpg', 'top.jpg'], refused: ['deep.jpg'] }, { mode: ['--in-place'], corrected: ['top.jpg'], refused: ['deep.jpg', 'mid.jpg'] }];
    for (const { mode, corrected, refused } of modes) {
      const r = await runPfc(['correct', 'photos', ...mode, '--json'], { cwd: dir });
      expect(r.code, `${mode}: ${r.stderr}`).toBe(1);
      expect(r.stderr).not.toMatch(/ENAMETOOLONG|\n\s+at /);
      const lines = jsonLines(r.stdout);
      expect(lines.filter((l) => l.type === 'corrected').map((l) => short(l.rel)).sort(), `${mode}`).toEqual(corrected);
      const failed = lines.filter((l) => l.type === 'failed');
      expect(failed.map((l) => [short(l.rel), l.errorName]).sort(), `${mode}`).toEqual(refused.map((name) => [name, 'OutputPathTooLongError']));
      for (const l of failed) expect(l.error).toMatch(/is \d{4} bytes, over the 4095 a path may have here/);
      // Refused before they were sent: no job started for them.
      expect(lines.filter((l) => l.type === 'start').map((l) => short(l.rel)).sort(), `${mode}`).toEqual(corrected);
      const summary = summaryOf(r.stdout);
      expect(summary).toMatchObject({ corrected: corrected.length, failed: refused.length + 1 });
      expect((summary.failures as Array<{ error: string }>).map((f) => f.error)).toEqual(expect.arrayContaining([expect.stringMatching(/^folder cannot be read: its path is \d{4} bytes, too long for the file system/)]));
    }
    // Nothing was kept for the refused files: .pfc-originals holds top.jpg's original alone.
    expect(filesBelow(join(photos, '.pfc-originals'))).toEqual(['top.jpg']);
  });
});
