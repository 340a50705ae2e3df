/**
 * In place, what is kept in `.pfc-originals/` is always an original, never one
 * of pfc's results: a photo rewritten while it is being read, a kept original
 * that no longer matches the manifest, a missing one, and a corrected photo the
 * user renamed or copied. Each runs the engine on a real folder and checks the
 * bytes on disk, the manifest and what restore gives back.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { hashFile } from '../src/hash';
import { Manifest, planBatch, restoreOriginals, runBatch } from '../src/index';
import { CORRECTED_MARK, FakeBackend, inPlace, jpegBytes, tempDir, writeTree } from './helpers';

// A camera-sync tool rewrites a photo right after pfc hashed it: see `rewriteAfterHash`.
vi.mock('../src/hash', async (importOriginal) => {
  const orig = await importOriginal<typeof import('../src/hash')>();
  return { ...orig, hashFile: vi.fn(orig.hashFile) };
});

/** The next hash of `path` is taken, then the file is replaced (a new file renamed over it, as sync tools write). */
function rewriteAfterHash(path: string, bytes: Buffer): void {
  const original = vi.mocked(hashFile).getMockImplementation()!;
  vi.mocked(hashFile).mockImplementation(async (p, signal) => {
    const hash = await original(p, signal);
    if (p === path) {
      vi.mocked(hashFile).mockImplementation(original);
      writeFileSync(`${path}.sync-tmp`, bytes);
      renameSync(`${path}.sync-tmp`, path);
    }
    return hash;
  });
}

const sha = (bytes: Buffer): string => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
const corrected = (bytes: Buffer): Buffer => Buffer.concat([bytes, CORRECTED_MARK]);

/** The input hash the manifest records for `rel`. */
async function recordedInput(root: string, rel: string, mode: 'in-place' | 'mirror' = 'in-place'): Promise<string | undefined> {
  return (await Manifest.load(root, mode)).get(join(root, rel))?.inputHash;
}

