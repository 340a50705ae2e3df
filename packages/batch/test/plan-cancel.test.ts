/**
 * Cancelling planning: a host that aborts `PlanOptions.signal` (VS Code's
 * Cancel, the CLI's Ctrl-C) stops the work itself, not only its wait for it —
 * no folder is listed and no file opened once planning has rejected.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UserAbortError } from '@pfc/core';
import { describe, expect, it, vi } from 'vitest';
import { collectPlan, LeftOutRecord, pendingFiles, planStream, runBatch, type BatchPlan, type PlannedFile } from '../src/index';
import { FakeBackend, jpegBytes, tempDir } from './helpers';

/** Folder listings and file opens below the test's folder, from any module (`vi.mock` reaches the sources' imports). */
const fsCalls = vi.hoisted(() => ({ below: '\0', listed: 0, opened: [] as string[] }));

vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const mine = (p: unknown): p is string => typeof p === 'string' && p.startsWith(fsCalls.below);
  const readdirSync = ((...args: Parameters<typeof fs.readdirSync>) => {
    if (mine(args[0])) fsCalls.listed++;
    return fs.readdirSync(...args);
  }) as typeof fs.readdirSync;
  const openSync = ((...args: Parameters<typeof fs.openSync>) => {
    if (mine(args[0])) fsCalls.opened.push(args[0]);
    return fs.openSync(...args);
  }) as typeof fs.openSync;
  return { ...fs, default: { ...fs, readdirSync, openSync }, readdirSync, openSync };
});

/** A tree of `folders` folders of `each` small JPEGs; the folder listings and file opens below it are counted from now on. */
function tree(folders: number, each: number): string {
  const root = tempDir('pfc-plan-cancel-');
  const jpeg = jpegBytes(64, 48);
  for (let d = 0; d < folders; d++) {
    const dir = join(root, `f${String(d).padStart(4, '0')}`);
    mkdirSync(dir);
    for (let i = 0; i < each; i++) writeFileSync(join(dir, `p${String(i).padStart(3, '0')}.jpg`), jpeg);
  }
  watch(root);
  return root;
}

function watch(root: string): void {
  Object.assign(fsCalls, { below: root, listed: 0, opened: [] });
}

/** Aborts `ctrl` from the event loop (as a Cancel button or Ctrl-C would) once `when()` holds; `stop()` ends the watch. */
function cancelWhen(ctrl: AbortController, when: () => boolean): { stop: () => void } {
  let watching = true;
  const poll = (): void => {
    if (!watching) return;
    if (when()) ctrl.abort();
    else setImmediate(poll);
  };
  setImmediate(poll);
  return { stop: () => (watching = false) };
}

const settle = (): Promise<void> => new Promise((r) => setTimeout(r, 300));

