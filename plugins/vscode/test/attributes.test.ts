/**
 * An in-place run where the extended-attributes module cannot be loaded (the
 * universal .vsix carries no native module): the end-of-run summary says, not
 * only the log, that this installation cannot keep the photos' Finder tags,
 * ratings and comments. A run into another folder replaces nothing and says nothing.
 */
import { rmSync } from 'node:fs';
import { afterEach, expect, test, vi } from 'vitest';
import type { LastRun } from '../src/last-run';
import { activateOnFake, emulatorForTests, tinyPhotoTree } from './helpers';

// As in a .vsix without node_modules: the module is not there to import.
vi.mock('@napi-rs/xattr', () => {
  throw new Error("Cannot find module '@napi-rs/xattr'");
});

// No imaging engine: the test is about what the user is told, not pixels.
const emu = emulatorForTests({ engine: {}, processingMs: 0 });
const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

const NOT_KEPT = /this installation cannot keep the Finder tags, ratings and comments of the photos it replaces/;

test.each([
  ['in-place', 1],
  ['folder', 0],
] as const)('output mode %s: the summary says %i time(s) that tags cannot be kept', async (mode, times) => {
  const root = await tinyPhotoTree(6, 'pfc-vscode-xattr-');
  roots.push(root);
  const { fake } = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: emu().web, 'output.mode': mode } });
  const last = (await fake.run('pfc.correctFolder', fake.uri(root))) as LastRun;
  expect(last.summary).toMatchObject({ corrected: 6, failed: 0 });
  const said = fake.shown.filter((m) => NOT_KEPT.test(m.text));
  expect(said).toHaveLength(times);
  // In the end-of-run summary, with the counts, as a warning: one message, not one more toast.
  for (const m of said) expect(m).toMatchObject({ kind: 'warning', text: expect.stringMatching(/Corrected 6 files/) });
});
