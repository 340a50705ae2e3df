/**
 * The fault soak: a batch through the built `pfc` CLI while the emulator
 * injects 503s, 429s with Retry-After, dropped connections, FAILED jobs and
 * jobs that never finish; then a rerun without faults. Everything is checked
 * on disk: outputs whole and decodable, no duplicates, no temporary files,
 * originals unchanged, the rerun redoes exactly the failed files, and the API
 * key appears in no log, output, report or manifest.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { pfcCorrect } from './cli.mjs';
import { spawnBenchEmulator } from './emulator.mjs';
import { inputFolder } from './images.mjs';
import { CLI_BIN } from './paths.mjs';
import { runNode } from './proc.mjs';
import { findSecret } from './secrets.mjs';

/** Fault shares of the issue: 5 % 503, 2 % 429 + Retry-After, 2 % drops, 3 % FAILED, 1 % never finishing. */
export function soakFaults(seed, { hang = true } = {}) {
  return {
    seed,
    routes: { '*': { rate503: 0.05, rate429: 0.02, dropRate: 0.02, retryAfterSeconds: 1 } },
    jobs: { failRate: 0.03, ...(hang ? { hangRate: 0.01 } : {}) },
  };
}

const sha256 = (file) => createHash('sha256').update(readFileSync(file)).digest('hex');
const filesUnder = (dir) => readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));

/** What the CLI offers for a per-job time limit: the flag and its unit, or undefined. */
export async function jobTimeoutFlag() {
  const help = (await runNode(CLI_BIN, ['correct', '--help'])).stdout;
  const line = help.split('\n').find((l) => /--job-timeout\b/.test(l));
  if (!line) return undefined;
  return { flag: '--job-timeout', unit: /\bMS\b|millisecond/i.test(line) ? 'ms' : 's' };
}

/** Decode every output fully; returns the ones that are missing, partial or of the wrong size. */
async function badOutputs(outputs, width, height) {
  const bad = [];
  for (const f of outputs) {
    try {
      const { info } = await sharp(f, { failOn: 'truncated' }).raw().toBuffer({ resolveWithObject: true });
      if (info.width !== width || info.height !== height) bad.push(`${f}: ${info.width}x${info.height}`);
    } catch (err) {
      bad.push(`${f}: ${err.message}`);
    }
  }
  return bad;
}

/**
 * Run the soak in `dir`. Options: count (files), seed, concurrency,
 * processingMs, jobTimeoutS (per-job limit given to the CLI; hangs are only
 * injected when the CLI has one, and `hangs` is not false), serviceJobTimeoutMs (the emulator's
 * job time limit, `--job-timeout-ms`; default its own), accountLimits (the emulator's per-key
 * limits, answered 429 + Retry-After), log, onSecret (receives the API key used).
 */
