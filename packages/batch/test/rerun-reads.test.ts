/**
 * A rerun of a folder whose files are all up to date reads no file: each
 * input's stat is matched against its manifest entry (size, mtime, settings),
 * so its headers are not sniffed and nothing is hashed. Counted at the file
 * system: every open of a file (sniff, animation check, hash, upload stream).
 */
import { readdirSync, readFileSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { type OutputMode, planBatch, runBatch, type RunOptions } from '../src/index';
import { FakeBackend, jpegBytes, pngBytes, tempDir, writeTree } from './helpers';

const opened = vi.hoisted(() => ({ paths: [] as string[] }));

vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const openSync = ((path: Parameters<typeof fs.openSync>[0], ...rest: unknown[]) => {
    opened.paths.push(String(path));
    return (fs.openSync as (...a: unknown[]) => number)(path, ...rest);
  }) as typeof fs.openSync;
  const createReadStream = ((path: Parameters<typeof fs.createReadStream>[0], ...rest: unknown[]) => {
    opened.paths.push(String(path));
    return (fs.createReadStream as (...a: unknown[]) => ReturnType<typeof fs.createReadStream>)(path, ...rest);
  }) as typeof fs.createReadStream;
  return { ...fs, default: { ...fs, openSync, createReadStream }, openSync, createReadStream };
});

vi.mock('node:fs/promises', async (importOriginal) => {
  const fsp = await importOriginal<typeof import('node:fs/promises')>();
  const open = ((path: Parameters<typeof fsp.open>[0], ...rest: unknown[]) => {
    opened.paths.push(String(path));
    return (fsp.open as (...a: unknown[]) => ReturnType<typeof fsp.open>)(path, ...rest);
  }) as typeof fsp.open;
  return { ...fsp, default: { ...fsp, open }, open };
});

/** A tree with JPEGs and PNGs named as they are, one file without extension and one whose extension lies. */
function tree(): string {
  const root = tempDir();
  const files: Record<string, Buffer> = { scan: jpegBytes(300, 200, { filler: 'scan' }), 'lies.jpg': pngBytes(80, 60, 'lies') };
  for (let i = 0; i < 12; i++) files[`${i % 3 ? 'sub/' : ''}p${i}.${i % 4 ? 'jpg' : 'png'}`] = i % 4 ? jpegBytes(200 + i, 100, { filler: `photo ${i}` }) : pngBytes(200 + i, 100, `png ${i}`);
  writeTree(root, files);
  return root;
}

async function plannedRun(root: string, options: Partial<RunOptions> & { backend: FakeBackend }, output?: OutputMode) {
  const plan = await planBatch({ inputs: [root], ...(output ? { output } : {}) });
  const summary = await runBatch(plan, { retryDelayMs: 1, ...options });
  return { plan, summary };
}

/** The files below `root` that were opened since `opened.paths` was cleared, relative and sorted, without the manifest and lock. */
function inputsOpened(root: string): string[] {
  return [...new Set(opened.paths.filter((p) => p.startsWith(root) && !/\.pfc-(manifest|lock)/.test(p)).map((p) => relative(root, p)))].sort();
}

