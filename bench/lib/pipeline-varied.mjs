/**
 * The pipeline suite's varied-job-times run alone (log-normal, median 300 ms,
 * σ 0.5, 8 workers), `--runs` times, with where the workers idled
 * (`pipeline-timeline.mjs`): for looking into that figure without the suite's
 * other runs (the naive client alone takes minutes).
 *
 * Usage: node bench/lib/pipeline-varied.mjs [--files 200] [--runs 1] [--concurrency 8]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { variedRun } from '../suites/pipeline.mjs';
import { inputFolder } from './images.mjs';

const { values } = parseArgs({ options: { files: { type: 'string', default: '200' }, runs: { type: 'string', default: '1' }, concurrency: { type: 'string', default: '8' } } });
const dir = mkdtempSync(path.join(os.tmpdir(), 'pfc-varied-'));
try {
  const count = Number(values.files);
  await inputFolder(path.join(dir, 'in'), count);
  for (let i = 0; i < Number(values.runs); i++) {
    rmSync(path.join(dir, `out-varied-${values.concurrency}-${count}`), { recursive: true, force: true });
    await variedRun({ dir, count, log: (line) => console.log(`${line} (load ${os.loadavg()[0].toFixed(1)})`), concurrency: Number(values.concurrency) });
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
