/**
 * The summary's "Left out" list on a photographer's real folder: camera raw files and photos in formats the
 * service does not take are named one by one, what to do with them said; sidecars and other files that are no
 * photo or video (XMP, AAE, Thumbs.db) are counted by kind in one line instead of burying them. Through the built
 * `pfc` on a real folder (the embedded emulator corrects the JPEGs). An iPhone export's Live Photos' clips are
 * counted likewise.
 */
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runPfc, SAMPLES } from '../../../test/cli/helpers';
import { LEFT_OUT_KEPT, LeftOutRecord, NOT_SUPPORTED, TALLY_KEYS, type Tally } from '@pfc/batch';
import { byKind } from '../src/render';

const made: string[] = [];
afterAll(() => made.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** A camera card's folder: two JPEGs with their raw files and sidecars, an iPhone's HEIC and edit, Windows' thumbnails. */
function cameraFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'pfc-left-out-'));
  made.push(dir);
  const heic = Buffer.concat([Buffer.from([0, 0, 0, 24]), Buffer.from('ftypheic', 'latin1'), Buffer.alloc(12)]);
  for (const n of [1, 2]) {
    copyFileSync(join(SAMPLES, 'portraits/astronaut.jpg'), join(dir, `DSC_000${n}.JPG`));
    writeFileSync(join(dir, `DSC_000${n}.NEF`), Buffer.from('MM\0*\0\0\0\x08 nikon raw', 'latin1'));
  }
  for (let n = 1; n <= 12; n++) writeFileSync(join(dir, `DSC_${String(n).padStart(4, '0')}.xmp`), '<x:xmpmeta xmlns:x="adobe:ns:meta/"/>');
  writeFileSync(join(dir, 'IMG_0100.HEIC'), heic);
  writeFileSync(join(dir, 'IMG_0100.AAE'), '<?xml version="1.0"?><plist/>');
  writeFileSync(join(dir, 'Thumbs.db'), 'thumbs');
  return dir;
}

describe('Left out, on a camera folder', () => {
  it('names the raw and HEIC photos, and counts the 14 sidecars and other files in one line', async () => {
    const dir = cameraFolder();
    const run = await runPfc(['correct', '.', '--out', 'out'], { cwd: dir });

    expect(run.code).toBe(0);
    const block = run.stdout.slice(run.stdout.indexOf('Left out'), run.stdout.indexOf('\n\n', run.stdout.indexOf('Left out')));
    expect(block.split('\n')).toEqual([
      'Left out (17):',
      '  DSC_0001.NEF: camera raw photo (NEF): the service corrects JPEG and PNG images only; export it as JPEG or PNG from your raw editor to correct it',
      '  DSC_0002.NEF: camera raw photo (NEF): the service corrects JPEG and PNG images only; export it as JPEG or PNG from your raw editor to correct it',
      '  IMG_0100.HEIC: HEIC/HEIF image: the service corrects JPEG and PNG images only; save it as JPEG or PNG to correct it',
      '  14 files (12 .xmp, 1 .AAE, 1 .db): not a JPEG, PNG, MP4 or MOV file (judged by content)',
    ]);
    expect(run.stdout).toMatch(/2 corrected, 0 up to date, 0 failed, 17 left out/);
  }, 60_000);

  it('a few such files are still listed one by one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pfc-left-out-'));
    made.push(dir);
    copyFileSync(join(SAMPLES, 'portraits/astronaut.jpg'), join(dir, 'a.jpg'));
    writeFileSync(join(dir, 'notes.txt'), 'notes');
    const run = await runPfc(['correct', '.', '--out', 'out'], { cwd: dir });
    expect(run.stdout).toContain('Left out (1):\n  notes.txt: not a JPEG, PNG, MP4 or MOV file (judged by content)\n');
  }, 60_000);
});

