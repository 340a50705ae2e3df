/**
 * Fleet: three emulated colour-correction containers with different
 * processing times behind one `openBackend` (as `pfc correct
 * --container-url A --container-url B --container-url C`): throughput against
 * the sum of their limits (workers ÷ processing time), a run with one
 * instance killed mid-run (files lost or duplicated: 0), and how the adaptive
 * concurrency converges against the Web API emulator's --account-jobs.
 */
import { mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { openBackend, planBatch, runBatch } from '@pfc/batch';
import { startEmulator } from '@pfc/emulator';
import sharp from 'sharp';

const TIMES_MS = [250, 500, 1000];
const WORKERS = 2;
const ACCOUNT_JOBS = 4;

async function photos(dir, n) {
  mkdirSync(dir, { recursive: true });
  for (let i = 0; i < n; i += 32) {
    await Promise.all(Array.from({ length: Math.min(32, n - i) }, (_, k) =>
      sharp({ create: { width: 96, height: 64, channels: 3, background: { r: ((i + k) * 37) % 256, g: ((i + k) * 91) % 256, b: 120 } } }).jpeg().toFile(path.join(dir, `p${String(i + k).padStart(5, '0')}.jpg`))));
  }
}

async function fleetRun(dir, files, kill) {
  const emu = await startEmulator({ engine: {}, bgr: false, container: { processingMs: TIMES_MS[0], workers: WORKERS }, containerInstances: TIMES_MS.slice(1).map((processingMs) => ({ processingMs, workers: WORKERS })) });
  try {
    const servers = emu.selfHosted.containers;
    const input = path.join(dir, 'in');
    await photos(input, files);
    // One file in hand beyond each instance's workers, so none idles on the client's transfers.
    const opened = await openBackend({ containerUrl: servers.map((s) => s.url), instanceJobs: WORKERS + 1, healthIntervalMs: 500 });
    const plan = await planBatch({ inputs: [input], params: {}, backend: opened.id });
    const t0 = performance.now();
    let done = 0;
    let killed = false;
    const summary = await runBatch(plan, {
      backend: opened.backend, backendId: opened.id, concurrency: opened.defaultConcurrency, retryDelayMs: 50,
      onEvent: (e) => {
        if (e.type !== 'corrected') return;
        done++;
        if (kill && !killed && done >= files / 3) {
          killed = true;
          void servers[0].close();
        }
      },
    });
    const seconds = (performance.now() - t0) / 1000;
    const outputs = readdirSync(path.join(input, 'corrected')).filter((f) => f.endsWith('.jpg'));
    const names = new Set(readdirSync(input).filter((f) => f.endsWith('.jpg')));
    const lost = [...names].filter((n) => !outputs.includes(n)).length;
    const dupRecords = servers.reduce((n, s) => n + s.corrections.length - new Set(s.corrections.map((r) => r.imageKey)).size, 0);
    const status = opened.instances();
    await opened.close();
    return { seconds, summary, lost, extra: outputs.length - names.size + dupRecords, perInstance: servers.map((s, i) => ({ url: s.url, processingMs: TIMES_MS[i], corrected: s.corrections.filter((r) => r.status === 'corrected').length })), status };
  } finally {
    await emu.close();
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
    const all = await fleetRun(path.join(dir, 'all'), files, false);
    const rate = files / all.seconds;
    log(`three instances: ${rate.toFixed(1)} files/s of ${capacity.toFixed(1)} (${all.perInstance.map((p) => `${p.processingMs} ms: ${p.corrected}`).join(', ')})`);
    const kill = await fleetRun(path.join(dir, 'kill'), files, true);
    log(`one killed: ${kill.summary.corrected} corrected, ${kill.lost} lost, ${kill.extra} duplicated`);
    const ad = await adaptiveRun(dir, quick ? 120 : 400, true);
    const fx = await adaptiveRun(dir, quick ? 120 : 400, false);
    const tail = ad.limits.slice(Math.floor(ad.limits.length / 2));
    const meanTail = tail.length ? tail.reduce((n, l) => n + l.limit, 0) / tail.length : 16;
    log(`adaptive: ${ad.refused} refusals in ${ad.seconds.toFixed(1)} s (limit path ${ad.limits.map((l) => l.limit).join(' ')}); fixed 16: ${fx.refused} refusals in ${fx.seconds.toFixed(1)} s`);
    return {
      figures: [
        { name: 'throughput of three instances (files/s)', value: +rate.toFixed(1), goal: `≥ ${(0.9 * capacity).toFixed(1)} (0.9 × ${capacity.toFixed(1)}, the sum of their limits)`, ok: rate >= 0.9 * capacity },
        { name: 'one instance killed mid-run: files lost', value: kill.lost, goal: '0', ok: kill.lost === 0 },
        { name: 'one instance killed mid-run: files duplicated (outputs and instance records)', value: kill.extra, goal: '0', ok: kill.extra === 0 },
        { name: 'one instance killed mid-run: run completed', value: kill.summary.corrected === files && kill.summary.failed === 0 ? 'yes' : 'no', goal: 'yes', ok: kill.summary.corrected === files && kill.summary.failed === 0 },
        { name: `adaptive concurrency vs --account-jobs ${ACCOUNT_JOBS}: mean limit over the second half of its changes`, value: +meanTail.toFixed(1), note: `${ad.limits.length} changes; ${ad.refused} job starts refused (429) in ${ad.seconds.toFixed(1)} s vs ${fx.refused} in ${fx.seconds.toFixed(1)} s with a fixed 16` },
      ],
      data: { capacity, all, kill, adaptive: ad, fixed: fx },
      notes: [
        `Instances: processing ${TIMES_MS.join(' / ')} ms, ${WORKERS} workers each (emulator containerInstances), engine-less, 96×64 JPEGs; --instance-jobs ${WORKERS + 1}; in-process runBatch through openBackend (the CLI's path).`,
        'Killed: the fastest instance closed (connections dropped) after a third of the files; the run moves its files to the others.',
        `Adaptive: Web API emulator, --processing-ms 50, 16 workers, --account-jobs ${ACCOUNT_JOBS}, -j 16; AIMD (halve on 429 once per 2 s, +1 per round of jobs done).`,
      ],
    };
  },
};
