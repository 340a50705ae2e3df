/**
 * A folder corrected on its own, then with the folder it is in (and the other way round), through the built
 * `pfc`. With a suffix, the results beside the photos are pfc's whichever run wrote them: the later run finds
 * them up to date (nothing sent, not rewritten) or redoes them when their photo changed, and refuses only a
 * file pfc did not write. In folder (mirror) mode the subfolder's own output folder is an earlier run's, left
 * out of the parent's inputs and left as it is.
 */
import { copyFileSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulator, filesBelow, jsonLines, photosWithTrip, runPfc, SAMPLES, snapshot, summaryOf } from './helpers';

const PHOTO_A = join(SAMPLES, 'objects/coffee.jpg');
const PHOTO_B = join(SAMPLES, 'outdoors/rocket.jpg');
const PHOTO_C = join(SAMPLES, 'portraits/astronaut.jpg');
const SLOW = 120_000;

let emu: Awaited<ReturnType<typeof emulator>>;
beforeAll(async () => {
  emu = await emulator();
});
afterAll(() => emu.close());

/** photos/a.jpg, photos/trip/b.jpg and photos/trip/c.jpg. */
function photosFolder(): string {
  const dir = photosWithTrip();
  copyFileSync(PHOTO_C, join(dir, 'photos/trip/c.jpg'));
  return dir;
}

async function pfc(args: string[], cwd: string) {
  const run = await runPfc(['correct', ...args, ...emu.webArgs], { cwd });
  return { ...run, all: run.stdout + run.stderr };
}

/** A `--json` run: its summary and its failures (inputs relative to `cwd`). */
async function pfcJson(args: string[], cwd: string) {
  const run = await pfc([...args, '--json'], cwd);
  const failed = jsonLines(run.stdout).filter((l) => l.type === 'failed').map((l) => ({ input: relative(cwd, String(l.input)), error: String(l.error) }));
  return { ...run, summary: summaryOf(run.stdout), failed };
}

/** A file's bytes and modification time: "not rewritten" means both are as they were. */
function asOnDisk(path: string): { bytes: Buffer; mtimeMs: number } {
  return { bytes: readFileSync(path), mtimeMs: statSync(path).mtimeMs };
}

