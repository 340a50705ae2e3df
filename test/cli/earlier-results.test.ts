/**
 * Photos pfc already corrected, met again as inputs through the built `pfc`:
 * the output folder of an earlier run given as the folder to correct (or a
 * copy of it), results copied back among the photos or over their originals,
 * a folder corrected in place mirrored elsewhere, and a suffix
 * run's results under another suffix or duplicated beside them. Each is left as is, named with the
 * original it was made from, and never sent (the emulator's upload count);
 * other photos beside them are corrected as usual.
 */
import { cpSync, copyFileSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulator, filesBelow, jsonLines, photosWithTrip, runPfc, SAMPLES, snapshot as snapshotOf, summaryOf } from './helpers';

const PHOTO_A = join(SAMPLES, 'objects/coffee.jpg');
const PHOTO_B = join(SAMPLES, 'outdoors/rocket.jpg');
const SLOW = 120_000;

let emu: Awaited<ReturnType<typeof emulator>>;
beforeAll(async () => {
  emu = await emulator();
});
afterAll(() => emu.close());


async function pfc(args: string[], cwd: string) {
  const run = await runPfc(['correct', ...args, ...emu.webArgs, '--json'], { cwd });
  const lines = jsonLines(run.stdout);
  // Inputs relative to `cwd`; files run several at once, so their lines come in the order they finish.
  const failed = lines
    .filter((l) => l.type === 'failed')
    .map((l) => ({ input: relative(cwd, String(l.input)), errorName: String(l.errorName), error: String(l.error) }))
    .sort((x, y) => x.input.localeCompare(y.input));
  return { ...run, lines, failed, summary: summaryOf(run.stdout) };
}