export async function runSoak({ dir, count = 1000, seed = 1, concurrency = 8, processingMs = 50, jobTimeoutS = 10, serviceJobTimeoutMs, accountLimits, hangs = true, log = () => {}, onSecret = () => {} }) {
  const key = `pfc-soak-key-${randomBytes(12).toString('hex')}`;
  // The caller may search its own reports for it too; it is never returned.
  onSecret(key);
  const inDir = path.join(dir, 'in');
  const outDir = path.join(dir, 'out');
  const inputs = await inputFolder(inDir, count, { subdirs: 5, seed: 7 });
  const before = new Map(inputs.map((f) => [f, sha256(f)]));
  const timeout = await jobTimeoutFlag();
  const hang = Boolean(timeout) && hangs;
  // Never-finishing jobs keep their worker: leave room for them.
  const emu = await spawnBenchEmulator({ processingMs, workers: 64, apiKeys: [key], faults: soakFaults(seed, { hang }), accountLimits, ...(serviceJobTimeoutMs !== undefined ? { jobTimeoutMs: serviceJobTimeoutMs } : {}), engine: false, verbose: true, logFile: path.join(dir, 'emulator.log'), dataDir: path.join(dir, 'emulator') });
  try {
    const extra = ['--concurrency', String(concurrency)];
    if (timeout) extra.push(timeout.flag, String(timeout.unit === 'ms' ? jobTimeoutS * 1000 : jobTimeoutS));
    const first = await pfcCorrect({ input: inDir, out: outDir, web: emu.web, key, extra, timeoutMs: 60 * 60_000 });
    const s1 = first.summary ?? {};
    const failed1 = first.events.filter((e) => e.type === 'failed');
    const { faults, accountLimits: limited, requests: requests1 } = await emu.stats();
    // How the client's jobs at once moved (its notices), and how often each file went up.
    const limitPath = first.events.filter((e) => e.type === 'notice' && /job\(s\) at once/.test(e.message)).map((e) => Number(e.message.split(' ')[0]));
    const uploads1 = requests1?.['upload.put'] ?? 0;
    log(`run 1: ${s1.corrected} corrected, ${s1.failed} failed, exit ${first.code}, ${(first.ms / 1000).toFixed(1)} s; injected ${JSON.stringify(faults)}`);

    await emu.setFaults({});
    const jobsBefore = (await emu.stats()).jobs.total;
    const report = path.join(dir, 'report.html');
    const second = await pfcCorrect({ input: inDir, out: outDir, web: emu.web, key, extra: [...extra, '--report', report], timeoutMs: 30 * 60_000 });
    const s2 = second.summary ?? {};
    const jobsRerun = (await emu.stats()).jobs.total - jobsBefore;
    const redone = second.events.filter((e) => e.type === 'corrected').map((e) => e.input).sort();
    log(`rerun: ${s2.corrected} corrected, ${s2.upToDate} up to date, ${s2.failed} failed, ${jobsRerun} jobs`);

    const twin = await twinRuns({ dir, emu, key, count: Math.min(count, 60) });
    log(`two runs on one folder at once: ${twin.files} files, ${twin.jobs} jobs, exit codes ${twin.exitCodes.join(' and ')}`);

    // On disk.
    const outFiles = filesUnder(outDir);
    const expected = new Set(inputs.map((f) => path.join(outDir, path.relative(inDir, f))));
    const outputs = outFiles.filter((f) => expected.has(f));
    const others = outFiles.filter((f) => !expected.has(f) && path.basename(f) !== '.pfc-manifest.jsonl');
    // A duplicate: an input corrected more than once over both runs (a second job for a finished file).
    const perInput = new Map();
    for (const e of [...first.events, ...second.events].filter((x) => x.type === 'corrected')) perInput.set(e.input, (perInput.get(e.input) ?? 0) + 1);
    const duplicates = [...perInput.values()].filter((n) => n > 1).length;
    const partials = others.filter((f) => f.includes('.pfc-partial'));
    const unexpected = others.filter((f) => !f.includes('.pfc-partial'));
    const bad = await badOutputs(outputs, 1000, 1000);
    const originalsChanged = inputs.filter((f) => sha256(f) !== before.get(f)).length;

    const secrets = findSecret(key, {
      texts: { 'pfc stdout (run 1)': first.stdout, 'pfc stderr (run 1)': first.stderr, 'pfc stdout (rerun)': second.stdout, 'pfc stderr (rerun)': second.stderr },
      // The outputs, the manifest, the report page and the emulator's log (emulator.log); not the inputs or the emulator's own store.
      dirs: [dir],
      skipDirs: [inDir, path.join(dir, 'emulator')],
    });

    const reasons = {};
    for (const e of failed1) {
      const why = e.error.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '<id>');
      reasons[why] = (reasons[why] ?? 0) + 1;
    }
    return {
      count,
      seed,
      hangsInjected: hang,
      jobTimeout: timeout ? `${timeout.flag} ${jobTimeoutS} s` : null,
      run1: { uploads: uploads1, limitPath, corrected: s1.corrected, failed: s1.failed, timedOut: failed1.filter((e) => e.errorName === 'JobTimeoutError').length, cancelled: s1.cancelled, exitCode: first.code, ms: Math.round(first.ms), stoppedBecause: s1.stoppedBecause, failureReasons: reasons },
      injected: faults,
      accountLimited: limited,
      rerun: {
        corrected: s2.corrected,
        upToDate: s2.upToDate,
        failed: s2.failed,
        exitCode: second.code,
        jobs: jobsRerun,
        redoesOnlyFailed: JSON.stringify(redone) === JSON.stringify(failed1.map((e) => e.input).sort()) && s2.upToDate === s1.corrected,
      },
      outputs: outputs.length,
      duplicates,
      partials: partials.length,
      unexpectedFiles: unexpected,
      badOutputs: bad,
      originalsChanged,
      twin,
      secrets,
      outDir,
    };
  } finally {
    await emu.stop();
  }
}

/**
 * Two `pfc correct` runs started at once on one folder (the second with
 * `--wait`, so it waits for the first's lock, then finds everything done):
 * every file is corrected once, counted by the emulator's jobs.
 */
async function twinRuns({ dir, emu, key, count }) {
  const inDir = path.join(dir, 'twin-in');
  const outDir = path.join(dir, 'twin-out');
  const inputs = await inputFolder(inDir, count, { seed: 11 });
  const jobsBefore = (await emu.stats()).jobs.total;
  const runs = await Promise.all([
    pfcCorrect({ input: inDir, out: outDir, web: emu.web, key, extra: ['--wait'], timeoutMs: 30 * 60_000 }),
    pfcCorrect({ input: inDir, out: outDir, web: emu.web, key, extra: ['--wait'], timeoutMs: 30 * 60_000 }),
  ]);
  const jobs = (await emu.stats()).jobs.total - jobsBefore;
  return { files: inputs.length, jobs, duplicateJobs: Math.max(0, jobs - inputs.length), exitCodes: runs.map((r) => r.code) };
}