describe('planning with a signal', () => {
  it('stops the names-only walk of a tree of thousands of folders between two folders', async () => {
    const root = tree(3000, 1);
    const ctrl = new AbortController();
    const cancel = cancelWhen(ctrl, () => fsCalls.listed >= 200);
    await expect(planStream({ inputs: [root], signal: ctrl.signal })).rejects.toBeInstanceOf(UserAbortError);
    cancel.stop();
    const listed = fsCalls.listed;
    // At most one turn of the walk (64 folders) after the abort, and nothing once planning rejected.
    expect(listed).toBeLessThanOrEqual(200 + 64);
    await settle();
    expect(fsCalls.listed).toBe(listed);
  });

  it('stops the planning of the files between two files, within a folder', async () => {
    const root = tree(4, 1000);
    const ctrl = new AbortController();
    const stream = await planStream({ inputs: [root], signal: ctrl.signal });
    const cancel = cancelWhen(ctrl, () => fsCalls.opened.length >= 300);
    await expect(collectPlan(stream, { signal: ctrl.signal })).rejects.toBeInstanceOf(UserAbortError);
    cancel.stop();
    const opened = fsCalls.opened.length;
    // The event loop gets a turn every 256 files, and the reads run 16 files ahead of the walk:
    // well before the end of the first folder (1,000 files).
    expect(opened).toBeLessThanOrEqual(300 + 256 + 16);
    await settle();
    expect(fsCalls.opened.length).toBe(opened);
  });

  it('collectPlan alone stops at the next file handed on (the planning of one folder)', async () => {
    const root = tree(4, 1000);
    const ctrl = new AbortController();
    const stream = await planStream({ inputs: [root] });
    const cancel = cancelWhen(ctrl, () => fsCalls.opened.length >= 300);
    await expect(collectPlan(stream, { signal: ctrl.signal })).rejects.toBeInstanceOf(UserAbortError);
    cancel.stop();
    const opened = fsCalls.opened.length;
    // The first folder (a unit, handed on once planned), not the other three.
    expect(opened).toBe(1000);
    await settle();
    expect(fsCalls.opened.length).toBe(opened);
  });

  it('a run cancelled while its plan (given the run\'s signal) walks a folder of 3,000 non-photos stops planning at once', async () => {
    const root = tempDir('pfc-plan-cancel-');
    mkdirSync(join(root, 'a'));
    for (let i = 0; i < 4; i++) writeFileSync(join(root, `a/p${i}.jpg`), jpegBytes(64, 48));
    mkdirSync(join(root, 'b'));
    for (let i = 0; i < 3000; i++) writeFileSync(join(root, `b/n${String(i).padStart(4, '0')}.dat`), 'not an image');
    watch(join(root, 'b'));
    const ctrl = new AbortController();
    // The Cancel comes from the event loop once b's planning is under way, whatever the machine's load:
    // waiting for the first job instead let a loaded machine finish planning b before it.
    let atAbort = 0;
    const cancel = cancelWhen(ctrl, () => fsCalls.opened.length >= 300 && ((atAbort = fsCalls.opened.length), true));
    const backend = new FakeBackend({ delayMs: 50 });
    const plan = await planStream({ inputs: [root], signal: ctrl.signal });
    const summary = await runBatch(plan, { backend, concurrency: 1, signal: ctrl.signal, keepResults: false });
    cancel.stop();
    await settle();
    // A cancelled run, not a failed one: the files of b not reached are counted as cancelled.
    expect(summary.interrupted).toBe(true);
    expect(atAbort).toBeGreaterThanOrEqual(300);
    // Only the reads already started ahead of the walk.
    expect(fsCalls.opened.length - atAbort).toBeLessThanOrEqual(16 + 1);
    expect(fsCalls.opened.length).toBeLessThan(3000);
    expect(summary.cancelled).toBeGreaterThanOrEqual(3000 - fsCalls.opened.length);
  });
});

describe('pendingFiles (the cost guard\'s count)', () => {
  it('gives the event loop turns while it decides, so a Cancel stops it with UserAbortError before the end of a large plan', async () => {
    // A plan of 20,000 new files: each decision is a synchronous stat, none hashes anything.
    const root = tempDir('pfc-pending-cancel-');
    const files = Array.from({ length: 20_000 }, (_, i) => ({
      input: join(root, `in${i}.jpg`), output: join(root, 'out', `in${i}.jpg`), outputRoot: join(root, 'out'), rel: `in${i}.jpg`,
      size: 1, mtimeMs: 1, media: { format: 'jpeg', fileType: 'image', contentType: 'image/jpeg' },
    })) as PlannedFile[];
    // The files decided so far: the Cancel comes once deciding has begun.
    let taken = 0;
    const counted = Object.assign([...files], {
      *[Symbol.iterator]() {
        for (const f of files) {
          taken++;
          yield f;
        }
      },
    });
    const plan: BatchPlan = { files: counted, leftOut: new LeftOutRecord(), outputRoots: [join(root, 'out')], mode: { kind: 'mirror' }, totalBytes: files.length };
    const ctrl = new AbortController();
    const watching = cancelWhen(ctrl, () => taken > 0);
    await expect(pendingFiles(plan, { backendId: 'fake', signal: ctrl.signal })).rejects.toBeInstanceOf(UserAbortError);
    watching.stop();
    expect(taken).toBeLessThan(1000);
    // Without a signal the same plan is counted whole.
    expect(await pendingFiles(plan, { backendId: 'fake' })).toHaveLength(20_000);
  });
});