describe('pfc correct leaves photos it already corrected as they are', () => {
  it('the output folder of an earlier run, given as input, is not corrected again; a photo the user added there is', { timeout: SLOW }, async () => {
    const dir = photosWithTrip();
    expect((await pfc(['photos'], dir)).code).toBe(0);
    const results = [readFileSync(join(dir, 'photos/corrected/a.jpg')), readFileSync(join(dir, 'photos/corrected/trip/b.jpg'))];
    copyFileSync(PHOTO_A, join(dir, 'photos/corrected/new.jpg'));
    const tickets0 = emu.tickets();

    const again = await pfc(['photos/corrected', '--out', 'twice'], dir);
    expect(again.code, again.stdout + again.stderr).toBe(1);
    expect(again.summary).toMatchObject({ corrected: 1, failed: 2, refused: 2 });
    expect(again.failed.map((l) => [l.input, l.errorName])).toEqual([
      [join('photos/corrected/a.jpg'), 'AlreadyCorrectedError'],
      [join('photos/corrected/trip/b.jpg'), 'AlreadyCorrectedError'],
    ]);
    expect(again.failed[0]?.error).toContain(`is already corrected: it is pfc's result for ${join(dir, 'photos/a.jpg')}, written by an earlier run`);
    // Only the photo the user put there was sent and written.
    expect(emu.tickets() - tickets0).toBe(1);
    expect(filesBelow(join(dir, 'twice')).filter((f) => !f.startsWith('.pfc'))).toEqual(['new.jpg']);
    expect([readFileSync(join(dir, 'photos/corrected/a.jpg')), readFileSync(join(dir, 'photos/corrected/trip/b.jpg'))]).toEqual(results);

    // A subfolder of it, given alone, is known the same way.
    const sub = await pfc(['photos/corrected/trip', '--out', 'twice-trip'], dir);
    expect(sub.failed.map((l) => l.errorName)).toEqual(['AlreadyCorrectedError']);
  });

  it('a copy of the output folder (new times) is known by its bytes; a result the user edited since is a new photo', { timeout: SLOW }, async () => {
    const dir = photosWithTrip();
    expect((await pfc(['photos'], dir)).code).toBe(0);
    cpSync(join(dir, 'photos/corrected'), join(dir, 'copied'), { recursive: true, preserveTimestamps: false });
    // Edited in an image editor: other bytes, the same size.
    const edited = readFileSync(join(dir, 'copied/trip/b.jpg'));
    edited[edited.length - 3] = edited[edited.length - 3]! ^ 0xff;
    writeFileSync(join(dir, 'copied/trip/b.jpg'), edited);
    const tickets0 = emu.tickets();

    const again = await pfc(['copied', '--out', 'twice'], dir);
    expect(again.failed.map((l) => [l.input, l.errorName])).toEqual([[join('copied/a.jpg'), 'AlreadyCorrectedError']]);
    // The copy's manifest names the input relative to the folder it was written in.
    expect(again.failed[0]?.error).toContain(`pfc's result for ../a.jpg (as ${join(dir, 'copied/.pfc-manifest.jsonl')} names it, from the folder it was written in; moved or copied since)`);
    expect(emu.tickets() - tickets0).toBe(1);
    expect(filesBelow(join(dir, 'twice')).filter((f) => !f.startsWith('.pfc'))).toEqual(['trip/b.jpg']);
  });

  it('a result renamed or copied inside the output folder is known by its bytes', { timeout: SLOW }, async () => {
    const dir = photosWithTrip();
    expect((await pfc(['photos'], dir)).code).toBe(0);
    renameSync(join(dir, 'photos/corrected/a.jpg'), join(dir, 'photos/corrected/holiday.jpg'));
    copyFileSync(join(dir, 'photos/corrected/trip/b.jpg'), join(dir, 'photos/corrected/best.jpg'));
    const tickets0 = emu.tickets();

    const again = await pfc(['photos/corrected', '--out', 'twice'], dir);
    expect(again.failed.map((l) => [l.input, l.errorName])).toEqual([
      [join('photos/corrected/best.jpg'), 'AlreadyCorrectedError'],
      [join('photos/corrected/holiday.jpg'), 'AlreadyCorrectedError'],
      [join('photos/corrected/trip/b.jpg'), 'AlreadyCorrectedError'],
    ]);
    expect(again.failed[1]?.error).toContain(`pfc's result for ${join(dir, 'photos/a.jpg')}`);
    expect(again.failed[1]?.error).toContain(`(${join(dir, 'photos/corrected/a.jpg')} renamed or copied)`);
    expect(emu.tickets() - tickets0).toBe(0);
  });

  it('results copied back among the photos, or over their originals, are not corrected again by the next run; a new photo is', { timeout: SLOW }, async () => {
    const dir = photosWithTrip();
    expect((await pfc(['photos'], dir)).code).toBe(0);
    const results = snapshotOf(join(dir, 'photos/corrected'));
    // The user keeps the corrected photos: one over its original, one beside it under a name of their own.
    copyFileSync(join(dir, 'photos/corrected/a.jpg'), join(dir, 'photos/a.jpg'));
    copyFileSync(join(dir, 'photos/corrected/trip/b.jpg'), join(dir, 'photos/trip/b-final.jpg'));
    copyFileSync(PHOTO_B, join(dir, 'photos/new.jpg'));
    const tickets0 = emu.tickets();

    const again = await pfc(['photos'], dir);
    expect(again.failed.map((l) => [l.input, l.errorName])).toEqual([
      [join('photos/a.jpg'), 'AlreadyCorrectedError'],
      [join('photos/trip/b-final.jpg'), 'AlreadyCorrectedError'],
    ]);
    expect(again.failed[0]?.error).toContain(`has the bytes of pfc's result for it, ${join(dir, 'photos/corrected/a.jpg')}`);
    expect(again.failed[0]?.error).toContain('pfc kept no copy of the original');
    expect(again.failed[1]?.error).toContain(`pfc's result for ${join(dir, 'photos/trip/b.jpg')}`);
    expect(again.summary).toMatchObject({ corrected: 1, failed: 2, refused: 2 });
    // Only the new photo was sent; the earlier results were not corrected over themselves.
    expect(emu.tickets() - tickets0).toBe(1);
    const now = snapshotOf(join(dir, 'photos/corrected'));
    expect([...now.keys()].filter((f) => !f.startsWith('.pfc'))).toEqual(['a.jpg', 'new.jpg', 'trip/b.jpg']);
    for (const [name, bytes] of results) if (!name.startsWith('.pfc')) expect(now.get(name)?.equals(bytes), name).toBe(true);
  });

  it('a folder corrected in place, mirrored elsewhere: its results are refused, naming where their originals are kept', { timeout: SLOW }, async () => {
    const dir = photosWithTrip();
    expect((await pfc(['photos', '--in-place'], dir)).code).toBe(0);
    const tickets0 = emu.tickets();

    const mirror = await pfc(['photos', '--out', 'copy'], dir);
    expect(mirror.code, mirror.stdout + mirror.stderr).toBe(1);
    expect(mirror.failed.map((l) => [l.input, l.errorName])).toEqual([
      [join('photos/a.jpg'), 'AlreadyCorrectedError'],
      [join('photos/trip/b.jpg'), 'AlreadyCorrectedError'],
    ]);
    expect(mirror.failed[0]?.error).toContain(`an earlier run corrected it in place, and its original is kept in ${join(dir, 'photos/.pfc-originals/a.jpg')}`);
    expect(emu.tickets() - tickets0).toBe(0);
    // Nothing was written: the run's empty output folder is gone.
    expect(existsSync(join(dir, 'copy'))).toBe(false);
    // The summary line says those failures are files left as is, not faults.
    const human = await runPfc(['correct', 'photos', '--out', 'copy', ...emu.webArgs], { cwd: dir });
    expect(human.stdout).toMatch(/Done in .*: 0 corrected, 0 up to date, 2 failed \(2 left as is\), 1 left out/);
  });

  it('a suffix run\'s results are not corrected again under another suffix; their originals are', { timeout: SLOW }, async () => {
    const dir = photosWithTrip();
    expect((await pfc(['photos', '--suffix', '_pfc'], dir)).code).toBe(0);
    const result = readFileSync(join(dir, 'photos/a_pfc.jpg'));

    const other = await pfc(['photos', '--suffix', '_v2'], dir);
    expect(other.failed.map((l) => [l.input, l.errorName])).toEqual([
      [join('photos/a_pfc.jpg'), 'AlreadyCorrectedError'],
      [join('photos/trip/b_pfc.jpg'), 'AlreadyCorrectedError'],
    ]);
    expect(other.summary.corrected).toBe(2);
    expect(filesBelow(join(dir, 'photos')).filter((f) => !f.startsWith('.pfc'))).toEqual(['a.jpg', 'a_pfc.jpg', 'a_v2.jpg', 'trip/b.jpg', 'trip/b_pfc.jpg', 'trip/b_v2.jpg']);
    expect(readFileSync(join(dir, 'photos/a_pfc.jpg')).equals(result)).toBe(true);
  });

  it('a suffix run\'s result duplicated beside it (Finder\'s "copy", Windows\' "- Copy") is known by its bytes on the next run', { timeout: SLOW }, async () => {
    const dir = photosWithTrip();
    expect((await pfc(['photos', '--suffix', '_pfc'], dir)).code).toBe(0);
    copyFileSync(join(dir, 'photos/a_pfc.jpg'), join(dir, 'photos/a_pfc copy.jpg'));
    copyFileSync(join(dir, 'photos/trip/b_pfc.jpg'), join(dir, 'photos/trip/b_pfc - Copy.jpg'));
    // A photo new to the folder is corrected as usual beside them.
    copyFileSync(PHOTO_A, join(dir, 'photos/trip/new.jpg'));
    const tickets0 = emu.tickets();

    const again = await pfc(['photos', '--suffix', '_pfc'], dir);
    expect(again.failed.map((l) => [l.input, l.errorName])).toEqual([
      [join('photos/a_pfc copy.jpg'), 'AlreadyCorrectedError'],
      [join('photos/trip/b_pfc - Copy.jpg'), 'AlreadyCorrectedError'],
    ]);
    expect(again.failed[0]?.error).toContain(`pfc's result for ${join(dir, 'photos/a.jpg')}`);
    expect(again.failed[0]?.error).toContain(`(${join(dir, 'photos/a_pfc.jpg')} renamed or copied)`);
    expect(again.summary.corrected).toBe(1);
    expect(emu.tickets() - tickets0).toBe(1);
    expect(filesBelow(join(dir, 'photos')).filter((f) => !f.startsWith('.pfc'))).toEqual(['a.jpg', 'a_pfc copy.jpg', 'a_pfc.jpg', 'trip/b.jpg', 'trip/b_pfc - Copy.jpg', 'trip/b_pfc.jpg', 'trip/new.jpg', 'trip/new_pfc.jpg']);
  });

  it('a result the service returned unchanged (a container without its licence) is not taken for its own original\'s copy', { timeout: SLOW }, async () => {
    const unlicensed = await emulator({ container: { licensed: false }, bgr: false });
    try {
      const dir = photosWithTrip();
      const run = (suffix: string) => runPfc(['correct', 'photos', '--suffix', suffix, '--backend', 'container', '--container-url', unlicensed.urls.container!, '--json'], { cwd: dir });
      expect((await run('_pfc')).code).toBe(0);
      expect(readFileSync(join(dir, 'photos/a_pfc.jpg')).equals(readFileSync(join(dir, 'photos/a.jpg')))).toBe(true);

      // The originals have the bytes of the results recorded beside them, and are still the originals.
      const other = await run('_v2');
      const failed = jsonLines(other.stdout).filter((l) => l.type === 'failed').map((l) => relative(dir, String(l.input))).sort();
      expect(failed).toEqual([join('photos/a_pfc.jpg'), join('photos/trip/b_pfc.jpg')]);
      expect(summaryOf(other.stdout)).toMatchObject({ corrected: 2 });
      expect(existsSync(join(dir, 'photos/a_v2.jpg')) && existsSync(join(dir, 'photos/trip/b_v2.jpg'))).toBe(true);
    } finally {
      await unlicensed.close();
    }
  });
});
