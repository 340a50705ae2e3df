/**
 * A photo the user turned into a folder of the same name (`a.jpg/` holding
 * photos) finds pfc's own file where that folder's results or originals go:
 * the earlier result `corrected/a.jpg`, or in place the kept original
 * `.pfc-originals/a.jpg`. Only the files below it are refused, each naming the
 * file in the way, which is kept as it is; the rest of the run goes on. Also:
 * a folder at a result's path is said to be one before `--overwrite` is
 * suggested, and in place a PNG named `.jpg` made JPEG keeps its name and its
 * original's bytes. Each runs the engine on a real folder and checks the bytes
 * on disk, what the service was sent, and what the run says.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkOutputWritable, planBatch, restoreOriginals, runBatch, type PlanOptions } from '../src/index';
import { FakeBackend, jpegBytes, pngBytes, tempDir, writeTree } from './helpers';

const PHOTO = jpegBytes(96, 64, { filler: 'photo a' });
const LATER = jpegBytes(96, 64, { filler: 'photo c' });
const NEW = jpegBytes(96, 64, { filler: 'photo new' });

/** Plan `root` with `output`, run the write check every host runs first, then the run. */
async function checkedRun(root: string, output: PlanOptions['output'], backend: FakeBackend, params = {}) {
  const plan = await planBatch({ inputs: [root], output, params });
  await checkOutputWritable(plan);
  return runBatch(plan, { backend, params, retryDelayMs: 1 });
}

/** Correct `root/a.jpg`, then make `a.jpg` a folder holding `c.jpg`, with `new.jpg` beside it. */
async function photoTurnedFolder(root: string, output: PlanOptions['output']): Promise<void> {
  writeTree(root, { 'a.jpg': PHOTO });
  await checkedRun(root, output, new FakeBackend());
  renameSync(join(root, 'a.jpg'), join(tempDir(), 'a-moved.jpg'));
  writeTree(root, { 'a.jpg/c.jpg': LATER, 'new.jpg': NEW });
}

describe('a file where a folder is now needed', () => {
  it('in place: the kept original in the way refuses only the files below it, names itself as a kept original, and is kept', async () => {
    const root = tempDir();
    await photoTurnedFolder(root, { kind: 'in-place' });
    const kept = join(root, '.pfc-originals/a.jpg');
    expect(readFileSync(kept)).toEqual(PHOTO);
    const backend = new FakeBackend();
    const summary = await checkedRun(root, { kind: 'in-place' }, backend);
    expect(summary.results.map((r) => [r.rel, r.status, r.errorName]).sort()).toEqual([['a.jpg/c.jpg', 'failed', 'OutputBlockedError'], ['new.jpg', 'corrected', undefined]]);
    const error = summary.results.find((r) => r.rel === 'a.jpg/c.jpg')!.error!;
    expect(error).toContain(`its original cannot be kept: ${kept} is a file where a folder is needed, and it is the kept original of an earlier a.jpg`);
    expect(error).toMatch(/pfc never moves or deletes; move that original out of \.pfc-originals/);
    expect(backend.calls.map((c) => c.fileName)).toEqual(['new.jpg']);
    expect(readFileSync(kept)).toEqual(PHOTO);
    expect(readFileSync(join(root, 'a.jpg/c.jpg'))).toEqual(LATER);
  });

  it('mirrored: pfc\'s earlier result in the way refuses only the files below it, names itself as an earlier result, and is kept', async () => {
    const root = tempDir();
    await photoTurnedFolder(root, { kind: 'mirror' });
    const earlier = join(root, 'corrected/a.jpg');
    const result = readFileSync(earlier);
    const backend = new FakeBackend();
    const summary = await checkedRun(root, { kind: 'mirror' }, backend);
    expect(summary.results.map((r) => [r.rel, r.status, r.errorName]).sort()).toEqual([['a.jpg/c.jpg', 'failed', 'OutputBlockedError'], ['new.jpg', 'corrected', undefined]]);
    expect(summary.results.find((r) => r.rel === 'a.jpg/c.jpg')!.error).toContain(`its result cannot be written: ${earlier} is a file where a folder is needed, and it is pfc's result of an earlier run (from ${join(root, 'a.jpg')})`);
    expect(backend.calls.map((c) => c.fileName)).toEqual(['new.jpg']);
    expect(readFileSync(earlier)).toEqual(result);
  });

  it('mirrored: a file pfc did not write in the way is said to be the user\'s, and kept', async () => {
    const root = tempDir();
    writeTree(root, { 'in/a/c.jpg': LATER, 'in/new.jpg': NEW, 'out/a': 'the user\'s notes' });
    const summary = await checkedRun(join(root, 'in'), { kind: 'mirror', dir: join(root, 'out') }, new FakeBackend());
    expect(summary.results.find((r) => r.rel === 'a/c.jpg')!.error).toContain(`${join(root, 'out/a')} is a file where a folder is needed (a file pfc did not write)`);
    expect(summary.corrected).toBe(1);
    expect(readFileSync(join(root, 'out/a'), 'utf8')).toBe('the user\'s notes');
  });

  it('still refuses the whole run when the output folder itself is a file', async () => {
    const root = tempDir();
    writeTree(root, { 'in/a.jpg': PHOTO, out: 'not a folder' });
    const plan = await planBatch({ inputs: [join(root, 'in')], output: { kind: 'mirror', dir: join(root, 'out') } });
    await expect(checkOutputWritable(plan)).rejects.toThrow(`${join(root, 'out')} is a file, not a folder`);
  });
});

