/**
 * "Correct Images in Folder…" on a fleet of emulated colour containers, as a
 * user runs it: `pfc.containerUrl` lists three addresses and `pfc.concurrency`
 * is left at its default, so the run uses the fleet's width (the instances'
 * jobs together), as `pfc correct` does without `-j`. Each instance's peak of
 * corrections at once is read from its own records.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator, type EmulatorHandle } from '@pfc/emulator';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { LastRun } from '../src/last-run';
import { peakConcurrency, solidJpegs } from '../../../packages/batch/test/helpers';
import { activateOnFake } from './helpers';

let emu: EmulatorHandle;
let root: string;

beforeAll(async () => {
  // No worker limit on the instances: only the files the client gives each one hold them back.
  emu = await startEmulator({ host: '127.0.0.1', engine: {}, bgr: false, container: { processingMs: 150 }, containerInstances: [{ processingMs: 150 }, { processingMs: 150 }] });
  root = mkdtempSync(join(tmpdir(), 'pfc-vscode-fleet-'));
});
afterAll(async () => {
  await emu?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('a fleet of containers from VS Code', () => {
  test('pfc.concurrency unset: every instance runs its pfc.instanceJobs at once (the fleet\'s width, as the CLI without -j)', async () => {
    const photos = join(root, 'photos');
    const names = await solidJpegs(photos, 24);
    const servers = emu.selfHosted.containers;
    const { fake } = activateOnFake({
      settings: { backend: 'container', containerUrl: servers.map((s) => s.url), instanceJobs: [3, 1, 2], confirmAboveFiles: 0 },
    });
    const last = (await fake.run('pfc.correctFolder', fake.uri(photos))) as LastRun;

    expect([last.summary.corrected, last.summary.failed]).toEqual([24, 0]);
    for (const name of names) expect(existsSync(join(photos, 'corrected', name)), name).toBe(true);
    expect(servers.map((s) => s.corrections.filter((r) => r.status === 'corrected').length).reduce((a, b) => a + b)).toBe(24);
    // Each instance, from its own records: exactly its jobs at once (not pfc.concurrency's 2 shared by three).
    expect(servers.map((s) => peakConcurrency(s.corrections))).toEqual([3, 1, 2]);
    expect(fake.output.some((l) => /6 at once/.test(l))).toBe(true);
  }, 60_000);
});
