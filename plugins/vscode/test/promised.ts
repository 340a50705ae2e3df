/** What the tests of promises*.test.ts share: where they look for outcomes (files, the service's records) and when they act mid-run. */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EmulatorHandle } from '@pfc/emulator';
import type { FakeVscode } from './fake-vscode';
/** Files below `dir` (relative, sorted), hidden ones left out. */
export function outputs(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true }).filter((e) => e.isFile() && !e.name.startsWith('.')).map((e) => join(e.parentPath, e.name).slice(dir.length + 1)).sort();
}

export const sha = (p: string): string => createHash('sha256').update(readFileSync(p)).digest('hex');

/** What the service was asked besides listing presets (the preset picker lists them before anything is sent). */
export const sent = (e: EmulatorHandle): Record<string, number> => Object.fromEntries(Object.entries(e.stats().requests).filter(([r]) => !/preset/i.test(r)));

/** Runs `act` once, when the run's notification (not the scan's) has corrected its first file. */
export function onFirstCorrected(fake: FakeVscode, act: () => void): void {
  let armed = false;
  fake.onProgressStart = () => {
    if (armed || !fake.output.some((l) => l.startsWith('run: '))) return;
    armed = true;
    const timer = setInterval(() => {
      if (!fake.output.some((l) => /^corrected /.test(l))) return;
      clearInterval(timer);
      act();
    }, 10);
  };
}
