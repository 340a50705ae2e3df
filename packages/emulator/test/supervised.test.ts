/**
 * `SupervisedEmulator` (the embedded emulator of the CLI and VS Code): one
 * emulator process, started again at the same address when it ends on its
 * own, its requests waiting meanwhile; counted, so a host can tell a job lost
 * in a crash; stopped for good by `close()`.
 */
import { processAlive } from '@pfc/node-io';
import { SupervisedEmulator, startEmulatorProcess, type SupervisedEmulatorEvent } from '@pfc/emulator/process';
import { afterEach, describe, expect, it, vi } from 'vitest';

const supervisors: SupervisedEmulator[] = [];
afterEach(async () => {
  await Promise.all(supervisors.splice(0).map((s) => s.close()));
});

function supervised(events: SupervisedEmulatorEvent[]): SupervisedEmulator {
  const s = new SupervisedEmulator({ start: startEmulatorProcess, process: { host: '127.0.0.1' }, onEvent: (e) => events.push(e) });
  supervisors.push(s);
  return s;
}

const presets = (url: string): Promise<number> => fetch(`${url}/presets`, { headers: { 'X-API-KEY': 'k' } }).then((r) => r.status);

describe('SupervisedEmulator', () => {
  it('an emulator killed outright is started again at the same address; requests wait for it; the crash is counted', async () => {
    const events: SupervisedEmulatorEvent[] = [];
    const s = supervised(events);
    const url = await s.url();
    const first = (await s.pid())!;
    expect(await presets(url)).toBe(200);
    expect(s.crashes()).toEqual({ count: 0 });

    process.kill(first, 'SIGKILL');
    await vi.waitFor(() => expect(events.map((e) => e.type)).toEqual(['started', 'ended', 'started']), { timeout: 30_000, interval: 20 });
    await s.ready();
    const second = (await s.pid())!;
    expect(second).not.toBe(first);
    expect(processAlive(first)).toBe(false);
    expect(await s.url()).toBe(url);
    expect(await presets(url)).toBe(200);
    expect(s.crashes()).toEqual({ count: 1, last: 'signal SIGKILL' });
    expect(events[1]!.message).toBe('the embedded emulator stopped on its own (signal SIGKILL); starting it again at the same address');
  }, 60_000);

  it('close() stops it for good: not started again, the process gone', async () => {
    const events: SupervisedEmulatorEvent[] = [];
    const s = supervised(events);
    const url = await s.url();
    const pid = (await s.pid())!;
    await s.close();
    expect(processAlive(pid)).toBe(false);
    await new Promise((r) => setTimeout(r, 500));
    expect(events.map((e) => e.type)).toEqual(['started']);
    expect(s.crashes()).toEqual({ count: 0 });
    await expect(presets(url)).rejects.toThrow();
  }, 60_000);
});