describe('a rerun of an up-to-date folder', () => {
  it('reads no file whose extension names its format: no header read, no hash, nothing sent', async () => {
    const root = tree();
    const first = await plannedRun(root, { backend: new FakeBackend() });
    expect(first.summary.corrected).toBe(14);

    opened.paths.length = 0;
    const backend = new FakeBackend();
    const again = await plannedRun(root, { backend });
    expect(again.summary).toMatchObject({ corrected: 0, upToDate: 14, failed: 0 });
    expect(backend.calls).toHaveLength(0);
    // Only the two files whose names do not say what they are had their headers read again.
    expect(inputsOpened(root)).toEqual(['lies.jpg', 'scan']);
    expect(again.plan.files.filter((f) => f.mediaFromManifest).map((f) => f.rel).sort()).toEqual(first.plan.files.map((f) => f.rel).filter((r) => r !== 'scan' && r !== 'lies.jpg').sort());
  });

  it('sniffs a file planned from the manifest before sending it again (its output was deleted)', async () => {
    const root = tree();
    await plannedRun(root, { backend: new FakeBackend() });
    unlinkSync(join(root, 'corrected/sub/p1.jpg'));
    unlinkSync(join(root, 'corrected/p0.png'));

    const backend = new FakeBackend();
    const { summary } = await plannedRun(root, { backend, keepResults: true });
    expect(summary).toMatchObject({ corrected: 2, upToDate: 12, failed: 0 });
    expect(backend.calls.map((c) => [c.fileName, c.options.contentType]).sort()).toEqual([['p0.png', 'image/png'], ['p1.jpg', 'image/jpeg']]);
    // The results carry the sniffed pixel size, not the manifest's guess without one.
    const redone = summary.results.filter((r) => r.status === 'corrected').map((r) => [r.rel, r.media.width]).sort();
    expect(redone).toEqual([['p0.png', 200], ['sub/p1.jpg', 201]]);
    expect(readFileSync(join(root, 'corrected/sub/p1.jpg')).subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
  });

  it('sniffs a file again whose size or mtime changed', async () => {
    const root = tree();
    await plannedRun(root, { backend: new FakeBackend() });
    writeFileSync(join(root, 'sub/p2.jpg'), jpegBytes(640, 480, { filler: 'a new photo' }));
    opened.paths.length = 0;
    const backend = new FakeBackend();
    const { summary, plan } = await plannedRun(root, { backend });
    expect(summary).toMatchObject({ corrected: 1, upToDate: 13 });
    expect(plan.files.find((f) => f.rel === 'sub/p2.jpg')).toMatchObject({ media: { width: 640, height: 480 } });
    expect(inputsOpened(root)).toContain('sub/p2.jpg');
  });
});

/** Every file below `root` but pfc's own (manifest, lock), given a new modification time `ago` ms back: a copy without its times. */
function newTimes(root: string, ago: number): void {
  const at = (Date.now() - ago) / 1000;
  for (const e of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (e.isFile() && !e.name.startsWith('.pfc-')) utimesSync(join(e.parentPath, e.name), at, at);
  }
}

describe('a rerun of a folder copied without its times (cp -r, an unzip, a restore from backup)', () => {
  const modes: [string, OutputMode][] = [['an output folder', { kind: 'mirror' }], ['suffix', { kind: 'suffix', suffix: '_pfc' }], ['in place', { kind: 'in-place' }]];
  it.each(modes)('%s: the first rerun reads each photo and result once, finds them up to date and lists none; the next reads no more than before the copy', async (_, output) => {
    const root = tree();
    expect((await plannedRun(root, { backend: new FakeBackend() }, output)).summary.corrected).toBe(14);
    opened.paths.length = 0;
    await plannedRun(root, { backend: new FakeBackend() }, output);
    const beforeCopy = inputsOpened(root);
    newTimes(root, 3_600_000);

    opened.paths.length = 0;
    const backend = new FakeBackend();
    const first = await plannedRun(root, { backend }, output);
    expect(first.summary).toMatchObject({ corrected: 0, upToDate: 14, failed: 0, excluded: 0 });
    const photosAndResults = first.plan.files.flatMap((f) => [relative(root, f.input), relative(root, f.output)]);
    expect(inputsOpened(root)).toEqual(expect.arrayContaining(photosAndResults));

    opened.paths.length = 0;
    const again = await plannedRun(root, { backend }, output);
    expect(again.summary).toMatchObject({ corrected: 0, upToDate: 14, failed: 0, excluded: 0 });
    expect(inputsOpened(root)).toEqual(beforeCopy);
    expect(beforeCopy.length).toBeLessThanOrEqual(2);
    expect(backend.calls).toHaveLength(0);
  });

  it('a file given new times a moment ago is read again next time (it may change again within its clock\'s resolution)', async () => {
    const root = tree();
    await plannedRun(root, { backend: new FakeBackend() });
    newTimes(root, 0);
    await plannedRun(root, { backend: new FakeBackend() });
    opened.paths.length = 0;
    await plannedRun(root, { backend: new FakeBackend() });
    expect(inputsOpened(root)).toEqual(expect.arrayContaining(['p3.jpg', 'corrected/p3.jpg']));
  });
});

describe('the manifests read while planning', () => {
  it('are read again by a run that starts after another run changed them', async () => {
    const root = tree();
    // Planned before the other run wrote anything: its manifest is empty.
    const stale = await planBatch({ inputs: [root] });
    await plannedRun(root, { backend: new FakeBackend() });
    const backend = new FakeBackend();
    const summary = await runBatch(stale, { backend, retryDelayMs: 1 });
    // With the stale, empty manifest every output would be a stranger's file and refused.
    expect(summary).toMatchObject({ corrected: 0, upToDate: 14, failed: 0 });
  });
});
