/**
 * A second run of an unchanged folder, in each output mode: the summary (for people and in JSON) says only what
 * happened to the user's files. pfc's own files (a suffix run's results, a report page written among the photos
 * and its thumbnails) are not counted or listed as left out, and nothing sent means no line about jobs at once.
 * A user's file that merely looks like pfc's is still listed, with what to do, and left as it is.
 */
import { appendFileSync, copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { copySamples, jsonLines, manyPhotos, runPfc, SAMPLE_PHOTOS, SAMPLES, summaryOf } from './helpers';

const SLOW = 120_000;

/** The `skipped` lines of `--json` output that are paths left out (not up-to-date files). */
function leftOutLines(stdout: string): { input: string; code: string; reason: string }[] {
  return jsonLines(stdout).filter((l) => l.type === 'skipped') as { input: string; code: string; reason: string }[];
}

describe('a rerun of an unchanged folder (embedded emulator)', () => {
  it('--suffix: the earlier results are the run\'s own, not "left out"; a user\'s file named like one is listed and left as is', { timeout: SLOW }, async () => {
    const dir = copySamples();
    const photos = join(dir, 'photos');
    expect((await runPfc(['correct', 'photos', '--suffix', '_pfc'], { cwd: dir })).code).toBe(0);

    // Run from inside the folder: its paths are shown from there, the folder itself as ".".
    const again = await runPfc(['correct', '.', '--suffix', '_pfc'], { cwd: photos });
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stdout).toMatch(/^Done in .*: 0 corrected, 5 up to date, 0 failed, 1 left out · 0 B in, 0 B out$/m);
    expect(again.stdout).toMatch(/^Left out \(1\):\n {2}LICENSES\.md: /m);
    expect(again.stdout).toMatch(/^Output: \.$/m);
    expect(again.stdout).not.toContain('_pfc');

    // The user's own photo named like a result, a result changed since (edited), and a result whose photo is gone
    // (no "up to date" tells of it then): listed, each with why. A result only given a new date (copied, touched)
    // has pfc's bytes: not listed.
    copyFileSync(join(photos, 'outdoors/rocket.jpg'), join(photos, 'mine_pfc.jpg'));
    const mine = readFileSync(join(photos, 'mine_pfc.jpg'));
    appendFileSync(join(photos, 'objects/coffee_pfc.jpg'), 'edited');
    utimesSync(join(photos, 'outdoors/rocket_pfc.jpg'), new Date('2020-01-01'), new Date('2020-01-01'));
    rmSync(join(photos, 'portraits/astronaut.jpg'));
    const third = await runPfc(['correct', 'photos', '--suffix', '_pfc', '--json'], { cwd: dir });
    expect(third.code, third.stdout + third.stderr).toBe(1);
    // coffee.jpg is left as is: its result would replace the edited one.
    expect(summaryOf(third.stdout)).toMatchObject({ corrected: 0, upToDate: 3, failed: 1, excluded: 4, skipped: 7 });
    const listed = leftOutLines(third.stdout).filter((l) => l.code === 'suffix-output');
    expect(listed.map((l) => l.input).sort()).toEqual([join(photos, 'mine_pfc.jpg'), join(photos, 'objects/coffee_pfc.jpg'), join(photos, 'portraits/astronaut_pfc.jpg')]);
    expect(listed.find((l) => l.input.endsWith('mine_pfc.jpg'))!.reason).toBe('ends with the output suffix "_pfc" as pfc\'s results do, but this run\'s manifest does not record it: not corrected; if it is a photo of yours, rename it to have it corrected');
    expect(listed.find((l) => l.input.endsWith('coffee_pfc.jpg'))!.reason).toMatch(/^ends with the output suffix "_pfc": pfc's result for objects\/coffee\.jpg, but its size or date changed since pfc wrote it \(recorded in .*\.pfc-manifest\.jsonl\); not corrected$/);
    expect(listed.find((l) => l.input.endsWith('astronaut_pfc.jpg'))!.reason).toBe('ends with the output suffix "_pfc": pfc\'s result for portraits/astronaut.jpg, which is no longer there (moved or deleted); left as is, not corrected twice');
    expect(readFileSync(join(photos, 'mine_pfc.jpg')).equals(mine)).toBe(true);
    expect(readdirSync(photos).filter((n) => n.startsWith('mine'))).toEqual(['mine_pfc.jpg']);
  });

  it('nothing sent: no "Jobs at once" line (nor `jobsAtOnce` in JSON); a third run with a new photo sends it and has one', { timeout: SLOW }, async () => {
    for (const mode of [[], ['--out', 'elsewhere'], ['--in-place']]) {
      const dir = copySamples();
      const first = await runPfc(['correct', 'photos', ...mode], { cwd: dir });
      expect(first.stdout, mode.join(' ')).toMatch(/^Jobs at once: /m);
      const again = await runPfc(['correct', 'photos', ...mode], { cwd: dir });
      expect(again.stdout, mode.join(' ')).toMatch(/: 0 corrected, 5 up to date, 0 failed, 1 left out · 0 B in, 0 B out$/m);
      expect(again.stdout, mode.join(' ')).not.toContain('Jobs at once');
      const json = await runPfc(['correct', 'photos', ...mode, '--json'], { cwd: dir });
      expect(summaryOf(json.stdout), mode.join(' ')).not.toHaveProperty('jobsAtOnce');
      // A photo new to the folder (from the samples: in place, the folder's own coffee.jpg is a result now).
      copyFileSync(join(SAMPLES, SAMPLE_PHOTOS[1]!), join(dir, 'photos/new.jpg'));
      const third = await runPfc(['correct', 'photos', ...mode, '--json'], { cwd: dir });
      expect(summaryOf(third.stdout), mode.join(' ')).toMatchObject({ corrected: 1, upToDate: 5, excluded: 1, jobsAtOnce: { started: 2 } });
    }
  });

  it('a report written among the photos (page and thumbnails folder) is pfc\'s own: a later run lists neither', { timeout: SLOW }, async () => {
    // Above 100 files the report keeps its thumbnails in r.files/ beside the page.
    const dir = manyPhotos(96);
    const first = await runPfc(['correct', 'photos', '--report', 'photos/r.html'], { cwd: dir });
    expect(first.code, first.stdout + first.stderr).toBe(0);
    expect(readdirSync(join(dir, 'photos/r.files')).length).toBeGreaterThan(0);

    for (const report of [[], ['--report', 'photos/r.html']]) {
      const again = await runPfc(['correct', 'photos', ...report], { cwd: dir });
      expect(again.code, again.stdout + again.stderr).toBe(0);
      expect(again.stdout).toMatch(/: 0 corrected, 101 up to date, 0 failed, 1 left out · /);
      expect(again.stdout).not.toMatch(/^ {2}photos\/r\.(html|files)/m);
      const json = await runPfc(['correct', 'photos', ...report, '--json'], { cwd: dir });
      expect(summaryOf(json.stdout)).toMatchObject({ upToDate: 101, excluded: 1, skipped: 102 });
      expect(leftOutLines(json.stdout).map((l) => l.input)).toEqual([join(dir, 'photos/LICENSES.md')]);
    }
    // The page of the last run counts the same: nothing of its own left out.
    expect(readFileSync(join(dir, 'photos/r.html'), 'utf8')).toContain('<li><b>1</b> left out</li>');
  });

  it('pfc\'s own files given as inputs themselves are listed, saying what they are: the user asked for them', { timeout: SLOW }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pfc-cli-given-'));
    copyFileSync(join(SAMPLES, 'outdoors/rocket.jpg'), join(dir, 'a.jpg'));
    expect((await runPfc(['correct', '.', '--suffix', '_pfc', '--report', 'r.html'], { cwd: dir })).code).toBe(0);

    const given = await runPfc(['correct', 'a_pfc.jpg', 'r.html', '--suffix', '_pfc', '--json'], { cwd: dir });
    expect(given.code, given.stdout + given.stderr).toBe(0);
    expect(summaryOf(given.stdout)).toMatchObject({ corrected: 0, excluded: 2 });
    expect(leftOutLines(given.stdout).map((l) => [l.input, l.reason])).toEqual([
      [join(dir, 'a_pfc.jpg'), 'ends with the output suffix "_pfc": pfc\'s result for a.jpg; left as is, not corrected twice'],
      [join(dir, 'r.html'), 'a report page pfc wrote, not a photo or video (open it in a web browser)'],
    ]);
  });
});
