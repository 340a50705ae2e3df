/**
 * What `pfc` promises about its own command line, found unwatched by hand
 * mutations of packages/cli/src: a numeric flag outside its range or not a
 * plain number, a suffix that is not a file-name part, flags that do not go
 * together, and the exit code of a bare `pfc` or an unknown help topic are
 * usage errors (exit 2, naming the flag and its range) before anything is
 * sent; the edges of each range are taken.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, emulator, runPfc, SAMPLES, summaryOf } from './helpers';

/** A fresh folder holding `in/a.jpg` and `in/b.jpg`. */
function twoPhotos(): string {
  const dir = mkdtempSync(join(tmpdir(), 'pfc-flags-'));
  mkdirSync(join(dir, 'in'));
  copyFileSync(join(SAMPLES, 'objects/coffee.jpg'), join(dir, 'in/a.jpg'));
  copyFileSync(join(SAMPLES, 'outdoors/rocket.jpg'), join(dir, 'in/b.jpg'));
  return dir;
}

describe('pfc correct refuses a flag value outside what it takes, before any upload', () => {
  let emu: Awaited<ReturnType<typeof emulator>>;
  beforeAll(async () => {
    emu = await emulator();
  });
  afterAll(() => emu.close());

  it.each([
    [['-j', '0'], 'pfc: --concurrency must be an integer from 1 to 64 (got "0")'],
    [['--concurrency', '65'], 'pfc: --concurrency must be an integer from 1 to 64 (got "65")'],
    [['-j', '0x10'], 'pfc: --concurrency must be an integer from 1 to 64 (got "0x10")'],
    [['-j', '1e1'], 'pfc: --concurrency must be an integer from 1 to 64 (got "1e1")'],
    [['-j', '2.5'], 'pfc: --concurrency must be an integer from 1 to 64 (got "2.5")'],
    [['--confirm-above', '1.5'], 'pfc: --confirm-above must be an integer from 0 to'],
    [['--confirm-above', ''], 'pfc: --confirm-above must be an integer from 0 to'],
    [['--job-timeout', '1e3'], 'pfc: --job-timeout must be a number of seconds above 0 and at most 86400 (got "1e3")'],
    [['--job-timeout', '0x10'], 'pfc: --job-timeout must be a number of seconds above 0 and at most 86400 (got "0x10")'],
    [['--suffix', 'x/y'], 'pfc: --suffix must be a non-empty file-name part without slashes (got "x/y")'],
    [['--suffix', '..\\up'], 'pfc: --suffix must be a non-empty file-name part without slashes'],
    [['--in-place', '--overwrite'], 'pfc: --overwrite does not go with --in-place'],
    [['--out', 'o', '--suffix', '_x', '--in-place'], 'pfc: --out and --suffix and --in-place cannot be combined'],
    [['--instance-jobs', '4'], 'pfc: --instance-jobs sets the files at once of each self-hosted container (--container-url, --bgr-url); the web backend has none: use -j'],
  ])('%j: exit 2 naming the flag, nothing sent or written', async (flags, message) => {
    const dir = twoPhotos();
    const before = emu.uploads();
    const r = await runPfc(['correct', 'in', ...emu.webArgs, '--yes', ...flags], { cwd: dir });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(message);
    expect(emu.uploads()).toBe(before);
    expect(existsSync(join(dir, 'in/corrected'))).toBe(false);
  });

  it('takes the edges of each range: -j 64, --job-timeout 86400 and 0.5, --confirm-above 0 with --yes', async () => {
    const dir = twoPhotos();
    const r = await runPfc(['correct', 'in', ...emu.webArgs, '--json', '-j', '64', '--job-timeout', '86400', '--confirm-above', '0', '--yes'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(summaryOf(r.stdout)).toMatchObject({ corrected: 2, exitCode: 0 });
    const low = await runPfc(['correct', 'in', ...emu.webArgs, '--json', '-j', '1', '--job-timeout', '.5', '--force', '--yes'], { cwd: dir });
    expect(low.stderr).not.toMatch(/must be/);
    expect(low.code).not.toBe(2);
  });

  it('-j sets the jobs the Web API starts with (the summary\'s jobs at once), not the backend\'s default', async () => {
    const dir = twoPhotos();
    const r = await runPfc(['correct', 'in', ...emu.webArgs, '--json', '-j', '3', '--yes'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(summaryOf(r.stdout)).toMatchObject({ corrected: 2, jobsAtOnce: { started: 3 } });
  });
});

describe('a flag wins over its environment variable', () => {
  let emu: Awaited<ReturnType<typeof emulator>>;
  beforeAll(async () => {
    emu = await emulator();
  });
  afterAll(() => emu.close());

  it('--base-url over PFC_BASE_URL (pointing where nothing listens)', async () => {
    const dir = twoPhotos();
    const env = cleanEnv({ PFC_BASE_URL: 'http://127.0.0.1:1/v2' });
    const r = await runPfc(['correct', 'in', ...emu.webArgs, '--json', '--yes'], { cwd: dir, env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`Using the Web API at ${emu.web}.`);
    expect(summaryOf(r.stdout)).toMatchObject({ corrected: 2 });
  });

  it('--container-url over PFC_CONTAINER_URL (pointing where nothing listens)', async () => {
    const dir = twoPhotos();
    const env = cleanEnv({ PFC_CONTAINER_URL: 'http://127.0.0.1:1' });
    const r = await runPfc(['correct', 'in', '--container-url', emu.urls.container!, '--json'], { cwd: dir, env });
    expect(r.code, r.stderr).toBe(0);
    expect(summaryOf(r.stdout)).toMatchObject({ corrected: 2 });
  });
});

describe('pfc without a command, and help on an unknown topic', () => {
  it('`pfc` alone prints the help and exits 2 (a usage error); `pfc --help` exits 0', async () => {
    const bare = await runPfc([]);
    expect(bare.code).toBe(2);
    expect(bare.stdout).toMatch(/^Usage: pfc <command> \[options\]/);
    const help = await runPfc(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toBe(bare.stdout);
  });

  it('`pfc help nope` prints the main help and exits 2; `pfc help correct` exits 0 with the command\'s help', async () => {
    const unknown = await runPfc(['help', 'nope']);
    expect(unknown.code).toBe(2);
    expect(unknown.stdout).toMatch(/^Usage: pfc <command> \[options\]/);
    const known = await runPfc(['help', 'correct']);
    expect(known.code).toBe(0);
    expect(known.stdout).toMatch(/^Usage: pfc correct <paths\.\.\.> \[options\]/);
  });

  it('`pfc restore` without a folder is a usage error (exit 2) saying what it takes, without a stack trace', async () => {
    const r = await runPfc(['restore'], { cwd: mkdtempSync(join(tmpdir(), 'pfc-flags-')) });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('pfc: no folder: pfc restore <folder> [files...] (see: pfc restore --help)\n');
  });
});

describe('a Web API address the client cannot use', () => {
  const env = cleanEnv({ PFC_API_KEY: 'sk-never-sent-in-clear' });

  it.each([
    [['correct', 'in', '--backend', 'web', '--base-url', 'http://api.example.com/v2', '--yes'], 'the base address http://api.example.com is plain http:// to a computer on the internet, so the API key would cross the network unencrypted: use https://'],
    [['presets', 'list', '--base-url', 'http://api.example.com/v2'], 'the base address http://api.example.com is plain http:// to a computer on the internet'],
    [['correct', 'in', '--backend', 'web', '--base-url', 'ftp://files.example.com/v2', '--yes'], 'the Web API address cannot be used: Invalid URL: ftp://files.example.com/v2'],
  ])('%j is a usage error (exit 2) saying why, without a stack trace or the key, and nothing is written', async (args, message) => {
    const dir = twoPhotos();
    const r = await runPfc(args, { cwd: dir, env });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`pfc: ${message.startsWith('the Web API') ? '' : 'the Web API address cannot be used: '}${message}`);
    expect(r.stderr).not.toMatch(/\n\s+at |sk-never-sent-in-clear/);
    expect(existsSync(join(dir, 'in/corrected'))).toBe(false);
  });
});
