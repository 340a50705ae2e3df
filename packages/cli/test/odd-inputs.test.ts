/**
 * Inputs that are not plain photos — named pipes, devices, links that lead
 * nowhere — and negative numbers given to numeric flags (of `pfc correct` and
 * `pfc emulator`), through the built `pfc` on real folders (the embedded
 * emulator does the work). A pipe opened for reading waits for a writer in the
 * kernel, deaf to SIGTERM: each run here has a bounded wait and is killed with
 * SIGKILL past it, so a hang fails the test instead of stalling the suite.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type PfcRun, SAMPLES, spawnPfc } from '../../../test/cli/helpers';

const PHOTO = join(SAMPLES, 'portraits/astronaut.jpg');
/** Long enough for a loaded machine's run of one photo; a hung run is killed past it. */
const RUN_LIMIT_MS = 20_000;
const TEST_TIMEOUT_MS = RUN_LIMIT_MS + 10_000;

const made: string[] = [];
afterAll(() => made.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** A fresh folder holding `in/a.jpg`. */
function folderWithPhoto(): string {
  const dir = mkdtempSync(join(tmpdir(), 'pfc-odd-'));
  made.push(dir);
  mkdirSync(join(dir, 'in'));
  copyFileSync(PHOTO, join(dir, 'in/a.jpg'));
  return dir;
}

/** Run `pfc` to its end, or kill it with SIGKILL (a process blocked opening a pipe ignores SIGTERM) once `RUN_LIMIT_MS` is up. */
async function runBounded(args: string[], cwd: string): Promise<PfcRun & { hung: boolean }> {
  const run = spawnPfc(args, { cwd });
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<'hung'>((resolve) => (timer = setTimeout(() => resolve('hung'), RUN_LIMIT_MS)));
  const hung = (await Promise.race([run.done, limit])) === 'hung';
  clearTimeout(timer);
  if (hung) run.child.kill('SIGKILL');
  return { ...(await run.done), hung };
}

function expectFinished(run: PfcRun & { hung: boolean }): void {
  expect(run.hung, `pfc did not finish within ${RUN_LIMIT_MS} ms (killed)\n${run.stdout}${run.stderr}`).toBe(false);
}

describe.skipIf(process.platform === 'win32')('pfc correct with inputs that are not regular files', () => {
  it('leaves out a named pipe in a folder and a link to it, unopened, with the reason, and corrects the rest (exit 0)', { timeout: TEST_TIMEOUT_MS }, async () => {
    const dir = folderWithPhoto();
    execFileSync('mkfifo', [join(dir, 'in/pipe.jpg'), join(dir, 'in/fifo')]);
    symlinkSync('pipe.jpg', join(dir, 'in/link.jpg'));
    symlinkSync('/dev/zero', join(dir, 'in/zero.jpg'));
    const run = await runBounded(['correct', 'in', '--out', 'out'], dir);
    expectFinished(run);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^ {2}in\/pipe\.jpg: not a regular file \(a named pipe\)$/m);
    expect(run.stdout).toMatch(/^ {2}in\/link\.jpg: not a regular file \(a named pipe\)$/m);
    expect(run.stdout).toMatch(/^ {2}in\/zero\.jpg: not a regular file \(a character device\)$/m);
    // A pipe not named like a photo is no one's photo: not listed.
    expect(run.stdout).not.toMatch(/fifo/);
    expect(run.stdout).toMatch(/1 corrected, .*3 left out/);
    expect(readFileSync(join(dir, 'out/a.jpg')).equals(readFileSync(PHOTO))).toBe(false);
  });

  it('leaves out a named pipe given as the input itself, unopened (exit 0)', { timeout: TEST_TIMEOUT_MS }, async () => {
    const dir = folderWithPhoto();
    execFileSync('mkfifo', [join(dir, 'in/pipe.jpg')]);
    const run = await runBounded(['correct', 'in/pipe.jpg', 'in/a.jpg', '--out', 'out'], dir);
    expectFinished(run);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^ {2}in\/pipe\.jpg: not a regular file \(a named pipe\)$/m);
    expect(existsSync(join(dir, 'out/a.jpg'))).toBe(true);
  });
});

/** `folderWithPhoto()` plus `in/loop.jpg`, a link to itself, and `in/broken.jpg`, a link to nothing. */
function folderWithUnfollowableLinks(): string {
  const dir = folderWithPhoto();
  symlinkSync('loop.jpg', join(dir, 'in/loop.jpg'));
  symlinkSync('nowhere.jpg', join(dir, 'in/broken.jpg'));
  return dir;
}

