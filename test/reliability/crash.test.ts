/**
 * The crash test's short run (the benchmark kills ten times): `pfc correct`
 * killed with SIGKILL twice at seeded moments of a 30-file batch, rerun each
 * time, then finished; the output equals an uninterrupted run's.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCrash } from '../../bench/lib/crash.mjs';

const dir = mkdtempSync(join(tmpdir(), 'pfc-crash-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('kill -9 mid-batch', () => {
  it('two kills and reruns end with the same files and pixels as an uninterrupted run, no temporary files left', async () => {
    const r = await runCrash({ dir, count: 30, kills: 2, seed: 3 });
    expect(r.runs).toHaveLength(2);
    // The seeded moments fall inside the runs: both were really killed.
    expect(r.kills).toBe(2);
    expect(r).toMatchObject({ equal: true, missing: [], extra: [], different: [], temporary: [], changedOriginals: 0 });
    expect(r.final).toMatchObject({ exitCode: 0, failed: 0 });
    expect(r.final.corrected + r.final.upToDate).toBe(30);
    // Our own look: no temporary file anywhere under the output folder.
    const names = readdirSync(join(dir, 'out'), { recursive: true }).map(String);
    expect(names.filter((n) => n.includes('.pfc-partial'))).toEqual([]);
    expect(names.filter((n) => n.endsWith('.jpg'))).toHaveLength(30);
  }, 300_000);
});
