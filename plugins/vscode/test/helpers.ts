/** Shared set-up of the unit tests: a temporary folder of the repo's real sample photos. */
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { readResults, type FileResult } from '@pfc/batch';
import { Commands } from '../src/commands';
import type { LastRun } from '../src/last-run';
import { Log } from '../src/log';
import { FakeVscode, type FakeOptions } from './fake-vscode';
import { SAMPLE_FILES, SAMPLES } from './samples';

export { SAMPLE_FILES } from './samples';

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
