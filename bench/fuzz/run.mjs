#!/usr/bin/env node
/**
 * The fuzzer: malformed requests to all three emulated APIs, deterministic by
 * seed. Fails on a crash, an answer outside the documented codes, a request
 * left without an answer, a canary's content in an answer, or a file touched
 * outside the emulator's folders (canaries; strace when installed).
 * Saved cases (regressions.json) are replayed first; those marked `open` (a
 * finding reported to its owner, not fixed yet) and findings with the same
 * signature are listed apart as `knownOpen` and do not make the run unclean.
 *
 * Usage: node bench/fuzz/run.mjs [--seed N] [--count N] [--apis web,container,bgr]
 *                                [--concurrency N] [--no-strace] [--json] [--save-failures FILE]
 *   --count N   requests per API (default 3400, so ≥ 10,000 in all)
 * Exit code 0 when clean, 1 when something was found.
 * The saved failures have the shape of regressions.json: add them there once fixed.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { spawnBenchEmulator } from '../lib/emulator.mjs';
import { rng } from '../lib/rng.mjs';
import { send } from './http.mjs';
import { makeSandbox, STRACE_CALLS, straceAvailable, straceViolations } from './sandbox.mjs';
import { bgrAllows, bgrCase, CONTAINER_STATUSES, containerCase } from './selfhosted.mjs';
import { setUpState } from './state.mjs';
import { WEB_STATUSES, webCase } from './web.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const REGRESSIONS_FILE = path.join(HERE, 'regressions.json');

const APIS = {
  web: { generate: webCase, allows: (_c, s) => WEB_STATUSES.includes(s) },
  container: { generate: containerCase, allows: (_c, s) => CONTAINER_STATUSES.includes(s) },
  bgr: { generate: bgrCase, allows: bgrAllows },
};

/** Bytes no HTTP client would send: the server's parser must answer 400/431 or close, and keep serving. */
function rawCase(r) {
  return {
    kind: 'raw',
    method: 'RAW',
    path: '',
    raw: r.pick([
      () => r.bytes(r.int(1, 500)),
      () => Buffer.from('GET / HTTP/9.9\r\n\r\n'),
      () => Buffer.from('GET /v2/upload HTTP/1.1\r\nHost: x\r\nBroken header line\r\n\r\n'),
      () => Buffer.from(`GET /${'a'.repeat(70_000)} HTTP/1.1\r\nHost: x\r\n\r\n`),
      () => Buffer.from('POST /v2/presets/ HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nnot hex\r\n0\r\n\r\n'),
      () => Buffer.from('PUT /pfc HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\nContent-Length: 20\r\n\r\n0123456789'),
      () => Buffer.from('GET /v2/upload HTTP/1.1\r\nHost: x\r\nX-API-KEY: k\0ey\r\n\r\n'),
      () => Buffer.from('\r\n\r\n\r\n'),
    ])(),
  };
}

/** A case as JSON (bodies in base64), to print, save and replay. */
export function serializeCase(api, c) {
  const out = { api, kind: c.kind, method: c.method, path: c.path, headers: c.headers ?? {} };
  if (c.body) out.bodyBase64 = c.body.toString('base64');
  if (c.raw) out.rawBase64 = c.raw.toString('base64');
  if (c.declaredLength !== undefined) out.declaredLength = c.declaredLength;
  if (c.truncate) out.truncate = true;
  return out;
}

export function deserializeCase(s) {
  return { ...s, body: s.bodyBase64 ? Buffer.from(s.bodyBase64, 'base64') : undefined, raw: s.rawBase64 ? Buffer.from(s.rawBase64, 'base64') : undefined };
}

/** Whether a finding has the signature `{ api, method, pathPrefix, status }` of a known open issue. */
function matches(m, api, c, status) {
  return m.api === api && m.method === c.method && c.path.startsWith(m.pathPrefix) && m.status === status;
}

