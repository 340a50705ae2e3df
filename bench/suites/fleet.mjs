/**
 * Fleet: three emulated colour-correction containers with different
 * processing times behind one `openBackend` (as `pfc correct
 * --container-url A --container-url B --container-url C`): throughput against
 * the sum of their limits (workers ÷ processing time) with the files at once
 * per instance chosen from measured speed (the default), set by hand
 * (`--instance-jobs 5,3,3`) and one number for all (3), in one run; a run with
 * one instance killed mid-run (files lost or duplicated: 0), and how the
 * adaptive concurrency converges against the Web API emulator's --account-jobs.
 */
import { mkdirSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openBackend, planBatch, runBatch } from '@pfc/batch';
import { startEmulator } from '@pfc/emulator';
import { startFleetHost } from '../lib/fleet-host.mjs';
import sharp from 'sharp';

const TIMES_MS = [250, 500, 1000];
const WORKERS = 2;
/**
 * Files in hand per instance beyond its workers, so none idles while the
 * client turns a finished file round (download, write, next upload): one each
 * for the slower instances, three for the fastest (it frees a worker every
 * 125 ms, quicker than a loaded client's turnaround).
 */
const JOBS = [WORKERS + 3, WORKERS + 1, WORKERS + 1];
const ACCOUNT_JOBS = 4;

async function photos(dir, n) {
  mkdirSync(dir, { recursive: true });
  for (let i = 0; i < n; i += 32) {
    await Promise.all(Array.from({ length: Math.min(32, n - i) }, (_, k) =>
      sharp({ create: { width: 96, height: 64, channels: 3, background: { r: ((i + k) * 37) % 256, g: ((i + k) * 91) % 256, b: 120 } } }).jpeg().toFile(path.join(dir, `p${String(i + k).padStart(5, '0')}.jpg`))));
  }
}

