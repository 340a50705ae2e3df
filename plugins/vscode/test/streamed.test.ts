/**
 * The extension runs a batch on the streamed plan, as the CLI does: files are
 * planned while the first ones are corrected (at most `PLAN_AHEAD` ahead of
 * the work, never an array of every file), the progress total comes from the
 * names-only pass, and Cancel stops a run whose later files are not planned yet.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PLAN_AHEAD } from '@pfc/batch';
import { startEmulator, type EmulatorHandle } from '@pfc/emulator';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, expect, test } from 'vitest';
import type { LastRun } from '../src/last-run';
import { activateOnFake } from './helpers';

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
