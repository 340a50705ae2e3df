/**
 * Checks before sending, unreadable inputs, and the API key's ways in — through
 * the built `pfc` on real folders, against an emulator whose counters show that
 * nothing was uploaded when a run is refused.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, copySamples, emulator, PFC_BIN, type PfcRun, runPfc, summaryOf, TEST_KEY } from './helpers';

/** Run `pfc` with `input` on its stdin. */
function runWithStdin(args: string[], input: string, cwd: string): Promise<PfcRun> {
  const child = spawn(process.execPath, [PFC_BIN, ...args], { cwd, env: cleanEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdin.end(input);
  return new Promise((res, rej) => {
    child.on('error', rej);
    child.on('close', (code, signal) => res({ code, signal, stdout, stderr }));
  });
}

describe('pfc checks before sending anything', () => {
  let emu: Awaited<ReturnType<typeof emulator>>;
  const webArgs = () => ['--backend', 'web', '--base-url', emu.web, '--api-key-file', join(dir, 'key.txt')];
  const dir = copySamples();
  writeFileSync(join(dir, 'key.txt'), `${TEST_KEY}\n`);
  beforeAll(async () => {
    emu = await emulator();
  });
  afterAll(() => emu.close());

  it('refuses an output folder that cannot be written (exit 2, nothing uploaded)', async () => {
    writeFileSync(join(dir, 'a-file'), 'not a folder');
    const underFile = await runPfc(['correct', 'photos', '-o', 'a-file/out', ...webArgs()], { cwd: dir });
    expect(underFile.code, underFile.stderr).toBe(2);
    expect(underFile.stderr).toMatch(/cannot write results to a-file\/out.*: a-file is a file, not a folder/);
    // Nobody may create files in /proc, not even root (access() would say yes to root).
    const proc = await runPfc(['correct', 'photos', '-o', '/proc/pfc-out', ...webArgs()], { cwd: dir });
    expect(proc.code, proc.stderr).toBe(2);
    expect(proc.stderr).toMatch(/cannot write results to \/proc\/pfc-out/);
    expect(emu.uploads()).toBe(0);
  });

  it('refuses a --preset that is neither built in nor a custom preset of the account, suggesting the right case', async () => {
    const r = await runPfc(['correct', 'photos', '--preset', 'pro', ...webArgs()], { cwd: dir });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/--preset "pro" is neither a built-in preset nor a custom preset of this account \(did you mean "Pro"\?\)/);
    expect(emu.uploads()).toBe(0);
    expect(existsSync(join(dir, 'photos/corrected'))).toBe(false);
    // A custom preset of the account is accepted.
    writeFileSync(join(dir, 'house.preset'), JSON.stringify({ format: 'pfc-engine-preset', version: 1, params: { warmth: 0.2 } }));
    const created = await runPfc(['presets', 'create', 'house.preset', '--name', 'House Style', ...webArgs().slice(2)], { cwd: dir });
    expect(created.code, created.stderr).toBe(0);
    const custom = await runPfc(['correct', 'photos/outdoors', '--preset', 'House Style', '--json', ...webArgs()], { cwd: dir });
    expect(custom.code, custom.stderr).toBe(0);
    expect(summaryOf(custom.stdout)).toMatchObject({ corrected: 1 });
  });

  it.runIf(process.platform === 'linux')('counts an input that cannot be read as failed (exit 1), not as left out', async () => {
    // /proc/self/mem is a regular file nobody can read from its start (EIO), root included.
    const r = await runPfc(['correct', 'photos/outdoors/rocket.jpg', '/proc/self/mem', '-o', 'out-unreadable', ...webArgs()], { cwd: dir });
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).toMatch(/Failed \(1\):\n {2}\/proc\/self\/mem: cannot be read/);
    expect(r.stdout).toMatch(/1 corrected, 0 up to date, 1 failed, 0 left out/);
    const json = await runPfc(['correct', 'photos/outdoors/rocket.jpg', '/proc/self/mem', '-o', 'out-unreadable', '--json', ...webArgs()], { cwd: dir });
    expect(json.code).toBe(1);
    expect(summaryOf(json.stdout)).toMatchObject({ failed: 1, excluded: 0, exitCode: 1, failures: [{ input: '/proc/self/mem', errorName: 'InputUnreadableError' }] });
  });
});

