/** pfc presets, pfc status, pfc emulator, help and version: the built binary against the emulator. */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, copySamples, emulator, jsonLines, PFC_BIN, runPfc, TEST_KEY } from './helpers';

describe('pfc presets and status', () => {
  let emu: Awaited<ReturnType<typeof emulator>>;
  let web: string[];
  const dir = mkdtempSync(join(tmpdir(), 'pfc-presets-'));
  beforeAll(async () => {
    emu = await emulator();
    // The key from a file, as users are told to (--api-key on the command line draws a warning).
    writeFileSync(join(dir, 'key.txt'), `${TEST_KEY}\n`);
    web = ['--base-url', emu.web, '--api-key-file', join(dir, 'key.txt')];
  });
  afterAll(() => emu.close());

  it('creates, lists, gets, downloads and deletes a preset, and corrects with it by name', async () => {
    const file = join(dir, 'warm.preset');
    // A preset in the engine's format (packages/engine README), so the job applies it without a note in statusText.
    const content = JSON.stringify({ format: 'pfc-engine-preset', version: 1, params: { warmth: 0.4 }, comment: 'x'.repeat(2000) });
    writeFileSync(file, content);
    const created = await runPfc(['presets', 'create', 'warm.preset', '--name', 'Warm look', '--description', 'for tests', ...web, '--json'], { cwd: dir });
    expect(created.code, created.stderr).toBe(0);
    const { presetId } = JSON.parse(created.stdout) as { presetId: string };
    expect(presetId).toMatch(/^[0-9a-f-]{36}$/);

    const list = await runPfc(['presets', 'list', ...web], { cwd: dir });
    expect(list.stdout).toBe(`Warm look\t${presetId}\tfor tests\n`);
    const listed = jsonLines((await runPfc(['presets', 'list', ...web, '--json'], { cwd: dir })).stdout);
    expect(listed).toEqual([expect.objectContaining({ presetId, name: 'Warm look', description: 'for tests' })]);
    const got = await runPfc(['presets', 'get', presetId, ...web], { cwd: dir });
    expect(JSON.parse(got.stdout)).toMatchObject({ presetId, name: 'Warm look' });

    const dl = await runPfc(['presets', 'download', presetId, ...web], { cwd: dir });
    expect(dl.code, dl.stderr).toBe(0);
    expect(dl.stdout).toMatch(/^Saved Warm look\.preset \(\d+ bytes\)\.$/m);
    expect(readFileSync(join(dir, 'Warm look.preset'), 'utf8')).toBe(content);

    const photos = copySamples();
    const corrected = await runPfc(['correct', 'photos/outdoors', ...web, '--backend', 'web', '--preset', 'Warm look', '--json'], { cwd: photos });
    expect(corrected.code, corrected.stdout + corrected.stderr).toBe(0);
    const jobId = String(jsonLines(corrected.stdout).find((l) => l.type === 'corrected')?.jobId);

    const status = await runPfc(['status', jobId, ...web], { cwd: dir });
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(new RegExp(`^job ${jobId}: COMPLETED\nresult: http://127\\.0\\.0\\.1:\\d+/`));
    const statusJson = JSON.parse((await runPfc(['status', jobId, ...web, '--json'], { cwd: dir })).stdout) as { _id: string; status: string };
    expect(statusJson).toMatchObject({ _id: jobId, status: 'COMPLETED' });

    expect((await runPfc(['presets', 'delete', presetId, ...web], { cwd: dir })).stdout).toBe(`Deleted preset ${presetId}.\n`);
    expect((await runPfc(['presets', 'list', ...web], { cwd: dir })).stderr).toBe('No custom presets.\n');
    const gone = await runPfc(['presets', 'get', presetId, ...web], { cwd: dir });
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/404/);
    for (const r of [created, list, got, dl, status, gone]) expect(r.stdout + r.stderr).not.toContain(TEST_KEY);
  });

  it('needs a key for account commands, and names what is missing', async () => {
    const r = await runPfc(['presets', 'list', '--base-url', emu.web]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/pfc presets needs a Web API key: set PFC_API_KEY, or pass --api-key-file FILE or --api-key-stdin/);
    expect((await runPfc(['presets', 'rename', 'x', ...web])).stderr).toMatch(/unknown presets action "rename"/);
    expect((await runPfc(['status', ...web])).code).toBe(2);
  });
});

describe('pfc emulator, help and version', () => {
  it('runs the emulator server (same as pfc-emulator) until stopped', async () => {
    const child = spawn(process.execPath, [PFC_BIN, 'emulator', '--web-port', '0'], { env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    const ready = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('\n')) resolve(out.split('\n')[0]!);
      });
      child.on('exit', (code) => reject(new Error(`pfc emulator exited ${code}`)));
    });
    const { web } = JSON.parse(ready) as { web: string };
    const res = await fetch(`${web}/upload`, { headers: { 'X-API-KEY': 'any-key' } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ fileKey: expect.any(String) });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('prints help and version', async () => {
    const help = await runPfc(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/correct <paths\.\.\.>/);
    const correctHelp = await runPfc(['correct', '--help']);
    expect(correctHelp.stdout).toMatch(/Exit codes: 0 all done, 1 some file failed or could not be read, 2 usage error/);
    expect((await runPfc(['help', 'presets'])).stdout).toMatch(/pfc presets list/);
    expect((await runPfc(['--version'])).stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    expect((await runPfc([])).code).toBe(2);
  });
});
