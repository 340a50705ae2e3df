/**
 * Helpers for end-to-end tests of the built `pfc` binary: run it as a user
 * would (a child process on real folders), and a real emulator in the test
 * process whose counters and faults the tests read and set.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startEmulator, type EmulatorHandle, type EmulatorOptions } from '@pfc/emulator';

export const REPO = resolve(import.meta.dirname, '../..');
export const PFC_BIN = join(REPO, 'packages/cli/dist/main.js');
export const SAMPLES = join(REPO, 'samples');
/** The sample photos, relative to `samples/`. */
export const SAMPLE_PHOTOS = ['objects/chelsea.png', 'objects/coffee.jpg', 'outdoors/rocket.jpg', 'portraits/astronaut.jpg', 'portraits/grace_hopper.jpg'];
export const TEST_KEY = 'test-key-5f2a9c1e-never-print-me';

export interface PfcRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** A clean environment: no PFC_* settings of the machine leak into a test. */
export function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('PFC_')) env[k] = v;
  return { ...env, NO_COLOR: '1', ...extra };
}

/** Start `pfc` with `args`; the caller may read its output as it comes and kill it. */
export function spawnPfc(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): { child: ChildProcess; done: Promise<PfcRun>; stdout: () => string } {
  const child = spawn(process.execPath, [PFC_BIN, ...args], { cwd: options.cwd ?? REPO, env: options.env ?? cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<PfcRun>((res, rej) => {
    child.on('error', rej);
    child.on('close', (code, signal) => res({ code, signal, stdout, stderr }));
  });
  return { child, done, stdout: () => stdout };
}

/** Run `pfc` to the end. */
export function runPfc(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<PfcRun> {
  return spawnPfc(args, options).done;
}

/** Parse `--json` output: every line must be one JSON object. */
export function jsonLines(stdout: string): Record<string, unknown>[] {
  return stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** The final `{"type":"summary"}` line of `--json` output. */
export function summaryOf(stdout: string): Record<string, unknown> {
  const lines = jsonLines(stdout);
  const last = lines[lines.length - 1];
  if (last?.type !== 'summary') throw new Error(`no summary line in:\n${stdout}`);
  return last;
}

/** A temporary folder holding a copy of `samples/` as `photos/`. Returns the temporary folder. */
export function copySamples(): string {
  const dir = mkdtempSync(join(tmpdir(), 'pfc-cli-'));
  cpSync(SAMPLES, join(dir, 'photos'), { recursive: true });
  return dir;
}

/** A temporary folder holding photos/a.jpg and, in a subfolder, photos/trip/b.jpg (two sample photos). Returns the temporary folder. */
export function photosWithTrip(): string {
  const dir = mkdtempSync(join(tmpdir(), 'pfc-photos-'));
  mkdirSync(join(dir, 'photos/trip'), { recursive: true });
  copyFileSync(join(SAMPLES, 'objects/coffee.jpg'), join(dir, 'photos/a.jpg'));
  copyFileSync(join(SAMPLES, 'outdoors/rocket.jpg'), join(dir, 'photos/trip/b.jpg'));
  return dir;
}

/** Every file below `dir` (relative, sorted), hidden ones included. */
export function filesBelow(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => join(d.parentPath, d.name).slice(dir.length + 1))
    .sort();
}

/** Bytes of every file below `dir`, by relative path. */
export function snapshot(dir: string): Map<string, Buffer> {
  return new Map(filesBelow(dir).map((f) => [f, readFileSync(join(dir, f))]));
}

/** A real emulator in this process, with a known API key. */
export async function emulator(options: EmulatorOptions = {}): Promise<EmulatorHandle & { webArgs: string[]; uploads: () => number; tickets: () => number }> {
  const emu = await startEmulator({ apiKeys: [TEST_KEY], ...options });
  return Object.assign(emu, {
    webArgs: ['--backend', 'web', '--base-url', emu.web, '--api-key', TEST_KEY],
    uploads: () => (emu.stats().requests.upload ?? 0) + (emu.stats().requests['upload.put'] ?? 0),
    /** Upload tickets the service gave (`GET /upload`): one per file sent. */
    tickets: () => emu.stats().requests.upload ?? 0,
  });
}

/** A copy of the samples plus `n` copies of one photo in photos/many/. */
export function manyPhotos(n: number): string {
  const dir = copySamples();
  mkdirSync(join(dir, 'photos/many'));
  for (let i = 0; i < n; i++) copyFileSync(join(dir, 'photos/objects/coffee.jpg'), join(dir, `photos/many/c${String(i).padStart(2, '0')}.jpg`));
  return dir;
}

/** Polls `check` every 50 ms until it holds; throws naming `what` after `timeoutMs`. */
export async function until(check: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
