/**
 * A run killed in the instant after its result was renamed into place and
 * before the manifest recorded it. The next run must still know that file as
 * pfc's own result (the `writing` note `Manifest.intend` appends before the
 * rename): in place, it is not kept as an "original" nor corrected twice; in a
 * mirror, it is not refused as a file pfc did not write. Checked on the files
 * on disk, the bytes the service was sent, and what restore gives back.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Manifest, type OutputMode, planBatch, restoreOriginals, runBatch } from '../src/index';
import { CORRECTED_MARK, FakeBackend, jpegBytes, tempDir, writeTree } from './helpers';

const ORIGINAL = jpegBytes(120, 80, { filler: 'the photo as the camera took it' });
const corrected = (bytes: Buffer): Buffer => Buffer.concat([bytes, CORRECTED_MARK]);

/**
 * Run once with the process "killed" at the manifest's record: the result is in
 * place, the record never reaches the file, and nothing after it runs for that
 * file (one attempt, as a dead process makes no second one).
 */
async function runKilledBeforeRecord(input: string, output: OutputMode): Promise<void> {
  const record = vi.spyOn(Manifest.prototype, 'record').mockRejectedValueOnce(new Error('killed (kill -9) before the record'));
  const plan = await planBatch({ inputs: [input], output });
  const summary = await runBatch(plan, { backend: new FakeBackend(), attempts: 1, retryDelayMs: 1 });
  expect(record).toHaveBeenCalledTimes(1);
  expect(summary.failed).toBe(1);
  record.mockRestore();
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('a run killed between putting a result in place and recording it', () => {
  it('in place: the next run redoes it from the kept original, never keeps the result as the original, and restore gives the photo back', async () => {
    const root = tempDir();
    writeTree(root, { 'a.jpg': ORIGINAL });
    await runKilledBeforeRecord(root, { kind: 'in-place' });
    // The state a kill leaves: the result in place, the original kept.
    expect(readFileSync(join(root, 'a.jpg'))).toEqual(corrected(ORIGINAL));
    expect(readFileSync(join(root, '.pfc-originals/a.jpg'))).toEqual(ORIGINAL);

    const backend = new FakeBackend();
    const plan = await planBatch({ inputs: [root], output: { kind: 'in-place' } });
    const summary = await runBatch(plan, { backend, retryDelayMs: 1 });
    expect(summary.results.map((r) => [r.rel, r.status, r.errorName])).toEqual([['a.jpg', 'corrected', undefined]]);
    // Sent the original, not pfc's result; corrected once; the kept original is still the photo.
    expect(Buffer.from(backend.calls[0]!.input)).toEqual(ORIGINAL);
    expect(readFileSync(join(root, 'a.jpg'))).toEqual(corrected(ORIGINAL));
    expect(readFileSync(join(root, '.pfc-originals/a.jpg'))).toEqual(ORIGINAL);
    expect(existsSync(join(root, '.pfc-originals/.history'))).toBe(false);

    const restored = await restoreOriginals({ folder: root });
    expect(restored.restored.map((r) => r.path)).toEqual([join(root, 'a.jpg')]);
    expect(readFileSync(join(root, 'a.jpg'))).toEqual(ORIGINAL);
  });

  it('mirror: the next run takes the result as its own (corrects it again), not as a file pfc did not write', async () => {
    const root = tempDir();
    writeTree(root, { 'in/a.jpg': ORIGINAL });
    const output: OutputMode = { kind: 'mirror', dir: join(root, 'out') };
    const plan = async () => planBatch({ inputs: [join(root, 'in')], output });
    await runKilledBeforeRecord(join(root, 'in'), output);
    expect(readFileSync(join(root, 'out/a.jpg'))).toEqual(corrected(ORIGINAL));

    const summary = await runBatch(await plan(), { backend: new FakeBackend(), retryDelayMs: 1 });
    expect(summary.results.map((r) => [r.rel, r.status, r.errorName])).toEqual([['a.jpg', 'corrected', undefined]]);
    expect(readFileSync(join(root, 'out/a.jpg'))).toEqual(corrected(ORIGINAL));
    // Recorded now: a third run finds it up to date.
    expect((await runBatch(await plan(), { backend: new FakeBackend(), retryDelayMs: 1 })).upToDate).toBe(1);
  });
});
