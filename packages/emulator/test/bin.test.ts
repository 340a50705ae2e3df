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
      expect(Object.keys(ready)).toEqual(['web']);
      expect(ready.web).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v2$/);
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

  it('exits 0 on SIGINT too', async () => {
    const { child } = await startBin(['--web-port', '0']);
    child.kill('SIGINT');
    expect(await exited(child)).toEqual({ code: 0, signal: null });
  });

  it('refuses a bad flag with a message naming it and exit code 2', async () => {
    const child = spawn(bin, ['--workers', '0'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    expect((await exited(child)).code).toBe(2);
    expect(stderr).toMatch(/--workers must be an integer from 1 to 64/);
  });
});
