/**
 * The `pfc-emulator` bin as a user runs it: spawn, read the one ready line,
 * run the three documented steps with plain fetch, stop with SIGTERM.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import { COFFEE } from './helpers';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const bin = join(root, 'node_modules/.bin/pfc-emulator');
const children: ChildProcess[] = [];

/** Spawns the linked bin; resolves with the parsed ready line and all stdout lines seen. */
function startBin(args: string[]): Promise<{ child: ChildProcess; ready: Record<string, string>; lines: string[] }> {
  const child = spawn(bin, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  const lines: string[] = [];
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      lines.push(line);
      if (lines.length === 1) resolve({ child, ready: JSON.parse(line) as Record<string, string>, lines });
    });
    child.once('exit', (code) => reject(new Error(`pfc-emulator exited (${code}) before ready: ${stderr}`)));
  });
}

function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

describe('pfc-emulator bin', () => {
  it('is linked into the root node_modules/.bin by npm install', () => {
    expect(existsSync(bin)).toBe(true);
  });

  it('prints one JSON ready line, serves the three documented steps, and exits 0 on SIGTERM', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'pfc-emu-bin-'));
    try {
      const { child, ready, lines } = await startBin(['--web-port', '0', '--api-key', 'k-1', '--data-dir', dataDir]);
      // One JSON object of URLs: `web`, plus one key per container emulation when those are started.
      expect(ready.web).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v2$/);
      for (const url of Object.values(ready)) expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+/);
      const web = ready.web!;

      // 1. Upload ticket, then a plain PUT with no key and no Content-Type.
      const ticketRes = await fetch(`${web}/upload`, { headers: { 'X-API-KEY': 'k-1' } });
      expect(ticketRes.status).toBe(200);
      const ticket = (await ticketRes.json()) as { fileKey: string; uploadUrl: string; upload_url: string };
      expect(ticket.upload_url).toBe(ticket.uploadUrl);
      const put = await fetch(ticket.uploadUrl, { method: 'PUT', body: COFFEE });
      expect(put.status).toBe(200);
      expect(readdirSync(join(dataDir, 'uploads'))).toContain(ticket.fileKey);

      // 2. Start the job.
      const pfc = await fetch(`${web}/pfc?fileKey=${ticket.fileKey}&width=300&outputType=png`, { headers: { 'X-API-KEY': 'k-1' } });
      expect(pfc.status).toBe(200);
      const { statusEndpoint } = (await pfc.json()) as { statusEndpoint: string };
      expect(statusEndpoint).toMatch(new RegExp(`^${web}/status/[0-9a-f-]{36}$`));

      // 3. Poll without the key until the 302, then GET the file.
      let res: Response;
      const deadline = Date.now() + 25_000;
      for (;;) {
        res = await fetch(statusEndpoint, { redirect: 'manual' });
        if (res.status === 302 || Date.now() > deadline) break;
        expect(res.status).toBe(200);
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(res.status).toBe(302);
      const location = res.headers.get('location')!;
      const file = await fetch(location);
      expect(file.status).toBe(200);
      expect(file.headers.get('content-type')).toBe('image/png');
      const meta = await sharp(Buffer.from(await file.arrayBuffer())).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual(['png', 300, 200]);

      child.kill('SIGTERM');
      expect(await exited(child)).toEqual({ code: 0, signal: null });
      expect(lines).toHaveLength(1);
      // A data dir given by the user is kept.
      expect(existsSync(join(dataDir, 'outputs'))).toBe(true);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('applies fault flags and serves the control routes', async () => {
    const { child, ready } = await startBin(['--web-port', '0', '--control', '--fault-503', '1', '--fault-retry-after', '4', '--fault-seed', '3', '--faults', '{"jobs":{"rejectRate":1}}']);
    const res = await fetch(`${ready.web}/upload`, { headers: { 'X-API-KEY': 'any' } });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('4');
    const control = ready.web!.replace(/\/v2$/, '/_emulator');
    const faults = (await (await fetch(`${control}/faults`)).json()) as Record<string, unknown>;
    expect(faults).toEqual({ seed: 3, routes: { '*': { rate503: 1, retryAfterSeconds: 4 } }, jobs: { rejectRate: 1 } });
    const stats = (await (await fetch(`${control}/stats`)).json()) as { faults: Record<string, number> };
    expect(stats.faults['503']).toBe(1);
    child.kill('SIGTERM');
    expect((await exited(child)).code).toBe(0);
  });

  it('exits 0 on SIGINT too', async () => {
    const { child } = await startBin(['--web-port', '0']);
    child.kill('SIGINT');
    expect(await exited(child)).toEqual({ code: 0, signal: null });
  });

  it.each([
    [['--workers', '0'], /--workers must be an integer from 1 to 64/],
    [['--web-port', '70000'], /--web-port must be an integer from 0 to 65535/],
    [['--fault-429', '1.5'], /--fault-429 must be a number from 0 to 1/],
    [['--faults', '{"routes":{"x":{"rate500":3}}}'], /rate500 must be a share from 0 to 1/],
    [['--api-key', ''], /--api-key must not be empty/],
    [['--nonsense'], /Unknown option '--nonsense'/],
  ])('refuses %j with a message naming it and exit code 2', async (args, message) => {
    const child = spawn(bin, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let stderr = '';
    let stdout = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    expect((await exited(child)).code).toBe(2);
    expect(stderr).toMatch(message);
    expect(stdout).toBe('');
  });

  it('exits 1 with a clear message when the port is taken', async () => {
    const first = await startBin(['--web-port', '0']);
    const port = new URL(first.ready.web!).port;
    const child = spawn(bin, ['--web-port', port], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    expect((await exited(child)).code).toBe(1);
    expect(stderr).toMatch(/could not start: .*EADDRINUSE/);
  });
});
