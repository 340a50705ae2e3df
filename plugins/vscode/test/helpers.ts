/** Shared set-up of the tests: a temporary folder of the repo's real sample photos, an emulator, the extension on the fake VS Code. */
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { readResults, type FileResult } from '@pfc/batch';
import { startEmulator, type EmulatorHandle, type EmulatorOptions } from '@pfc/emulator';
import sharp from 'sharp';
import { afterAll, beforeAll } from 'vitest';
import { Commands } from '../src/commands';
import type { LastRun } from '../src/last-run';
import { Log } from '../src/log';
import { FakeVscode, type FakeOptions } from './fake-vscode';
import { SAMPLE_FILES, SAMPLES } from './samples';

export { SAMPLE_FILES } from './samples';

/** The emulator of a test file (or `describe` block), on 127.0.0.1: started before its tests, closed after them. */
export function emulatorForTests(options: Omit<EmulatorOptions, 'host'> = {}): () => EmulatorHandle {
  let emu: EmulatorHandle | undefined;
  beforeAll(async () => {
    emu = await startEmulator({ host: '127.0.0.1', ...options });
  });
  afterAll(async () => {
    await emu?.close();
  });
  return () => {
    if (!emu) throw new Error('the emulator starts before the tests');
    return emu;
  };
}

/** A fresh folder holding `photos/` with the samples' nested layout; `cleanup()` removes it. */
export function photoFolder(): { root: string; photos: string; cleanup: () => void } {
  const root = mkdtempSync(join(tmpdir(), 'pfc-vscode-unit-'));
  const photos = join(root, 'photos');
  for (const rel of SAMPLE_FILES) {
    mkdirSync(dirname(join(photos, rel)), { recursive: true });
    cpSync(join(SAMPLES, rel), join(photos, rel));
  }
  return { root, photos, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

/**
 * A fresh folder (under the system's temporary folder, named `prefix…`) of
 * `n` copies of one tiny JPEG, `perFolder` to a subfolder: `d0000/p000000.jpg`,
 * names of the same length whatever `n` (up to a million), so only counts
 * differ between runs. The caller removes it.
 */
export async function tinyPhotoTree(n: number, prefix: string, perFolder = 50): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const jpeg = await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 120, g: 90, b: 60 } } }).jpeg().toBuffer();
  for (let i = 0; i < n; i++) {
    const folder = join(dir, `d${String(Math.floor(i / perFolder)).padStart(4, '0')}`);
    if (i % perFolder === 0) mkdirSync(folder);
    writeFileSync(join(folder, `p${String(i).padStart(6, '0')}.jpg`), jpeg);
  }
  return dir;
}

/** The extension's commands registered on a fake VS Code, as `activate` does. */
export function activateOnFake(options: FakeOptions = {}): { fake: FakeVscode; commands: Commands } {
  const fake = new FakeVscode(options);
  const channel = fake.api.window.createOutputChannel('Perfectly Clear', { log: true });
  const status = fake.api.window.createStatusBarItem(fake.api.StatusBarAlignment.Left, 10);
  const commands = new Commands(fake.api, fake.host, new Log(channel), status);
  commands.register();
  return { fake, commands };
}

/** Every result of a run, read from its results file on disk (where the extension keeps them). */
export async function resultsIn(last: LastRun): Promise<FileResult[]> {
  return [...readResults(last.resultsFile)];
}
