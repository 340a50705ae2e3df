/**
 * The crash test: `pfc correct` killed with SIGKILL at random moments of a
 * batch, rerun after each kill, then run to the end. The final output folder
 * must equal that of an uninterrupted run of the same batch (same files, same
 * pixels), with no temporary files left and the originals unchanged.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { pfcCorrect } from './cli.mjs';
import { spawnBenchEmulator } from './emulator.mjs';
import { inputFolder } from './images.mjs';
import { rng } from './rng.mjs';

const KEY = 'pfc-crash-test-key';
const sha256 = (buf) => createHash('sha256').update(buf).digest('hex');
const filesUnder = (dir) => readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));

/** Relative path → content hash of the image files under `dir` (the manifest left out). */
function tree(dir) {
  const out = new Map();
  for (const f of filesUnder(dir)) if (!f.endsWith('.pfc-manifest.jsonl')) out.set(path.relative(dir, f), sha256(readFileSync(f)));
  return out;
}

/** Whether two image files hold the same pixels (used when their bytes differ). */
async function samePixels(a, b) {
  const [x, y] = await Promise.all([a, b].map((f) => sharp(f).raw().toBuffer({ resolveWithObject: true })));
  return x.info.width === y.info.width && x.info.height === y.info.height && x.data.equals(y.data);
}

/**
 * Options: dir, count (files), kills (runs really killed), seed, concurrency, processingMs, log.
 * Returns the figures and the lists behind them.
 */
export async function runCrash({ dir, count = 120, kills = 10, seed = 1, concurrency = 4, processingMs = 100, log = () => {} }) {
  const inDir = path.join(dir, 'in');
  const inputs = await inputFolder(inDir, count, { subdirs: 3, seed: 11 });
  const originals = tree(inDir);
  const emu = await spawnBenchEmulator({ processingMs, workers: concurrency, apiKeys: [KEY], engine: false });
  const r = rng(seed);
  try {
    const reference = await pfcCorrect({ input: inDir, out: path.join(dir, 'reference'), web: emu.web, key: KEY, extra: ['--concurrency', String(concurrency)], timeoutMs: 20 * 60_000 });
    if (reference.code !== 0) throw new Error(`uninterrupted run exited ${reference.code}: ${reference.stderr.slice(-1000)}`);
    log(`uninterrupted run: ${count} files in ${(reference.ms / 1000).toFixed(1)} s`);

    const out = path.join(dir, 'out');
    const runs = [];
    // Until `kills` runs were really killed (a run may finish before its moment), at most twice as many runs.
    for (let i = 0; runs.filter((x) => x.killed).length < kills && i < 2 * kills; i++) {
      // A seeded moment inside this run: during start-up and planning (1 in 5), or a short
      // seeded delay after its k-th finished file, with files still in flight (the rest). k is
      // spread so the kills fall all through the batch, not all in its first run.
      const remaining = count - (existsSync(out) ? tree(out).size : 0);
      const killsLeft = kills - runs.filter((x) => x.killed).length;
      const early = r.chance(0.2) || remaining < 3;
      const startupMs = r.int(30, 400);
      const k = r.int(0, Math.max(0, Math.floor(remaining / (killsLeft + 1)) - 1));
      const delayMs = r.int(0, 150);
      let seen = 0;
      let timer;
      const run = pfcCorrect({
        input: inDir, out, web: emu.web, key: KEY, extra: ['--concurrency', String(concurrency)], timeoutMs: 20 * 60_000,
        onEvent: (e) => {
          if (!early && e.type === 'corrected' && seen++ === k) timer = setTimeout(() => run.child.kill('SIGKILL'), delayMs);
        },
      });
      if (early) timer = setTimeout(() => run.child.kill('SIGKILL'), startupMs);
      const t0 = performance.now();
      const res = await run;
      clearTimeout(timer);
      const at = Math.round(performance.now() - t0);
      const corrected = res.events.filter((e) => e.type === 'corrected').length;
      const cleaned = res.events.filter((e) => e.type === 'cleanup').flatMap((e) => e.removed).length;
      runs.push({ moment: early ? `start-up, ${startupMs} ms` : `${delayMs} ms after file ${k + 1}`, endedAtMs: at, killed: res.signal === 'SIGKILL', exitCode: res.code, correctedBeforeKill: corrected, temporaryRemovedAtStart: cleaned });
      log(`run ${i + 1}: ${res.signal === 'SIGKILL' ? 'killed' : `finished first (exit ${res.code})`} at ${at} ms (${runs.at(-1).moment}), ${corrected} corrected before`);
    }
    const final = await pfcCorrect({ input: inDir, out, web: emu.web, key: KEY, extra: ['--concurrency', String(concurrency)], timeoutMs: 20 * 60_000 });
    const s = final.summary ?? {};
    log(`final run: ${s.corrected} corrected, ${s.upToDate} up to date, ${s.failed} failed, exit ${final.code}`);

    const ref = tree(path.join(dir, 'reference'));
    const got = tree(out);
    const missing = [...ref.keys()].filter((k) => !got.has(k));
    const extra = [...got.keys()].filter((k) => !ref.has(k));
    const temporary = extra.filter((k) => k.includes('.pfc-partial'));
    const different = [];
    let byteIdentical = 0;
    for (const [k, h] of ref) {
      if (!got.has(k)) continue;
      if (got.get(k) === h) byteIdentical++;
      else if (!(await samePixels(path.join(dir, 'reference', k), path.join(out, k)))) different.push(k);
    }
    const changedOriginals = [...tree(inDir)].filter(([k, h]) => originals.get(k) !== h).length + Math.abs(tree(inDir).size - originals.size);
    return {
      count,
      kills: runs.filter((x) => x.killed).length,
      runsStarted: runs.length,
      runs,
      final: { exitCode: final.code, corrected: s.corrected, upToDate: s.upToDate, failed: s.failed },
      // Temporary files of killed runs that the next run found and removed.
      temporaryRemoved: runs.reduce((a, x) => a + x.temporaryRemovedAtStart, 0) + final.events.filter((e) => e.type === 'cleanup').flatMap((e) => e.removed).length,
      equal: missing.length === 0 && extra.length === 0 && different.length === 0,
      missing,
      extra,
      temporary,
      different,
      byteIdentical,
      changedOriginals,
      inputs: inputs.length,
    };
  } finally {
    await emu.stop();
  }
}