describe('Left out, more than the summary keeps', () => {
  it('lists 20 photos, counts every other one and the sidecars the summary no longer holds', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pfc-left-out-'));
    made.push(dir);
    const heic = Buffer.concat([Buffer.from([0, 0, 0, 24]), Buffer.from('ftypheic', 'latin1'), Buffer.alloc(12)]);
    const photos = LEFT_OUT_KEPT + 30;
    for (let n = 0; n < 5; n++) writeFileSync(join(dir, `A_${n}.xmp`), '<x:xmpmeta/>');
    for (let n = 0; n < photos; n++) writeFileSync(join(dir, `IMG_${String(n).padStart(5, '0')}.HEIC`), heic);
    copyFileSync(join(SAMPLES, 'objects/coffee.jpg'), join(dir, 'coffee.jpg'));
    const run = await runPfc(['correct', '.', '--out', 'out'], { cwd: dir });

    expect(run.code).toBe(0);
    const block = run.stdout.slice(run.stdout.indexOf('Left out'), run.stdout.indexOf('\n\n', run.stdout.indexOf('Left out'))).split('\n');
    expect(block[0]).toBe(`Left out (${photos + 5}):`);
    expect(block.slice(1, 21)).toEqual(Array.from({ length: 20 }, (_, n) => `  IMG_${String(n).padStart(5, '0')}.HEIC: HEIC/HEIF image: the service corrects JPEG and PNG images only; save it as JPEG or PNG to correct it`));
    expect(block.slice(21)).toEqual([`  … and ${photos - 20} more (see --json)`, '  5 files (5 .xmp): not a JPEG, PNG, MP4 or MOV file (judged by content)']);
    expect(run.stdout).toMatch(new RegExp(`1 corrected, 0 up to date, 0 failed, ${photos + 5} left out`));
  }, 60_000);
});

describe('Left out, on an iPhone export', () => {
  it('counts the Live Photos\' clips in one line; nothing is sent for them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pfc-left-out-'));
    made.push(dir);
    const movie = Buffer.concat([Buffer.from([0, 0, 0, 20]), Buffer.from('ftypqt  ', 'latin1'), Buffer.alloc(8)]);
    for (let n = 1; n <= 4; n++) {
      copyFileSync(join(SAMPLES, 'objects/coffee.jpg'), join(dir, `IMG_000${n}.JPG`));
      writeFileSync(join(dir, `IMG_000${n}.MOV`), movie);
    }
    const run = await runPfc(['correct', '.', '--out', 'out'], { cwd: dir });

    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Left out (4):\n  4 Live Photos' motion clips (beside their stills), left out: they would be corrected and billed as videos; give a clip itself as an input to correct it\n");
    expect(run.stdout).toMatch(/4 corrected, 0 up to date, 0 failed, 4 left out/);
  }, 60_000);
});

/** The kinds a plan counts of these files that are no photo or video. */
function kindsOf(paths: readonly string[]): Tally {
  const record = new LeftOutRecord();
  for (const path of paths) record.add(path, 'unsupported', NOT_SUPPORTED);
  return record.counts.notMediaKinds;
}

describe('byKind', () => {
  it('counts by extension, by name without one, most first, the rest as others', () => {
    expect(byKind(kindsOf(['a.xmp', 'b.xmp', 'c.AAE', 'Thumbs', 'd.ini', 'e.db', 'f.db', 'g.txt']))).toBe('2 .db, 2 .xmp, 1 .AAE, 1 .ini and 2 others');
    expect(byKind(kindsOf(['a.xmp']))).toBe('1 .xmp');
  });

  it('names the common kinds after a tree of unique names, counting those it no longer names among the others', () => {
    const unique = Array.from({ length: TALLY_KEYS + 50 }, (_, i) => `/in/file-${i}`);
    const line = byKind(kindsOf([...unique, '/in/a.xmp', '/in/b.xmp']));
    expect(line).toMatch(/^2 \.xmp, 1 file-\d+, 1 file-\d+, 1 file-\d+ and \d+ others$/);
    // Every file counted: the four named and the others.
    expect(line.endsWith(` and ${TALLY_KEYS + 52 - 5} others`)).toBe(true);
  });
});
