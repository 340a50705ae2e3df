/**
 * A/B of close polling while files wait for a job slot (`CorrectOptions.slotWanted`):
 * the same batch through `runBatch` in this process, alternating runs with the
 * hint passed on (B) and stripped (A), against one emulator process with
 * varied job times (log-normal, median 300 ms, σ 0.5, 8 workers) or constant
 * ones (`--constant`). Both sides run at the same time of day on the same
 * load, which the pipeline suite's separate runs cannot give.
 *
 * Usage: node bench/lib/pipeline-urgent-ab.mjs [--files N] [--pairs N] [--constant]
 * Prints one JSON line per run and a summary line.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { openBackend, planBatch, runBatch } from '@pfc/batch';
import { spawnBenchEmulator } from './emulator.mjs';
import { inputFolder } from './images.mjs';

const { values } = parseArgs({ options: { files: { type: 'string', default: '160' }, pairs: { type: 'string', default: '3' }, constant: { type: 'boolean', default: false } } });
const FILES = Number(values.files);
const PAIRS = Number(values.pairs);
const WORKERS = 8;
const KEY = 'bench-ab-key';

const dir = mkdtempSync(path.join(os.tmpdir(), 'pfc-ab-'));
const emu = await spawnBenchEmulator({ processingMs: 300, ...(values.constant ? {} : { processingSigma: 0.5, processingSeed: 1 }), workers: WORKERS, apiKeys: [KEY], engine: false });
try {
  await inputFolder(path.join(dir, 'in'), FILES);
  const opened = await openBackend({ backend: 'web', apiKey: KEY, baseURL: emu.web });
  const inner = opened.backend;
  /** The backend with `slotWanted` passed on or stripped. */
  const variant = (urgent) => ({
    kind: inner.kind,
    usesJobSlot: inner.usesJobSlot,
    validate: (p) => inner.validate(p),
    correct: (input, params, o = {}) => {
      const { slotWanted: _slotWanted, ...rest } = o;
      return inner.correct(input, params, urgent ? o : rest);
    },
  });
  const rates = { A: [], B: [] };
  for (let i = 0; i < PAIRS; i++) {
    for (const side of i % 2 === 0 ? ['A', 'B'] : ['B', 'A']) {
      const before = (await emu.stats()).requests?.status ?? 0;
      const plan = await planBatch({ inputs: [path.join(dir, 'in')], params: { cache: false }, backend: opened.id });
      const t0 = performance.now();
      const s = await runBatch(plan, { backend: variant(side === 'B'), backendId: opened.id, params: { cache: false }, concurrency: WORKERS, force: true, rateLimited: opened.rateLimited });
      const ms = performance.now() - t0;
      const polls = ((await emu.stats()).requests?.status ?? 0) - before;
      const perS = s.corrected / (ms / 1000);
      rates[side].push(perS);
      console.log(JSON.stringify({ side, urgent: side === 'B', corrected: s.corrected, failed: s.failed, ms: Math.round(ms), filesPerS: +perS.toFixed(2), statusPerJob: +(polls / FILES).toFixed(1), load: +os.loadavg()[0].toFixed(1) }));
    }
  }
  const mean = (xs) => xs.reduce((a, x) => a + x, 0) / xs.length;
  console.log(JSON.stringify({ summary: true, constant: values.constant, files: FILES, pairs: PAIRS, meanA: +mean(rates.A).toFixed(2), meanB: +mean(rates.B).toFixed(2), ratio: +(mean(rates.B) / mean(rates.A)).toFixed(3) }));
  await opened.close();
} finally {
  await emu.stop();
  rmSync(dir, { recursive: true, force: true });
}