describe('pfc and long file names', () => {
  it('corrects a photo whose name is 255 bytes long (the temporary name stays short)', async () => {
    const dir = copySamples();
    const name = `${'é'.repeat(100)}${'a'.repeat(51)}.jpg`;
    expect(Buffer.byteLength(name)).toBe(255);
    mkdirSync(join(dir, 'long'));
    copyFileSync(join(dir, 'photos/objects/coffee.jpg'), join(dir, 'long', name));
    const r = await runPfc(['correct', 'long', '--json'], { cwd: dir });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(summaryOf(r.stdout)).toMatchObject({ corrected: 1, failed: 0 });
    expect(readdirSync(join(dir, 'long/corrected')).filter((n) => !n.startsWith('.'))).toEqual([name]);
  });

  it('names a file or folder whose name is not valid UTF-8 as such, and corrects the rest', async () => {
    const dir = copySamples();
    mkdirSync(join(dir, 'zip'));
    // "café" in Latin-1 (as an old zip archive writes it): byte 0xE9 alone is no UTF-8.
    const latin1 = (name: string) => Buffer.concat([Buffer.from(join(dir, 'zip') + '/'), Buffer.from(name, 'latin1')]);
    copyFileSync(join(dir, 'photos/objects/coffee.jpg'), latin1('caf\u00e9.jpg'));
    mkdirSync(latin1('caf\u00e9'));
    copyFileSync(join(dir, 'photos/objects/coffee.jpg'), Buffer.concat([latin1('caf\u00e9'), Buffer.from('/in.jpg')]));
    copyFileSync(join(dir, 'photos/outdoors/rocket.jpg'), join(dir, 'zip/fine.jpg'));
    const r = await runPfc(['correct', 'zip'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^ {2}zip\/caf\uFFFD\.jpg: cannot be read: its name is not valid UTF-8, which pfc cannot address; rename it/m);
    expect(r.stdout).toMatch(/^ {2}zip\/caf\uFFFD: folder cannot be read: its name is not valid UTF-8/m);
    expect(readdirSync(join(dir, 'zip/corrected'))).toContain('fine.jpg');
  });
});

describe('pfc and the API key', () => {
  let emu: Awaited<ReturnType<typeof emulator>>;
  const dir = copySamples();
  beforeAll(async () => {
    emu = await emulator();
  });
  afterAll(() => emu.close());
  const base = () => ['correct', 'photos/outdoors', '--backend', 'web', '--base-url', emu.web, '--json', '--force'];

  it('warns when the key is on the command line (visible in ps), and works', async () => {
    const r = await runPfc([...base(), '--api-key', TEST_KEY], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/warning: --api-key is visible to other users of this machine \(ps\).*--api-key-file FILE or --api-key-stdin/);
    expect(r.stdout + r.stderr).not.toContain(TEST_KEY);
  });

  it('reads the key from a file (trailing newline ignored) or from stdin, without a warning and without showing it', async () => {
    writeFileSync(join(dir, 'key.txt'), `${TEST_KEY}\n`);
    const fromFile = await runPfc([...base(), '--api-key-file', 'key.txt'], { cwd: dir });
    expect(fromFile.code, fromFile.stderr).toBe(0);
    expect(summaryOf(fromFile.stdout)).toMatchObject({ corrected: 1 });
    const fromStdin = await runWithStdin([...base(), '--api-key-stdin'], `${TEST_KEY}\n`, dir);
    expect(fromStdin.code, fromStdin.stderr).toBe(0);
    const dash = await runWithStdin([...base(), '--api-key-file', '-'], TEST_KEY, dir);
    expect(dash.code, dash.stderr).toBe(0);
    for (const r of [fromFile, fromStdin, dash]) {
      expect(r.stderr).not.toMatch(/warning/);
      expect(r.stdout + r.stderr).not.toContain(TEST_KEY);
    }
    // The key really was used: a wrong one in the file is refused by the service.
    writeFileSync(join(dir, 'wrong.txt'), `${TEST_KEY}-wrong\n`);
    const wrong = await runPfc([...base(), '--api-key-file', 'wrong.txt'], { cwd: dir });
    expect(wrong.code).toBe(1);
    expect(wrong.stdout + wrong.stderr).toMatch(/401/);
  });

  it('refuses an empty or missing key file and two key sources at once (exit 2), naming the flag', async () => {
    writeFileSync(join(dir, 'empty.txt'), '\n');
    const empty = await runPfc([...base(), '--api-key-file', 'empty.txt'], { cwd: dir });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/--api-key-file empty\.txt holds no API key/);
    const missing = await runPfc([...base(), '--api-key-file', 'nope.txt'], { cwd: dir });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--api-key-file nope\.txt cannot be read \(ENOENT\)/);
    const both = await runPfc([...base(), '--api-key', 'x', '--api-key-file', 'empty.txt'], { cwd: dir });
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/--api-key and --api-key-file cannot be combined/);
  });

  it('says in the help that --api-key shows in ps, and offers the safe ways', async () => {
    const help = await runPfc(['correct', '--help']);
    expect(help.stdout).toMatch(/--api-key KEY.*\n.*ps/);
    expect(help.stdout).toMatch(/--api-key-file FILE/);
    expect(help.stdout).toMatch(/--api-key-stdin/);
  });
});
