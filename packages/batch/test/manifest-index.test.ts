/**
 * The manifest's compact index gives back every field as recorded: hashes and
 * job ids of the usual form (kept as bytes) and of any other form, inputs
 * named as their output or not, entries replaced, thousands of slots.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
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
