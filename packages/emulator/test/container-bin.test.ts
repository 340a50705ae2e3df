/**
 * The container flags and PFC_* variables of the `pfc-emulator` bin: the ready
 * line gains "container" and "bgr", and both servers do their work.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { selfHostedOptionsFrom } from '../src/container/cli';
import { COFFEE } from './helpers';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const bin = join(root, 'node_modules/.bin/pfc-emulator');
const children: ChildProcess[] = [];
const dirs: string[] = [];

function startBin(args: string[], env: Record<string, string> = {}): Promise<Record<string, string>> {
  const child = spawn(bin, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  children.push(child);
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', (line) => resolve(JSON.parse(line) as Record<string, string>));
    child.once('exit', (code) => reject(new Error(`pfc-emulator exited (${code}) before ready: ${stderr}`)));
  });
}

afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGTERM');
});
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('pfc-emulator: container flags', () => {
  it('prints container and bgr base URLs; flags and PFC_* variables configure them', async () => {
    const base = mkdtempSync(join(tmpdir(), 'pfc-bin-'));
    dirs.push(base);
    const [input, output, presets] = ['in', 'out', 'presets'].map((d) => join(base, d));
    mkdirSync(presets!);
    writeFileSync(join(presets!, 'Studio.preset'), 'x');
    const ready = await startBin(
      ['--web-port', '0', '--input-dir', input!, '--output-dir', output!, '--presets-dir', presets!, '--license-key', 'LK-1', '--site-url', 'http://studio.example:9000'],
      { PFC_PRESERVE_INPUT_FILENAME: 'true' },
    );
    expect(Object.keys(ready).sort()).toEqual(['bgr', 'container', 'storage', 'web']);
    expect(ready.container).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(ready.bgr).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    // Direct file access through the mounted folders, output under the same name.
    writeFileSync(join(input!, 'shot.jpg'), COFFEE);
    const r = (await (await fetch(`${ready.container}/pfc/shot.jpg?preset=Studio`)).json()) as { corrected_url: string; scene: number };
    expect(r.corrected_url).toBe('http://studio.example:9000/output/shot.jpg');
    // The bin runs both containers on the default imaging engine: a detected scene (not -1), the segmentation model.
    expect(r.scene).toBeGreaterThanOrEqual(0);
    expect(readdirSync(output!)).toEqual(['shot.jpg']);
    expect((await (await fetch(`${ready.bgr}/Authorize/other`)).json()) as object).toMatchObject({ status: 'Unlicensed' });
    expect((await (await fetch(`${ready.bgr}/Authorize/LK-1`)).json()) as object).toMatchObject({ status: 'Licensed' });
    expect((await (await fetch(`${ready.bgr}/Status`)).json()) as object).toMatchObject({ model_version: 'emulator-engine-segmentation' });
    // The first correction loads the engine's models in the child: room for a loaded machine.
  }, 120_000);

  it('--container-port off / --bgr-port off leave a server out; bad values are usage errors that never echo the key', async () => {
    const ready = await startBin(['--web-port', '0', '--container-port', 'off', '--bgr-port', '0']);
    expect(Object.keys(ready).sort()).toEqual(['bgr', 'storage', 'web']);
    const bad = await promisify(execFile)(bin, ['--web-port', '0', '--cache-ttl-minutes', 'never', '--license-key', 'SECRET-KEY-9']).catch((e: { code: number; stderr: string }) => e);
    expect((bad as { code: number }).code).toBe(2);
    expect((bad as { stderr: string }).stderr).toMatch(/--cache-ttl-minutes must be a number of minutes above 0/);
    expect((bad as { stderr: string }).stderr).not.toMatch(/SECRET-KEY-9/);
  });

  it('defaults to ports 8081 and 8000, or free ports when --web-port is 0; env ports and flags win in that order', () => {
    expect(selfHostedOptionsFrom({}, {})).toMatchObject({ container: { port: 8081 }, bgr: { port: 8000 } });
    expect(selfHostedOptionsFrom({}, {}, true)).toMatchObject({ container: { port: 0 }, bgr: { port: 0 } });
    expect(selfHostedOptionsFrom({ 'bgr-port': '9001' }, { PFC_BGR_PORT: '9000', PFC_CONTAINER_PORT: '9002', PFC_LICENSE_KEY: 'K' })).toMatchObject({
      container: { port: 9002 },
      bgr: { port: 9001, licenseKey: 'K' },
    });
    expect(() => selfHostedOptionsFrom({ 'container-port': '70000' }, {})).toThrow(/--container-port must be a port from 0 to 65535, or off/);
  });
});
