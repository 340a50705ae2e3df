/**
 * `pfc correct ~/Pictures` on a Mac, or a whole camera card or backup drive
 * from Windows, meets folders that are other applications' — a Photos
 * library, an app bundle, the drive's recycle bin. Through the built `pfc`
 * against the emulator: the user's own photos are corrected; those folders
 * are left out, named with what they are, nothing of them is sent or written,
 * and in place none of their files is replaced.
 */
import { copyFileSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulator, filesBelow, jsonLines, runPfc, SAMPLES, snapshot, summaryOf } from './helpers';

const PHOTO = join(SAMPLES, 'objects/coffee.jpg');

let emu: Awaited<ReturnType<typeof emulator>>;
beforeAll(async () => {
  emu = await emulator();
});
afterAll(() => emu.close());

/** A Pictures folder: two photos of the user's, and a Photos library, an app and a recycle bin holding JPEGs. */
function pictures(): string {
  const dir = mkdtempSync(join(tmpdir(), 'pfc-apps-'));
  for (const rel of [
    'Pictures/beach.jpg',
    'Pictures/2024/party.jpg',
    'Pictures/Photos Library.photoslibrary/originals/A/IMG_0001.jpeg',
    'Pictures/Photos Library.photoslibrary/resources/derivatives/A/IMG_0001_1_105_c.jpeg',
    'Pictures/Viewer.app/Contents/Resources/splash.jpg',
    'Pictures/$RECYCLE.BIN/S-1-5-21-1/$R0ABC12.jpg',
  ]) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    copyFileSync(PHOTO, join(dir, rel));
  }
  return dir;
}

const uploads = () => emu.stats().requests.upload ?? 0;

describe('pfc correct leaves other applications\' folders out', () => {
  it('mirrored: only the user\'s photos are sent and written; each such folder is named in "Left out" with what it is', { timeout: 120_000 }, async () => {
    const dir = pictures();
    const before = uploads();

    const run = await runPfc(['correct', 'Pictures', ...emu.webArgs], { cwd: dir });

    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Photos Library\.photoslibrary: an Apple Photos library: another application's files, not corrected/);
    expect(run.stdout).toMatch(/Viewer\.app: an application bundle/);
    expect(run.stdout).toMatch(/\$RECYCLE\.BIN: Windows' recycle bin/);
    expect(uploads() - before).toBe(2);
    expect(filesBelow(join(dir, 'Pictures/corrected')).filter((f) => !f.startsWith('.pfc'))).toEqual(['2024/party.jpg', 'beach.jpg']);
  });

  it('in place: no file inside them is replaced or backed up', { timeout: 120_000 }, async () => {
    const dir = pictures();
    const library = snapshot(join(dir, 'Pictures/Photos Library.photoslibrary'));

    const run = await runPfc(['correct', 'Pictures', '--in-place', ...emu.webArgs, '--json'], { cwd: dir });

    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(summaryOf(run.stdout)).toMatchObject({ corrected: 2, failed: 0 });
    const leftOut = jsonLines(run.stdout).filter((l) => l.type === 'skipped' && l.code === 'app-folder').map((l) => String(l.input).slice(dir.length + 1)).sort();
    expect(leftOut).toEqual(['Pictures/$RECYCLE.BIN', 'Pictures/Photos Library.photoslibrary', 'Pictures/Viewer.app']);
    expect(snapshot(join(dir, 'Pictures/Photos Library.photoslibrary'))).toEqual(library);
    expect(filesBelow(join(dir, 'Pictures/.pfc-originals'))).toEqual(['2024/party.jpg', 'beach.jpg']);
  });
});
