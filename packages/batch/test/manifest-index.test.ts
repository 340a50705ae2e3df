/**
 * The manifest's compact index gives back every field as recorded: hashes and
 * job ids of the usual form (kept as bytes) and of any other form, inputs
 * named as their output or not, entries replaced, thousands of slots; over
 * random entries it answers as a `Map` of the entries would; and it holds
 * nothing per file in the garbage-collected heap (bytes, not time).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { settingsKey } from '../src/index';
import { ManifestIndex } from '../src/manifest-index';
import { doneLine, type ManifestEntry } from '../src/manifest-lines';

const sha = (n: number): string => `sha256:${n.toString(16).padStart(64, '0')}`;
const A = { key: settingsKey('emulator', {}), backend: 'emulator', params: {} };
const B = { key: settingsKey('web', { outputQuality: 70 }), backend: 'web', params: { outputQuality: 70 } };

function entry(i: number, extra: Partial<ManifestEntry> = {}): ManifestEntry {
  const s = i % 2 ? B : A;
  return {
    output: `d${i % 7}/p${i}.jpg`, input: `../in/d${i % 7}/p${i}.jpg`, inputHash: sha(i), inputSize: 1000 + i, inputMtimeMs: 1763793841000.5 + i,
    settingsKey: s.key, params: s.params, backend: s.backend, outputHash: sha(i + 1e6), outputSize: 2000 + i, outputMtimeMs: 1763793842211.25 + i,
    jobId: randomUUID(), durationMs: i % 300, ...extra,
  };
}

/** Every field of an entry as a plain object (the index's entries read their hashes and job id through getters). */
function plain(e: ManifestEntry | undefined): ManifestEntry | undefined {
  if (!e) return e;
  const { output, input, inputHash, inputSize, inputMtimeMs, settingsKey: key, params, backend, outputHash, outputSize, outputMtimeMs, jobId, durationMs } = e;
  return { output, input, inputHash, inputSize, inputMtimeMs, settingsKey: key, params, backend, outputHash, outputSize, outputMtimeMs, ...(jobId !== undefined ? { jobId } : {}), durationMs };
}

describe('ManifestIndex', () => {
  it('gives back every entry exactly as recorded', () => {
    const index = new ManifestIndex();
    const recorded = new Map<string, ManifestEntry>();
    const put = (e: ManifestEntry): void => {
      index.set(e, e.backend === 'web' ? B : A);
      recorded.set(e.output, e);
    };
    for (let i = 0; i < 5_000; i++) put(entry(i));
    // Other forms: a hash that is no SHA-256 hex, a job id that is no UUID, no job id, an input named otherwise.
    put(entry(1, { inputHash: 'md5:abc', outputHash: 'sha256:short' }));
    put(entry(2, { jobId: 'job-2' }));
    const { jobId: _none, ...noJob } = entry(3);
    put(noJob);
    put(entry(4, { input: '../in/elsewhere/p4.png' }));
    // Shaped as a UUID but not kept as bytes: upper case, or not hex.
    put(entry(6, { jobId: randomUUID().toUpperCase() }));
    put(entry(7, { jobId: 'zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz' }));
    // Replaced with the usual forms again: nothing of the odd ones is left.
    put(entry(5, { jobId: 'job-5' }));
    put(entry(5));
    expect(index.size).toBe(5_000);
    for (const [output, e] of recorded) expect(plain(index.get(output))).toEqual(e);
    expect([...index.values()].map(plain)).toEqual([...recorded.values()]);
    expect(index.outputHashOf('d1/p1.jpg')).toBe('sha256:short');
    expect(index.get('nope.jpg')).toBeUndefined();
    expect(index.get('d2/p2.jpg')!.params).toBe(A.params);
  });

  it('reads lines as written (hashes from their packed form), of every form', () => {
    const index = new ManifestIndex();
    const written = [entry(10), entry(11, { inputHash: 'md5:abc', jobId: 'job-11' }), { ...entry(12), jobId: undefined }, entry(13, { input: '../x/other.jpg' })];
    for (const e of written) {
      const { jobId, ...rest } = e;
      const entry: ManifestEntry = jobId ? { ...rest, jobId } : rest;
      index.setLine(JSON.parse(doneLine(entry, 1)) as Parameters<ManifestIndex['setLine']>[0], entry.backend === 'web' ? B : A);
      expect(plain(index.get(entry.output))).toEqual(entry);
    }
  });
});

/** A seeded generator (so a failure can be replayed), 0 ≤ n < 1. */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

