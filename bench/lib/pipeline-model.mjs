/**
 * A model of the pipeline's jobs, free of the machine's load: W workers, N
 * jobs of log-normal times (median M ms, σ), as many jobs at once as workers
 * (`--concurrency` = workers), each job's end noticed by core's real
 * `PollSchedule` (with files waiting: `urgent`), every request taking RTT ms,
 * the next job started as soon as a job's end is noticed. For each variant it
 * prints the share of the time the workers were busy (work ÷ (W × wall): the
 * pipeline suite's "ratio to the limit"), status requests per job, the mean
 * notice delay, and where the workers idled (`pipeline-timeline.mjs`:
 * start-up, ramp-up, notice, tail, exit), averaged over 20 seeded batches.
 *
 * Variants: the jobs alone (no start-up) with core's schedule, not urgent and
 * urgent; the best requests any client could send at the same number a job
 * (`bestRequests`: the true law and start known, dynamic programming); a
 * perfect notice (one request, RTT after the end: the bound of any polling);
 * then the whole command (process start to exit: `--startup` ms before the
 * first upload, `--upload` ms an upload alone, `--exit` ms after the last
 * notice) today, with the first wave's uploads 2 or 1 at a time, and with
 * the best requests and a perfect notice. Each for every size in `--jobs`.
 *
 * The uploads share one line here (each of k side by side takes k times as
 * long). On loopback they do not: measured at load 13–15, eight side by side
 * started the eighth job ~425 ms after the first ticket and two at a time
 * ~710 ms (each upload's requests wait on the event loops, not on the line),
 * so the client keeps the first wave side by side; the 2-at-a-time variants
 * stand for a bandwidth-bound uplink.
 *
 * Usage: node bench/lib/pipeline-model.mjs [--workers 8] [--jobs 200,1000] [--median 300] [--sigma 0.5] [--rtt 3] [--startup 300] [--upload 15] [--exit 40]
 * (`PollSchedule` is bundled from packages/core/src with esbuild, as it is not exported.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { ROOT } from './paths.mjs';
import { formatSplit, idleSplit } from './pipeline-timeline.mjs';
import { prng } from './rng.mjs';

const { values } = parseArgs({
  options: {
    workers: { type: 'string', default: '8' }, jobs: { type: 'string', default: '200,1000' }, median: { type: 'string', default: '300' }, sigma: { type: 'string', default: '0.5' }, rtt: { type: 'string', default: '3' },
    startup: { type: 'string', default: '300' }, upload: { type: 'string', default: '15' }, exit: { type: 'string', default: '40' },
  },
});
// Start-up, upload and exit defaults: the low-load timestamps of a 200-file run (bench/lib/startup-marks.mjs:
// Node ~0.13 s, the plan 0.1 s later, the first ticket ~0.05 s after it); a 1 MP upload alone on loopback.
// At load 10 the first wave's 8 uploads took 0.7–0.9 s together (~100 ms each alone).
const [W, M, SIGMA, RTT, STARTUP, UPLOAD, EXIT] = [values.workers, values.median, values.sigma, values.rtt, values.startup, values.upload, values.exit].map(Number);
const SIZES = values.jobs.split(',').map(Number);

const tmp = mkdtempSync(path.join(os.tmpdir(), 'pfc-model-'));
const out = path.join(tmp, 'poll-schedule.mjs');
await build({ entryPoints: [path.join(ROOT, 'packages/core/src/webapi/poll-schedule.ts')], bundle: true, format: 'esm', outfile: out, logLevel: 'warning' });
const { PollSchedule, JobDurations } = await import(pathToFileURL(out).href);
rmSync(tmp, { recursive: true, force: true });

// The schedule reads the clock (the larger of it and its summed waits): the model's clock.
let clock = 0;
Date.now = () => clock;

/** Φ, the standard normal CDF (Abramowitz–Stegun 7.1.26, error < 1.5e-7). */
function normalCdf(z) {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const erf = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-x * x);
  return z >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
}

