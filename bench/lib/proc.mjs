/** Child processes of the benchmarks: run to the end, with timing and peak RSS. */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RSS_PRELOAD } from './paths.mjs';

/**
 * Run `node script ...args` to completion. With `rss: true` the child gets the
 * RSS preload and the result carries its peak RSS in bytes and CPU time in ms. Output is kept
 * (stdout whole, stderr's last 50 kB). `timeoutMs` kills it with SIGKILL.
 */
export function runNode(script, args = [], { cwd, env, rss = false, timeoutMs = 0, onStdoutLine } = {}) {
  const dir = rss ? mkdtempSync(path.join(os.tmpdir(), 'pfc-rss-')) : undefined;
  const rssFile = dir && path.join(dir, 'rss.json');
  const nodeArgs = rss ? ['--import', RSS_PRELOAD, script, ...args] : [script, ...args];
  const t0 = performance.now();
  const child = spawn(process.execPath, nodeArgs, {
    cwd,
    env: { ...process.env, ...env, ...(rssFile ? { PFC_BENCH_RSS_FILE: rssFile } : {}) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let partial = '';
  child.stdout.setEncoding('utf8').on('data', (d) => {
    stdout += d;
    if (onStdoutLine) {
      partial += d;
      let nl;
      while ((nl = partial.indexOf('\n')) >= 0) {
        onStdoutLine(partial.slice(0, nl));
        partial = partial.slice(nl + 1);
      }
    }
  });
  child.stderr.setEncoding('utf8').on('data', (d) => {
    stderr = (stderr + d).slice(-50_000);
  });
  const timer = timeoutMs > 0 ? setTimeout(() => child.kill('SIGKILL'), timeoutMs) : undefined;
  const done = new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      let maxRssBytes;
      let cpuMs;
      if (rssFile) {
        try {
          ({ maxRssBytes, cpuMs } = JSON.parse(readFileSync(rssFile, 'utf8')));
        } catch {
          // killed before its exit handler ran: no figure
        }
        rmSync(dir, { recursive: true, force: true });
      }
      resolve({ code, signal, stdout, stderr, maxRssBytes, cpuMs, ms: performance.now() - t0 });
    });
  });
  return Object.assign(done, { child });
}

/** The JSON objects of a JSON-lines output (lines that are not JSON are skipped). */
export function jsonLines(text) {
  const out = [];
  for (const line of text.split('\n')) {
    if (!line.trim().startsWith('{')) continue;
    try {
      out.push(JSON.parse(line));
    } catch {
      // a partial line (killed process): skip
    }
  }
  return out;
}
