/**
 * The extension runs a batch on the streamed plan, as the CLI does: files are
 * planned while the first ones are corrected (at most `PLAN_AHEAD` ahead of
 * the work, never an array of every file), the progress total comes from the
 * names-only pass, and Cancel stops a run whose later files are not planned yet.
 */
import * as fs from 'node:fs';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as fsp from 'node:fs/promises';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PLAN_AHEAD } from '@pfc/batch';
import { startEmulator, type EmulatorHandle } from '@pfc/emulator';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, expect, test } from 'vitest';
import type { LastRun } from '../src/last-run';
import { SECRET_KEYS } from '../src/keys';
import type { FakeVscode } from './fake-vscode';
import { activateOnFake, tinyPhotoTree } from './helpers';

/** More files than the plan is ever ahead of the work: the last ones can only be planned once earlier ones were taken. */
const FILES = PLAN_AHEAD + 64;
const PER_FOLDER = 40;
const FOLDERS = Math.ceil(FILES / PER_FOLDER);

let emu: EmulatorHandle;
let root: string | undefined;

beforeAll(async () => {
  // No imaging engine: the test is about planning and progress, not pixels.
  emu = await startEmulator({ host: '127.0.0.1', engine: {}, processingMs: 5 });
});
afterAll(async () => {
  await emu?.close();
});
afterEach(() => {
  if (root) rmSync(root, { recursive: true, force: true });
  root = undefined;
});

async function tinyPhotos(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'pfc-vscode-streamed-'));
  const jpeg = await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 120, g: 90, b: 60 } } }).jpeg().toBuffer();
  for (let i = 0; i < FILES; i++) {
    const folder = join(dir, `d${String(Math.floor(i / PER_FOLDER)).padStart(2, '0')}`);
    if (i % PER_FOLDER === 0) {
      mkdirSync(folder);
      // Counted by name, then left out by content.
      writeFileSync(join(folder, 'notes.txt'), 'not an image');
    }
    writeFileSync(join(folder, `p${String(i).padStart(4, '0')}.jpg`), jpeg);
  }
  return dir;
}

test('the first files are corrected before the last are planned; "N/M" counts every file from the start', async () => {
  root = await tinyPhotos();
  const { fake } = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: emu.web, concurrency: 4 } });
  const last = (await fake.run('pfc.correctFolder', fake.uri(root))) as LastRun;
  expect(last.summary.corrected).toBe(FILES);
  // A whole plan has no "planned" event; a streamed one sends it when its last file is planned.
  const planned = fake.output.findIndex((l) => l.startsWith(`planned: ${FILES} file(s)`));
  const firstCorrected = fake.output.findIndex((l) => l.startsWith('corrected '));
  expect(firstCorrected).toBeGreaterThanOrEqual(0);
  expect(planned).toBeGreaterThan(firstCorrected);
  // The total was known (by name) before any file was read: the first progress of the run already says it;
  // once planned, the files left out by content (the text files) leave it, and the progress ends at 100 %.
  expect(fake.progress.find((p) => /^\d+\/\d+/.test(p.message ?? ''))?.message).toBe(`0/${FILES + FOLDERS} · starting`);
  expect(fake.statusTexts.at(-1)).toBe(`$(sync~spin) PFC ${FILES}/${FILES}`);
  expect(fake.progress.reduce((n, p) => n + (p.increment ?? 0), 0)).toBeCloseTo(100, 5);
}, 120_000);

test('Cancel stops a run whose later files are not planned yet: every file is corrected or counted as cancelled', async () => {
  root = await tinyPhotos();
  const { fake } = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: emu.web, concurrency: 2 } });
  fake.onProgressStart = (cancel) => {
    if (!fake.output.some((l) => l.startsWith('run: '))) return;
    const timer = setInterval(() => {
      if (fake.output.some((l) => l.startsWith('corrected '))) {
        clearInterval(timer);
        cancel();
      }
    }, 5);
  };
  const last = (await fake.run('pfc.correctFolder', fake.uri(root))) as LastRun;
  expect(last.summary.interrupted).toBe(true);
  expect(last.summary.corrected).toBeGreaterThanOrEqual(1);
  expect(last.summary.corrected).toBeLessThan(FILES - PLAN_AHEAD);
  // Cut short before planning ended: no "planned" line, and the files never planned still count.
  expect(fake.output.some((l) => l.startsWith('planned: '))).toBe(false);
  expect(last.summary.corrected + last.summary.failed + last.summary.cancelled + last.summary.excluded).toBe(FILES + FOLDERS);
}, 120_000);

