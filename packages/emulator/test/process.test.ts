/**
 * The emulator in a process of its own (`@pfc/emulator/process`, as the VS
 * Code extension runs it): a correction through it, the work done in the
 * child (not here), and every way it ends — `close()`, a kill, its parent's
 * death — leaving no process and no temporary data folder behind.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { WebApiClient } from '@pfc/core';
import { processAlive } from '@pfc/node-io';
import { startEmulatorProcess, type EmulatorProcess } from '@pfc/emulator/process';
import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import { COFFEE } from './helpers';

const running: EmulatorProcess[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((e) => e.close(2_000)));
});

async function start(): Promise<EmulatorProcess> {
  const emu = await startEmulatorProcess({ host: '127.0.0.1' });
  running.push(emu);
  return emu;
}

/** The process runs: it exists and is not a zombie waiting for a parent to reap it (an orphan's new parent may be slow to). */
const alive = (pid: number): boolean => processAlive(pid) && !/^\S+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));

/** Waits until `check` holds (polled every 50 ms), failing after `ms`. */
async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The CPU time (user + system, clock ticks) a process has used, from /proc. */
const cpuTicks = (pid: number): number => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return Number(fields[11]) + Number(fields[12]);
};

/** A Node process that starts an emulator process, then runs `then`; with the emulator's process id and data folder. */
async function parentOfEmulator(then: string): Promise<{ parent: ChildProcess; pid: number; dataDir: string }> {
  const script = `
    const { startEmulatorProcess } = await import('@pfc/emulator/process');
    const emu = await startEmulatorProcess({ host: '127.0.0.1' });
    process.stdout.write(JSON.stringify({ pid: emu.pid, dataDir: emu.dataDir }) + '\\n');
    ${then}`;
  const parent = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: import.meta.dirname, stdio: ['pipe', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    parent.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve(out.split('\n')[0]!);
    });
    parent.once('exit', (code) => reject(new Error(`parent exited (${code})`)));
  });
  return { parent, ...(JSON.parse(line) as { pid: number; dataDir: string }) };
}

