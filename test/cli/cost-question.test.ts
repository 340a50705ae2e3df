/**
 * The cost question of `pfc correct` on a paid backend, asked on a real
 * terminal (a pseudo-terminal made by util-linux `script`): only "y" or "yes"
 * sends anything, Enter means no, `--json` never asks; the question is not
 * asked when the files to send are exactly `--confirm-above`. And the key is
 * never read from a terminal, where typing it would show it.
 */
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, emulator, PFC_BIN, runPfc, SAMPLES, summaryOf, TEST_KEY, until } from './helpers';

const hasScript = process.platform === 'linux' && spawnSync('script', ['--version']).status === 0;

/** Longest a run on the terminal may take (one or two photos on a loaded machine). */
const RUN_LIMIT_MS = 20_000;

const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * Run `pfc args` on a pseudo-terminal (stdin, stdout and stderr all a TTY). When the
 * output shows `waitFor`, `answer` is typed. Resolves to the exit code and everything shown.
 */
function onTerminal(args: string[], cwd: string, waitFor?: string, answer?: string): Promise<{ code: number | null; shown: string }> {
  const command = [process.execPath, PFC_BIN, ...args].map(quote).join(' ');
  const child = spawn('script', ['-qec', command, '/dev/null'], { cwd, env: cleanEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
  let shown = '';
  child.stdout.on('data', (d: Buffer) => (shown += d.toString()));
  child.stderr.on('data', (d: Buffer) => (shown += d.toString()));
  // A run left waiting on the terminal (a question not expected, a key read from it) fails here, not at the test's timeout;
  // killing script closes the terminal, which ends pfc (SIGHUP).
  const limit = setTimeout(() => child.kill('SIGKILL'), RUN_LIMIT_MS);
  const done = new Promise<{ code: number | null; shown: string }>((res, rej) => {
    child.on('error', rej);
    child.on('close', (code) => {
      clearTimeout(limit);
      res({ code, shown });
    });
  });
  if (waitFor !== undefined) {
    void until(() => shown.includes(waitFor), JSON.stringify(waitFor), RUN_LIMIT_MS).then(() => child.stdin.write(`${answer ?? ''}\r`), () => child.kill('SIGKILL'));
  }
  return done.finally(() => child.stdin.destroy());
}

/** A fresh folder holding `in/` with `n` (1–3) photos, and the API key in `key.txt`. */
function photos(n: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'pfc-cost-'));
  mkdirSync(join(dir, 'in'));
  ['objects/coffee.jpg', 'outdoors/rocket.jpg', 'portraits/astronaut.jpg'].slice(0, n).forEach((p, i) => copyFileSync(join(SAMPLES, p), join(dir, `in/p${i}.jpg`)));
  writeFileSync(join(dir, 'key.txt'), `${TEST_KEY}\n`);
  return dir;
}

describe.skipIf(!hasScript)('pfc correct asks on a terminal before sending more than --confirm-above files to the Web API', () => {
  let emu: Awaited<ReturnType<typeof emulator>>;
  beforeAll(async () => {
    emu = await emulator();
  });
  afterAll(() => emu.close());
  const args = () => ['correct', 'in', '--backend', 'web', '--base-url', emu.web, '--api-key-file', 'key.txt', '--confirm-above', '1'];
  const QUESTION = 'which bills per file? [y/N]';

  it.each([['n'], ['no'], [''], ['maybe']])('answered %j: nothing is sent (exit 2)', async (answer) => {
    const dir = photos(2);
    const before = emu.uploads();
    const r = await onTerminal(args(), dir, QUESTION, answer);
    expect(r.shown).toMatch(/Send 2 files \(.*\) to the Web API at .*, which bills per file\? \[y\/N\]/);
    expect(r.code, r.shown).toBe(2);
    expect(r.shown).toContain('Nothing sent.');
    expect(emu.uploads()).toBe(before);
  });

  it.each([['y'], ['YES']])('answered %j: the files are sent and corrected (exit 0)', async (answer) => {
    const dir = photos(2);
    const before = emu.jobs().length;
    const r = await onTerminal(args(), dir, QUESTION, answer);
    expect(r.code, r.shown).toBe(0);
    expect(r.shown).toMatch(/2 corrected, 0 up to date, 0 failed/);
    expect(emu.jobs().length).toBe(before + 2);
  });

  it('with --json it does not ask, even on a terminal: it refuses without --yes (exit 2)', async () => {
    const dir = photos(2);
    const before = emu.uploads();
    const r = await onTerminal([...args(), '--json'], dir);
    expect(r.code, r.shown).toBe(2);
    expect(r.shown).not.toContain('[y/N]');
    expect(r.shown).toMatch(/refusing to send 2 files .* without confirmation: pass --yes/);
    expect(emu.uploads()).toBe(before);
  });

  it('--api-key-stdin refuses to read the key from the terminal (it would be shown), before anything is sent', async () => {
    const dir = photos(1);
    const before = emu.uploads();
    const r = await onTerminal(['correct', 'in', '--backend', 'web', '--base-url', emu.web, '--api-key-stdin', '--yes'], dir);
    expect(r.code, r.shown).toBe(2);
    expect(r.shown).toContain('--api-key-stdin reads the key from a pipe or file');
    expect(emu.uploads()).toBe(before);
  });
});

describe('pfc correct sends exactly --confirm-above files without asking', () => {
  let emu: Awaited<ReturnType<typeof emulator>>;
  beforeAll(async () => {
    emu = await emulator();
  });
  afterAll(() => emu.close());

  it('counting only the files not up to date (no terminal, no --yes)', async () => {
    const web = ['--backend', 'web', '--base-url', emu.web, '--api-key-file', 'key.txt', '--json'];
    // Two files, --confirm-above 2: not asked.
    const two = await runPfc(['correct', 'in', ...web, '--confirm-above', '2'], { cwd: photos(2) });
    expect(two.code, two.stderr).toBe(0);
    expect(summaryOf(two.stdout)).toMatchObject({ corrected: 2 });
    const dir = photos(3);
    // Three by name, one of them up to date: two to send, --confirm-above 2: not asked.
    const first = await runPfc(['correct', 'in/p2.jpg', ...web, '--out', 'out'], { cwd: dir });
    expect(first.code, first.stderr).toBe(0);
    const three = await runPfc(['correct', 'in', ...web, '--out', 'out', '--confirm-above', '2'], { cwd: dir });
    expect(three.stderr).not.toMatch(/refusing/);
    expect(three.code, three.stderr).toBe(0);
    expect(summaryOf(three.stdout)).toMatchObject({ corrected: 2, upToDate: 1 });
  });
});