/**
 * Counts the files under `dir` that are opened (to read their headers or hash
 * them), the folders listed by planning's walk (synchronous listings) and
 * those listed by the extension's own scan (asynchronous), from any module: the builtin
 * `fs` exports are wrapped and `syncBuiltinESMExports` updates the ES module
 * bindings other modules hold.
 */
function countReads(dir: string): { opens: () => number; listings: () => number; scanListings: () => number; restore: () => void } {
  const require = createRequire(import.meta.url);
  const cjsFs = require('node:fs') as typeof fs;
  const cjsFsp = require('node:fs/promises') as typeof fsp;
  const original = { openSync: cjsFs.openSync, open: cjsFsp.open, readdirSync: cjsFs.readdirSync, readdir: cjsFsp.readdir };
  let opens = 0;
  let listings = 0;
  let scanListings = 0;
  const mine = (p: unknown): boolean => typeof p === 'string' && p.startsWith(dir);
  cjsFs.openSync = ((p: fs.PathLike, ...rest: never[]) => {
    if (mine(p)) opens++;
    return (original.openSync as (...a: unknown[]) => number)(p, ...rest);
  }) as typeof fs.openSync;
  cjsFsp.open = ((p: fs.PathLike, ...rest: never[]) => {
    if (mine(p)) opens++;
    return (original.open as (...a: unknown[]) => Promise<fsp.FileHandle>)(p, ...rest);
  }) as typeof fsp.open;
  cjsFs.readdirSync = ((p: fs.PathLike, ...rest: never[]) => {
    if (mine(p)) listings++;
    return (original.readdirSync as (...a: unknown[]) => unknown)(p, ...rest);
  }) as typeof fs.readdirSync;
  cjsFsp.readdir = ((p: fs.PathLike, ...rest: never[]) => {
    if (mine(p)) scanListings++;
    return (original.readdir as (...a: unknown[]) => unknown)(p, ...rest);
  }) as typeof fsp.readdir;
  syncBuiltinESMExports();
  return {
    opens: () => opens,
    listings: () => listings,
    scanListings: () => scanListings,
    restore: () => {
      Object.assign(cjsFs, { openSync: original.openSync, readdirSync: original.readdirSync });
      Object.assign(cjsFsp, { open: original.open, readdir: original.readdir });
      syncBuiltinESMExports();
    },
  };
}

const pause = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Presses Cancel, as a user would (from the event loop, polled every millisecond), on the first notification
 * whose progress starts while `during()` holds, once `when()` holds. `stop()` ends the polling.
 */
function cancelWhen(fake: FakeVscode, when: () => boolean, during: () => boolean = () => true): { stop: () => void } {
  let timer: NodeJS.Timeout | undefined;
  fake.onProgressStart = (cancel) => {
    if (timer || !during()) return;
    timer = setInterval(() => {
      if (!when()) return;
      clearInterval(timer);
      cancel();
    }, 1);
  };
  return { stop: () => clearInterval(timer) };
}

test('Cancel while the scan walks a tree of 3,000 folders ("Scanning… N files") stops the walk: no folder is listed after the command returns', async () => {
  root = await tinyPhotoTree(3000, 'pfc-vscode-scan-', 1);
  const reads = countReads(root);
  const { fake } = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: emu.web } });
  // Cancel once the scan has counted a hundred files (it says so every hundred).
  const canceller = cancelWhen(fake, () => fake.progress.some((p) => /^Scanning… [1-9]\d+ files$/.test(p.message ?? '')));
  try {
    expect(await fake.run('pfc.correctFolder', fake.uri(root))).toBeUndefined();
    const atReturn = reads.scanListings();
    expect(atReturn).toBeLessThan(3000);
    await pause(1500);
    expect(reads.scanListings()).toBe(atReturn);
    // Planning never started: nothing listed by it, nothing read, nothing said.
    expect(reads.listings()).toBe(0);
    expect(reads.opens()).toBe(0);
    expect(fake.shown).toEqual([]);
  } finally {
    canceller.stop();
    reads.restore();
  }
}, 120_000);