describe('a folder at a result\'s path', () => {
  it('is said to be a folder, which --overwrite would not replace either, without suggesting it', async () => {
    const root = tempDir();
    writeTree(root, { 'b.jpg': PHOTO });
    mkdirSync(join(root, 'corrected/b.jpg'), { recursive: true });
    const summary = await checkedRun(root, { kind: 'mirror' }, new FakeBackend());
    const error = summary.results[0]!.error!;
    expect(error).toContain(`a folder is where the result would go: ${join(root, 'corrected/b.jpg')}; --overwrite replaces files, never folders, so it would not help`);
    expect(error).not.toContain('use --overwrite');
  });
});

describe('in place, a PNG named .jpg made JPEG', () => {
  const ORIGINAL_PNG = pngBytes(96, 64, 'the original png');
  const RESULT_JPEG = jpegBytes(96, 64, { filler: 'the result' });
  /** A service that answers JPEG, as `outputType=jpg` asks. */
  const jpegService = () => new FakeBackend({ body: () => RESULT_JPEG });

  it('is corrected under its name, its original kept byte for byte, sent again as PNG on a rerun, and restored as it was', async () => {
    const root = tempDir();
    writeTree(root, { 'other.jpg': ORIGINAL_PNG });
    const first = jpegService();
    const summary = await checkedRun(root, { kind: 'in-place' }, first, { outputType: 'jpg' });
    expect(summary.results.map((r) => [r.rel, r.status])).toEqual([['other.jpg', 'corrected']]);
    expect(readFileSync(join(root, 'other.jpg'))).toEqual(RESULT_JPEG);
    expect(readFileSync(join(root, '.pfc-originals/other.jpg'))).toEqual(ORIGINAL_PNG);
    expect(first.calls[0]!.options.contentType).toBe('image/png');
    // New settings redo it from the kept PNG, sent as what it is, not as the JPEG now under its name.
    const rerun = jpegService();
    await checkedRun(root, { kind: 'in-place' }, rerun, { outputType: 'jpg', outputQuality: 70 });
    expect(rerun.calls.map((c) => [Buffer.from(c.input).equals(ORIGINAL_PNG), c.options.contentType])).toEqual([[true, 'image/png']]);
    const restored = await restoreOriginals({ folder: root });
    expect(restored.restored).toHaveLength(1);
    expect(readFileSync(join(root, 'other.jpg'))).toEqual(ORIGINAL_PNG);
  });

  it('a PNG named .png is still left out, with the reason that holds: its name would not say JPEG', async () => {
    const root = tempDir();
    writeFileSync(join(root, 'p.png'), ORIGINAL_PNG);
    const plan = await planBatch({ inputs: [root], output: { kind: 'in-place' }, params: { outputType: 'jpg' } });
    expect(plan.files).toHaveLength(0);
    expect(plan.leftOut.kept.map((s) => [s.code, s.reason])).toEqual([['format-change', 'the parameters make its result JPEG, and --in-place keeps the name p.png; use --out or --suffix (they name the result p.jpg)']]);
  });
});
