/**
 * Guards of the user's files and of what a run costs that no other engine test
 * held to account (each test here fails with its guard removed): in place, a
 * corrected photo edited by a tag editor (also keeping its size and mtime, as
 * `exiftool -P` does), a rerun killed after putting a result of new settings in
 * place, the photo's permissions and owner; restore of files already back, of
 * an edited photo, of a folder or link in a photo's place, of a path outside the
 * folder named; refusals before anything is sent (too long a name or path, a
 * CMYK JPEG, a folder at the output, a lock being written, earlier results);
 * and a disk that refuses writes. Each runs the engine on a real folder and
 * checks the bytes on disk, what the service was sent, and what the run or
 * restore says.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type CorrectionResult, type CorrectOptions, type FileInput, type PfcParams, TimeoutError } from '@pfc/core';
import { checkOutputWritable, FolderLockedError, Manifest, pendingFiles, planBatch, restoreOriginals, runBatch } from '../src/index';
import { copyFileAtomic, writeStreamAtomic } from '../src/files';
import { CORRECTED_MARK, editKeepingSize, FakeBackend, inPlace, jpegBytes, tempDir, writeTree } from './helpers';

// A disk that refuses a write (full, over quota, read-only): see `diskFull`.
vi.mock('../src/files', async (importOriginal) => {
  const orig = await importOriginal<typeof import('../src/files')>();
  return { ...orig, copyFileAtomic: vi.fn(orig.copyFileAtomic), writeStreamAtomic: vi.fn(orig.writeStreamAtomic) };
});

/** The error Node's fs throws for a write to a full disk (ENOSPC), at `path`. */
function diskFull(path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`ENOSPC: no space left on device, open '${path}'`), { code: 'ENOSPC', path });
}

/**
 * Edit the file at `path` as `exiftool -P` writing a tag into reserved space does: one byte changed, its size and
 * modification time kept (to the nanosecond, as `touch -r` copies them). Returns the bytes it now holds.
 */
function editKeepingSizeAndTime(path: string): Buffer {
  const times = join(tempDir(), 'times');
  execFileSync('cp', ['-p', path, times]);
  const edited = editKeepingSize(path);
  execFileSync('touch', ['-r', times, path]);
  expect(statSync(path).mtimeMs).toBe(statSync(times).mtimeMs);
  return edited;
}

/** A service whose jobs take `jobMs`: a request with a shorter `timeoutMs` times out, as the Web API client's does. */
class SlowBackend extends FakeBackend {
  constructor(private readonly jobMs: number) {
    super({ delayMs: jobMs });
  }

  override async correct(input: FileInput, params: PfcParams, options: CorrectOptions = {}): Promise<CorrectionResult> {
    if (options.timeoutMs === undefined || options.timeoutMs >= this.jobMs) return super.correct(input, params, options);
    // Sent (and paid for), then no result within the limit.
    this.calls.push({ fileName: options.fileName ?? '?', params, input: new Uint8Array(), options });
    await new Promise((resolve) => setTimeout(resolve, options.timeoutMs));
    throw new TimeoutError('GET /pfc/job', options.timeoutMs);
  }
}

const ORIGINAL = jpegBytes(120, 80, { filler: 'the photo as the camera took it' });
const OTHER = jpegBytes(64, 48, { filler: 'another photo' });
const corrected = (bytes: Buffer): Buffer => Buffer.concat([bytes, CORRECTED_MARK]);

afterEach(() => {
  vi.restoreAllMocks();
});

