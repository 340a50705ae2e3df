/**
 * Guards that keep a user's files, at the engine's level (the CLI's
 * test/cli/no-clobber.test.ts checks them through the built `pfc`): in place,
 * every original a rerun replaces is kept; restore never puts an original over
 * a file the user changed after pfc corrected it; and a run never takes over
 * the lock of an output folder another live process holds. Each runs on real
 * folders and checks the bytes on disk.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FolderLockedError, LOCK_FILE, lockFolders, planBatch, restoreOriginals, runBatch } from '../src/index';
import { CORRECTED_MARK, editKeepingSize, FakeBackend, inPlace, jpegBytes, listAll, tempDir, writeTree } from './helpers';

const FIRST = jpegBytes(120, 80, { filler: 'the photo as the camera took it' });
const SECOND = jpegBytes(120, 80, { filler: 'a new photo under the same name' });
const THIRD = jpegBytes(120, 80, { filler: 'and a third one' });
const OTHER = jpegBytes(64, 48, { filler: 'another photo' });

/** Bytes of every file below `dir`, in byte order (the order names give is not the point). */
function contents(dir: string): Buffer[] {
  return listAll(dir).map((f) => readFileSync(join(dir, f))).sort(Buffer.compare);
}

/** A folder holding `files`, corrected in place once. */
async function correctedInPlace(files: Record<string, Buffer>): Promise<string> {
  const root = tempDir();
  writeTree(root, files);
  await inPlace(root, new FakeBackend());
  return root;
}

describe('in place, every original replaced is kept, across reruns', () => {
  it('new photos put under a corrected name keep each earlier original once in the history, the latest at its name', async () => {
    const root = tempDir();
    writeTree(root, { 'a.jpg': FIRST, 'b.jpg': OTHER });
    expect((await inPlace(root, new FakeBackend())).corrected).toBe(2);
    for (const next of [SECOND, THIRD]) {
      writeFileSync(join(root, 'a.jpg'), next);
      expect(await inPlace(root, new FakeBackend())).toMatchObject({ corrected: 1, upToDate: 1, failed: 0 });
    }
    expect((await restoreOriginals({ folder: root })).restored).toHaveLength(2);
    expect(readFileSync(join(root, 'a.jpg'))).toEqual(THIRD);
    // Corrected again once restored: the same originals, not kept a second time.
    expect((await inPlace(root, new FakeBackend())).corrected).toBe(2);

    expect(readFileSync(join(root, 'a.jpg'))).toEqual(Buffer.concat([THIRD, CORRECTED_MARK]));
    expect(readFileSync(join(root, '.pfc-originals/a.jpg'))).toEqual(THIRD);
    expect(contents(join(root, '.pfc-originals/.history'))).toEqual([FIRST, SECOND].sort(Buffer.compare));
  });
});

describe('a result the user made read-only', () => {
  it('is not replaced by a rerun with a new photo under its name; --overwrite replaces it', async () => {
    const root = tempDir();
    writeTree(root, { 'photos/a.jpg': FIRST });
    const run = async (overwrite = false) => runBatch(await planBatch({ inputs: [join(root, 'photos')], params: {} }), { backend: new FakeBackend(), retryDelayMs: 1, overwrite });
    await run();
    const result = join(root, 'photos/corrected/a.jpg');
    const protectedBytes = readFileSync(result);
    chmodSync(result, 0o444);
    writeFileSync(join(root, 'photos/a.jpg'), SECOND);

    const refused = await run();
    expect(refused.results[0]).toMatchObject({ status: 'failed', errorName: 'OutputExistsError' });
    expect(refused.results[0]?.error).toMatch(/would replace a result made read-only since: .*a\.jpg; make it writable, or use --overwrite/);
    expect(readFileSync(result)).toEqual(protectedBytes);
    expect(statSync(result).mode & 0o777).toBe(0o444);

    expect((await run(true)).corrected).toBe(1);
    expect(readFileSync(result)).not.toEqual(protectedBytes);
  });
});

describe('restore', () => {
  it('leaves a corrected file the user changed as it is and says so, restores the others; its original stays kept', async () => {
    const root = await correctedInPlace({ 'a.jpg': FIRST, 'b.jpg': OTHER });
    writeFileSync(join(root, 'b.jpg'), 'my own edit');
    const changed = { path: join(root, 'b.jpg'), reason: `changed since pfc corrected it; left as is (the original stays in ${join(root, '.pfc-originals/b.jpg')})` };

    expect(await restoreOriginals({ folder: root })).toEqual({ restored: [{ path: join(root, 'a.jpg'), from: join(root, '.pfc-originals/a.jpg') }], skipped: [changed] });
    // Named on its own, it is refused all the same.
    expect(await restoreOriginals({ folder: root, paths: ['b.jpg'] })).toEqual({ restored: [], skipped: [changed] });
    expect(readFileSync(join(root, 'a.jpg'))).toEqual(FIRST);
    expect(readFileSync(join(root, 'b.jpg'), 'utf8')).toBe('my own edit');
    expect(readFileSync(join(root, '.pfc-originals/b.jpg'))).toEqual(OTHER);
  });

  it('leaves a corrected file the user edited without changing its size (a tag written in place) as it is', async () => {
    const root = await correctedInPlace({ 'a.jpg': FIRST });
    const edited = editKeepingSize(join(root, 'a.jpg'));
    const outcome = await restoreOriginals({ folder: root });
    expect(outcome.restored).toEqual([]);
    expect(outcome.skipped.map((s) => s.reason)).toEqual([expect.stringMatching(/^changed since pfc corrected it/)]);
    expect(readFileSync(join(root, 'a.jpg'))).toEqual(edited);
    expect(readFileSync(join(root, '.pfc-originals/a.jpg'))).toEqual(FIRST);
  });

  it('puts back originals only, never the partial copy of one that a killed run left in .pfc-originals', async () => {
    const root = await correctedInPlace({ 'a.jpg': FIRST });
    // What a run killed while keeping b.jpg's original leaves behind: its temporary copy, half written.
    writeTree(root, { '.pfc-originals/.b.jpg.1a2b-0123456789ab.pfc-partial': 'half an original' });
    expect((await restoreOriginals({ folder: root })).restored.map((r) => r.path)).toEqual([join(root, 'a.jpg')]);
    expect(listAll(root).filter((f) => !f.startsWith('.pfc-'))).toEqual(['a.jpg']);
    expect(readFileSync(join(root, 'a.jpg'))).toEqual(FIRST);
  });
});