/**
 * The best status requests any client could send at a given cost per request:
 * the times after a job's start that minimise mean lateness + λ × requests
 * for the jobs' true law (log-normal, median M, σ), by dynamic programming on
 * a 1 ms grid. No real client has this: it knows the law only from the jobs
 * it has seen and the start only from its request's answer. Returns the times
 * and the law's expected requests a job and lateness.
 */
function bestRequests(lambda) {
  const n = Math.ceil(M * Math.exp(5 * SIGMA));
  const F = Float64Array.from({ length: n }, (_, t) => (t === 0 ? 0 : normalCdf(Math.log(t / M) / SIGMA)));
  const G = new Float64Array(n); // ∫_0^t x f(x) dx
  for (let t = 1; t < n; t++) G[t] = G[t - 1] + (t - 0.5) * (F[t] - F[t - 1]);
  const W = new Float64Array(n); // cost to go × P(T > s), from the last request at s
  const next = new Int32Array(n).fill(n - 1);
  const WINDOW = Math.ceil(M); // no gap is longer than the median far before the end of the grid
  for (let s = n - 2; s >= 0; s--) {
    let best = Infinity;
    for (let t = s + 1; t < Math.min(n, s + 1 + WINDOW); t++) {
      const c = t * (F[t] - F[s]) - (G[t] - G[s]) + W[t];
      if (c < best) [best, next[s]] = [c, t];
    }
    W[s] = lambda * (1 - F[s]) + best;
  }
  const times = [];
  let requests = 0;
  let late = 0;
  for (let s = 0; s < n - 1; s = next[s]) {
    const t = next[s];
    requests += 1 - F[s];
    late += t * (F[t] - F[s]) - (G[t] - G[s]);
    times.push(t);
  }
  return { times, requests, lateMs: late };
}

/** `bestRequests` spending `requests` a job (bisection on λ). */
function bestRequestsFor(requests) {
  let [lo, hi] = [0.01, 100];
  for (let k = 0; k < 20; k++) {
    const mid = Math.sqrt(lo * hi);
    if (bestRequests(mid).requests > requests) lo = mid;
    else hi = mid;
  }
  return bestRequests(hi);
}

/**
 * One batch of `n` jobs, event by event: as many jobs at once as workers, the
 * first wave polled blind (golden-ratio phases, re-planned when the first job
 * is noticed, as `waitForJob` does), each slot's next job started when its
 * job's end is noticed. The process starts at 0; the first wave's uploads
 * begin at `startupMs` and take `uploadMs` each alone, side by side sharing
 * the line `firstUploads` at a time (each of those taking that many times
 * as long: a line's worth, shared); the command ends `exitMs` after
 * the last end is noticed (its download and write). Returns the PROCESSING
 * spans and the times for `idleSplit`, the status requests and the notice delay.
 */