describe('in place, a rerun keeps every original it replaces', () => {
  it('a corrected photo the user edited without changing its size (a tag written in place) is kept as a new original before new settings replace it; the first original goes to the history', async () => {
    const root = tempDir();
    writeTree(root, { 'a.jpg': ORIGINAL });
    await inPlace(root, new FakeBackend());
    const edited = editKeepingSize(join(root, 'a.jpg'));

    const again = new FakeBackend();
    const summary = await inPlace(root, again, { outputQuality: 50 });
    expect(summary.results.map((r) => [r.rel, r.status])).toEqual([['a.jpg', 'corrected']]);
    // The user's edit is what was sent, and it is kept: nothing the user wrote is lost.
    expect(Buffer.from(again.calls[0]!.input)).toEqual(edited);
    expect(readFileSync(join(root, 'a.jpg'))).toEqual(corrected(edited));
    expect(readFileSync(join(root, '.pfc-originals/a.jpg'))).toEqual(edited);
    const history = join(root, '.pfc-originals/.history/a.jpg');
    expect(readdirSync(history).map((name) => readFileSync(join(history, name)))).toEqual([ORIGINAL]);
  });

  it('a corrected photo the user edited without changing its size is not taken as up to date by a rerun with the same settings: corrected as a new photo, its edit kept as the original', async () => {
    const root = tempDir();
    writeTree(root, { 'a.jpg': ORIGINAL });
    await inPlace(root, new FakeBackend());
    const edited = editKeepingSize(join(root, 'a.jpg'));

    const again = new FakeBackend();
    expect((await inPlace(root, again)).results.map((r) => [r.rel, r.status, r.reason])).toEqual([['a.jpg', 'corrected', 'input-changed']]);
    expect(Buffer.from(again.calls[0]!.input)).toEqual(edited);
    expect(readFileSync(join(root, '.pfc-originals/a.jpg'))).toEqual(edited);
  });

  it('a corrected photo the user edited keeping its size and modification time (`exiftool -P`) is read before new settings replace it: kept as a new original, never lost', async () => {
    const root = tempDir();
    writeTree(root, { 'a.jpg': ORIGINAL });
    await inPlace(root, new FakeBackend());
    const edited = editKeepingSizeAndTime(join(root, 'a.jpg'));
    // Up to date by its size and modification time: a rerun with the same settings reads nothing, sends nothing.
    const same = new FakeBackend();
    expect((await inPlace(root, same)).upToDate).toBe(1);
    expect(same.calls).toHaveLength(0);

    const again = new FakeBackend();
    expect((await inPlace(root, again, { outputQuality: 50 })).corrected).toBe(1);
    expect(Buffer.from(again.calls[0]!.input)).toEqual(edited);
    expect(readFileSync(join(root, 'a.jpg'))).toEqual(corrected(edited));
    expect(readFileSync(join(root, '.pfc-originals/a.jpg'))).toEqual(edited);
    const history = join(root, '.pfc-originals/.history/a.jpg');
    expect(readdirSync(history).map((name) => readFileSync(join(history, name)))).toEqual([ORIGINAL]);
  });

  it('a result of new settings put in place by a run killed before it was recorded is known as pfc\'s own: the next run redoes it from the kept original and keeps no result as an original', async () => {
    const root = tempDir();
    writeTree(root, { 'a.jpg': ORIGINAL });
    await inPlace(root, new FakeBackend());
    const params = { outputQuality: 50 };
    const atQuality50 = (bytes: Uint8Array): Uint8Array => Buffer.concat([bytes, Buffer.from('|q50')]);

    // The rerun with new settings is killed (kill -9) between the rename of its result and the record.
    const record = vi.spyOn(Manifest.prototype, 'record').mockRejectedValueOnce(new Error('killed (kill -9) before the record'));
    const killed = await runBatch(await planBatch({ inputs: [root], output: { kind: 'in-place' }, params }), { backend: new FakeBackend({ body: atQuality50 }), params, attempts: 1, retryDelayMs: 1 });
    expect(killed.failed).toBe(1);
    record.mockRestore();
    expect(readFileSync(join(root, 'a.jpg'))).toEqual(atQuality50(ORIGINAL));

    const next = new FakeBackend({ body: atQuality50 });
    const summary = await runBatch(await planBatch({ inputs: [root], output: { kind: 'in-place' }, params }), { backend: next, params, retryDelayMs: 1 });
    expect(summary.results.map((r) => [r.rel, r.status, r.errorName])).toEqual([['a.jpg', 'corrected', undefined]]);
    expect(Buffer.from(next.calls[0]!.input)).toEqual(ORIGINAL);
    expect(readFileSync(join(root, 'a.jpg'))).toEqual(atQuality50(ORIGINAL));
    expect(readFileSync(join(root, '.pfc-originals/a.jpg'))).toEqual(ORIGINAL);
    expect(existsSync(join(root, '.pfc-originals/.history'))).toBe(false);
  });

  it('the corrected photo keeps the permissions and owner of the photo it replaces (a run as root leaves a user\'s photo theirs)', async () => {
    const root = tempDir();
    writeTree(root, { 'a.jpg': ORIGINAL });
    const photo = join(root, 'a.jpg');
    chmodSync(photo, 0o640);
    const canChown = process.getuid?.() === 0;
    if (canChown) chownSync(photo, 4321, 4322);
    const before = statSync(photo);

    expect((await inPlace(root, new FakeBackend())).corrected).toBe(1);
    const after = statSync(photo);
    expect(readFileSync(photo)).toEqual(corrected(ORIGINAL));
    expect(after.mode & 0o7777).toBe(0o640);
    expect([after.uid, after.gid]).toEqual([before.uid, before.gid]);
    if (canChown) expect([after.uid, after.gid]).toEqual([4321, 4322]);
  });
});