describe('ManifestIndex against a Map of the same entries', () => {
  it('gives the same answers over random entries, replaced ones, odd hashes, renamed inputs and odd paths', () => {
    const rand = lcg(22);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
    const folders = ['', 'd0/', 'd1/', 'été/', 'a\\b/', 'deep/er/x/', '日本/'];
    const names = ['p', 'P', 'img', 'a b', '\ud83d\udcf7', 'x\\y'];
    const hash = (): string => (rand() < 0.05 ? pick(['md5:abc', 'sha256:short', 'sha256:' + 'A'.repeat(64), '']) : sha(Math.floor(rand() * 2 ** 40)));
    const job = (): string | undefined => (rand() < 0.1 ? undefined : rand() < 0.05 ? pick(['job-1', randomUUID().toUpperCase(), 'zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz']) : randomUUID());
    const index = new ManifestIndex();
    const model = new Map<string, ManifestEntry>();
    const outputs: string[] = [];
    for (let n = 0; n < 30_000; n++) {
      // A third replace an output recorded before (a redone file, a superseded line).
      const output = outputs.length > 0 && rand() < 0.33 ? pick(outputs) : `${pick(folders)}${pick(names)}${Math.floor(rand() * 1e6)}.jpg`;
      const outName = output.slice(output.lastIndexOf('/') + 1);
      const input = rand() < 0.7 ? `../in/${pick(folders)}${outName}` : rand() < 0.5 ? `../in/${pick(folders)}${outName}.png` : outName.slice(0, -1);
      const s = rand() < 0.5 ? A : B;
      const jobId = job();
      const e: ManifestEntry = {
        output, input, inputHash: hash(), inputSize: Math.floor(rand() * 1e9), inputMtimeMs: 1763793841000 + rand() * 1e9,
        settingsKey: s.key, params: s.params, backend: s.backend, outputHash: hash(), outputSize: Math.floor(rand() * 1e9), outputMtimeMs: 1763793841000 + rand() * 1e9,
        ...(jobId !== undefined ? { jobId } : {}), durationMs: Math.floor(rand() * 1e5),
      };
      if (!model.has(output)) outputs.push(output);
      model.set(output, e);
      // Half through `set`, half as a line read back from the file.
      if (rand() < 0.5) index.set(e, s);
      else index.setLine(JSON.parse(doneLine(e, 1)) as Parameters<ManifestIndex['setLine']>[0], s);
    }
    expect(index.size).toBe(model.size);
    for (const [output, e] of model) {
      expect(plain(index.get(output))).toEqual(e);
      expect(index.outputHashOf(output)).toBe(e.outputHash);
    }
    expect([...index.keys()]).toEqual([...model.keys()]);
    expect([...index.values()].map(plain)).toEqual([...model.values()]);
    // Never recorded: near misses of recorded outputs.
    for (const output of outputs.slice(0, 2000)) {
      for (const miss of [output.toUpperCase(), `${output}x`, output.slice(1), output.replace('/', '\\')]) {
        if (!model.has(miss)) expect(index.get(miss)).toBeUndefined();
      }
    }
  });
});

