/**
 * A model of the pipeline's jobs, free of the machine's load: W workers, N
 * jobs of log-normal times (median M ms, σ), each job's end noticed by core's
 * real `PollSchedule` (with files waiting: `urgent`), every request taking
 * RTT ms, the next job started as soon as a job's end is noticed. Prints the
 * share of the time the workers were busy (work ÷ (W × makespan): the
 * pipeline suite's "ratio to the limit" without start-up), status requests per
 * job and the mean notice delay, averaged over 20 seeded batches; and the
 * same with a perfect notice (one request RTT after the end), the bound any
 * polling can reach with as many jobs as workers.
 *
 * Usage: node bench/lib/pipeline-model.mjs [--workers 8] [--jobs 200] [--median 300] [--sigma 0.5] [--rtt 3]
 * (`PollSchedule` is bundled from packages/core/src with esbuild, as it is not exported.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { ROOT } from './paths.mjs';
import { prng } from './rng.mjs';

const { values } = parseArgs({ options: { workers: { type: 'string', default: '8' }, jobs: { type: 'string', default: '200' }, median: { type: 'string', default: '300' }, sigma: { type: 'string', default: '0.5' }, rtt: { type: 'string', default: '3' } } });
const [W, N, M, SIGMA, RTT] = [values.workers, values.jobs, values.median, values.sigma, values.rtt].map(Number);

const tmp = mkdtempSync(path.join(os.tmpdir(), 'pfc-model-'));
const out = path.join(tmp, 'poll-schedule.mjs');
await build({ entryPoints: [path.join(ROOT, 'packages/core/src/webapi/poll-schedule.ts')], bundle: true, format: 'esm', outfile: out, logLevel: 'warning' });
const { PollSchedule, JobDurations } = await import(pathToFileURL(out).href);
rmSync(tmp, { recursive: true, force: true });

// The schedule reads the clock (the larger of it and its summed waits): the model's clock.
let clock = 0;
Date.now = () => clock;

/** One batch: jobs go to the worker whose client is free first, in order. */
function batch(seed, { urgent, perfect }) {
  // The same seed gives the same jobs for every variant.
  const r = prng(seed);
  const normal = () => Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());
  const jobs = Array.from({ length: N }, () => M * Math.exp(SIGMA * normal()));
  const durations = new JobDurations();
  const policy = { initialDelayMs: 150, factor: 1.5, maxDelayMs: 2000 };
  const free = Array(W).fill(0);
  let polls = 0;
  let late = 0;
  for (const D of jobs) {
    const w = free.indexOf(Math.min(...free));
    const start = free[w] + RTT / 2; // the start request reaches the service
    let t = start + RTT / 2; // its answer is back: the wait begins
    if (perfect) {
      t = start + D + RTT;
      polls++;
    } else {
      clock = t;
      const s = new PollSchedule(policy, durations.expected, 0);
      for (;;) {
        t += s.next(urgent);
        polls++;
        const done = t + RTT / 2 >= start + D;
        s.observe(done ? 'COMPLETED' : 'PROCESSING');
        t += RTT;
        clock = t;
        if (done) break;
      }
    }
    durations.record(D / 1000);
    late += t - (start + D);
    free[w] = t;
  }
  const work = jobs.reduce((a, d) => a + d, 0);
  return { busy: work / (W * Math.max(...free)), polls: polls / N, lateMs: late / N };
}

for (const [name, variant] of [['not urgent', { urgent: false }], ['urgent (files wait for the slot)', { urgent: true }], ['perfect notice', { perfect: true }]]) {
  const runs = Array.from({ length: 20 }, (_, i) => batch(i + 1, variant));
  const mean = (k) => runs.reduce((a, x) => a + x[k], 0) / runs.length;
  console.log(`${name.padEnd(34)} workers busy ${mean('busy').toFixed(3)}, ${mean('polls').toFixed(1)} status requests a job, noticed ${mean('lateMs').toFixed(1)} ms late`);
}
