/**
 * A large upload through @pfc/core in its own process must not hold the file
 * in memory. Regression: Node's fetch clones a request it may have to
 * redirect, and the clone's tee kept every chunk sent (a 256 MB upload peaked
 * at ~370 MB). The benchmark (`npm run bench`, memory suite) measures 200 MB
 * against 2 GB; this is the short version.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorHandle } from '@pfc/emulator';
import { sparseMp4 } from '../../bench/lib/sparse.mjs';

const REPO = resolve(import.meta.dirname, '../..');
const CLIENT = join(REPO, 'bench/clients/memory-client.mjs');
const PRELOAD = join(REPO, 'bench/lib/rss-preload.mjs');
const MB = 1e6;
const SIZE = 256 * MB;

let emu: EmulatorHandle;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'pfc-upload-memory-'));
  // No imaging engine: the emulator stores the video and answers 501, the upload is what is tested.
  emu = await startEmulator({ apiKeys: ['upload-memory-key'], dataDir: join(dir, 'emulator'), engine: {} });
});

afterAll(async () => {
  await emu?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('streamed upload memory', () => {
  it('uploads 256 MB with a peak RSS under 150 MB, and the service receives every byte', async () => {
    const file = join(dir, 'big.mp4');
    sparseMp4(file, SIZE);
    const rssFile = join(dir, 'rss.json');
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', PRELOAD, CLIENT, '--base', emu.web, '--key', 'upload-memory-key', '--file', file, '--mode', 'core'],
      { env: { ...process.env, PFC_BENCH_RSS_FILE: rssFile }, maxBuffer: 1 << 20 },
    );
    const out = JSON.parse(stdout.trim()) as { bytes: number; outcome: string };
    // The emulator sniffed the MP4 and stored it; it has no video correction, so the job is REJECTED (501).
    expect(out.bytes).toBe(SIZE);
    const stored = readdirSync(join(dir, 'emulator'), { recursive: true, withFileTypes: true }).filter((e) => e.isFile() && statSync(join(e.parentPath, e.name)).size === SIZE);
    expect(stored).toHaveLength(1);
    expect(out.outcome).toMatch(/^REJECTED: video correction is not available/);
    const { maxRssBytes } = JSON.parse(readFileSync(rssFile, 'utf8')) as { maxRssBytes: number };
    expect(maxRssBytes).toBeGreaterThan(10 * MB);
    expect(maxRssBytes).toBeLessThan(150 * MB);
  }, 120_000);
});
