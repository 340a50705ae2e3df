/**
 * A host that names its choices otherwise than the CLI's flags (VS Code's settings) gets its own names in every
 * reason and error whose advice names a choice, and no flag its user could not type. The CLI's flags stay the default.
 */
import { chmodSync, mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BatchUsageError, CLI_TERMS, type HostTerms, instanceJobsFor, lockFolders, planBatch, restoreOriginals, runBatch, type BatchPlan } from '../src/index';
import { unwritableReason } from '../src/path-limits';
import { FakeBackend, jpegBytes, tempDir, writeTree } from './helpers';

const PHOTO = jpegBytes(120, 80, { filler: 'a photo' });

/** A host without overwrite or lock waiting, whose choices are settings: every phrase unlike any flag. */
const HOST: HostTerms = {
  anotherOutputFolder: 'another folder in Settings › Output',
  shorterOutputPath: 'a shorter folder in Settings › Output',
  shorterSuffix: 'a shorter suffix in Settings › Output',
  inPlace: 'the Replace Originals mode',
  renamingModes: 'the Folder or Suffix mode',
  overwrite: undefined,
  waitForLock: undefined,
  containerUrl: 'Settings › Containers',
  bgrUrl: 'Settings › Background Removal',
  instanceJobs: 'Settings › Files per Container',
};

/** The text names no flag and says each of the host's phrases. */
function expectHostWording(text: string | undefined, ...phrases: string[]): void {
  expect(text).toBeDefined();
  expect(text).not.toMatch(/--[a-z]/);
  for (const phrase of phrases) expect(text).toContain(phrase);
}

async function runWith(plan: BatchPlan, options: { force?: boolean; backend?: FakeBackend; terms?: HostTerms } = {}) {
  return runBatch(plan, { backend: options.backend ?? new FakeBackend(), retryDelayMs: 1, ...(options.force ? { force: true } : {}), ...(options.terms ? { terms: options.terms } : {}) });
}

/** The error of the only file of a mirror run on `root`, run with `terms`. */
async function refusalOf(root: string, terms: HostTerms | undefined, options: { force?: boolean; backend?: FakeBackend } = {}): Promise<string | undefined> {
  const summary = await runWith(await planBatch({ inputs: [root] }), { ...options, ...(terms ? { terms } : {}) });
  expect(summary.failed).toBe(1);
  return summary.results[0]!.error;
}

describe('a run with the host\'s terms', () => {
  it('a file pfc did not write at the output path: advice to move it, where the host cannot overwrite', async () => {
    const root = tempDir();
    writeTree(root, { 'a.jpg': PHOTO, 'corrected/a.jpg': 'the user\'s own file' });
    expectHostWording(await refusalOf(root, HOST), 'would overwrite a file pfc did not write', 'move or rename it, then run again');
    expect(await refusalOf(root, undefined)).toContain('; use --overwrite to replace it');
  });

  it('a file pfc did not write that appears while the photo is corrected', async () => {
    const root = tempDir();
    writeTree(root, { 'a.jpg': PHOTO });
    const backend = new FakeBackend({ onCall: () => writeTree(root, { 'corrected/a.jpg': 'saved meanwhile' }) });
    expectHostWording(await refusalOf(root, HOST, { backend }), 'it appeared while this file was being corrected', 'move or rename it, then run again');
  });

  it('a folder where the result would go: no word of an overwrite the host does not have', async () => {
    const root = tempDir();
    writeTree(root, { 'a.jpg': PHOTO });
    mkdirSync(join(root, 'corrected/a.jpg'), { recursive: true });
    const error = await refusalOf(root, HOST);
    expectHostWording(error, 'a folder is where the result would go', '(or choose another folder in Settings › Output), then run again');
    expect(error).not.toContain('replaces files, never folders');
    expect(await refusalOf(root, CLI_TERMS)).toContain('; --overwrite replaces files, never folders, so it would not help: move or rename the folder (or choose another --out folder), then run again');
  });

  it('a result made read-only since', async () => {
    const root = tempDir();
    writeTree(root, { 'a.jpg': PHOTO });
    await runWith(await planBatch({ inputs: [root] }));
    chmodSync(join(root, 'corrected/a.jpg'), 0o444);
    expectHostWording(await refusalOf(root, HOST, { force: true }), 'made read-only since', 'make it writable, or move or rename it, then run again');
  });

  it('a file where the result\'s folder is needed', async () => {
    const root = tempDir();
    writeTree(root, { 'sub/a.jpg': PHOTO, 'corrected/sub': 'a file, not a folder' });
    expectHostWording(await refusalOf(root, HOST), 'is a file where a folder is needed', '(or choose another folder in Settings › Output)');
  });

  it('a lock held by another run, taken by a run or a restore', async () => {
    const root = tempDir();
    const held = await lockFolders([root]);
    try {
      const byRun = await rejection(lockFolders([root], { terms: HOST }));
      expectHostWording(byRun, 'another pfc run is writing to', 'wait for it to finish, or delete the lock file');
      writeTree(root, { '.pfc-originals/a.jpg': PHOTO, 'a.jpg': PHOTO });
      const byRestore = await rejection(restoreOriginals({ folder: root, terms: HOST }));
      expectHostWording(byRestore, 'another pfc run is writing to');
    } finally {
      await held.release();
    }
  });
});

