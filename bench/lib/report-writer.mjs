/**
 * Child process of the scale suite: writes the --report of a synthetic run of
 * `count` files (no job run) the way the CLI does, from a results file read a
 * chunk at a time, and prints `{ ms, pageBytes, dataBytes }` as one JSON line.
 * Its peak RSS comes from rss-preload.mjs. Files are 100 a folder, one in
 * 1,000 failed; every input and output is `photo` (thumbnails are real).
 *
 * Usage: node --import rss-preload.mjs report-writer.mjs DIR COUNT PHOTO
 */
import { createWriteStream, readdirSync, statSync } from 'node:fs';
import { once } from 'node:events';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './paths.mjs';

const [dir, countText, photo] = process.argv.slice(2);
const count = Number(countText);
const { writeReport } = await import(pathToFileURL(path.join(ROOT, 'packages/batch/dist/report.js')).href);

const resultsFile = path.join(dir, 'results.jsonl');
const out = createWriteStream(resultsFile);
const media = { format: 'jpeg', fileType: 'image', contentType: 'image/jpeg', width: 96, height: 64 };
let failed = 0;
for (let i = 0; i < count; i++) {
  const fail = i % 1000 === 999;
  if (fail) failed++;
  const rel = `d${String(Math.floor(i / 100)).padStart(4, '0')}/p${String(i).padStart(6, '0')}.jpg`;
  const r = {
    input: photo, output: photo, rel, status: fail ? 'failed' : 'corrected', media, params: { fileType: 'image', outputQuality: 90, cache: false }, bytesIn: 2400, warnings: [],
    ...(fail ? { error: `job j${i} FAILED: could not decode the image`, errorName: 'JobFailedError' } : { bytesOut: 2300, durationMs: 180, jobId: `job-${i}` }),
  };
  if (!out.write(`${JSON.stringify(r)}\n`)) await once(out, 'drain');
}
out.end();
await once(out, 'close');

const summary = {
  corrected: count - failed, skipped: 0, upToDate: 0, excluded: 0, failed, cancelled: 0, bytesIn: 0, bytesOut: 0, durationMs: 1000, interrupted: false,
  outputRoots: [dir], results: [], failures: [], resultsFile, excludedPaths: [],
};
const t0 = performance.now();
const page = await writeReport(path.join(dir, 'report.html'), summary, { backend: 'synthetic' });
const ms = performance.now() - t0;
const companion = path.join(dir, 'report.files');
let dataBytes = 0;
const walk = (d) => {
  for (const e of readdirSync(d, { withFileTypes: true })) {
    if (e.isDirectory()) walk(path.join(d, e.name));
    else dataBytes += statSync(path.join(d, e.name)).size;
  }
};
walk(companion);
process.stdout.write(`${JSON.stringify({ ms, pageBytes: statSync(page).size, dataBytes })}\n`);