describe('startEmulatorProcess', () => {
  it('corrects a photo through the Web API in a child process: the engine works there, not in the caller', async () => {
    const emu = await start();
    expect(emu.pid).not.toBe(process.pid);
    expect(readFileSync(`/proc/${emu.pid}/cmdline`, 'utf8')).toContain('child.js');
    const childBefore = cpuTicks(emu.pid);
    expect(emu.finishedAJob()).toBe(false);
    const client = new WebApiClient({ apiKey: 'k', baseURL: emu.web });
    const { bytes } = await client.correctBytes(new Blob([COFFEE]), {});
    // Told over the channel within 0.2 s.
    await until(() => emu.finishedAJob(), 2_000);
    const [a, b] = await Promise.all([sharp(COFFEE).metadata(), sharp(bytes).metadata()]);
    expect([b.format, b.width, b.height]).toEqual([a.format, a.width, a.height]);
    expect(Buffer.compare(Buffer.from(bytes), COFFEE)).not.toBe(0);
    // The decode, the look and the encode took the child's CPU (a correction of this photo costs well over 10 ms).
    expect(cpuTicks(emu.pid) - childBefore).toBeGreaterThan(1);
    expect(existsSync(emu.dataDir)).toBe(true);
  });

  it('close() stops it: the port refuses, the process is gone, its temporary data folder removed', async () => {
    const emu = await start();
    const exit = await emu.close();
    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(alive(emu.pid)).toBe(false);
    expect(existsSync(emu.dataDir)).toBe(false);
    await expect(fetch(`${emu.web}/presets`, { headers: { 'X-API-KEY': 'k' } })).rejects.toThrow();
    expect(await emu.close()).toBe(exit);
  });

  it('a killed child shows as its exit, and the temporary data folder it could not remove (copies of the photos it was given) is removed by its launcher', async () => {
    const emu = await start();
    const client = new WebApiClient({ apiKey: 'k', baseURL: emu.web });
    await client.correctBytes(new Blob([COFFEE]), {});
    expect(existsSync(emu.dataDir)).toBe(true);
    process.kill(emu.pid, 'SIGKILL');
    expect(await emu.exited).toMatchObject({ code: null, signal: 'SIGKILL' });
    expect(existsSync(emu.dataDir)).toBe(false);
  });

  it('a data folder of its own is never removed by its launcher, however it ends', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'pfc-own-data-'));
    try {
      const emu = await startEmulatorProcess({ host: '127.0.0.1', dataDir });
      running.push(emu);
      process.kill(emu.pid, 'SIGKILL');
      await emu.exited;
      expect(existsSync(dataDir)).toBe(true);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('ends with its parent, even one killed outright, and removes its temporary data folder', async () => {
    const { parent, pid, dataDir } = await parentOfEmulator('setInterval(() => {}, 1000);');
    expect(alive(pid)).toBe(true);
    expect(existsSync(dataDir)).toBe(true);
    parent.kill('SIGKILL');
    await until(() => !alive(pid));
    expect(existsSync(dataDir)).toBe(false);
  });

  it('a parent that ends by process.exit (a second Ctrl-C) kills it and removes its temporary data folder before it is gone', async () => {
    const { parent, pid, dataDir } = await parentOfEmulator("process.stdin.once('data', () => process.exit(130));");
    // Seen the moment the parent has gone: nothing was left for later.
    const atExit = new Promise<{ code: number | null; child: boolean; folder: boolean }>((resolve) => {
      parent.once('exit', (code) => resolve({ code, child: alive(pid), folder: existsSync(dataDir) }));
    });
    parent.stdin!.write('\n');
    expect(await atExit).toEqual({ code: 130, child: false, folder: false });
  });

  it('a Ctrl-C or a closed terminal (SIGINT, SIGHUP: sent to the whole process group) does not stop it: its parent decides', async () => {
    const emu = await start();
    process.kill(emu.pid, 'SIGINT');
    process.kill(emu.pid, 'SIGHUP');
    await new Promise((r) => setTimeout(r, 300));
    expect(alive(emu.pid)).toBe(true);
    expect((await fetch(`${emu.web}/presets`, { headers: { 'X-API-KEY': 'k' } })).status).toBe(200);
    expect(await emu.close()).toMatchObject({ code: 0, signal: null });
  });

  it('a child that cannot start rejects with its reason, and leaves no process', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const port = (taken.address() as { port: number }).port;
      await expect(startEmulatorProcess({ host: '127.0.0.1', webPort: port })).rejects.toThrow(/could not start: .*EADDRINUSE/);
    } finally {
      taken.close();
    }
  });

  it('takes its options over the IPC channel, not on its command line; with the same signing secret, an address issued by an earlier one is "no longer known" (404), not forged (403)', async () => {
    const options = { host: '127.0.0.1', apiKeys: ['key-never-on-a-command-line'], signingSecret: 'secret-never-on-a-command-line' };
    const first = await startEmulatorProcess(options);
    running.push(first);
    const cmdline = readFileSync(`/proc/${first.pid}/cmdline`, 'utf8');
    expect(cmdline).not.toContain('never-on-a-command-line');
    // An upload ticket from the first, then the first is gone and another starts at its address.
    const ticket = (await (await fetch(`${first.web}/upload`, { headers: { 'X-API-KEY': options.apiKeys[0]! } })).json()) as { uploadUrl: string };
    const ports = { webPort: Number(new URL(first.web).port), storage: { port: Number(new URL(first.urls.storage!).port) } };
    await first.close();
    const second = await startEmulatorProcess({ ...options, ...ports });
    running.push(second);
    expect(second.web).toBe(first.web);
    const put = await fetch(ticket.uploadUrl, { method: 'PUT', body: COFFEE });
    expect(put.status).toBe(404);
    expect(await put.text()).toContain('NoSuchUpload');
    // Another secret: the same address is refused as forged.
    await second.close();
    const third = await startEmulatorProcess({ ...options, ...ports, signingSecret: 'another secret' });
    running.push(third);
    expect((await fetch(ticket.uploadUrl, { method: 'PUT', body: COFFEE })).status).toBe(403);
  });
});