describe('restore', () => {
  it('run a second time, says each photo already is its original and changes nothing', async () => {
    const root = tempDir();
    writeTree(root, { 'a.jpg': ORIGINAL, 'b.jpg': OTHER });
    await inPlace(root, new FakeBackend());
    expect((await restoreOriginals({ folder: root })).restored).toHaveLength(2);

    const again = await restoreOriginals({ folder: root });
    expect(again.restored).toEqual([]);
    expect(again.skipped).toEqual([
      { path: join(root, 'a.jpg'), reason: 'is already the original', original: true },
      { path: join(root, 'b.jpg'), reason: 'is already the original', original: true },
    ]);
    expect(readFileSync(join(root, 'a.jpg'))).toEqual(ORIGINAL);
    expect(readFileSync(join(root, 'b.jpg'))).toEqual(OTHER);
  });

  it('leaves a corrected photo the user edited keeping its size and modification time (a tag written in place, then `touch -r`) as it is; its original stays kept', async () => {
    const root = tempDir();
    writeTree(root, { 'a.jpg': ORIGINAL });
    await inPlace(root, new FakeBackend());
    const photo = join(root, 'a.jpg');
    const edited = editKeepingSizeAndTime(photo);

    const outcome = await restoreOriginals({ folder: root, paths: ['a.jpg'] });
    expect(outcome).toEqual({ restored: [], skipped: [{ path: photo, reason: `changed since pfc corrected it; left as is (the original stays in ${join(root, '.pfc-originals/a.jpg')})` }] });
    expect(readFileSync(photo)).toEqual(edited);
    expect(readFileSync(join(root, '.pfc-originals/a.jpg'))).toEqual(ORIGINAL);
  });

  it('leaves a folder the user made where a corrected photo was, and restores the other photos', async () => {
    const root = tempDir();
    writeTree(root, { 'a.jpg': ORIGINAL, 'b.jpg': OTHER });
    await inPlace(root, new FakeBackend());
    rmSync(join(root, 'a.jpg'));
    writeTree(root, { 'a.jpg/notes.txt': 'the user\'s own' });

    const outcome = await restoreOriginals({ folder: root });
    expect(outcome.restored.map((r) => r.path)).toEqual([join(root, 'b.jpg')]);
    expect(outcome.skipped).toEqual([{ path: join(root, 'a.jpg'), reason: 'is not a file; left as is' }]);
    expect(readFileSync(join(root, 'a.jpg/notes.txt'), 'utf8')).toBe('the user\'s own');
    expect(readFileSync(join(root, 'b.jpg'))).toEqual(OTHER);
    expect(readFileSync(join(root, '.pfc-originals/a.jpg'))).toEqual(ORIGINAL);
  });

  it('leaves a symbolic link the user put where a corrected photo was, even one that leads nowhere, and restores the other photos', async () => {
    const root = tempDir();
    writeTree(root, { 'a.jpg': ORIGINAL, 'b.jpg': OTHER });
    await inPlace(root, new FakeBackend());
    rmSync(join(root, 'a.jpg'));
    symlinkSync(join(root, 'gone.jpg'), join(root, 'a.jpg'));

    const outcome = await restoreOriginals({ folder: root });
    expect(outcome.restored.map((r) => r.path)).toEqual([join(root, 'b.jpg')]);
    expect(outcome.skipped).toEqual([{ path: join(root, 'a.jpg'), reason: 'is a symbolic link; left as is' }]);
    expect(readlinkSync(join(root, 'a.jpg'))).toBe(join(root, 'gone.jpg'));
    expect(readFileSync(join(root, 'b.jpg'))).toEqual(OTHER);
  });

  it('of a subfolder, restores only photos inside it: a path that leads out of it (to the folder corrected in place above) is refused and left corrected', async () => {
    const root = tempDir();
    writeTree(root, { 'a.jpg': ORIGINAL, 'trip/b.jpg': OTHER });
    await inPlace(root, new FakeBackend());
    const trip = join(root, 'trip');

    const outcome = await restoreOriginals({ folder: trip, paths: ['../a.jpg', 'b.jpg'] });
    expect(outcome.restored).toEqual([{ path: join(trip, 'b.jpg'), from: join(root, '.pfc-originals/trip/b.jpg') }]);
    expect(outcome.skipped).toEqual([{ path: join(root, 'a.jpg'), reason: `not inside ${trip}` }]);
    expect(readFileSync(join(root, 'a.jpg'))).toEqual(corrected(ORIGINAL));
    expect(readFileSync(join(trip, 'b.jpg'))).toEqual(OTHER);
  });
});