function batch(seed, n, { urgent, perfect, best, firstUploads = W, startupMs, uploadMs, exitMs }) {
  const side = Math.min(firstUploads, W);
  // The same seed gives the same jobs for every variant.
  const r = prng(seed);
  const normal = () => Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());
  const times = Array.from({ length: n }, () => M * Math.exp(SIGMA * normal()));
  const durations = new JobDurations();
  const policy = { initialDelayMs: 150, factor: 1.5, maxDelayMs: 2000 };
  /** When file i's upload is done: the first wave's share the line; later ones uploaded while jobs ran. */
  const uploaded = (i) => (i >= W ? 0 : startupMs + uploadMs * side * (Math.floor(i / side) + 1));
  const inFlight = [];
  const spans = [];
  let nextFile = 0;
  let polls = 0;
  let late = 0;
  let lastNotice = 0;
  /** Plan job `job`'s next status request from time t (its answer comes RTT later). */
  const plan = (job, t) => {
    clock = t;
    if (perfect) job.askAt = Math.max(t, job.end - RTT / 2);
    // The best requests are timed from the job's true start, and arrive at the service at those times.
    else if (best) job.askAt = Math.max(t, job.start + best.times[job.asked++] - RTT / 2);
    else job.askAt = t + job.schedule.next(urgent && nextFile < n);
  };
  const start = (t) => {
    const i = nextFile++;
    const sent = Math.max(t, uploaded(i));
    const begin = sent + RTT; // the start's answer is back: the wait begins
    clock = begin;
    const expected = durations.expected;
    const job = { start: sent + RTT / 2, end: sent + RTT / 2 + times[i], asked: 0, schedule: perfect || best ? undefined : new PollSchedule(policy, expected, expected === undefined ? durations.nextBlindPhase() : 0) };
    inFlight.push(job);
    plan(job, begin);
  };
  while (nextFile < Math.min(W, n)) start(0);
  while (inFlight.length > 0) {
    const job = inFlight.reduce((a, b) => (b.askAt < a.askAt ? b : a));
    const answered = job.askAt + RTT;
    polls++;
    const done = job.askAt + RTT / 2 >= job.end;
    clock = answered;
    job.schedule?.observe(done ? 'COMPLETED' : 'PROCESSING');
    if (!done) {
      plan(job, answered);
      continue;
    }
    inFlight.splice(inFlight.indexOf(job), 1);
    spans.push({ startMs: job.start, endMs: job.end });
    late += answered - job.end;
    lastNotice = answered;
    const first = durations.expected === undefined;
    durations.record((job.end - job.start) / 1000);
    // The first duration learned wakes the blind waits to re-plan (`sleepUnlessLearned`).
    if (first) for (const other of inFlight) if (other.schedule?.blind) {
      other.schedule.learn(durations.expected, true);
      plan(other, answered);
    }
    if (nextFile < n) start(answered);
  }
  return { spans, t1: lastNotice + exitMs, polls: polls / n, lateMs: late / n };
}

/** Mean of each figure over 20 seeded batches. */
function averaged(n, variant) {
  const runs = Array.from({ length: 20 }, (_, i) => {
    const b = batch(i + 1, n, variant);
    return { ...idleSplit(b.spans, 0, b.t1, W), polls: b.polls, lateMs: b.lateMs };
  });
  const mean = (k) => runs.reduce((a, x) => a + x[k], 0) / runs.length;
  return Object.fromEntries(Object.keys(runs[0]).map((k) => [k, mean(k)]));
}

const whole = { startupMs: STARTUP, uploadMs: UPLOAD, exitMs: EXIT };
const none = { startupMs: 0, uploadMs: 0, exitMs: 0 };
// As many requests a job as core's schedule spends when files wait (measured by the urgent variant).
const target = averaged(SIZES[0], { urgent: true, ...none }).polls;
const best = bestRequestsFor(target);
const variants = [
  ['not urgent', { urgent: false, ...none }],
  ['urgent (files wait for the slot)', { urgent: true, ...none }],
  [`best ${target.toFixed(1)} requests a job`, { best, ...none }],
  ['perfect notice', { perfect: true, ...none }],
  ['whole command: today', { urgent: true, ...whole }],
  ['whole command: uploads 2 at a time', { urgent: true, firstUploads: 2, ...whole }],
  ['whole command: uploads 1 at a time', { urgent: true, firstUploads: 1, ...whole }],
  [`whole command: best ${target.toFixed(1)} requests`, { best, firstUploads: 2, ...whole }],
  ['whole command: perfect notice', { perfect: true, firstUploads: 2, ...whole }],
];
console.log(`best requests for the true law at ${target.toFixed(1)} a job: ${best.lateMs.toFixed(1)} ms late on average (plus the request's way), first at ${best.times[0]} ms, then ${best.times.slice(1, 8).join(', ')} …`);
console.log(`${W} workers, jobs log-normal median ${M} ms σ ${SIGMA}, ${RTT} ms a request; whole command: start-up ${STARTUP} ms, ${UPLOAD} ms an upload alone, exit ${EXIT} ms`);
for (const n of SIZES) {
  for (const [name, variant] of variants) {
    const x = averaged(n, variant);
    console.log(`${String(n).padStart(5)} jobs, ${name.padEnd(36)} workers busy ${x.ratio.toFixed(3)}, ${x.polls.toFixed(1)} status requests a job, noticed ${x.lateMs.toFixed(1)} ms late; idle: ${formatSplit(x)}`);
  }
}
