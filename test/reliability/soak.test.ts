/**
 * The fault soak's short run (the benchmark runs 1,000 files): 60 files
 * through the built `pfc` CLI while the emulator injects 503s, 429s with
 * Retry-After, dropped connections and FAILED jobs, then a rerun without
 * faults; checked on disk here as well as by the soak itself. Then the
 * secrets check: the API key in no output, log, report or manifest.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSoak, type SoakResult } from '../../bench/lib/soak.mjs';
import { findSecret } from '../../bench/lib/secrets.mjs';

const dir = mkdtempSync(join(tmpdir(), 'pfc-soak-test-'));
let result: SoakResult;
let key = '';

beforeAll(async () => {
  result = await runSoak({ dir, count: 60, seed: 5, onSecret: (k) => (key = k) });
}, 300_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('fault soak (60 files)', () => {
  it('faults were injected, and every file ends corrected, failed with a reason, or redone by the rerun', () => {
    expect(result.injected['503']).toBeGreaterThan(0);
    expect(result.injected['429']).toBeGreaterThan(0);
    expect(result.injected.drop).toBeGreaterThan(0);
    expect(result.run1.corrected + result.run1.failed).toBe(60);
    expect(result.run1.stoppedBecause).toBeUndefined();
    expect(Object.values(result.run1.failureReasons).reduce((a, b) => a + b, 0)).toBe(result.run1.failed);
    for (const why of Object.keys(result.run1.failureReasons)) expect(why).toMatch(/FAILED|REJECTED|503|429|connection|timed out/i);
    expect(result.rerun).toMatchObject({ failed: 0, exitCode: 0, corrected: result.run1.failed, upToDate: result.run1.corrected, redoesOnlyFailed: true });
    expect(result.rerun.jobs).toBe(result.run1.failed);
  });

  it('no duplicates, no partial or undecodable outputs, no temporary files, originals unchanged', async () => {
    expect(result).toMatchObject({ duplicates: 0, partials: 0, unexpectedFiles: [], badOutputs: [], originalsChanged: 0, outputs: 60 });
    // Our own look at the folder: 60 whole 1000×1000 JPEGs in the 5 mirrored sub-folders, and the manifest.
    const files = readdirSync(result.outDir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
    expect(files.map((e) => e.name).filter((n) => n !== '.pfc-manifest.jsonl')).toHaveLength(60);
    for (const e of files.filter((f) => f.name.endsWith('.jpg'))) {
      const { info } = await sharp(join(e.parentPath, e.name), { failOn: 'truncated' }).raw().toBuffer({ resolveWithObject: true });
      expect([info.width, info.height]).toEqual([1000, 1000]);
    }
  });

  it('the API key appears in no output, log, report or manifest', () => {
    expect(key).toMatch(/^pfc-soak-key-/);
    expect(result.secrets.hits).toEqual([]);
    expect(result.secrets.searched.files).toBeGreaterThan(60);
    // The emulator's request log (--verbose) was kept and searched too.
    expect(readFileSync(join(dir, 'emulator.log'), 'utf8')).toMatch(/upload\.put 200/);
    // Our own search of the whole working folder but the inputs and the emulator's uploads.
    expect(findSecret(key, { dirs: [dir], skipDirs: [join(dir, 'in'), join(dir, 'emulator')] }).hits).toEqual([]);
  });
});

describe('the secrets search can fail', () => {
  it('finds a key in a text, in a nested file, percent-encoded and in base64', () => {
    const d = mkdtempSync(join(tmpdir(), 'pfc-secret-test-'));
    try {
      const k = 'sk-test/with+odd=chars';
      mkdirSync(join(d, 'a', 'b'), { recursive: true });
      writeFileSync(join(d, 'a', 'b', 'log.txt'), `url=https://x/?key=${encodeURIComponent(k)}`);
      writeFileSync(join(d, 'manifest.json'), JSON.stringify({ auth: Buffer.from(k).toString('base64') }));
      writeFileSync(join(d, 'clean.txt'), 'nothing here');
      const found = findSecret(k, { texts: { stdout: `key ${k}`, stderr: 'none' }, dirs: [d] });
      expect(found.hits.sort()).toEqual([join(d, 'a', 'b', 'log.txt'), join(d, 'manifest.json'), 'stdout'].sort());
      expect(found.searched).toMatchObject({ texts: 2, files: 3 });
    } finally {
      rmSync(d, { recursive: true, force: true });
    }
  });
});