describe('in place, .pfc-originals holds originals only', () => {
  const V0 = jpegBytes(120, 80, { filler: 'as planned by pfc, 26 long' });
  const V1 = jpegBytes(120, 80, { filler: 'rewritten by the sync tool' });

  it('a photo rewritten just after pfc hashed it is kept, sent and recorded as it is then; new settings redo it from that original', async () => {
    const root = tempDir();
    writeTree(root, { 'a.jpg': V0 });
    rewriteAfterHash(join(root, 'a.jpg'), V1);
    const first = new FakeBackend();
    expect((await inPlace(root, first)).corrected).toBe(1);
    expect(readFileSync(join(root, '.pfc-originals/a.jpg'))).toEqual(V1);
    expect(Buffer.from(first.calls[0]!.input)).toEqual(V1);
    // The manifest names the original that was kept (and sent), not the bytes the decision read before.
    expect(await recordedInput(root, 'a.jpg')).toBe(sha(V1));

    const second = new FakeBackend();
    expect((await inPlace(root, second, { outputQuality: 50 })).corrected).toBe(1);
    expect(Buffer.from(second.calls[0]!.input)).toEqual(V1);
    expect(readFileSync(join(root, 'a.jpg'))).toEqual(corrected(V1));
    expect(readFileSync(join(root, '.pfc-originals/a.jpg'))).toEqual(V1);
    expect(existsSync(join(root, '.pfc-originals/.history'))).toBe(false);
    expect((await restoreOriginals({ folder: root })).restored).toHaveLength(1);
    expect(readFileSync(join(root, 'a.jpg'))).toEqual(V1);
  });

  it('a kept original that does not match the manifest (as an earlier version recorded it) is still what a redo sends; the result is never kept as an original', async () => {
    const root = tempDir();
    writeTree(root, { 'a.jpg': V0 });
    await inPlace(root, new FakeBackend());
    // What an earlier version left after the rewrite above: the manifest names V0, the kept original is V1.
    writeFileSync(join(root, '.pfc-originals/a.jpg'), V1);
    const redo = new FakeBackend();
    expect((await inPlace(root, redo, { outputQuality: 50 })).corrected).toBe(1);
    expect(Buffer.from(redo.calls[0]!.input)).toEqual(V1);
    expect(readFileSync(join(root, '.pfc-originals/a.jpg'))).toEqual(V1);
    expect(existsSync(join(root, '.pfc-originals/.history'))).toBe(false);
  });

  it('pfc\'s result whose original was deleted from .pfc-originals is refused, not corrected twice and kept as its own original', async () => {
    const root = tempDir();
    writeTree(root, { 'a.jpg': V0 });
    await inPlace(root, new FakeBackend());
    rmSync(join(root, '.pfc-originals/a.jpg'));
    const redo = new FakeBackend();
    const summary = await inPlace(root, redo, { outputQuality: 50 });
    expect(summary.results[0]).toMatchObject({ status: 'failed', errorName: 'OriginalMissingError' });
    expect(summary.results[0]!.error).toMatch(/its original is no longer in .*\.pfc-originals\/a\.jpg/);
    expect(redo.calls).toHaveLength(0);
    expect(readFileSync(join(root, 'a.jpg'))).toEqual(corrected(V0));
    expect(existsSync(join(root, '.pfc-originals/a.jpg'))).toBe(false);
  });

  it('a corrected photo renamed or copied by the user is refused (AlreadyCorrectedError), not taken for a new original; restore brings the original back', async () => {
    const root = tempDir();
    writeTree(root, { 'IMG_1.JPG': V0 });
    await inPlace(root, new FakeBackend());
    renameSync(join(root, 'IMG_1.JPG'), join(root, 'img_1.jpg'));
    copyFileSync(join(root, 'img_1.jpg'), join(root, 'copy.jpg'));
    const again = new FakeBackend();
    const summary = await inPlace(root, again);
    expect(summary.results.map((r) => [r.rel, r.status, r.errorName])).toEqual([['copy.jpg', 'failed', 'AlreadyCorrectedError'], ['img_1.jpg', 'failed', 'AlreadyCorrectedError']]);
    expect(summary.results[0]!.error).toContain(`pfc's result for ${join(root, 'IMG_1.JPG')}`);
    expect(summary.results[0]!.error).toContain(`kept in ${join(root, '.pfc-originals/IMG_1.JPG')}`);
    expect(again.calls).toHaveLength(0);
    expect(readFileSync(join(root, 'img_1.jpg'))).toEqual(corrected(V0));
    expect(existsSync(join(root, '.pfc-originals/img_1.jpg'))).toBe(false);
    await restoreOriginals({ folder: root });
    expect(readFileSync(join(root, 'IMG_1.JPG'))).toEqual(V0);
  });

  it('a photo deleted while it is corrected is not brought back by its result, and says so; its original stays kept', async () => {
    const root = tempDir();
    writeTree(root, { 'a.jpg': V0 });
    const summary = await inPlace(root, new FakeBackend({ onCall: () => rmSync(join(root, 'a.jpg')) }));
    expect(summary.results[0]).toMatchObject({ status: 'failed', errorName: 'ChangedWhileCorrectingError' });
    expect(summary.results[0]!.error).toMatch(/a\.jpg was deleted or moved while it was being corrected; its result was not written/);
    expect(existsSync(join(root, 'a.jpg'))).toBe(false);
    expect(readFileSync(join(root, '.pfc-originals/a.jpg'))).toEqual(V0);
  });

  it('outside in-place mode, the input hash recorded is that of the bytes sent, not of an earlier read', async () => {
    const root = tempDir();
    writeTree(root, { 'a.jpg': V0 });
    const first = await planBatch({ inputs: [root] });
    await runBatch(first, { backend: new FakeBackend(), retryDelayMs: 1 });
    // Changed (its size and mtime): the rerun's decision hashes it, and the sync tool rewrites it just after (same size).
    writeFileSync(join(root, 'a.jpg'), jpegBytes(120, 80, { filler: 'edited by the user, longer' }));
    rewriteAfterHash(join(root, 'a.jpg'), V1);
    const backend = new FakeBackend();
    await runBatch(await planBatch({ inputs: [root] }), { backend, retryDelayMs: 1 });
    expect(Buffer.from(backend.calls[0]!.input)).toEqual(V1);
    expect(await recordedInput(join(root, 'corrected'), 'a.jpg', 'mirror')).toBe(sha(V1));
  });
});
