import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type FileResult, MAX_FAILURES_KEPT, planBatch, readResults, runBatch } from '../src/index';
import { writeReport } from '../src/report';
import { FakeBackend, faults, jpegBytes, tempDir, writeTree } from './helpers';
import { readReport, type Row } from './report-reader';

/** `n` tiny distinct JPEGs, 100 a folder. */
function photos(n: number): string {
  const root = tempDir();
  const files: Record<string, Buffer> = {};
  for (let i = 0; i < n; i++) files[`d${Math.floor(i / 100)}/p${String(i).padStart(5, '0')}.jpg`] = jpegBytes(64, 64, { filler: `photo ${i}` });
  writeTree(root, files);
  return root;
}

/** The rows the report's script shows: failures, then the other files. */
function reportRows(page: string): Row[] {
  const report = readReport(page);
  return [...report.list('f'), ...report.list('c')];
}

describe('results without an array of every file', () => {
  it('keeps counts and the first failures in the summary, and every result in the results file', async () => {
    const root = photos(2000);
    // Four of five files fail: more failures than the summary keeps.
    const backend = new FakeBackend({ fault: (name) => { if (!/0\.jpg$|5\.jpg$/.test(name)) throw faults.jobFailed(); } });
    const plan = await planBatch({ inputs: [root] });
    const resultsFile = join(tempDir(), 'results.jsonl');
    const summary = await runBatch(plan, { backend, concurrency: 8, keepResults: false, resultsFile });

    expect(summary).toMatchObject({ corrected: 400, failed: 1600, cancelled: 0, resultsFile });
    expect(summary.results).toEqual([]);
    expect(summary.failures).toHaveLength(MAX_FAILURES_KEPT);
    expect(summary.failures.every((r) => r.status === 'failed' && r.errorName === 'JobFailedError')).toBe(true);
    const rows = [...readResults(resultsFile)];
    expect(rows).toHaveLength(2000);
    expect(new Set(rows.map((r) => r.input)).size).toBe(2000);
    expect(rows.filter((r) => r.status === 'failed')).toHaveLength(1600);
    expect(summary.bytesOut).toBe(rows.reduce((n, r) => n + (r.status === 'corrected' ? r.bytesOut! : 0), 0));
  }, 120_000);

  it('writes the files no worker reached as cancelled', async () => {
    const root = photos(6);
    const ctrl = new AbortController();
    const backend = new FakeBackend({ delayMs: 60_000, onCall: () => backend.calls.length === 2 && ctrl.abort() });
    const resultsFile = join(tempDir(), 'results.jsonl');
    const summary = await runBatch(await planBatch({ inputs: [root] }), { backend, concurrency: 2, signal: ctrl.signal, keepResults: false, resultsFile });
    expect(summary).toMatchObject({ cancelled: 6, results: [] });
    const rows = [...readResults(resultsFile)];
    expect(rows.map((r) => r.status)).toEqual(Array(6).fill('cancelled'));
    expect(new Set(rows.map((r) => r.rel)).size).toBe(6);
  });

  it('makes the report from the results file when the summary kept none', async () => {
    const root = photos(5);
    const backend = new FakeBackend({ fault: (name) => { if (name === 'p00003.jpg') throw faults.jobFailed(); } });
    const resultsFile = join(tempDir(), 'results.jsonl');
    const summary = await runBatch(await planBatch({ inputs: [root] }), { backend, keepResults: false, resultsFile });
    const rows = reportRows(await writeReport(join(root, 'report.html'), summary));
    expect(rows.map((r) => r[0]).sort()).toEqual([0, 1, 2, 3, 4].map((i) => `d0/p0000${i}.jpg`));
    expect(rows.find((r) => r[0] === 'd0/p00003.jpg')![1]).toBe('failed');
  });

  it('reads results back across chunk boundaries (characters cut in two) and ignores a torn last line', () => {
    const file = join(tempDir(), 'results.jsonl');
    const one = (i: number): FileResult => ({ input: `/x/é${i}`, output: `/y/é${i}`, rel: `ééé/ü${i}`, status: 'corrected', media: { format: 'jpeg', fileType: 'image', contentType: 'image/jpeg' }, params: {}, bytesIn: i, warnings: [] });
    const all = Array.from({ length: 3000 }, (_, i) => one(i));
    writeFileSync(file, `${all.map((r) => JSON.stringify(r)).join('\n')}\n{"input":"/x/torn`);
    expect([...readResults(file)]).toEqual(all);
  });
});
