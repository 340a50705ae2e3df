/**
 * Host event loop: how long a host's own event loop is held while it
 * corrects a folder on the embedded emulator — the emulator in the host's
 * process (`startEmulator`, as the CLI runs it) beside the emulator in a
 * child process (`startEmulatorProcess`, as the VS Code extension runs it,
 * whose extension host is one event loop for every extension) — on the same
 * photos in the same run, the two sides taking turns.
 *
 * The host runs @pfc/batch's plan and run, as the CLI and the extension do;
 * its event loop is sampled by `monitorEventLoopDelay` (10 ms resolution):
 * the longest delay, the 99th percentile, and the time spent in stalls over
 * 50 ms (the sum of each late timer's lateness past 50 ms). Files per second
 * shows what the separate process costs or saves. Then the same photos in
 * black and white with the emulator in a child process: each is sent as
 * colour and its result written greyscale again by core's JPEG rewrites,
 * which batch runs on worker threads (about half a second each at 24 MP on
 * the caller's thread: bench `grey-result`).
 */
import { mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { writeJpegs } from '../lib/images.mjs';
import { fmt } from '../lib/stats.mjs';

/** A stall: a timer this much later than asked. */
const STALL_MS = 50;
const TICK_MS = 10;
/** Goal: the host's longest stall with the emulator in its own process. */
const GOAL_MAX_MS = 100;

/** Stalls past `STALL_MS` seen by a 10 ms timer, summed (ms). */
function stallMeter() {
  let last = performance.now();
  let stalled = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    const late = now - last - TICK_MS;
    if (late > STALL_MS) stalled += late - STALL_MS;
    last = now;
  }, TICK_MS);
  return { stop: () => (clearInterval(timer), stalled) };
}

/** One run of the folder on an emulator started by `start`, with the host's loop measured. */
async function measureSide(start, input, out) {
  const { openBackend, planBatch, runBatch } = await import('@pfc/batch');
  const emu = await start();
  try {
    const opened = await openBackend({ backend: 'emulator', emulatorUrl: emu.web });
    const plan = await planBatch({ inputs: [input], output: { kind: 'mirror', dir: out }, backend: opened.id });
    const histogram = monitorEventLoopDelay({ resolution: TICK_MS });
    const stalls = stallMeter();
    histogram.enable();
    const t0 = performance.now();
    const summary = await runBatch(plan, { backend: opened.backend, backendId: opened.id, force: true });
    const seconds = (performance.now() - t0) / 1000;
    histogram.disable();
    const stalledMs = stalls.stop();
    if (summary.corrected !== plan.files.length) throw new Error(`${summary.corrected} of ${plan.files.length} corrected`);
    return { maxMs: histogram.max / 1e6, p99Ms: histogram.percentile(99) / 1e6, stalledMs, seconds, filesPerSecond: plan.files.length / seconds };
  } finally {
    await emu.close();
  }
}

/** Every JPEG of `from` as a one-channel (greyscale) JPEG in `to`. */
async function greyCopies(from, to) {
  const { default: sharp } = await import('sharp');
  mkdirSync(to, { recursive: true });
  for (const name of readdirSync(from)) await sharp(path.join(from, name)).toColourspace('b-w').jpeg({ quality: 90 }).toFile(path.join(to, name));
}

export default {
  name: 'host-loop',
  area: 'Hosts',
  title: "The host's event loop while it corrects on the embedded emulator: in its process vs a child process",
  async run({ quick, log, dir }) {
    const { startEmulator, startEmulatorProcess } = await import('@pfc/emulator');
    const [count, height] = quick ? [3, 2000] : [8, 4000];
    const mp = (height * 1.5 * height) / 1e6;
    const input = path.join(dir, 'in');
    mkdirSync(input, { recursive: true });
    await writeJpegs(input, count, { width: height * 1.5, height, seed: 11 });
    const greyInput = path.join(dir, 'grey');
    await greyCopies(input, greyInput);
    const sides = {
      'in the host': () => startEmulator({ host: '127.0.0.1', container: false, bgr: false }),
      'in a child process': () => startEmulatorProcess({ host: '127.0.0.1' }),
    };
    const runs = quick ? 1 : 2;
    const results = Object.fromEntries(Object.keys(sides).map((k) => [k, []]));
    for (let r = 0; r < runs; r++) {
      // Taking turns, so neither side always runs on the warmer disk cache.
      const order = r % 2 === 0 ? Object.keys(sides) : Object.keys(sides).reverse();
      for (const name of order) {
        const m = await measureSide(sides[name], input, path.join(dir, `out-${r}-${name.replace(/\s/g, '-')}`));
        log(`emulator ${name}: longest stall ${fmt(m.maxMs, 0)} ms, p99 ${fmt(m.p99Ms, 0)} ms, stalled ${fmt(m.stalledMs, 0)} ms in ${fmt(m.seconds, 1)} s, ${fmt(m.filesPerSecond, 2)} files/s`);
        results[name].push(m);
      }
    }
    const grey = await measureSide(sides['in a child process'], greyInput, path.join(dir, 'out-grey'));
    log(`greyscale, emulator in a child process: longest stall ${fmt(grey.maxMs, 0)} ms, p99 ${fmt(grey.p99Ms, 0)} ms, stalled ${fmt(grey.stalledMs, 0)} ms in ${fmt(grey.seconds, 1)} s, ${fmt(grey.filesPerSecond, 2)} files/s`);
    // The highest of a side's runs: its worst stall, its best files/s.
    const highest = (name, key) => Math.max(...results[name].map((m) => m[key]));
    const figures = Object.keys(sides).flatMap((name) => [
      {
        name: `emulator ${name}: the host's longest stall`,
        value: +highest(name, 'maxMs').toFixed(0),
        unit: 'ms',
        ...(name === 'in a child process' ? { goal: `≤ ${GOAL_MAX_MS} ms`, ok: highest(name, 'maxMs') <= GOAL_MAX_MS } : {}),
        note: `p99 ${fmt(highest(name, 'p99Ms'), 0)} ms; ${fmt(highest(name, 'stalledMs'), 0)} ms in stalls over ${STALL_MS} ms`,
      },
      { name: `emulator ${name}: files per second`, value: +highest(name, 'filesPerSecond').toFixed(2), unit: 'files/s' },
    ]).concat([
      {
        name: "greyscale photos, emulator in a child process: the host's longest stall",
        value: +grey.maxMs.toFixed(0),
        unit: 'ms',
        goal: `≤ ${GOAL_MAX_MS} ms`,
        ok: grey.maxMs <= GOAL_MAX_MS,
        note: `p99 ${fmt(grey.p99Ms, 0)} ms; ${fmt(grey.stalledMs, 0)} ms in stalls over ${STALL_MS} ms; ${fmt(grey.filesPerSecond, 2)} files/s; uploads and results rewritten on batch's worker threads`,
      },
    ]);
    return {
      figures,
      data: { count, mp, results, grey },
      notes: [
        `${count} JPEGs of ${fmt(mp, 0)} MP (seeded, photo-like), corrected into a new folder by @pfc/batch in this process on the embedded emulator with the default correction; ${runs} run${runs > 1 ? 's' : ''} per side, the sides taking turns; the worst stall and the best files/s of each side.`,
        `The host's event loop sampled by monitorEventLoopDelay (${TICK_MS} ms resolution) and a ${TICK_MS} ms timer whose lateness past ${STALL_MS} ms is summed. The CLI runs the emulator in its own process (a process of its own already); the VS Code extension runs it in a child process, since its extension host is one event loop for every extension.`,
      ],
    };
  },
};
