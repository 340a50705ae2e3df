/** Where results go: --in-place with backups, --suffix beside the inputs, --out elsewhere. */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { copySamples, filesBelow, runPfc, SAMPLE_PHOTOS, snapshot, summaryOf } from './helpers';

describe('pfc correct output modes (embedded emulator)', () => {
  it('--in-place replaces the photos, keeps the originals, and redoes from the originals when parameters change', async () => {
    const dir = copySamples();
    const photos = join(dir, 'photos');
    const originals = snapshot(photos);
    const r = await runPfc(['correct', 'photos', '--in-place', '--json'], { cwd: dir });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(summaryOf(r.stdout)).toMatchObject({ corrected: 5 });
    for (const rel of SAMPLE_PHOTOS) {
      expect(readFileSync(join(photos, '.pfc-originals', rel)).equals(originals.get(rel)!), rel).toBe(true);
      expect(readFileSync(join(photos, rel)).equals(originals.get(rel)!), rel).toBe(false);
    }
    const again = await runPfc(['correct', 'photos', '--in-place'], { cwd: dir });
    // The kept originals are the run's own: not counted or listed as left out (LICENSES.md is).
    expect(again.stdout).toMatch(/Done in .*: 0 corrected, 5 up to date, 0 failed, 1 left out/);
    expect(again.stdout).not.toContain('.pfc-originals:');

    const smaller = await runPfc(['correct', 'photos', '--in-place', '-p', 'long=100'], { cwd: dir });
    expect(smaller.code).toBe(0);
    expect(smaller.stdout).toMatch(/^Originals kept in: photos\/\.pfc-originals$/m);
    for (const rel of SAMPLE_PHOTOS) {
      // Made from the kept original (full size), not from the earlier result; the original is untouched.
      const meta = await sharp(join(photos, rel)).metadata();
      expect(Math.max(meta.width!, meta.height!)).toBe(100);
      expect(readFileSync(join(photos, '.pfc-originals', rel)).equals(originals.get(rel)!), rel).toBe(true);
    }
  });

  it('--in-place leaves out a file whose result would change format, since it keeps the name (no PNG inside a .jpg)', async () => {
    const dir = copySamples();
    const photos = join(dir, 'photos');
    const originals = snapshot(photos);
    const r = await runPfc(['correct', 'photos', '--in-place', '--json', '-p', 'outputType=png'], { cwd: dir });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    // chelsea.png stays PNG and is corrected; the four JPEGs would become PNG under their .jpg names.
    expect(summaryOf(r.stdout)).toMatchObject({ corrected: 1 });
    const leftOut = r.stdout.split('\n').filter((l) => l.includes('"format-change"')).map((l) => JSON.parse(l) as { input: string; reason: string });
    expect(leftOut.map((e) => relative(photos, e.input)).sort()).toEqual(SAMPLE_PHOTOS.filter((p) => p.endsWith('.jpg')));
    expect(leftOut[0]!.reason).toMatch(/result PNG, and --in-place keeps the name .*\.jpg; use --out or --suffix/);
    for (const rel of SAMPLE_PHOTOS) {
      const format = (await sharp(join(photos, rel)).metadata()).format;
      expect(format, rel).toBe(rel.endsWith('.png') ? 'png' : 'jpeg');
      expect(readFileSync(join(photos, rel)).equals(originals.get(rel)!), rel).toBe(rel.endsWith('.jpg'));
    }
  });

  it('--suffix writes beside each input and does not pick its results up again', async () => {
    const dir = copySamples();
    const photos = join(dir, 'photos');
    const r = await runPfc(['correct', 'photos', '--suffix', '_pfc', '-p', 'outputType=jpg', '--json'], { cwd: dir });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(filesBelow(photos).filter((f) => f.includes('_pfc'))).toEqual([
      'objects/chelsea_pfc.jpg', 'objects/coffee_pfc.jpg', 'outdoors/rocket_pfc.jpg', 'portraits/astronaut_pfc.jpg', 'portraits/grace_hopper_pfc.jpg',
    ]);
    const again = await runPfc(['correct', 'photos', '--suffix', '_pfc', '-p', 'outputType=jpg', '--json'], { cwd: dir });
    expect(summaryOf(again.stdout)).toMatchObject({ corrected: 0, upToDate: 5, excluded: 1 });
    // The results are the run's own: not listed as left out (only LICENSES.md is).
    expect(again.stdout).not.toContain('"suffix-output"');
  });

  it('--out mirrors elsewhere, and several inputs are mirrored from their common folder', async () => {
    const dir = copySamples();
    const r = await runPfc(['correct', 'photos/portraits', 'photos/objects/coffee.jpg', '--out', 'results', '--json'], { cwd: dir });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(filesBelow(join(dir, 'results'))).toEqual(['.pfc-manifest.jsonl', 'objects/coffee.jpg', 'portraits/astronaut.jpg', 'portraits/grace_hopper.jpg']);
    // The results folder is recognised as an output folder when its parent is corrected later.
    const parent = await runPfc(['correct', '.', '--json', '--out', 'elsewhere'], { cwd: dir });
    const skipped = parent.stdout.split('\n').filter((l) => l.includes('"output-folder"'));
    expect(skipped.some((l) => l.includes(join(dir, 'results')))).toBe(true);
  });
});
