/**
 * The seven ways `pfc correct` once destroyed a user's files (issue 14), each
 * through the built `pfc` on real folders. Every test snapshots every file
 * that exists before the run and checks after it that none changed or vanished
 * (in-place: the original is in the backups and `pfc restore` brings it back).
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { emulator, filesBelow, jsonLines, runPfc, SAMPLES, spawnPfc, summaryOf, until } from './helpers';

const PHOTO_A = join(SAMPLES, 'objects/coffee.jpg');
const PHOTO_B = join(SAMPLES, 'outdoors/rocket.jpg');
const PHOTO_C = join(SAMPLES, 'portraits/astronaut.jpg');
const PNG = join(SAMPLES, 'objects/chelsea.png');
const SLOW = 180_000;

/** A temporary folder with `files` (relative path → source file or text). */
function folder(files: Record<string, string | { text: string }>): string {
  const dir = mkdtempSync(join(tmpdir(), 'pfc-noclobber-'));
  for (const [rel, from] of Object.entries(files)) {
    mkdirSync(join(dir, rel, '..'), { recursive: true });
    if (typeof from === 'string') copyFileSync(from, join(dir, rel));
    else writeFileSync(join(dir, rel), from.text);
  }
  return dir;
}

/** Bytes of every file below `dir` now. */
function snapshotAll(dir: string): Map<string, Buffer> {
  return new Map(filesBelow(dir).map((f) => [f, readFileSync(join(dir, f))]));
}

/** Every file of `before` is still there with the same bytes. */
function expectNoneChanged(dir: string, before: Map<string, Buffer>, except: string[] = []): void {
  const now = snapshotAll(dir);
  for (const [rel, bytes] of before) {
    if (except.includes(rel)) continue;
    expect(now.has(rel), `${rel} vanished`).toBe(true);
    expect(now.get(rel)!.equals(bytes), `${rel} changed`).toBe(true);
  }
}

function failures(stdout: string): Array<Record<string, unknown>> {
  return jsonLines(stdout).filter((l) => l.type === 'failed');
}