const scratch = mkdtempSync(join(tmpdir(), 'pfc-index-heap-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Builds an index of N entries (as a 100,000-file manifest's) in a child with `--expose-gc`, and prints its live heap and array-buffer bytes. */
const WORKLOAD = `
import { ManifestIndex } from './index.mjs';
const n = Number(process.argv[2]);
const s = { key: 'k', backend: 'web', params: {} };
const hex = (i) => i.toString(16).padStart(64, '0');
const measure = () => { globalThis.gc(); const m = process.memoryUsage(); return [m.heapUsed, m.arrayBuffers]; };
const before = measure();
const index = new ManifestIndex();
for (let i = 0; i < n; i++) {
  const f = 'd' + String(Math.floor(i / 100)).padStart(4, '0') + '/p' + String(i).padStart(6, '0') + '.jpg';
  index.set({ output: f, input: '../in/' + f, inputHash: 'sha256:' + hex(i), inputSize: 5000 + i, inputMtimeMs: 1.7e12 + i, settingsKey: 'k', params: {}, backend: 'web',
    outputHash: 'sha256:' + hex(i + 1e9), outputSize: 4000 + i, outputMtimeMs: 1.7e12 + i, jobId: '0b6f7c1e-6a2b-4c1d-9e1f-' + String(i).padStart(12, '0'), durationMs: i % 500 }, s);
}
const after = measure();
if (index.size !== n) throw new Error('size');
process.stdout.write(JSON.stringify({ heap: after[0] - before[0], buffers: after[1] - before[1] }));
`;

function indexBytes(n: number): { heap: number; buffers: number } {
  const r = spawnSync(process.execPath, ['--expose-gc', join(scratch, 'workload.mjs'), String(n)], { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as { heap: number; buffers: number };
}

it('holds nothing per file in the garbage-collected heap, and at most ~220 bytes a file in all', () => {
  buildSync({
    entryPoints: [fileURLToPath(new URL('../src/manifest-index.ts', import.meta.url))], bundle: true, format: 'esm', platform: 'node',
    outfile: join(scratch, 'index.mjs'), logLevel: 'silent',
  });
  writeFileSync(join(scratch, 'workload.mjs'), WORKLOAD);
  const small = indexBytes(10_000);
  const large = indexBytes(100_000);
  const perFile = (k: 'heap' | 'buffers'): number => (large[k] - small[k]) / 90_000;
  // Measured here: heap ~2 B a file (a Map keyed by the path: ~87), typed arrays ~181 (grown by half and copied: ~200).
  expect(perFile('heap')).toBeLessThan(20);
  expect(perFile('heap') + perFile('buffers')).toBeLessThan(220);
}, 60_000);

describe('ManifestIndex.outputWithResult', () => {
  it('finds the output whose current result has a hash, as a scan of the entries would, while outputs are added and redone', () => {
    const rand = lcg(7);
    const index = new ManifestIndex();
    const model = new Map<string, ManifestEntry>();
    const outputs: number[] = [];
    const scan = (hash: string): string | undefined => [...model.values()].find((e) => e.outputHash === hash)?.output;
    const asked: string[] = [];
    // Mostly distinct results; some share their lookup key (the last four bytes), some are an earlier result again (two identical photos).
    const result = (n: number): string => {
      const r = rand();
      if (r < 0.02) return `sha256:${n.toString(16).padStart(56, '0')}deadbeef`;
      if (r < 0.03 && asked.length > 0) return asked[Math.floor(rand() * asked.length)]!;
      return sha(1e6 + n);
    };
    for (let n = 0; n < 6_000; n++) {
      // A third redo an output recorded before: its earlier result is no longer current.
      const i = outputs.length > 0 && rand() < 0.3 ? outputs[Math.floor(rand() * outputs.length)]! : (outputs.push(n), n);
      const e = entry(i, { outputHash: result(n) });
      model.set(e.output, e);
      if (rand() < 0.5) index.set(e, e.backend === 'web' ? B : A);
      else index.setLine(JSON.parse(doneLine(e, 1)) as Parameters<ManifestIndex['setLine']>[0], e.backend === 'web' ? B : A);
      asked.push(e.outputHash);
      // Asked early (the table is built then, and kept up to date as it grows) and now and then.
      if (n === 10 || n % 1000 === 0) for (const h of asked.slice(-20)) expect(index.outputWithResult(h) !== undefined, h).toBe(scan(h) !== undefined);
    }
    const current = new Set([...model.values()].map((e) => e.outputHash));
    for (const h of asked) {
      const found = index.outputWithResult(h);
      // A result shared by two outputs may name either; one no longer current names none.
      expect(found !== undefined, h).toBe(current.has(h));
      if (found !== undefined) expect(model.get(found)!.outputHash).toBe(h);
    }
    expect(index.outputWithResult(sha(42))).toBeUndefined();
    expect(index.outputWithResult('md5:abc')).toBeUndefined();
  });
});

describe('ManifestIndex.hasResultOfSize', () => {
  it('says whether a current result has a size, as a scan of the entries would, while outputs are added and redone', () => {
    const rand = lcg(11);
    const index = new ManifestIndex();
    const model = new Map<string, ManifestEntry>();
    const outputs: number[] = [];
    const scan = (size: number): boolean => [...model.values()].some((e) => e.outputSize === size);
    // Sizes over a narrow range (many shared) and a few over 4 GiB, whose 32-bit keys fold onto small sizes.
    const sizeOf = (): number => (rand() < 0.05 ? 2 ** 32 + Math.floor(rand() * 3000) : 1000 + Math.floor(rand() * 3000));
    for (let n = 0; n < 4_000; n++) {
      const i = outputs.length > 0 && rand() < 0.3 ? outputs[Math.floor(rand() * outputs.length)]! : (outputs.push(n), n);
      const e = entry(i, { outputSize: sizeOf() });
      model.set(e.output, e);
      if (rand() < 0.5) index.set(e, e.backend === 'web' ? B : A);
      else index.setLine(JSON.parse(doneLine(e, 1)) as Parameters<ManifestIndex['setLine']>[0], e.backend === 'web' ? B : A);
      // Asked early (the table is built then, and kept up to date as it grows) and now and then.
      if (n === 10 || n % 500 === 0) for (let size = 990; size < 4010; size += 7) expect(index.hasResultOfSize(size), String(size)).toBe(scan(size));
    }
    for (let size = 990; size < 4010; size++) expect(index.hasResultOfSize(size), String(size)).toBe(scan(size));
    for (let size = 2 ** 32 + 990; size < 2 ** 32 + 4010; size += 3) expect(index.hasResultOfSize(size), String(size)).toBe(scan(size));
  });
});

describe('ManifestIndex.outputWithResult and unchanged results', () => {
  it('does not name a result the service returned unchanged (its bytes are its original\'s), but does a changed one with the same bytes', () => {
    const index = new ManifestIndex();
    const same = sha(5);
    index.set(entry(1, { inputHash: same, outputHash: same }), A);
    expect(index.outputWithResult(same)).toBeUndefined();
    index.set(entry(2, { outputHash: same }), B);
    expect(index.outputWithResult(same)).toBe(entry(2).output);
  });
});