test('Cancel while planning walks a tree of 3,000 folders stops the walk: no folder is listed after the command returns', async () => {
  root = await tinyPhotoTree(3000, 'pfc-vscode-walk-', 1);
  const reads = countReads(root);
  const { fake } = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: emu.web } });
  let atPlanning: number | undefined;
  // Cancel once the names-only pass ("Planning 3000 files…") has listed a hundred folders.
  const canceller = cancelWhen(fake, () => {
    if (!fake.progress.some((p) => /^Planning \d+ files/.test(p.message ?? ''))) return false;
    atPlanning ??= reads.listings();
    return reads.listings() - atPlanning >= 100;
  });
  try {
    expect(await fake.run('pfc.correctFolder', fake.uri(root))).toBeUndefined();
    const atReturn = reads.listings();
    expect(atReturn).toBeLessThan(3000);
    // The walk stopped with the notification: none of the other folders is listed once the command has returned.
    await pause(1500);
    expect(reads.listings()).toBe(atReturn);
    // Nothing was read, nothing corrected.
    expect(reads.opens()).toBe(0);
    expect(fake.output.some((l) => l.startsWith('run: '))).toBe(false);
  } finally {
    canceller.stop();
    reads.restore();
  }
}, 120_000);

test('Cancel of the run while it plans a folder of 5,000 non-photos stops that planning: the files not reached count as cancelled', async () => {
  const NOT_PHOTOS = 5000;
  root = await tinyPhotoTree(4, 'pfc-vscode-runplan-', 4);
  mkdirSync(join(root, 'n'));
  for (let i = 0; i < NOT_PHOTOS; i++) writeFileSync(join(root, `n/n${String(i).padStart(5, '0')}.dat`), 'not an image');
  const reads = countReads(join(root, 'n'));
  const { fake } = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: emu.web, concurrency: 1 } });
  let atCancel = 0;
  // At the first file's start the planner is past d0000/, reading n/ (the jobs wait for its turns of the event loop).
  const firstStart = (): boolean => {
    if (!fake.output.some((l) => l.startsWith('start '))) return false;
    atCancel = reads.opens();
    return true;
  };
  const canceller = cancelWhen(fake, firstStart, () => fake.output.some((l) => l.startsWith('run: ')));
  try {
    const last = (await fake.run('pfc.correctFolder', fake.uri(root))) as LastRun;
    expect(last.summary.interrupted).toBe(true);
    expect(atCancel).toBeLessThan(NOT_PHOTOS);
    // Only the files already being read ahead of the planner, and one turn's worth at most.
    expect(reads.opens() - atCancel).toBeLessThanOrEqual(256 + 16);
    expect(last.summary.excluded).toBeLessThan(NOT_PHOTOS / 2);
    expect(last.summary.cancelled).toBeGreaterThan(NOT_PHOTOS / 2);
  } finally {
    canceller.stop();
    reads.restore();
  }
}, 120_000);

test('Cancel while a paid backend counts the files to send (pfc.confirmAboveFiles) stops reading them', async () => {
  root = await tinyPhotoTree(3000, 'pfc-vscode-costguard-', 50);
  const key = 'cost-guard-key-1234';
  const hosted = await startEmulator({ host: '127.0.0.1', engine: {}, apiKeys: [key] });
  const reads = countReads(root);
  const { fake } = activateOnFake({ settings: { backend: 'hosted', webApiUrl: hosted.web, confirmAboveFiles: 10 } });
  // Cancel once the count has read a few files: "Checking 3000 files against earlier results…".
  const canceller = cancelWhen(fake, () => fake.progress.some((p) => /^Checking \d+ files/.test(p.message ?? '')) && reads.opens() >= 20);
  try {
    await fake.secrets.store(SECRET_KEYS.apiKey, key);
    expect(await fake.run('pfc.correctFolder', fake.uri(root))).toBeUndefined();
    const atReturn = reads.opens();
    expect(atReturn).toBeLessThan(3000);
    // The work behind the notification stopped with it (between two files): no file is opened once the command has returned.
    await pause(1500);
    expect(reads.opens()).toBe(atReturn);
    // Nothing was sent, no question was asked.
    expect(fake.shown.filter((m) => m.modal)).toEqual([]);
    expect(Object.keys(hosted.stats().requests).filter((r) => !/preset/i.test(r))).toEqual([]);
  } finally {
    canceller.stop();
    reads.restore();
    await hosted.close();
  }
}, 120_000);
