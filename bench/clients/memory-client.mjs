#!/usr/bin/env node
/**
 * One large upload through the hosted flow, in its own process so its peak
 * RSS can be measured (run with `--import bench/lib/rss-preload.mjs`).
 *
 * Usage: node memory-client.mjs --base URL --key KEY --file PATH --mode core|naive
 *   core   @pfc/core `correct()`: validate → ticket → streamed PUT (a
 *          factory over a file stream, with Content-Length) → /pfc → poll
 *   naive  what a short script does: read the whole file, PUT the buffer
 *
 * Prints one JSON line: { mode, bytes, uploadMs, outcome }. The emulator has
 * no video correction, so the job ends REJECTED (501): the upload is what is
 * measured, and the outcome proves the bytes arrived and were sniffed.
 */
import { createReadStream, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import { JobFailedError, WebApiClient } from '@pfc/core';

const { values: v } = parseArgs({ options: { base: { type: 'string' }, key: { type: 'string' }, file: { type: 'string' }, mode: { type: 'string', default: 'core' } } });
const { size } = statSync(v.file);
const t0 = performance.now();
let uploadMs;
let outcome;

if (v.mode === 'core') {
  const client = new WebApiClient({ apiKey: v.key, baseURL: v.base });
  try {
    await client.correct(() => Readable.toWeb(createReadStream(v.file)), { preset: 'none' }, {
      fileType: 'video',
      contentType: 'video/mp4',
      size,
      onProgress: (p) => {
        if ((p.phase === 'queued' || p.phase === 'processing') && uploadMs === undefined) uploadMs = performance.now() - t0;
      },
    });
    outcome = 'COMPLETED';
  } catch (err) {
    if (!(err instanceof JobFailedError)) throw err;
    outcome = `${err.status}: ${err.statusText}`;
  }
} else {
  const headers = { 'X-API-KEY': v.key };
  const ticket = await (await fetch(`${v.base}/upload?fileType=video`, { headers })).json();
  const body = await readFile(v.file);
  const put = await fetch(ticket.upload_url ?? ticket.uploadUrl, { method: 'PUT', body });
  uploadMs = performance.now() - t0;
  outcome = `PUT ${put.status}`;
}

console.log(JSON.stringify({ mode: v.mode, bytes: size, uploadMs: Math.round(uploadMs ?? performance.now() - t0), outcome }));