describe('before anything is sent', () => {
  it('the count of files a run would send (the cost question) includes those whose settings changed', async () => {
    const root = tempDir();
    writeTree(root, { 'a.jpg': ORIGINAL, 'b.jpg': OTHER });
    await runBatch(await planBatch({ inputs: [root] }), { backend: new FakeBackend(), retryDelayMs: 1 });
    const params = { outputQuality: 50 };
    const plan = await planBatch({ inputs: [root], params });
    expect(await pendingFiles(plan, { backendId: 'web' })).toEqual([]);
    expect((await pendingFiles(plan, { backendId: 'web', params })).map((f) => f.rel)).toEqual(['a.jpg', 'b.jpg']);
    expect((await runBatch(plan, { backend: new FakeBackend(), params, retryDelayMs: 1 })).corrected).toBe(2);
  });

  it('in place, a photo so deep in its folders that an original kept for it would have too long a path is refused, sending nothing and leaving it as it is', async () => {
    const root = tempDir();
    // The photo's path is about 4,060 bytes: it and its result's temporary file fit in the 4,095 bytes of a Linux
    // path; its kept original's temporary copy, and an earlier original in .pfc-originals/.history/, would not.
    const room = 4060 - root.length - '/a.jpg'.length;
    const deep = Array.from({ length: Math.ceil(room / 200) }, (_, i) => `${String(i)}${'d'.repeat(199)}`).join('/').slice(0, room).replace(/\/$/, 'e');
    writeTree(root, { [`${deep}/a.jpg`]: ORIGINAL, 'b.jpg': OTHER });
    const backend = new FakeBackend();
    const summary = await inPlace(root, backend);
    expect(summary.results.map((r) => [r.rel, r.status, r.errorName])).toEqual([['b.jpg', 'corrected', undefined], [`${deep}/a.jpg`, 'failed', 'OutputPathTooLongError']]);
    expect(summary.results[1]!.error).toMatch(/the result or its kept original is \d+ bytes, over the 4095/);
    expect(backend.calls.map((c) => c.fileName)).toEqual(['b.jpg']);
    expect(readFileSync(join(root, deep, 'a.jpg'))).toEqual(ORIGINAL);
    expect(existsSync(join(root, '.pfc-originals', deep))).toBe(false);
  });

  it('a job over the caller\'s own time limit fails once, as timed out, and is not sent again (each attempt is paid)', async () => {
    const root = tempDir();
    writeTree(root, { 'a.jpg': ORIGINAL });
    const backend = new SlowBackend(200);
    const summary = await runBatch(await planBatch({ inputs: [root] }), { backend, jobTimeoutMs: 50, retryDelayMs: 1 });
    expect(summary.results.map((r) => [r.rel, r.status, r.errorName])).toEqual([['a.jpg', 'failed', 'JobTimeoutError']]);
    expect(summary.results[0]!.error).toContain('job time limit of 0.05 s');
    expect(backend.calls).toHaveLength(1);
    expect(existsSync(join(root, 'corrected/a.jpg'))).toBe(false);
  });

  it('in place, refuses a folder whose .pfc-originals is a file (no original could be kept), naming it', async () => {
    const root = tempDir();
    writeTree(root, { 'a.jpg': ORIGINAL, '.pfc-originals': 'a file of the user\'s, not a folder' });
    const plan = await planBatch({ inputs: [root], output: { kind: 'in-place' } });
    await expect(checkOutputWritable(plan)).rejects.toThrow(`${join(root, '.pfc-originals')} is a file, not a folder`);
    expect(readFileSync(join(root, '.pfc-originals'), 'utf8')).toBe('a file of the user\'s, not a folder');
  });
});

