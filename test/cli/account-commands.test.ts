/**
 * `pfc status` and `pfc presets` as a user meets them, found unwatched by hand
 * mutations of packages/cli/src: the exit code says how the job went, a
 * mistake on the command line is a usage error (exit 2) before anything is
 * created, and a refused key or an unreachable address is said with a hint
 * of what to check, the key never shown.
 */
import { writeFileSync, mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, copySamples, emulator, jsonLines, runPfc, TEST_KEY } from './helpers';

/** An address where nothing listens (a port just freed). */
async function closedAddress(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/v2`;
}

describe('pfc status and pfc presets', () => {
  let emu: Awaited<ReturnType<typeof emulator>>;
  let web: string[];
  const dir = mkdtempSync(join(tmpdir(), 'pfc-account-'));
  beforeAll(async () => {
    emu = await emulator();
    writeFileSync(join(dir, 'key.txt'), `${TEST_KEY}\n`);
    web = ['--base-url', emu.web, '--api-key-file', join(dir, 'key.txt')];
  });
  afterAll(() => emu.close());

  it('pfc status exits 1 for a job that FAILED (0 for one that completed)', async () => {
    const photos = copySamples();
    emu.setFaults({ jobs: { failRate: 1, count: 1 } });
    let jobId: string;
    try {
      const r = await runPfc(['correct', 'photos/outdoors', ...web, '--backend', 'web', '--json'], { cwd: photos });
      expect(r.code, r.stderr).toBe(1);
      jobId = String(jsonLines(r.stdout).find((l) => l.type === 'failed')?.jobId);
    } finally {
      emu.setFaults({});
    }
    const failed = await runPfc(['status', jobId, ...web], { cwd: dir });
    expect(failed.stdout).toMatch(new RegExp(`^job ${jobId}: FAILED`));
    expect(failed.code).toBe(1);
    const json = await runPfc(['status', jobId, ...web, '--json'], { cwd: dir });
    expect(JSON.parse(json.stdout)).toMatchObject({ _id: jobId, status: 'FAILED' });
    expect(json.code).toBe(1);
  });

  it.each([
    [['status', 'a', 'b'], /pfc status takes one job id/],
    [['presets'], /^$/],
    [['presets', 'get', 'a', 'b'], /unexpected argument "b"/],
    [['presets', 'list', 'x'], /pfc presets list takes no argument \(got "x"\)/],
    [['presets', 'delete'], /pfc presets delete needs a presetId/],
    [['presets', 'create', 'warm.preset'], /pfc presets create needs --name NAME/],
  ])('%j is a usage error (exit 2) and changes nothing on the account', async (args, message) => {
    writeFileSync(join(dir, 'warm.preset'), JSON.stringify({ format: 'pfc-engine-preset', version: 1, params: { warmth: 0.4 } }));
    const r = await runPfc([...args, ...web], { cwd: dir });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(message);
    const list = await runPfc(['presets', 'list', ...web, '--json'], { cwd: dir });
    expect(list.code, list.stderr).toBe(0);
    expect(jsonLines(list.stdout)).toEqual([]);
  });

  it('a refused key: exit 1, saying to check the key (PFC_API_KEY), the key itself never shown', async () => {
    const wrong = `${TEST_KEY}-wrong`;
    writeFileSync(join(dir, 'wrong.txt'), `${wrong}\n`);
    const r = await runPfc(['presets', 'list', '--base-url', emu.web, '--api-key-file', join(dir, 'wrong.txt')], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^pfc: .*401.* \(check the API key: PFC_API_KEY or --api-key\)$/m);
    expect(r.stdout + r.stderr).not.toContain(TEST_KEY);
  });

  it('an address where nothing listens: exit 1, saying to check --base-url, the key never shown', async () => {
    const r = await runPfc(['presets', 'list', '--base-url', await closedAddress(), '--api-key-file', join(dir, 'key.txt')], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/\(check --base-url and your network\)$/m);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.stdout + r.stderr).not.toContain(TEST_KEY);
  }, 60_000);

  it.each([
    ['two lines', `${TEST_KEY}\nsecond-line\n`],
    ['a space inside', `${TEST_KEY} x\n`],
    ['a control character', `${TEST_KEY}\x1b[2J\n`],
  ])('a key file holding %s is a usage error naming the file (exit 2), the key never shown', async (_what, content) => {
    writeFileSync(join(dir, 'odd-key.txt'), content);
    const r = await runPfc(['presets', 'list', '--base-url', emu.web, '--api-key-file', 'odd-key.txt'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('pfc: --api-key-file odd-key.txt holds more than one line or control characters: an API key is one line');
    expect(r.stdout + r.stderr).not.toContain(TEST_KEY);
  });

  it('PFC_API_KEY holding two lines is a usage error naming the variable (exit 2), before any request, the key never shown', async () => {
    const photos = copySamples();
    const before = emu.stats().requests;
    const env = cleanEnv({ PFC_API_KEY: `${TEST_KEY}\nsecond-line` });
    const presets = await runPfc(['presets', 'list', '--base-url', emu.web], { cwd: dir, env });
    const correct = await runPfc(['correct', 'photos/outdoors', '--base-url', emu.web, '--yes'], { cwd: photos, env });
    for (const r of [presets, correct]) {
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain('pfc: PFC_API_KEY holds more than one line or control characters: an API key is one line');
      expect(r.stdout + r.stderr).not.toContain(TEST_KEY);
      expect(r.stdout + r.stderr).not.toContain('second-line');
    }
    expect(emu.stats().requests).toEqual(before);
  });
});
