import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Manifest } from '../src/manifest';
import { planBatch, runBatch } from '../src/index';
import { editKeepingSize, FakeBackend, jpegBytes, tempDir, writeTree } from './helpers';

describe('runBatch never replaces a file it did not write', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('leaves a file that appears at the output path while the input is corrected (OutputExistsError), and keeps it', async () => {
    const root = tempDir();
    writeTree(root, { 'a.jpg': jpegBytes(100, 100), 'b.jpg': jpegBytes(120, 100) });
    const out = join(root, 'corrected');
    const backend = new FakeBackend({ onCall: (name) => name === 'a.jpg' && writeTree(out, { 'a.jpg': 'the user put this here' }) });
    const plan = await planBatch({ inputs: [root] });
    const summary = await runBatch(plan, { backend, retryDelayMs: 1 });
    expect(summary.results.map((r) => [r.rel, r.status, r.errorName])).toEqual([['a.jpg', 'failed', 'OutputExistsError'], ['b.jpg', 'corrected', undefined]]);
    expect(readFileSync(join(out, 'a.jpg'), 'utf8')).toBe('the user put this here');
  });

  it('leaves a file that appears after the last check, in the instant before the result is put in place', async () => {
    const root = tempDir();
    writeTree(root, { 'a.jpg': jpegBytes(100, 100) });
    const out = join(root, 'corrected');
    // `intend` runs after the check, just before the result goes into place: the user's file arrives there.
    const intend = Manifest.prototype.intend;
    vi.spyOn(Manifest.prototype, 'intend').mockImplementation(async function (this: Manifest, ...args: Parameters<Manifest['intend']>) {
      await intend.apply(this, args);
      writeTree(out, { 'a.jpg': 'saved by the user just now' });
    });
    const plan = await planBatch({ inputs: [root] });
    const summary = await runBatch(plan, { backend: new FakeBackend(), retryDelayMs: 1 });
    expect(summary.results.map((r) => [r.rel, r.status, r.errorName])).toEqual([['a.jpg', 'failed', 'OutputExistsError']]);
    expect(readFileSync(join(out, 'a.jpg'), 'utf8')).toBe('saved by the user just now');
  });

  it('in place, leaves a file the user changed while it was corrected (its original kept)', async () => {
    const root = tempDir();
    const original = jpegBytes(100, 100);
    writeTree(root, { 'a.jpg': original });
    const backend = new FakeBackend({ onCall: () => writeFileSync(join(root, 'a.jpg'), 'edited meanwhile') });
    const plan = await planBatch({ inputs: [root], output: { kind: 'in-place' } });
    const summary = await runBatch(plan, { backend, retryDelayMs: 1 });
    expect(summary.results[0]).toMatchObject({ status: 'failed', errorName: 'ChangedWhileCorrectingError' });
    expect(readFileSync(join(root, 'a.jpg'), 'utf8')).toBe('edited meanwhile');
    expect(readFileSync(join(root, '.pfc-originals/a.jpg')).equals(original)).toBe(true);
  });

  it('leaves a result the user edited since without changing its size (a tag written in place): a rerun with new settings refuses it, sending nothing', async () => {
    const root = tempDir();
    writeTree(root, { 'a.jpg': jpegBytes(100, 100) });
    await runBatch(await planBatch({ inputs: [root] }), { backend: new FakeBackend(), retryDelayMs: 1 });
    const edited = editKeepingSize(join(root, 'corrected/a.jpg'));
    const params = { outputQuality: 50 };
    const backend = new FakeBackend();
    const summary = await runBatch(await planBatch({ inputs: [root], params }), { backend, params, retryDelayMs: 1 });
    expect(summary.results.map((r) => [r.rel, r.status, r.errorName])).toEqual([['a.jpg', 'failed', 'OutputExistsError']]);
    expect(backend.calls).toHaveLength(0);
    expect(readFileSync(join(root, 'corrected/a.jpg'))).toEqual(edited);
  });

  it('in place, does not put a result of another kind (a video for a photo) in its place, and asks the service once, not again for the same answer', async () => {
    const root = tempDir();
    const original = jpegBytes(100, 100);
    writeTree(root, { 'a.jpg': original });
    const mp4 = Buffer.concat([Buffer.from([0, 0, 0, 24]), Buffer.from('ftypisom\0\0\0\0isommp42', 'latin1')]);
    const backend = new FakeBackend({ body: () => mp4 });
    const plan = await planBatch({ inputs: [root], output: { kind: 'in-place' } });
    const summary = await runBatch(plan, { backend, retryDelayMs: 1 });
    expect(summary.results[0]).toMatchObject({ status: 'failed', errorName: 'OutputCheckError' });
    expect(backend.calls).toHaveLength(1);
    expect(readFileSync(join(root, 'a.jpg'))).toEqual(original);
  });
});