describe('outside in place, a run refuses rather than guesses', () => {
  it('with --overwrite, a folder where a result would go is refused before the photo is sent, and the folder is kept', async () => {
    const root = tempDir();
    writeTree(root, { 'in/a.jpg': ORIGINAL, 'in/b.jpg': OTHER, 'out/a.jpg/notes.txt': 'the user\'s own' });
    const backend = new FakeBackend();
    const plan = await planBatch({ inputs: [join(root, 'in')], output: { kind: 'mirror', dir: join(root, 'out') } });
    const summary = await runBatch(plan, { backend, overwrite: true, retryDelayMs: 1 });
    expect(summary.results.map((r) => [r.rel, r.status, r.errorName])).toEqual([['a.jpg', 'failed', 'OutputExistsError'], ['b.jpg', 'corrected', undefined]]);
    expect(summary.results[0]!.error).toContain('--overwrite replaces files, never folders');
    expect(backend.calls.map((c) => c.fileName)).toEqual(['b.jpg']);
    expect(readFileSync(join(root, 'out/a.jpg/notes.txt'), 'utf8')).toBe('the user\'s own');
  });

  it('a result the user edited keeping its size and modification time (`exiftool -P`) is not replaced by a rerun with new settings (OutputExistsError), nor by one with --force', async () => {
    const root = tempDir();
    writeTree(root, { 'in/a.jpg': ORIGINAL });
    const output = { kind: 'mirror' as const, dir: join(root, 'out') };
    await runBatch(await planBatch({ inputs: [join(root, 'in')], output }), { backend: new FakeBackend(), retryDelayMs: 1 });
    const edited = editKeepingSizeAndTime(join(root, 'out/a.jpg'));

    const params = { outputQuality: 50 };
    const backend = new FakeBackend();
    const summary = await runBatch(await planBatch({ inputs: [join(root, 'in')], output, params }), { backend, params, retryDelayMs: 1 });
    expect(summary.results.map((r) => [r.rel, r.status, r.errorName])).toEqual([['a.jpg', 'failed', 'OutputExistsError']]);
    const forced = await runBatch(await planBatch({ inputs: [join(root, 'in')], output }), { backend, force: true, retryDelayMs: 1 });
    expect(forced.results.map((r) => [r.rel, r.status, r.errorName])).toEqual([['a.jpg', 'failed', 'OutputExistsError']]);
    expect(backend.calls).toHaveLength(0);
    expect(readFileSync(join(root, 'out/a.jpg'))).toEqual(edited);
    // --overwrite says to replace files pfc did not write: this one is, as such.
    const overwritten = await runBatch(await planBatch({ inputs: [join(root, 'in')], output, params }), { backend, params, overwrite: true, retryDelayMs: 1 });
    expect(overwritten.results.map((r) => [r.rel, r.status, r.reason])).toEqual([['a.jpg', 'corrected', 'output-changed']]);
  });

  it('a result the user edits keeping its size and modification time while a rerun\'s job runs is not replaced when the result arrives (OutputExistsError)', async () => {
    const root = tempDir();
    writeTree(root, { 'in/a.jpg': ORIGINAL });
    const output = { kind: 'mirror' as const, dir: join(root, 'out') };
    await runBatch(await planBatch({ inputs: [join(root, 'in')], output }), { backend: new FakeBackend(), retryDelayMs: 1 });

    // The decision has read the result (pfc's, by its bytes); the edit comes while the service works.
    let edited: Buffer | undefined;
    const backend = new FakeBackend({ onCall: () => (edited = editKeepingSizeAndTime(join(root, 'out/a.jpg'))) });
    const params = { outputQuality: 50 };
    const summary = await runBatch(await planBatch({ inputs: [join(root, 'in')], output, params }), { backend, params, retryDelayMs: 1 });

    expect(backend.calls).toHaveLength(1);
    expect(summary.results.map((r) => [r.rel, r.status, r.errorName])).toEqual([['a.jpg', 'failed', 'OutputExistsError']]);
    expect(readFileSync(join(root, 'out/a.jpg'))).toEqual(edited);
  });

  it('a result renamed inside an earlier run\'s output folder, given as input, is refused as already corrected and not sent', async () => {
    const root = tempDir();
    writeTree(root, { 'photos/a.jpg': ORIGINAL });
    await runBatch(await planBatch({ inputs: [join(root, 'photos')] }), { backend: new FakeBackend(), retryDelayMs: 1 });
    renameSync(join(root, 'photos/corrected/a.jpg'), join(root, 'photos/corrected/holiday.jpg'));

    const backend = new FakeBackend();
    const plan = await planBatch({ inputs: [join(root, 'photos/corrected')], output: { kind: 'mirror', dir: join(root, 'twice') } });
    const summary = await runBatch(plan, { backend, retryDelayMs: 1 });
    expect(summary.results.map((r) => [r.rel, r.status, r.errorName])).toEqual([['holiday.jpg', 'failed', 'AlreadyCorrectedError']]);
    expect(summary.results[0]!.error).toContain(`${join(root, 'photos/corrected/a.jpg')} renamed or copied`);
    expect(backend.calls).toHaveLength(0);
    expect(existsSync(join(root, 'twice/holiday.jpg'))).toBe(false);
  });

  it('a result in an earlier run\'s output folder that the user edited is a new photo, corrected, not refused: also when the edit kept its size, or its modification time', async () => {
    const root = tempDir();
    writeTree(root, { 'photos/a.jpg': ORIGINAL, 'photos/b.jpg': OTHER });
    await runBatch(await planBatch({ inputs: [join(root, 'photos')] }), { backend: new FakeBackend(), retryDelayMs: 1 });
    const edited = editKeepingSize(join(root, 'photos/corrected/a.jpg'));
    // A tag added with `exiftool -P`: longer, its modification time kept.
    const b = join(root, 'photos/corrected/b.jpg');
    const times = join(tempDir(), 'times');
    execFileSync('cp', ['-p', b, times]);
    const tagged = Buffer.concat([readFileSync(b), Buffer.from('|tagged')]);
    writeFileSync(b, tagged);
    execFileSync('touch', ['-r', times, b]);

    const backend = new FakeBackend();
    const plan = await planBatch({ inputs: [join(root, 'photos/corrected')], output: { kind: 'mirror', dir: join(root, 'twice') } });
    const summary = await runBatch(plan, { backend, retryDelayMs: 1 });
    expect(summary.results.map((r) => [r.rel, r.status])).toEqual([['a.jpg', 'corrected'], ['b.jpg', 'corrected']]);
    expect(readFileSync(join(root, 'twice/a.jpg'))).toEqual(corrected(edited));
    expect(readFileSync(join(root, 'twice/b.jpg'))).toEqual(corrected(tagged));
  });

  it('a lock file another run has just created and not yet written is not taken over: the run is refused and sends nothing; once old, it is', async () => {
    const root = tempDir();
    writeTree(root, { 'in/a.jpg': ORIGINAL, 'out/.pfc-lock': '' });
    const plan = await planBatch({ inputs: [join(root, 'in')], output: { kind: 'mirror', dir: join(root, 'out') } });
    const backend = new FakeBackend();
    const refused = await runBatch(plan, { backend, retryDelayMs: 1 }).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(FolderLockedError);
    expect((refused as Error).message).toContain('holder unknown');
    expect(backend.calls).toHaveLength(0);
    expect(existsSync(join(root, 'out/a.jpg'))).toBe(false);

    // Torn and a minute old: its writer died mid-write.
    const old = new Date(Date.now() - 60_000);
    utimesSync(join(root, 'out/.pfc-lock'), old, old);
    expect((await runBatch(plan, { backend, retryDelayMs: 1 })).corrected).toBe(1);
  });

  it('removes every temporary file an interrupted run left in an output folder, and none of the user\'s files there', async () => {
    const root = tempDir();
    const partials = ['.a.jpg.1a2b-0123456789ab.pfc-partial', '.b.jpg.1a2b-0123456789ac.pfc-partial', '.c.jpg.1a2b-0123456789ad.pfc-partial'];
    writeTree(root, { 'a.jpg': ORIGINAL, 'corrected/notes.txt': 'the user\'s own', 'corrected/draft.pfc-partial': 'the user\'s too' });
    for (const name of partials) writeTree(root, { [`corrected/${name}`]: 'half a result' });
    await runBatch(await planBatch({ inputs: [root] }), { backend: new FakeBackend(), retryDelayMs: 1 });
    expect(readdirSync(join(root, 'corrected')).sort()).toEqual(['.pfc-manifest.jsonl', 'a.jpg', 'draft.pfc-partial', 'notes.txt']);
  });

  it('a result whose file name would be too long is refused before the photo is sent, saying why', async () => {
    const root = tempDir();
    // 254 bytes: a valid name; with the suffix, 258: over the 255 a file name may have.
    const name = `${'x'.repeat(250)}.jpg`;
    writeTree(root, { [name]: ORIGINAL, 'b.jpg': OTHER });
    const backend = new FakeBackend();
    const summary = await runBatch(await planBatch({ inputs: [root], output: { kind: 'suffix', suffix: '_pfc' } }), { backend, retryDelayMs: 1 });
    expect(summary.results.map((r) => [r.rel, r.status, r.errorName])).toEqual([['b.jpg', 'corrected', undefined], [name, 'failed', 'OutputNameTooLongError']]);
    expect(summary.refused).toBe(1);
    expect(summary.results[1]!.error).toContain('over the 255 a file name may have');
    expect(backend.calls.map((c) => c.fileName)).toEqual(['b.jpg']);
  });

  it('a CMYK JPEG, which the service does not take, is left out before anything is sent, saying why', async () => {
    const root = tempDir();
    writeTree(root, { 'print.jpg': jpegBytes(120, 80, { components: 4 }), 'b.jpg': OTHER });
    const backend = new FakeBackend();
    const plan = await planBatch({ inputs: [root] });
    expect(plan.leftOut.kept).toEqual([expect.objectContaining({ path: join(root, 'print.jpg'), code: 'over-limit', reason: expect.stringContaining('CMYK') })]);
    const summary = await runBatch(plan, { backend, retryDelayMs: 1 });
    expect(summary).toMatchObject({ corrected: 1, excluded: 1, failed: 0 });
    expect(backend.calls.map((c) => c.fileName)).toEqual(['b.jpg']);
    expect(existsSync(join(root, 'corrected/print.jpg'))).toBe(false);
  });
});

