/**
 * The CLI's embedded emulator runs in a process of its own, so a photo that
 * crashes it (a native fault in an image library) does not end the run: it is
 * started again at its address, the poisoned photo fails after its attempts,
 * and every other photo is corrected. Through the built `pfc` on real folders;
 * the crash comes from a `--require` script in the emulator's process only.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processAlive } from '@pfc/node-io';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { crashOnMarker, withCrashMarker } from '../support/crash-on-marker';
import { cleanEnv, copySamples, jsonLines, PFC_BIN, type PfcRun, runPfc, summaryOf, until } from './helpers';

const scratch = (tmp: string) => readdirSync(tmp).filter((n) => n.startsWith('pfc-emulator-'));

/** `count` small photos in `photos/more/` (`m00.jpg`…), those named in `poisoned` holding the crash marker. */
async function morePhotos(dir: string, count: number, poisoned: readonly string[] = []): Promise<string[]> {
  const photo = await sharp(readFileSync(join(dir, 'photos/objects/coffee.jpg'))).resize(480, 320).jpeg().toBuffer();
  mkdirSync(join(dir, 'photos/more'));
  const names = Array.from({ length: count }, (_, i) => `m${String(i).padStart(2, '0')}.jpg`);
  for (const name of names) writeFileSync(join(dir, 'photos/more', name), poisoned.includes(name) ? withCrashMarker(photo) : photo);
  return names;
}

describe('pfc correct on the embedded emulator, when the emulator crashes', () => {
  it('photos that crash it each time fail alone, after their attempts; it is started again after each crash and every other photo is corrected', async () => {
    const dir = copySamples();
    const tmp = mkdtempSync(join(tmpdir(), 'pfc-tmpdir-'));
    const poisoned = ['m05.jpg', 'm14.jpg'];
    const names = await morePhotos(dir, 20, poisoned);
    const env = cleanEnv({ TMPDIR: tmp, NODE_OPTIONS: `--require ${crashOnMarker(dir)}` });
    const r = await runPfc(['correct', 'photos/more', '-o', 'out', '--json'], { cwd: dir, env });

    expect(r.code, r.stderr).toBe(1);
    // Each poisoned photo crashed it on each of its 3 attempts, and nothing else did.
    const crashes = r.stderr.split('\n').filter((l) => /^The embedded emulator stopped on its own \(signal SIGSEGV\); starting it again at the same address\.$/.test(l));
    expect(crashes).toHaveLength(3 * poisoned.length);
    const summary = summaryOf(r.stdout);
    expect(summary).toMatchObject({ corrected: names.length - poisoned.length, failed: poisoned.length, interrupted: false });
    const failed = jsonLines(r.stdout).filter((l) => l.type === 'failed');
    expect(failed.map((l) => String(l.rel)).sort()).toEqual([...poisoned]);
    // Each says what happened to it: the engine crashed on it, not a service that forgot an upload.
    for (const l of failed) {
      expect(l.error).toBe('the local emulator stopped on its own (signal SIGSEGV) while this file was being corrected, and was started again: a file that does this on each attempt may crash the imaging engine');
    }
    // The results on disk: every photo but the poisoned ones, each a JPEG.
    const written = readdirSync(join(dir, 'out')).filter((f) => f.endsWith('.jpg')).sort();
    expect(written).toEqual(names.filter((n) => !poisoned.includes(n)));
    for (const f of written) expect((await sharp(join(dir, 'out', f)).metadata()).format).toBe('jpeg');
    // The crashed emulators' copies of the photos are gone, as are the last one's.
    expect(scratch(tmp)).toEqual([]);
  }, 180_000);

  it('a Ctrl-C from the terminal (to the whole process group) cancels the run cleanly: the emulator is not taken down with it', async () => {
    const dir = copySamples();
    const tmp = mkdtempSync(join(tmpdir(), 'pfc-tmpdir-'));
    await morePhotos(dir, 30);
    // A process group of its own, as a terminal's foreground job.
    const child = spawn(process.execPath, [PFC_BIN, 'correct', 'photos/more', '-o', 'out', '--concurrency', '1'], { cwd: dir, env: cleanEnv({ TMPDIR: tmp }), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const done = new Promise<PfcRun>((res) => child.on('close', (code, signal) => res({ code, signal, stdout, stderr })));
    await until(() => stdout.includes('✓'), 'a corrected file');
    // The emulator's process, from the owner marker of its data folder.
    const emulatorPid = (JSON.parse(readFileSync(join(tmp, scratch(tmp)[0]!, '.pfc-owner.json'), 'utf8')) as { pid: number }).pid;
    process.kill(-child.pid!, 'SIGINT');
    const r = await done;

    expect(r.code, r.stderr).toBe(130);
    expect(r.stderr).toMatch(/Stopping: no new files/);
    expect(r.stderr).not.toMatch(/stopped on its own/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(processAlive(emulatorPid)).toBe(false);
    expect(scratch(tmp)).toEqual([]);
    // The files corrected before the Ctrl-C are whole.
    for (const f of readdirSync(join(dir, 'out')).filter((n) => n.endsWith('.jpg'))) {
      expect((await sharp(join(dir, 'out', f)).stats()).channels).toHaveLength(3);
    }
    expect(existsSync(join(dir, 'out'))).toBe(true);
  }, 120_000);

  it('an embedded emulator that cannot start (its temporary folder cannot be made): exit 2 saying why and what to do, nothing written', async () => {
    const dir = copySamples();
    const r = await runPfc(['correct', 'photos/outdoors', '-o', 'out'], { cwd: dir, env: cleanEnv({ TMPDIR: join(dir, 'no-such-folder') }) });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/the embedded emulator cannot start here \(the emulator could not start: ENOENT: .*no-such-folder.*\): give the URL of a running emulator instead/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(join(dir, 'out'))).toBe(false);
  });
});
