/**
 * `pfc correct` when pfc's own file is where a folder is now needed (a photo
 * the user turned into a folder of the same name), when a folder is where a
 * result would go, and in place with a PNG named `.jpg` made JPEG: through the
 * built `pfc` on real folders (the embedded emulator does the work), checking
 * the exit code, what it says and the files on disk.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runPfc, SAMPLES } from '../../../test/cli/helpers';

const JPEG = join(SAMPLES, 'portraits/astronaut.jpg');
const PNG = join(SAMPLES, 'objects/chelsea.png');

const made: string[] = [];
afterAll(() => made.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function freshDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'pfc-in-the-way-'));
  made.push(dir);
  mkdirSync(join(dir, 't'));
  return dir;
}

/** Correct `t/a.jpg` with `mode`, then make `a.jpg` a folder holding `c.jpg`, with `new.jpg` beside it. */
async function photoTurnedFolder(dir: string, mode: string[]): Promise<void> {
  copyFileSync(JPEG, join(dir, 't/a.jpg'));
  const first = await runPfc(['correct', 't', ...mode], { cwd: dir });
  expect(first.code, first.stdout + first.stderr).toBe(0);
  renameSync(join(dir, 't/a.jpg'), join(dir, 'a-moved.jpg'));
  mkdirSync(join(dir, 't/a.jpg'));
  copyFileSync(JPEG, join(dir, 't/a.jpg/c.jpg'));
  copyFileSync(JPEG, join(dir, 't/new.jpg'));
}

describe('pfc correct with its own file where a folder is now needed', () => {
  it('in place: fails only the files below the kept original in the way, says what it is, corrects the rest (exit 1) and keeps it', async () => {
    const dir = freshDir();
    await photoTurnedFolder(dir, ['--in-place']);
    const kept = readFileSync(join(dir, 't/.pfc-originals/a.jpg'));
    const run = await runPfc(['correct', 't', '--in-place'], { cwd: dir });
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.stderr).not.toContain('cannot write results');
    expect(run.stdout).toMatch(/^✗ a\.jpg\/c\.jpg: its original cannot be kept: .*t\/\.pfc-originals\/a\.jpg is a file where a folder is needed, and it is the kept original of an earlier a\.jpg .*pfc never moves or deletes; move that original out of \.pfc-originals/m);
    expect(run.stdout).toMatch(/^✓ new\.jpg → t\/new\.jpg/m);
    expect(readFileSync(join(dir, 't/.pfc-originals/a.jpg'))).toEqual(kept);
    expect(readFileSync(join(dir, 't/a.jpg/c.jpg'))).toEqual(readFileSync(JPEG));
  });

  it('mirrored: fails only the files below the earlier result in the way, says what it is, corrects the rest (exit 1) and keeps it', async () => {
    const dir = freshDir();
    await photoTurnedFolder(dir, []);
    const earlier = readFileSync(join(dir, 't/corrected/a.jpg'));
    const run = await runPfc(['correct', 't'], { cwd: dir });
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.stdout).toMatch(/^✗ a\.jpg\/c\.jpg: its result cannot be written: .*t\/corrected\/a\.jpg is a file where a folder is needed, and it is pfc's result of an earlier run/m);
    expect(run.stdout).toMatch(/^✓ new\.jpg → t\/corrected\/new\.jpg/m);
    expect(readFileSync(join(dir, 't/corrected/a.jpg'))).toEqual(earlier);
  });
});

describe('pfc correct with a folder where a result would go', () => {
  it('says it is a folder, which --overwrite would not replace, instead of suggesting --overwrite', async () => {
    const dir = freshDir();
    copyFileSync(JPEG, join(dir, 't/b.jpg'));
    mkdirSync(join(dir, 't/corrected/b.jpg'), { recursive: true });
    const run = await runPfc(['correct', 't'], { cwd: dir });
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.stdout).toMatch(/^✗ b\.jpg: a folder is where the result would go: .*t\/corrected\/b\.jpg; --overwrite replaces files, never folders, so it would not help/m);
    expect(run.stdout).not.toContain('use --overwrite');
  });
});

describe('pfc correct --in-place with a PNG named .jpg and outputType=jpg', () => {
  it('corrects it under its name as a JPEG, keeps the PNG as its original, and restore puts the PNG back byte for byte', async () => {
    const dir = freshDir();
    copyFileSync(PNG, join(dir, 't/other.jpg'));
    const run = await runPfc(['correct', 't', '--in-place', '-p', 'outputType=jpg'], { cwd: dir });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^✓ other\.jpg → t\/other\.jpg/m);
    expect([...readFileSync(join(dir, 't/other.jpg')).subarray(0, 2)]).toEqual([0xff, 0xd8]);
    expect(readFileSync(join(dir, 't/.pfc-originals/other.jpg'))).toEqual(readFileSync(PNG));
    const restore = await runPfc(['restore', 't'], { cwd: dir });
    expect(restore.code, restore.stdout + restore.stderr).toBe(0);
    expect(readFileSync(join(dir, 't/other.jpg'))).toEqual(readFileSync(PNG));
  });
});