describe('pfc correct with symbolic links it cannot follow', () => {
  it('says which link loops and which target is missing (failed, exit 1), and corrects the rest', { timeout: TEST_TIMEOUT_MS }, async () => {
    const dir = folderWithUnfollowableLinks();
    const run = await runBounded(['correct', 'in', '--out', 'out'], dir);
    expectFinished(run);
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.stdout).toMatch(/^ {2}in\/loop\.jpg: symbolic link loop$/m);
    expect(run.stdout).toMatch(/^ {2}in\/broken\.jpg: broken symbolic link \(its target nowhere\.jpg does not exist\)$/m);
    expect(existsSync(join(dir, 'out/a.jpg'))).toBe(true);
  });

  it('says "symbolic link loop" for a loop given as the input itself, not "no such file" (exit 2, nothing written)', { timeout: TEST_TIMEOUT_MS }, async () => {
    const dir = folderWithUnfollowableLinks();
    const loop = await runBounded(['correct', 'in/loop.jpg', '--out', 'out'], dir);
    expectFinished(loop);
    expect(loop.code, loop.stdout + loop.stderr).toBe(2);
    expect(loop.stderr).toMatch(/^pfc: .*in\/loop\.jpg: symbolic link loop$/m);
    expect(loop.stderr).not.toMatch(/no such file/);
    const broken = await runBounded(['correct', 'in/broken.jpg', 'in/a.jpg', '--out', 'out'], dir);
    expect(broken.code, broken.stdout + broken.stderr).toBe(2);
    expect(broken.stderr).toMatch(/^pfc: .*in\/broken\.jpg: broken symbolic link \(its target nowhere\.jpg does not exist\)$/m);
    expect(existsSync(join(dir, 'out'))).toBe(false);
  });

  // Root reaches every folder: the refusal only shows for another user.
  it.skipIf(process.getuid?.() === 0 || process.platform === 'win32')('says permission denied for a link into a folder it may not enter', { timeout: TEST_TIMEOUT_MS }, async () => {
    const dir = folderWithPhoto();
    mkdirSync(join(dir, 'locked'));
    copyFileSync(PHOTO, join(dir, 'locked/b.jpg'));
    execFileSync('chmod', ['000', join(dir, 'locked')]);
    symlinkSync('../locked/b.jpg', join(dir, 'in/b.jpg'));
    try {
      const run = await runBounded(['correct', 'in', '--out', 'out'], dir);
      expectFinished(run);
      expect(run.stdout).toMatch(/^ {2}in\/b\.jpg: .*permission denied$/m);
    } finally {
      execFileSync('chmod', ['700', join(dir, 'locked')]);
    }
  });
});

describe('a negative number for a numeric flag (pfc correct, pfc emulator)', () => {
  it.each([
    [['correct', 'in', '--job-timeout', '-1'], 'pfc: --job-timeout must be a number of seconds above 0 and at most 86400 (got "-1")'],
    [['correct', 'in', '-j', '-1'], 'pfc: --concurrency must be an integer from 1 to 64 (got "-1")'],
    [['correct', 'in', '--concurrency', '-2'], 'pfc: --concurrency must be an integer from 1 to 64 (got "-2")'],
    [['correct', 'in', '--confirm-above', '-5'], 'pfc: --confirm-above must be an integer from 0 to'],
    [['correct', 'in', '--instance-jobs', '-2', '--container-url', 'http://127.0.0.1:9'], 'pfc: --instance-jobs values must be integers from 1 to 64 or auto'],
    // pfc emulator hands its arguments to the emulator's own parser, the negative values attached as for correct.
    [['emulator', '--web-port', '-1'], 'pfc-emulator: --web-port must be an integer from 0 to 65535 (got "-1")'],
    [['emulator', '--workers', '-3'], 'pfc-emulator: --workers must be an integer from 1 to 64 (got "-3")'],
    [['emulator', '--fault-429', '-.5'], 'pfc-emulator: --fault-429 must be a number from 0 to 1 (got "-.5")'],
    [['emulator', '--container-port', '-1'], 'pfc-emulator: --container-port must be a port from 0 to 65535, or off (got "-1")'],
  ])('%j gets the flag\'s own range error (exit 2), not the parser\'s "ambiguous"', { timeout: TEST_TIMEOUT_MS }, async (args, message) => {
    const run = await runBounded(args, folderWithPhoto());
    expectFinished(run);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain(message);
    expect(run.stderr).not.toMatch(/ambiguous/);
  });
});