describe('planning with the host\'s terms', () => {
  it('in place, a result of another format than its name says', async () => {
    const root = tempDir();
    writeTree(root, { 'a.jpg': PHOTO });
    const plan = await planBatch({ inputs: [root], output: { kind: 'in-place' }, params: { outputType: 'png' }, terms: HOST });
    expect(plan.leftOut.kept.map((s) => s.code)).toEqual(['format-change']);
    expectHostWording(plan.leftOut.kept[0]!.reason, 'and the Replace Originals mode keeps the name a.jpg; use the Folder or Suffix mode (they name the result a.png)');
  });

  it('in place, a link', async () => {
    const root = tempDir();
    const elsewhere = tempDir();
    writeTree(elsewhere, { 'a.jpg': PHOTO });
    symlinkSync(join(elsewhere, 'a.jpg'), join(root, 'link.jpg'));
    const plan = await planBatch({ inputs: [root], output: { kind: 'in-place' }, terms: HOST });
    expectHostWording(plan.leftOut.kept.find((s) => s.code === 'symlink')?.reason, 'the Replace Originals mode never replaces a link', 'or use the Folder or Suffix mode');
  });

  it('the originals kept by an in-place run, left out of a run in another mode (an in-place run does not list them: they are its own)', async () => {
    const root = tempDir();
    writeTree(root, { 'sub/a.jpg': PHOTO });
    await runWith(await planBatch({ inputs: [root], output: { kind: 'in-place' } }));
    const plan = await planBatch({ inputs: [root], output: { kind: 'suffix' }, terms: HOST });
    expectHostWording(plan.leftOut.kept.find((s) => s.path.endsWith('.pfc-originals'))?.reason, 'originals kept by the Replace Originals mode');
    const inPlace = await planBatch({ inputs: [root], output: { kind: 'in-place' }, terms: HOST });
    expect(inPlace.files.map((f) => f.rel)).toEqual(['sub/a.jpg']);
    expect(inPlace.leftOut.counts.total).toBe(0);
  });

  it('an output folder that is the input folder', async () => {
    const root = tempDir();
    writeTree(root, { 'a.jpg': PHOTO });
    const plan = planBatch({ inputs: [root], output: { kind: 'mirror', dir: root }, terms: HOST });
    await expect(plan).rejects.toBeInstanceOf(BatchUsageError);
    expectHostWording(await rejection(plan), 'is the input folder', 'choose another folder in Settings › Output (or the Replace Originals mode to replace originals)');
  });

  it('a result\'s name or path too long', () => {
    const name = `${'n'.repeat(252)}.jpg`;
    expectHostWording(unwritableReason({ output: `/photos/${name}`, rel: name }, HOST)?.reason, 'over the 255 a file name may have', 'rename the input or choose a shorter suffix in Settings › Output');
    const deep = `/${'d'.repeat(200)}`.repeat(25);
    expectHostWording(unwritableReason({ output: `${deep}/a.jpg`, rel: 'a.jpg' }, HOST)?.reason, 'a path pfc would write for the result', 'choose a shorter folder in Settings › Output or shorten the folder names');
  });
});

describe('opening a fleet with the host\'s terms', () => {
  it('names the host\'s settings for files at once and addresses', () => {
    expectHostWording(captured(() => instanceJobsFor('2,2', { colour: 3, bgr: 1 }, HOST)), 'Settings › Files per Container has 2 values for 4 instance(s) (3 Settings › Containers and 1 Settings › Background Removal)');
    expectHostWording(captured(() => instanceJobsFor('0', { colour: 1, bgr: 0 }, HOST)), 'Settings › Files per Container values must be integers');
  });
});

/** The message `promise` rejects with; undefined when it resolves. */
async function rejection(promise: Promise<unknown>): Promise<string | undefined> {
  return promise.then(() => undefined, (err: unknown) => (err as Error).message);
}

/** The message `fn` throws; undefined when it returns. */
function captured(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}
