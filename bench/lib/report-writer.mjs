/**
 * Child process of the scale suite, in two steps. `results`: writes the
 * results file of a synthetic run of `count` files (no job run; 100 a folder,
 * one in 1,000 failed; every input and output is `photo`, so thumbnails are
 * real) and its summary. `report`: writes the --report from them the way the
 * CLI does (the results file read a chunk at a time) and prints
 * `{ ms, pageBytes, dataBytes }` as one JSON line; its peak RSS, from
 * rss-preload.mjs, is the report's alone.
 *
 * Usage: node report-writer.mjs results DIR COUNT PHOTO
 *        node --import rss-preload.mjs report-writer.mjs report DIR
 */
import { createWriteStream, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './paths.mjs';

const [step, dir, countText, photo] = process.argv.slice(2);
const resultsFile = path.join(dir, 'results.jsonl');
const summaryFile = path.join(dir, 'summary.json');
if (step === 'results') await writeResults(Number(countText), photo);
else if (step === 'report') await writeTheReport();
else throw new Error(`unknown step ${step}`);

async function writeResults(count, photo) {
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
writeFileSync(summaryFile, JSON.stringify({
  corrected: count - failed, skipped: 0, upToDate: 0, excluded: 0, failed, cancelled: 0, bytesIn: 0, bytesOut: 0, durationMs: 1000, interrupted: false,
  outputRoots: [dir], results: [], failures: [], resultsFile, excludedPaths: [],
  excludedCounts: { total: 0, byCode: {}, raw: 0, notMedia: 0, notMediaKinds: { by: {}, others: 0 }, hiddenReasons: { by: {}, others: 0 } },
}));
}

async function writeTheReport() {
  const { writeReport } = await import(pathToFileURL(path.join(ROOT, 'packages/batch/dist/report.js')).href);
  const summary = JSON.parse(readFileSync(summaryFile, 'utf8'));
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
}