describe('a subfolder corrected on its own and with its parent folder', () => {
  it('--suffix, subfolder first: the parent run finds its results pfc\'s, up to date or redone, and still refuses a file of the user\'s', { timeout: SLOW }, async () => {
    const dir = photosFolder();
    const trip = join(dir, 'photos/trip');
    const first = await pfc(['photos/trip', '--suffix', '_pfc'], dir);
    expect(first.code, first.all).toBe(0);
    const b = asOnDisk(join(trip, 'b_pfc.jpg'));

    // The photo c changed since; a new photo d has the user's own file at its result's name.
    copyFileSync(PHOTO_A, join(trip, 'c.jpg'));
    copyFileSync(PHOTO_B, join(trip, 'd.jpg'));
    writeFileSync(join(trip, 'd_pfc.jpg'), 'my own file');
    const uploads0 = emu.tickets();

    const parent = await pfcJson(['photos', '--suffix', '_pfc'], dir);
    expect(parent.code, parent.all).toBe(1);
    expect(parent.summary).toMatchObject({ corrected: 2, upToDate: 1, failed: 1 });
    expect(parent.failed).toEqual([{ input: join('photos/trip/d.jpg'), error: `would overwrite a file pfc did not write: ${join(trip, 'd_pfc.jpg')}; use --overwrite to replace it` }]);
    // a and the changed c were sent; b's result was not, nor rewritten.
    expect(emu.tickets() - uploads0).toBe(2);
    expect(asOnDisk(join(trip, 'b_pfc.jpg'))).toEqual(b);
    expect(readFileSync(join(trip, 'd_pfc.jpg'), 'utf8')).toBe('my own file');
    expect(existsSync(join(dir, 'photos/a_pfc.jpg'))).toBe(true);

    // Again, unchanged: all of pfc's results up to date, in the words people read; the user's file still refused.
    const files = snapshot(join(dir, 'photos'));
    const uploads1 = emu.tickets();
    const again = await pfc(['photos', '--suffix', '_pfc'], dir);
    expect(again.code, again.all).toBe(1);
    expect(again.stdout).toMatch(/: 0 corrected, 3 up to date, 1 failed \(1 left as is\), 1 left out · 0 B in, 0 B out$/m);
    expect(again.stdout).not.toMatch(/trip\/(b|c)_pfc\.jpg|(b|c)\.jpg: would overwrite/);
    // Named from the folder asked about, as every other file of the run is (not from the subfolder's own records).
    expect(again.stdout).toMatch(/^ {2}trip\/d\.jpg: would overwrite a file pfc did not write: /m);
    expect(emu.tickets()).toBe(uploads1);
    expect(snapshot(join(dir, 'photos'))).toEqual(files);
  });

  it('--suffix, parent first: the subfolder\'s run finds the parent\'s results up to date and keeps one record of them', { timeout: SLOW }, async () => {
    const dir = photosFolder();
    const first = await pfc(['photos', '--suffix', '_pfc'], dir);
    expect(first.code, first.all).toBe(0);
    const files = snapshot(join(dir, 'photos'));
    const uploads0 = emu.tickets();

    const sub = await pfc(['photos/trip', '--suffix', '_pfc'], dir);
    expect(sub.code, sub.all).toBe(0);
    expect(sub.stdout).toMatch(/: 0 corrected, 2 up to date, 0 failed, 0 left out · 0 B in, 0 B out$/m);
    expect(emu.tickets()).toBe(uploads0);
    // No second manifest in the subfolder: the parent's still records its results, for the runs to come.
    expect(snapshot(join(dir, 'photos'))).toEqual(files);

    // A changed photo of the subfolder is redone, and the parent's next run knows the new result.
    copyFileSync(PHOTO_A, join(dir, 'photos/trip/c.jpg'));
    const redo = await pfcJson(['photos/trip', '--suffix', '_pfc'], dir);
    expect(redo.code, redo.all).toBe(0);
    expect(redo.summary).toMatchObject({ corrected: 1, upToDate: 1, failed: 0 });
    // Named from the folder asked about, as in a run on a folder no run was asked about before.
    expect(jsonLines(redo.stdout).filter((l) => l.type === 'corrected').map((l) => l.rel)).toEqual(['c.jpg']);
    const parent = await pfcJson(['photos', '--suffix', '_pfc'], dir);
    expect(parent.code, parent.all).toBe(0);
    expect(parent.summary).toMatchObject({ corrected: 0, upToDate: 3, failed: 0 });
  });

  it('folder mode, subfolder first: its output folder is an earlier run\'s, left out of the parent\'s inputs and left as it is', { timeout: SLOW }, async () => {
    const dir = photosFolder();
    const first = await pfc(['photos/trip'], dir);
    expect(first.code, first.all).toBe(0);
    const earlier = snapshot(join(dir, 'photos/trip/corrected'));

    const parent = await pfc(['photos'], dir);
    expect(parent.code, parent.all).toBe(0);
    expect(parent.stdout).toMatch(/: 3 corrected, 0 up to date, 0 failed, 1 left out · /m);
    expect(parent.stdout).toMatch(/^ {2}photos\/trip\/corrected: output folder of an earlier run \(holds a manifest\)$/m);
    expect(snapshot(join(dir, 'photos/trip/corrected'))).toEqual(earlier);
    expect(filesBelow(join(dir, 'photos/corrected')).filter((f) => !f.startsWith('.pfc'))).toEqual(['a.jpg', join('trip/b.jpg'), join('trip/c.jpg')]);
  });
});
