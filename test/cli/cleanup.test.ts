/**
 * The embedded emulator keeps copies of the user's photos in a scratch folder
 * under TMPDIR. It must be gone after every way a run ends — signals, a second
 * Ctrl-C (immediate exit) — and folders left by a killed run are removed at the
 * next start, while anything that is not provably ours and dead stays.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, copySamples, manyPhotos, runPfc, spawnPfc, until } from './helpers';

const scratch = (tmp: string) => readdirSync(tmp).filter((n) => n.startsWith('pfc-emulator-'));

describe('the embedded emulator’s scratch folder', () => {
  it.each([
    ['SIGINT twice (quit at once)', ['SIGINT', 'SIGINT'] as const],
    ['SIGHUP (terminal closed)', ['SIGHUP'] as const],
    ['SIGTERM', ['SIGTERM'] as const],
  ])('is removed after %s', async (_name, signals) => {
    const dir = manyPhotos(12);
    const tmp = mkdtempSync(join(tmpdir(), 'pfc-tmpdir-'));
    const run = spawnPfc(['correct', 'photos/many', '--concurrency', '1'], { cwd: dir, env: cleanEnv({ TMPDIR: tmp }) });
    await until(() => run.stdout().includes('✓'), 'a corrected file');
    expect(scratch(tmp)).toHaveLength(1);
    // A second Ctrl-C soon after the first, while the run is still stopping: pfc quits at once (process.exit).
    for (const signal of signals) {
      run.child.kill(signal);
      await new Promise((r) => setTimeout(r, 20));
    }
    const ended = await run.done;
    // 130, or killed by the second SIGINT when it lands after the graceful stop, in Node's last instants of
    // exit (its signal handlers are already reset then; the exit hooks have run): both read as Ctrl-C to a shell.
    expect(ended.code === 130 || (ended.code === null && ended.signal === 'SIGINT')).toBe(true);
    expect(ended.stderr).not.toMatch(/\n\s+at /);
    expect(scratch(tmp)).toEqual([]);
  });

  it('left by a killed run is removed at the next start; folders not provably ours and dead are kept', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'pfc-tmpdir-'));
    const dead = spawnSync(process.execPath, ['-e', '']).pid!;
    const marker = (pid: number) => JSON.stringify({ pid, host: hostname(), startedAt: new Date().toISOString() });
    const make = (name: string, owner?: string) => {
      mkdirSync(join(tmp, name));
      writeFileSync(join(tmp, name, 'upload'), 'a user photo');
      if (owner) writeFileSync(join(tmp, name, '.pfc-owner.json'), owner);
    };
    make('pfc-emulator-stale', marker(dead));
    make('pfc-emulator-nomarker');
    make('pfc-emulator-alive', marker(process.pid));
    make('pfc-emulator-otherhost', JSON.stringify({ pid: dead, host: `${hostname()}-elsewhere`, startedAt: '' }));
    make('elsewhere', marker(dead));
    symlinkSync(join(tmp, 'elsewhere'), join(tmp, 'pfc-emulator-link'));

    const dir = copySamples();
    const r = await runPfc(['correct', 'photos/outdoors'], { cwd: dir, env: cleanEnv({ TMPDIR: tmp }) });
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(tmp, 'pfc-emulator-stale'))).toBe(false);
    expect(scratch(tmp).sort()).toEqual(['pfc-emulator-alive', 'pfc-emulator-link', 'pfc-emulator-nomarker', 'pfc-emulator-otherhost']);
    expect(existsSync(join(tmp, 'elsewhere/upload'))).toBe(true);
  });
});
