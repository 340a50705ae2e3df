/**
 * An in-place run where the extended-attributes module cannot be loaded (the
 * universal .vsix carries no native module): before a file is replaced, the
 * user is told, in a message and not only in the log, that the photos' Finder
 * tags, ratings and comments will not be kept. A run into another folder
 * replaces nothing and says nothing.
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

const NOT_KEPT = /cannot keep the Finder tags, ratings and comments/;

test.each([
  ['in-place', 1],
  ['folder', 0],
] as const)('output mode %s: %i warning that tags cannot be kept', async (mode, warnings) => {
  const root = await tinyPhotoTree(6, 'pfc-vscode-xattr-');
  roots.push(root);
  const { fake } = activateOnFake({ settings: { backend: 'emulator', emulatorUrl: emu().web, 'output.mode': mode } });
  const last = (await fake.run('pfc.correctFolder', fake.uri(root))) as LastRun;
  expect(last.summary).toMatchObject({ corrected: 6, failed: 0 });
  expect(fake.shown.filter((m) => m.kind === 'warning' && NOT_KEPT.test(m.text))).toHaveLength(warnings);
});