/** Script of a second pfc process: takes the lock of a folder through the built package and holds it until killed. */
const HOLDER = `
const { lockFolders } = await import(process.argv[1]);
await lockFolders([process.argv[2]]);
process.stdout.write('locked\\n');
setInterval(() => {}, 60_000);
`;

/** Start a process holding the lock of `dir`; resolves once it holds it. */
function holdLockInAnotherProcess(dir: string): Promise<ChildProcess> {
  const dist = new URL('../dist/index.js', import.meta.url).href;
  const child = spawn(process.execPath, ['--input-type=module', '-e', HOLDER, dist, dir], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      if (d.toString().includes('locked')) resolve(child);
    });
    child.on('exit', (code) => reject(new Error(`the lock holder exited (${code}) before it held the lock: ${stderr}`)));
  });
}

async function killed(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

describe('the lock of an output folder', () => {
  it('held by another live process is not taken over: the run is refused, naming it, and sends nothing; once it is gone its lock is', async () => {
    const root = tempDir();
    writeTree(root, { 'in/a.jpg': FIRST });
    const out = join(root, 'out');
    const plan = await planBatch({ inputs: [join(root, 'in')], output: { kind: 'mirror', dir: out } });
    const backend = new FakeBackend();
    const holder = await holdLockInAnotherProcess(out);
    try {
      const refused = await runBatch(plan, { backend, retryDelayMs: 1 }).catch((err: unknown) => err);
      expect(refused).toBeInstanceOf(FolderLockedError);
      expect((refused as Error).message).toContain(`process ${holder.pid} on ${hostname()}`);
      expect(backend.calls).toHaveLength(0);
      expect(existsSync(join(out, 'a.jpg'))).toBe(false);
      expect(JSON.parse(readFileSync(join(out, LOCK_FILE), 'utf8'))).toMatchObject({ pid: holder.pid });
    } finally {
      await killed(holder);
    }
    // Killed, it left its lock behind: now stale, and taken over.
    expect((await runBatch(plan, { backend, retryDelayMs: 1 })).corrected).toBe(1);
    expect(readFileSync(join(out, 'a.jpg'))).toEqual(Buffer.concat([FIRST, CORRECTED_MARK]));
  });

  it('held by another live process keeps restore out: refused, naming it, the corrected photo left until that run is over', async () => {
    const root = await correctedInPlace({ 'a.jpg': FIRST });
    const holder = await holdLockInAnotherProcess(root);
    try {
      const refused = await restoreOriginals({ folder: root }).catch((err: unknown) => err);
      expect(refused).toBeInstanceOf(FolderLockedError);
      expect((refused as Error).message).toContain(`process ${holder.pid} on ${hostname()}`);
      expect(readFileSync(join(root, 'a.jpg'))).toEqual(Buffer.concat([FIRST, CORRECTED_MARK]));
    } finally {
      await killed(holder);
    }
    expect((await restoreOriginals({ folder: root })).restored).toHaveLength(1);
    expect(readFileSync(join(root, 'a.jpg'))).toEqual(FIRST);
  });

  it('deleted by hand while its run went on, and taken by another run, is that run\'s: the first run\'s end leaves it, and a third run is refused', async () => {
    const root = tempDir();
    writeTree(root, { 'in/a.jpg': FIRST });
    const out = join(root, 'out');
    const first = await lockFolders([out]);
    // "delete the lock file if no pfc is running there", done while one still was: a second run takes the folder.
    rmSync(join(out, LOCK_FILE));
    const second = await holdLockInAnotherProcess(out);
    try {
      await first.release();
      expect(JSON.parse(readFileSync(join(out, LOCK_FILE), 'utf8'))).toMatchObject({ pid: second.pid });
      const backend = new FakeBackend();
      const plan = await planBatch({ inputs: [join(root, 'in')], output: { kind: 'mirror', dir: out } });
      await expect(runBatch(plan, { backend, retryDelayMs: 1 })).rejects.toBeInstanceOf(FolderLockedError);
      expect(backend.calls).toHaveLength(0);
      expect(existsSync(join(out, 'a.jpg'))).toBe(false);
    } finally {
      await killed(second);
    }
  });
});
