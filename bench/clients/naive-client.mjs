#!/usr/bin/env node
/**
 * The naive client: a batch done the way the vendor's public sample script
 * does it — one file at a time: GET /upload, PUT the bytes, GET /pfc, poll
 * statusEndpoint?noRedirect=true once a second, download correctedFile.
 * Plain fetch, no retries, no concurrency.
 *
 * Usage: node naive-client.mjs --base URL --key KEY --out DIR FILE...
 * Prints one JSON line: { files, ok, failed, ms }.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';

const { values: v, positionals: files } = parseArgs({ allowPositionals: true, options: { base: { type: 'string' }, key: { type: 'string' }, out: { type: 'string' } } });
const headers = { 'X-API-KEY': v.key };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
await mkdir(v.out, { recursive: true });

const t0 = performance.now();
let ok = 0;
let failed = 0;
for (const file of files) {
  try {
    const ticket = await (await fetch(`${v.base}/upload`, { headers })).json();
    const put = await fetch(ticket.upload_url, { method: 'PUT', body: await readFile(file) });
    if (!put.ok) throw new Error(`upload ${put.status}`);
    const started = await (await fetch(`${v.base}/pfc?fileKey=${ticket.fileKey}`, { headers })).json();
    if (!started.statusEndpoint) throw new Error(JSON.stringify(started));
    let job;
    do {
      await sleep(1000);
      job = await (await fetch(`${started.statusEndpoint}?noRedirect=true`)).json();
    } while (job.status === 'PENDING' || job.status === 'PROCESSING');
    if (job.status !== 'COMPLETED') throw new Error(`${job.status}: ${job.statusText}`);
    const res = await fetch(job.correctedFile);
    await writeFile(path.join(v.out, path.basename(file)), Buffer.from(await res.arrayBuffer()));
    ok++;
  } catch (err) {
    failed++;
    console.error(`${file}: ${err.message}`);
  }
}
console.log(JSON.stringify({ files: files.length, ok, failed, ms: Math.round(performance.now() - t0) }));