/** The most requests for a correction an instance held at once (waiting for a worker or corrected), from its records. */
function heldAtOnce(records) {
  const edges = records.flatMap((r) => [[r.requestedAt, 1], [r.endedAt ?? Infinity, -1]]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let now = 0;
  let most = 0;
  for (const [, d] of edges) most = Math.max(most, (now += d));
  return most;
}

/**
 * One run of `files` photos over the three instances (in a process of their
 * own), `jobs` files at once per instance (a number, one per instance, or
 * undefined: chosen from measured speed); with `kill`, the fastest instance
 * dies after a third of the files.
 */
async function fleetRun(dir, files, jobs, kill) {
  const host = await startFleetHost(TIMES_MS.map((processingMs) => ({ processingMs, workers: WORKERS })));
  try {
    const input = path.join(dir, 'in');
    await photos(input, files);
    const opened = await openBackend({ containerUrl: host.urls, ...(jobs !== undefined ? { instanceJobs: jobs } : {}), healthIntervalMs: 500 });
    const plan = await planBatch({ inputs: [input], params: {}, backend: opened.id });
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    let done = 0;
    let killed = false;
    const summary = await runBatch(plan, {
      backend: opened.backend, backendId: opened.id, concurrency: opened.defaultConcurrency, retryDelayMs: 50,
      onEvent: (e) => {
        if (e.type !== 'corrected') return;
        done++;
        if (kill && !killed && done >= files / 3) {
          killed = true;
          void host.kill(0);
        }
      },
    });
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    // The client's own CPU per file and the machine's load: with the instances elsewhere, what is left between their limits and the figure.
    const client = { cpuMsPerFile: +((cpu.user + cpu.system) / 1000 / files).toFixed(2), cpuShare: +((cpu.user + cpu.system) / 1e6 / seconds).toFixed(2), load1: +os.loadavg()[0].toFixed(1) };
    const outputs = readdirSync(path.join(input, 'corrected')).filter((f) => f.endsWith('.jpg'));
    const names = new Set(readdirSync(input).filter((f) => f.endsWith('.jpg')));
    const lost = [...names].filter((n) => !outputs.includes(n)).length;
    const records = await host.records();
    const dupRecords = records.reduce((n, r) => n + r.length - new Set(r.map((x) => x.imageKey)).size, 0);
    const status = opened.instances();
    await opened.close();
    const t0ms = Date.now() - performance.now() + t0;
    const perInstance = records.map((r, i) => ({
      url: host.urls[i], processingMs: TIMES_MS[i], jobs: status[i].concurrency, held: heldAtOnce(r),
      corrected: r.filter((x) => x.status === 'corrected').length,
      // Share of the run its workers were correcting (start-up and the end included).
      busy: +(r.reduce((n, x) => n + ((x.endedAt ?? x.startedAt) - x.startedAt), 0) / (WORKERS * seconds * 1000)).toFixed(3),
      firstStartS: r.length ? +((Math.min(...r.map((x) => x.startedAt)) - t0ms) / 1000).toFixed(2) : null,
      lastEndS: r.length ? +((Math.max(...r.map((x) => x.endedAt ?? x.startedAt)) - t0ms) / 1000).toFixed(2) : null,
    }));
    return { seconds, client, summary: { corrected: summary.corrected, failed: summary.failed }, lost, extra: outputs.length - names.size + dupRecords, perInstance, status };
  } finally {
    await host.close();
  }
}

async function adaptiveRun(dir, files, adaptive) {
  const emu = await startEmulator({ engine: {}, container: false, bgr: false, processingMs: 50, workers: 16, accountLimits: { jobsInProgress: ACCOUNT_JOBS } });
  try {
    const input = path.join(dir, adaptive ? 'a' : 'f');
    await photos(input, files);
    const opened = await openBackend({ emulatorUrl: emu.web });
    const plan = await planBatch({ inputs: [input], params: {}, backend: opened.id });
    const limits = [];
    const t0 = performance.now();
    const summary = await runBatch(plan, {
      backend: opened.backend, backendId: opened.id, concurrency: 16, ...(adaptive ? { rateLimited: opened.rateLimited } : {}),
      onEvent: (e) => e.type === 'notice' && limits.push({ atS: +((performance.now() - t0) / 1000).toFixed(2), limit: Number(e.message.split(' ')[0]) }),
    });
    const seconds = (performance.now() - t0) / 1000;
    await opened.close();
    return { seconds, corrected: summary.corrected, failed: summary.failed, refused: emu.stats().accountLimits.jobs, limits };
  } finally {
    await emu.close();
  }
}

export default {
  name: 'fleet',
  area: 'Scale',
  title: 'Fleet: three colour containers, failover, adaptive concurrency against --account-jobs',
  async run({ quick, dir, log }) {
    const files = quick ? 150 : 600;
    const capacity = TIMES_MS.reduce((n, ms) => n + (WORKERS * 1000) / ms, 0);
    const auto = await fleetRun(path.join(dir, 'auto'), files, undefined, false);
    const autoRate = files / auto.seconds;
    const all = await fleetRun(path.join(dir, 'all'), files, JOBS.join(','), false);
    const rate = files / all.seconds;
    const same = await fleetRun(path.join(dir, 'same'), files, WORKERS + 1, false);
    const sameRate = files / same.seconds;
    const split = (run) => run.perInstance.map((p) => `${p.processingMs} ms ×${p.jobs} (held ${p.held}): ${p.corrected} files, busy ${p.busy}`).join('; ');
    const machine = (run) => `client ${run.client.cpuMsPerFile} ms CPU a file (${run.client.cpuShare} of a core), load ${run.client.load1}`;
    log(`three instances, jobs from measured speed: ${autoRate.toFixed(1)} files/s of ${capacity.toFixed(1)} (${split(auto)}; ${machine(auto)})`);
    log(`three instances, --instance-jobs ${JOBS.join(',')}: ${rate.toFixed(1)} files/s of ${capacity.toFixed(1)} (${split(all)}; ${machine(all)})`);
    log(`three instances, --instance-jobs ${WORKERS + 1}: ${sameRate.toFixed(1)} files/s (${split(same)}; ${machine(same)})`);
    const kill = await fleetRun(path.join(dir, 'kill'), files, undefined, true);
    log(`one killed: ${kill.summary.corrected} corrected, ${kill.lost} lost, ${kill.extra} duplicated`);
    const ad = await adaptiveRun(dir, quick ? 120 : 400, true);
    const fx = await adaptiveRun(dir, quick ? 120 : 400, false);
    const tail = ad.limits.slice(Math.floor(ad.limits.length / 2));
    const meanTail = tail.length ? tail.reduce((n, l) => n + l.limit, 0) / tail.length : 16;
    log(`adaptive: ${ad.refused} refusals in ${ad.seconds.toFixed(1)} s (limit path ${ad.limits.map((l) => l.limit).join(' ')}); fixed 16: ${fx.refused} refusals in ${fx.seconds.toFixed(1)} s`);
    return {
      figures: [
        { name: 'throughput of three instances, jobs per instance from measured speed (the default) (files/s)', value: +autoRate.toFixed(1), goal: `≥ ${(0.9 * capacity).toFixed(1)} (0.9 × ${capacity.toFixed(1)}, the sum of their limits)`, ok: autoRate >= 0.9 * capacity, note: `${(autoRate / capacity).toFixed(3)} of the sum; jobs at the end ${auto.perInstance.map((p) => p.jobs).join(' / ')}, most held at once ${auto.perInstance.map((p) => p.held).join(' / ')}; split ${auto.perInstance.map((p) => p.corrected).join(' / ')}; busy ${auto.perInstance.map((p) => p.busy).join(' / ')}; ${machine(auto)}` },
        { name: `throughput of three instances, --instance-jobs ${JOBS.join(',')} (files/s)`, value: +rate.toFixed(1), note: `${(rate / capacity).toFixed(3)} of the sum, same run; split ${all.perInstance.map((p) => p.corrected).join(' / ')}; busy ${all.perInstance.map((p) => p.busy).join(' / ')}; ${machine(all)}` },
        { name: `throughput of three instances, --instance-jobs ${WORKERS + 1} for all (files/s)`, value: +sameRate.toFixed(1), note: `${(sameRate / capacity).toFixed(3)} of the sum, same run; split ${same.perInstance.map((p) => p.corrected).join(' / ')}; busy ${same.perInstance.map((p) => p.busy).join(' / ')}; ${machine(same)}` },
        { name: 'one instance killed mid-run: files lost', value: kill.lost, goal: '0', ok: kill.lost === 0 },
        { name: 'one instance killed mid-run: files duplicated (outputs and instance records)', value: kill.extra, goal: '0', ok: kill.extra === 0 },
        { name: 'one instance killed mid-run: run completed', value: kill.summary.corrected === files && kill.summary.failed === 0 ? 'yes' : 'no', goal: 'yes', ok: kill.summary.corrected === files && kill.summary.failed === 0 },
        { name: `adaptive concurrency vs --account-jobs ${ACCOUNT_JOBS}: mean limit over the second half of its changes`, value: +meanTail.toFixed(1), note: `${ad.limits.length} changes; ${ad.refused} job starts refused (429) in ${ad.seconds.toFixed(1)} s vs ${fx.refused} in ${fx.seconds.toFixed(1)} s with a fixed 16` },
      ],
      data: { capacity, auto, all, same, kill, adaptive: ad, fixed: fx },
      notes: [
        `Instances: processing ${TIMES_MS.join(' / ')} ms, ${WORKERS} workers each (emulator containerInstances, in a process of their own: real containers do not share the client's event loop), engine-less, 96×64 JPEGs; jobs from measured speed (no --instance-jobs), --instance-jobs ${JOBS.join(',')} (per instance) and ${WORKERS + 1} (one for all) in the same run; in-process runBatch through openBackend (the CLI's path). "busy": share of the run each instance's workers were correcting; "held": the most requests for a correction the instance held at once (its records).`,
        'Killed: jobs from measured speed; the fastest instance closed (connections dropped) after a third of the files; the run moves its files to the others.',
        `Adaptive: Web API emulator, --processing-ms 50, 16 workers, --account-jobs ${ACCOUNT_JOBS}, -j 16; AIMD (halve on 429 once per 2 s, +1 per round of jobs done).`,
      ],
    };
  },
};