describe('pfc correct never loses a file (issue 14)', () => {
  let emu: Awaited<ReturnType<typeof emulator>>;
  beforeAll(async () => {
    emu = await emulator({ processingMs: 300 });
  });
  afterAll(() => emu.close());
  const web = () => [...emu.webArgs, '--yes', '--json'];

  it('case 1: an output folder that is the input through a symbolic link is refused like -o in', { timeout: SLOW }, async () => {
    const dir = folder({ 'in/a.jpg': PHOTO_A, 'in/sub/b.jpg': PHOTO_B });
    symlinkSync('in', join(dir, 'inlink'));
    const before = snapshotAll(dir);
    const uploads = emu.uploads();
    for (const args of [['in', '-o', 'inlink'], ['inlink', '-o', 'in'], ['in', '-o', 'inlink/sub/..']]) {
      const r = await runPfc(['correct', ...args, ...web()], { cwd: dir });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/is the input folder/);
    }
    expect(emu.uploads()).toBe(uploads);
    expectNoneChanged(dir, before);
  });

  it('case 2: --report writes only a new .html file or an earlier pfc report', { timeout: SLOW }, async () => {
    const dir = folder({ 'in/p000.jpg': PHOTO_A, 'in/p001.jpg': PHOTO_B, 'notes.html': { text: '<p>my notes</p>' } });
    const before = snapshotAll(dir);
    const uploads = emu.uploads();
    // The shell glob mistake: `pfc correct --report *.jpg` in the photo folder.
    const glob = await runPfc(['correct', '--report', 'p000.jpg', 'p001.jpg', ...web()], { cwd: join(dir, 'in') });
    expect(glob.code, glob.stderr).toBe(2);
    expect(glob.stderr).toMatch(/--report must name an \.html file/);
    const other = await runPfc(['correct', 'in', '--report', 'notes.html', ...web()], { cwd: dir });
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/not a report pfc wrote/);
    expect(emu.uploads()).toBe(uploads);
    expectNoneChanged(dir, before);
    // A new report, then the same report again: pfc's own page is replaced.
    for (let run = 0; run < 2; run++) {
      const ok = await runPfc(['correct', 'in', '--report', 'report.html', ...web()], { cwd: dir });
      expect(ok.code, ok.stderr).toBe(0);
    }
    expect(readFileSync(join(dir, 'report.html'), 'utf8')).toMatch(/pfc batch report/);
    expectNoneChanged(dir, before);
  });

  it('case 3: a mirror into a folder holding the user\'s photos leaves them alone (exit 1); --overwrite opts in', { timeout: SLOW }, async () => {
    const dir = folder({ 'in/a.jpg': PHOTO_A, 'in/b.jpg': PHOTO_B, 'in/2024/a.jpg': PHOTO_C, 'other/b.jpg': PHOTO_C });
    const before = snapshotAll(dir);
    const into = await runPfc(['correct', 'in', '-o', 'in/2024', ...web()], { cwd: dir });
    expect(into.code, into.stdout + into.stderr).toBe(1);
    expect(failures(into.stdout)).toEqual([expect.objectContaining({ rel: 'a.jpg', errorName: 'OutputExistsError', error: expect.stringMatching(/would overwrite a file pfc did not write: .*in\/2024\/a\.jpg; use --overwrite/) })]);
    expect(filesBelow(join(dir, 'in/2024'))).toContain('b.jpg');
    const other = await runPfc(['correct', 'in', '-o', 'other', ...web()], { cwd: dir });
    expect(other.code).toBe(1);
    expect(failures(other.stdout).map((f) => f.rel)).toEqual(['b.jpg']);
    expectNoneChanged(dir, before);
    // The explicit opt-in replaces it; from then on the file is pfc's own and a rerun leaves it be.
    const forced = await runPfc(['correct', 'in', '-o', 'other', '--overwrite', ...web()], { cwd: dir });
    expect(forced.code, forced.stdout).toBe(0);
    expect(readFileSync(join(dir, 'other/b.jpg')).equals(before.get('other/b.jpg')!)).toBe(false);
    const rerun = await runPfc(['correct', 'in', '-o', 'other', ...web()], { cwd: dir });
    expect(summaryOf(rerun.stdout)).toMatchObject({ exitCode: 0, corrected: 0, upToDate: 2 });
    expectNoneChanged(dir, before, ['other/b.jpg']);
  });

  it('case 4: suffix mode never writes over a user file that looks like a result', { timeout: SLOW }, async () => {
    const dir = folder({ 'photo.jpg': PHOTO_A, 'photo_pfc.jpg': PHOTO_C, 'b.jpg': PHOTO_B });
    const before = snapshotAll(dir);
    const r = await runPfc(['correct', '.', '--suffix', '_pfc', ...web()], { cwd: dir });
    expect(r.code, r.stdout).toBe(1);
    expect(failures(r.stdout)).toEqual([expect.objectContaining({ rel: 'photo.jpg', errorName: 'OutputExistsError' })]);
    expect(filesBelow(dir)).toContain('b_pfc.jpg');
    expectNoneChanged(dir, before);
  });

  it('case 5: in-place keeps every distinct original, and pfc restore brings the latest back byte-identical', { timeout: SLOW }, async () => {
    const dir = folder({ 'in/a.jpg': PHOTO_A, 'in/b.jpg': PHOTO_B });
    const first = snapshotAll(dir);
    expect((await runPfc(['correct', 'in', '--in-place', ...web()], { cwd: dir })).code).toBe(0);
    // The user puts a new photo under the corrected file's name, and corrects in place again.
    copyFileSync(PHOTO_C, join(dir, 'in/a.jpg'));
    const second = snapshotAll(dir);
    const again = await runPfc(['correct', 'in', '--in-place', ...web()], { cwd: dir });
    expect(summaryOf(again.stdout)).toMatchObject({ exitCode: 0, corrected: 1, upToDate: 1 });
    const kept = filesBelow(join(dir, 'in/.pfc-originals')).map((f) => readFileSync(join(dir, 'in/.pfc-originals', f)));
    for (const original of [first.get('in/a.jpg')!, second.get('in/a.jpg')!, first.get('in/b.jpg')!]) {
      expect(kept.some((k) => k.equals(original))).toBe(true);
    }
    // The user edits the corrected b.jpg: restore leaves it as it is and says so.
    writeFileSync(join(dir, 'in/b.jpg'), 'my own edit');
    const restore = await runPfc(['restore', 'in'], { cwd: dir });
    expect(restore.code, restore.stdout + restore.stderr).toBe(1);
    expect(restore.stdout).toMatch(/^restored in\/a\.jpg \(from in\/\.pfc-originals\/a\.jpg\)$/m);
    expect(restore.stdout).toMatch(/^not restored in\/b\.jpg: changed since pfc corrected it/m);
    expect(readFileSync(join(dir, 'in/a.jpg')).equals(second.get('in/a.jpg')!)).toBe(true);
    expect(readFileSync(join(dir, 'in/b.jpg'), 'utf8')).toBe('my own edit');
    // Given paths: b.jpg put back once it is pfc's own again.
    copyFileSync(join(dir, 'in/.pfc-originals/b.jpg'), join(dir, 'in/b.jpg'));
    const one = await runPfc(['restore', 'in', 'in/b.jpg'], { cwd: dir });
    expect(one.stdout).toMatch(/not restored in\/b\.jpg: is already the original/);
    // Nothing left to do is no fault: a second restore of everything exits 0.
    expect(one.code, one.stdout).toBe(0);
    expect((await runPfc(['restore', 'in'], { cwd: dir })).code).toBe(0);
  });

  it('case 5b: a subfolder corrected in place on its own stays its own: the parent run leaves its results alone, restore of the parent brings its originals back', { timeout: SLOW }, async () => {
    const dir = folder({ 'in/a.jpg': PHOTO_A, 'in/sub/b.jpg': PHOTO_B });
    const first = snapshotAll(dir);
    expect((await runPfc(['correct', 'in/sub', '--in-place', ...web()], { cwd: dir })).code).toBe(0);
    const subResult = readFileSync(join(dir, 'in/sub/b.jpg'));
    // The parent in place: sub/b.jpg is pfc's result, recorded under in/sub, not a new original to correct again.
    const parent = await runPfc(['correct', 'in', '--in-place', '--json', ...web()], { cwd: dir });
    expect(summaryOf(parent.stdout)).toMatchObject({ exitCode: 0, corrected: 1, upToDate: 1 });
    expect(readFileSync(join(dir, 'in/sub/b.jpg')).equals(subResult)).toBe(true);
    expect(filesBelow(join(dir, 'in/.pfc-originals'))).not.toContain('sub/b.jpg');
    // Restoring the parent restores everything under it, the subfolder's originals too.
    const restore = await runPfc(['restore', 'in'], { cwd: dir });
    expect(restore.code, restore.stdout + restore.stderr).toBe(0);
    expect(restore.stdout).toMatch(/^2 restored, 0 not restored$/m);
    for (const rel of ['in/a.jpg', 'in/sub/b.jpg']) expect(readFileSync(join(dir, rel)).equals(first.get(rel)!), rel).toBe(true);
  });

  it('case 5c: a subfolder of a folder corrected in place belongs to it: a run on the subfolder alone takes no result for an original', { timeout: SLOW }, async () => {
    const dir = folder({ 'in/a.jpg': PHOTO_A, 'in/sub/b.jpg': PHOTO_B });
    const first = snapshotAll(dir);
    expect((await runPfc(['correct', 'in', '--in-place', ...web()], { cwd: dir })).code).toBe(0);
    const result = readFileSync(join(dir, 'in/sub/b.jpg'));
    // The subfolder alone: its photo is the parent run's result, up to date, kept original and all.
    const sub = await runPfc(['correct', 'in/sub', '--in-place', ...web()], { cwd: dir });
    expect(summaryOf(sub.stdout)).toMatchObject({ exitCode: 0, corrected: 0, upToDate: 1 });
    expect(readFileSync(join(dir, 'in/sub/b.jpg')).equals(result)).toBe(true);
    expect(filesBelow(join(dir, 'in/sub'))).toEqual(['b.jpg']);
    // With new settings it is redone from the true original, which restore then puts back.
    expect((await runPfc(['correct', 'in/sub', '--in-place', '-p', 'long=100', ...web()], { cwd: dir })).code).toBe(0);
    // Restoring the subfolder alone finds its originals where its runs kept them, in in/.pfc-originals/.
    const restoreSub = await runPfc(['restore', 'in/sub'], { cwd: dir });
    expect(restoreSub.stdout).toMatch(/^restored in\/sub\/b\.jpg \(from in\/\.pfc-originals\/sub\/b\.jpg\)$/m);
    expect(restoreSub.stdout).toMatch(/^1 restored, 0 not restored$/m);
    expect(readFileSync(join(dir, 'in/sub/b.jpg')).equals(first.get('in/sub/b.jpg')!)).toBe(true);
    const restore = await runPfc(['restore', 'in'], { cwd: dir });
    expect(restore.code, restore.stdout + restore.stderr).toBe(0);
    for (const rel of ['in/a.jpg', 'in/sub/b.jpg']) expect(readFileSync(join(dir, rel)).equals(first.get(rel)!), rel).toBe(true);
  });

  it('a result that cannot be written (name over 255 bytes, a folder at its path) is refused before the upload, not after the job', { timeout: SLOW }, async () => {
    const long = `${'c'.repeat(251)}.jpg`;
    const dir = folder({ [`in/${long}`]: PHOTO_A, 'in/b.jpg': PHOTO_B, 'in/ok.jpg': PHOTO_C });
    mkdirSync(join(dir, 'in/b_pfc.jpg'));
    const before = snapshotAll(dir);
    const uploads = emu.uploads();
    const r = await runPfc(['correct', 'in', '--suffix', '_pfc', '--overwrite', ...web()], { cwd: dir });
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(failures(r.stdout)).toEqual([
      expect.objectContaining({ rel: 'b.jpg', errorName: 'OutputExistsError', error: expect.stringMatching(/a folder is where the result would go: .*b_pfc\.jpg; --overwrite replaces files, never folders/) }),
      expect.objectContaining({ rel: long, errorName: 'OutputNameTooLongError', error: expect.stringMatching(/file name would be 259 bytes, over the 255/) }),
    ]);
    expect(summaryOf(r.stdout)).toMatchObject({ corrected: 1 });
    // Only ok.jpg went to the service (an upload ticket and the file: two requests).
    expect(emu.uploads() - uploads).toBe(2);
    expectNoneChanged(dir, before);
  });

  it('case 6: two inputs never share an output, also by case; the outcome is the same on every rerun', { timeout: SLOW }, async () => {
    const dir = folder({ 'in/a.jpg': PHOTO_A, 'in/a.png': PNG, 'in/a.png.jpg': PHOTO_B, 'in/B.jpg': PHOTO_C, 'in/b.jpg': PHOTO_A });
    const before = snapshotAll(dir);
    for (let run = 0; run < 2; run++) {
      const r = await runPfc(['correct', 'in', '-o', 'out', '-p', 'outputType=jpg', ...web()], { cwd: dir });
      expect(r.code, r.stdout).toBe(1);
      expect(failures(r.stdout)).toEqual([expect.objectContaining({
        rel: 'a.png', errorName: 'OutputCollisionError', error: expect.stringMatching(/out\/a\.png\.jpg would also be the output of .*in\/a\.png\.jpg/),
      })]);
      expect(summaryOf(r.stdout)).toMatchObject(run === 0 ? { corrected: 4 } : { corrected: 0, upToDate: 4 });
    }
    const manifest = jsonLines(readFileSync(join(dir, 'out/.pfc-manifest.jsonl'), 'utf8')).filter((l) => l.t === 'd');
    const pairs = Object.fromEntries(manifest.map((e) => [e.o, e.i]));
    // Compared case-insensitively: no two outputs of these inputs share a name on macOS or Windows either.
    expect(new Set(manifest.map((e) => String(e.o).toLowerCase())).size).toBe(manifest.length);
    expect(pairs['a.png.jpg']).toBe('../in/a.png.jpg');
    expect(pairs['a.jpg']).toBe('../in/a.jpg');
    expectNoneChanged(dir, before);
  });

  it('case 7: a second run on the same folder says who holds it and exits 2; with --wait it waits; no duplicate jobs', { timeout: SLOW }, async () => {
    const dir = folder({ 'in/a.jpg': PHOTO_A, 'in/b.jpg': PHOTO_B, 'in/c.jpg': PHOTO_C, 'in/d.jpg': PHOTO_A });
    const before = snapshotAll(dir);
    const jobs = () => emu.stats().jobs.total;
    const jobsBefore = jobs();
    const args = ['correct', 'in', '-o', 'out', '--concurrency', '1', '-p', 'cache=false', ...web()];
    const first = spawnPfc(args, { cwd: dir });
    // The first run holds the lock once it has started a file.
    for (let waited = 0; !first.stdout().includes('"type":"start"'); waited += 25) {
      if (waited > 120_000) throw new Error('the first run never started a file');
      await new Promise((r) => setTimeout(r, 25));
    }
    // Held (stopped) until the waiting run says it waits: on a loaded machine, starting the other runs (a new
    // process each) could take longer than the first run's four files, and find the folder free.
    first.child.kill('SIGSTOP');
    onTestFinished(() => void first.child.kill('SIGCONT'));
    const second = await runPfc(args, { cwd: dir });
    expect(second.code).toBe(2);
    expect(second.stderr).toMatch(new RegExp(`another pfc run is writing to .*out: process ${first.child.pid} on `));
    const waiting = spawnPfc([...args, '--wait'], { cwd: dir });
    let waitingSaid = '';
    waiting.child.stderr!.on('data', (d: Buffer) => (waitingSaid += d.toString()));
    await until(() => /Waiting for the run holding/.test(waitingSaid) || waiting.child.exitCode !== null, 'the waiting run to say it waits', 120_000);
    first.child.kill('SIGCONT');
    const [one, three] = await Promise.all([first.done, waiting.done]);
    expect(one.code, one.stderr).toBe(0);
    expect(three.code, three.stderr).toBe(0);
    expect(three.stderr).toMatch(/Waiting for the run holding/);
    expect(summaryOf(three.stdout)).toMatchObject({ corrected: 0, upToDate: 4 });
    expect(jobs() - jobsBefore).toBe(4);
    const manifest = jsonLines(readFileSync(join(dir, 'out/.pfc-manifest.jsonl'), 'utf8')).filter((l) => l.t === 'd');
    expect(manifest.map((e) => e.o).sort()).toEqual(['a.jpg', 'b.jpg', 'c.jpg', 'd.jpg']);
    expect(filesBelow(join(dir, 'out')).filter((f) => f.startsWith('.pfc-lock'))).toEqual([]);
    expectNoneChanged(dir, before);
  });
});