/** Why an outcome breaks the rules, or undefined when it is fine. */
function judge(api, c, outcome, secret) {
  if (outcome.status === 'no-answer') {
    if (c.truncate || c.raw) return undefined; // the client hung up or sent garbage: no answer is fine
    // Node hands CONNECT to a 'connect' listener and closes the socket when there is none: not a proxy, nothing to answer.
    if (c.method === 'CONNECT') return undefined;
    if (typeof outcome.error === 'string' && outcome.error.startsWith('ERR_')) return undefined; // refused by our own HTTP client: never sent
    return `no answer (${outcome.error})`;
  }
  if (outcome.body?.includes(secret)) return 'a canary file leaked into the answer';
  if (c.raw) return outcome.status >= 500 ? `raw request answered ${outcome.status}` : undefined;
  // The emulator's router answers CORS preflights on every route of all three servers (README: "CORS on every answer").
  if (c.method === 'OPTIONS' && outcome.status === 204) return undefined;
  return APIS[api].allows(c, outcome.status) ? undefined : `status ${outcome.status} is not a documented answer`;
}

/**
 * Run the fuzzer. `count` requests per API plus every saved regression case.
 * Returns a report; `report.clean` is true when nothing was found.
 */
export async function runFuzz({ seed = 1, count = 3400, apis = Object.keys(APIS), concurrency = 8, strace = true, log = () => {} } = {}) {
  const root = mkdtempSync(path.join(os.tmpdir(), 'pfc-fuzz-'));
  const box = makeSandbox(root, seed);
  const useStrace = strace && straceAvailable();
  const t0 = performance.now();
  const emu = await spawnBenchEmulator({
    dataDir: box.dataDir,
    cwd: box.cwd,
    containers: true,
    apiKeys: ['fuzz-key'],
    // Storage under the API's /v2, so the Web API cases (paths on one origin) reach the pre-signed PUTs and results too.
    extraArgs: ['--license-key', 'fuzz-licence', '--storage-same-origin'],
    env: { TMPDIR: path.join(box.dataDir, 'tmp') },
    ...(useStrace ? { wrapper: ['strace', '-f', '-qq', '-e', `trace=${STRACE_CALLS}`, '-o', box.straceLog] } : {}),
  });
  const report = { seed, countPerApi: count, apis, strace: useStrace, sent: 0, noAnswer: {}, byApi: {}, failures: [], knownOpen: [], crashes: 0, sandbox: [], regressions: 0 };
  try {
    const state = await setUpState(emu);
    const jobs = [];
    const regressions = JSON.parse(readFileSync(REGRESSIONS_FILE, 'utf8')).cases.filter((s) => apis.includes(s.api));
    // Findings reported to their owner and not fixed yet: listed apart, so anything new stands out.
    const known = regressions.filter((s) => s.open && s.match);
    report.regressions = regressions.length;
    for (const s of regressions) jobs.push({ api: s.api, c: deserializeCase(s), regression: s.note });
    apis.forEach((api, k) => {
      const r = rng(seed * 7919 + k);
      for (let i = 0; i < count; i++) jobs.push({ api, index: i, c: r.chance(0.03) ? rawCase(r) : APIS[api].generate(r, state) });
    });

    let next = 0;
    const worker = async () => {
      while (next < jobs.length && emu.alive()) {
        const job = jobs[next++];
        const base = job.api === 'web' ? emu.origin : emu.urls[job.api];
        const outcome = await send(base, job.c);
        const stats = (report.byApi[job.api] ??= { sent: 0, statuses: {} });
        stats.sent++;
        report.sent++;
        stats.statuses[outcome.status] = (stats.statuses[outcome.status] ?? 0) + 1;
        if (outcome.status === 'no-answer') {
          const reason = String(outcome.error).startsWith('ERR_') ? 'unsendable' : job.c.truncate ? 'truncated' : job.c.raw ? 'raw' : job.c.method === 'CONNECT' ? 'CONNECT' : 'unexpected';
          report.noAnswer[reason] = (report.noAnswer[reason] ?? 0) + 1;
        }
        const why = judge(job.api, job.c, outcome, box.secret);
        if (why) {
          const finding = { why, got: outcome.status, index: job.index, regression: job.regression, case: serializeCase(job.api, job.c), body: outcome.body?.slice(0, 300) };
          const open = known.find((k) => matches(k.match, job.api, job.c, outcome.status));
          if (open) report.knownOpen.push({ ...finding, open: open.open });
          else report.failures.push(finding);
        }
        if (report.sent % 1000 === 0) log(`${report.sent} requests, ${report.failures.length} findings`);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    if (!emu.alive()) {
      report.crashes = 1;
      report.failures.push({ why: `the emulator exited: ${JSON.stringify(await emu.exited)}`, stderr: emu.stderr().slice(-3000) });
    }
  } finally {
    await emu.stop();
    report.sandbox.push(...box.check());
    if (useStrace) {
      const { violations, writesInside } = straceViolations(box.straceLog, { dataDir: box.dataDir, cwd: box.cwd });
      report.sandbox.push(...violations);
      report.straceWritesInside = writesInside;
      // The emulator stores uploads: a log without writes in its folder means the trace saw nothing.
      if (writesInside === 0) report.sandbox.push('strace recorded no writes in the data folder: the file check did not work');
    }
    report.durationMs = Math.round(performance.now() - t0);
    report.clean = report.failures.length === 0 && report.sandbox.length === 0 && report.crashes === 0;
    rmSync(root, { recursive: true, force: true });
  }
  return report;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values: v } = parseArgs({
    options: {
      seed: { type: 'string', default: '1' },
      count: { type: 'string', default: '3400' },
      apis: { type: 'string', default: Object.keys(APIS).join(',') },
      concurrency: { type: 'string', default: '8' },
      'no-strace': { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      'save-failures': { type: 'string' },
    },
  });
  const report = await runFuzz({
    seed: Number(v.seed),
    count: Number(v.count),
    apis: v.apis.split(','),
    concurrency: Number(v.concurrency),
    strace: !v['no-strace'],
    log: v.json ? () => {} : (m) => console.error(m),
  });
  if (v['save-failures'] && report.failures.length) {
    writeFileSync(v['save-failures'], `${JSON.stringify({ cases: report.failures.filter((f) => f.case).map((f) => ({ ...f.case, note: f.why })) }, null, 2)}\n`);
  }
  if (v.json) console.log(JSON.stringify(report));
  else {
    console.log(`${report.sent} requests (${Object.entries(report.byApi).map(([a, s]) => `${a} ${s.sent}`).join(', ')}), seed ${report.seed}, ${(report.durationMs / 1000).toFixed(1)} s, strace ${report.strace ? `on (${report.straceWritesInside} writes inside)` : 'off'}`);
    console.log(`  no answer: ${JSON.stringify(report.noAnswer)}`);
    for (const [a, s] of Object.entries(report.byApi)) console.log(`  ${a}: ${Object.entries(s.statuses).map(([k, n]) => `${k}×${n}`).join(' ')}`);
    for (const f of report.failures.slice(0, 30)) console.log(`FAIL ${f.why}: ${f.case ? `${f.case.api} ${f.case.method} ${f.case.path.slice(0, 160)}` : ''}`);
    for (const s of report.sandbox.slice(0, 30)) console.log(`SANDBOX ${s}`);
    for (const k of report.knownOpen.slice(0, 10)) console.log(`KNOWN (open) ${k.open}: ${k.case.api} ${k.case.method} ${k.case.path.slice(0, 120)}`);
    console.log(report.clean ? 'clean' : `${report.failures.length} findings, ${report.sandbox.length} sandbox problems`);
  }
  process.exitCode = report.clean ? 0 : 1;
}