describe('a disk that refuses writes', () => {
  it('stops a restore at the first file it cannot put back, saying why, and a second restore once there is room finishes the rest', async () => {
    const root = tempDir();
    writeTree(root, { 'a.jpg': ORIGINAL, 'b.jpg': OTHER });
    await inPlace(root, new FakeBackend());
    vi.mocked(copyFileAtomic).mockRejectedValueOnce(diskFull(join(root, '.a.jpg.1a2b-0123456789ab.pfc-partial')));

    const stopped = await restoreOriginals({ folder: root });
    expect(stopped.restored).toEqual([]);
    expect(stopped.stoppedBecause).toBe(`no space left on the disk holding ${root} (ENOSPC)`);
    expect(readFileSync(join(root, 'a.jpg'))).toEqual(corrected(ORIGINAL));
    expect(readFileSync(join(root, 'b.jpg'))).toEqual(corrected(OTHER));

    const finished = await restoreOriginals({ folder: root });
    expect(finished.restored.map((r) => r.path)).toEqual([join(root, 'a.jpg'), join(root, 'b.jpg')]);
    expect(readFileSync(join(root, 'a.jpg'))).toEqual(ORIGINAL);
    expect(readFileSync(join(root, 'b.jpg'))).toEqual(OTHER);
  });

  it('stops a run at the first result it cannot write: no further photo is sent, and the run says why', async () => {
    const root = tempDir();
    writeTree(root, { 'a.jpg': ORIGINAL, 'b.jpg': OTHER, 'c.jpg': jpegBytes(100, 90, { filler: 'a third photo' }) });
    const out = join(root, 'corrected');
    vi.mocked(writeStreamAtomic).mockRejectedValueOnce(diskFull(join(out, '.a.jpg.1a2b-0123456789ab.pfc-partial')));
    const backend = new FakeBackend();
    const summary = await runBatch(await planBatch({ inputs: [root] }), { backend, concurrency: 1, retryDelayMs: 1 });
    expect(summary.results.map((r) => [r.rel, r.status, r.errorName])).toEqual([['a.jpg', 'failed', 'DiskRefusedError'], ['b.jpg', 'cancelled', undefined], ['c.jpg', 'cancelled', undefined]]);
    expect(summary.stoppedBecause).toMatch(new RegExp(`^no space left on the disk holding ${out} \\(ENOSPC\\); no further file was started`));
    expect(backend.calls.map((c) => c.fileName)).toEqual(['a.jpg']);
    expect(existsSync(out) ? readdirSync(out).filter((f) => f.endsWith('.jpg')) : []).toEqual([]);
  });
});
