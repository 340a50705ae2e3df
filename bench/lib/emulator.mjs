/**
 * The emulator as a separate process (the built `pfc-emulator` bin, or an
 * engine-less launcher for benchmarks of the client), so the
 * client being measured never shares an event loop or a heap with the
 * server, and a server crash shows up as an exit instead of taking the
 * benchmark down with it.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, readFileSync } from 'node:fs';
import { BENCH_DIR, EMULATOR_BIN } from './paths.mjs';
import path from 'node:path';

const LAUNCHER = path.join(BENCH_DIR, 'clients', 'emulator-launcher.mjs');

/** Kernel clock ticks per second (USER_HZ), 100 on Linux. */
const CLOCK_TICKS = 100;

/**
 * @typedef {object} BenchEmulatorOptions
 * @property {string} [dataDir] data folder (kept; default a temp folder the emulator removes)
 * @property {number} [processingMs] least PROCESSING time per job, its real work included, ms
 * @property {number} [processingSigma] spread of job times: log-normal σ around the median processingMs (default 0)
 * @property {number} [processingSeed] seed of the job-time draws
 * @property {{jobsInProgress?: number, requestsPerSecond?: number}} [accountLimits] per-key limits (429 + Retry-After)
 * @property {number} [jobTimeoutMs] a job PROCESSING longer ends FAILED (default the emulator's 10 min; 0 = never)
 * @property {number} [workers] jobs PROCESSING at once
 * @property {string[]} [apiKeys] accepted keys (default: any non-empty key)
 * @property {object} [faults] fault configuration (`--faults` JSON)
 * @property {boolean} [containers] also start the container and BGR emulations (on free ports); default false
 * @property {boolean} [engine] run the imaging engine (default true, as the bin does); false: geometry and
 *   encoding only, through bench/clients/emulator-launcher.mjs, for benchmarks of the client
 * @property {boolean} [verbose] log one line per request to stderr
 * @property {string[]} [extraArgs] further bin flags
 * @property {string} [cwd] working folder of the process
 * @property {Record<string, string>} [env] extra environment variables
 * @property {string} [logFile] also write the whole of stderr (its logs) to this file
 * @property {string[]} [wrapper] command prefix, e.g. ['strace', '-f', ...]
 * @property {number} [readyTimeoutMs] default 30 000
 */

/** Command line of the `pfc-emulator` bin for these options. */
function binArgs(opts) {
  // Benchmarks read stats and set faults: the control routes are on.
  const args = [EMULATOR_BIN, '--web-port', '0', '--control'];
  if (opts.dataDir) args.push('--data-dir', opts.dataDir);
  if (opts.processingMs !== undefined) args.push('--processing-ms', String(opts.processingMs));
  if (opts.processingSigma !== undefined) args.push('--processing-sigma', String(opts.processingSigma));
  if (opts.processingSeed !== undefined) args.push('--processing-seed', String(opts.processingSeed));
  if (opts.workers !== undefined) args.push('--workers', String(opts.workers));
  if (opts.jobTimeoutMs !== undefined) args.push('--job-timeout-ms', String(opts.jobTimeoutMs));
  if (opts.accountLimits?.jobsInProgress !== undefined) args.push('--account-jobs', String(opts.accountLimits.jobsInProgress));
  if (opts.accountLimits?.requestsPerSecond !== undefined) args.push('--account-rps', String(opts.accountLimits.requestsPerSecond));
  for (const k of opts.apiKeys ?? []) args.push('--api-key', k);
  if (opts.faults) args.push('--faults', JSON.stringify(opts.faults));
  if (opts.verbose) args.push('--verbose');
  // The container emulations default to fixed ports (8081, 8000): free ports or none.
  const containerPort = opts.containers ? '0' : 'off';
  args.push('--container-port', containerPort, '--bgr-port', containerPort);
  args.push(...(opts.extraArgs ?? []));
  return args;
}

/** Command line of the engine-less launcher: the same options as one JSON argument. */
function launcherArgs(opts) {
  const o = { webPort: 0, control: true, dataDir: opts.dataDir, processingMs: opts.processingMs, processingSigma: opts.processingSigma, processingSeed: opts.processingSeed, accountLimits: opts.accountLimits, workers: opts.workers, jobTimeoutMs: opts.jobTimeoutMs, apiKeys: opts.apiKeys, faults: opts.faults, verbose: opts.verbose };
  if (!opts.containers) Object.assign(o, { container: false, bgr: false });
  return [LAUNCHER, JSON.stringify(o)];
}

/** The first child process of `pid` (Linux /proc), or undefined. */
function childOf(pid) {
  try {
    const first = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/)[0];
    return first ? Number(first) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Spawns the bin (or the engine-less launcher) with control routes, faults, a wrapper and CPU readings, which
 * `@pfc/emulator/process`'s `startEmulatorProcess` (the hosts' launcher) does not offer.
 * @param {BenchEmulatorOptions} [opts]
 */
export async function spawnBenchEmulator(opts = {}) {
  const args = opts.engine === false ? launcherArgs(opts) : binArgs(opts);
  const [cmd, ...cmdArgs] = opts.wrapper ? [...opts.wrapper, process.execPath, ...args] : [process.execPath, ...args];
  const proc = spawn(cmd, cmdArgs, { cwd: opts.cwd, env: { ...process.env, ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  if (opts.logFile) proc.stderr.pipe(createWriteStream(opts.logFile));
  proc.stderr.setEncoding('utf8').on('data', (d) => {
    // Keep the tail only: a long soak must not grow this without bound.
    stderr = (stderr + d).slice(-20_000);
  });
  const exited = once(proc, 'exit').then(([code, signal]) => ({ code, signal }));

  const urls = await new Promise((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error(`emulator not ready after ${opts.readyTimeoutMs ?? 30_000} ms: ${stderr}`)), opts.readyTimeoutMs ?? 30_000);
    proc.stdout.setEncoding('utf8').on('data', (d) => {
      buf += d;
      const nl = buf.indexOf('\n');
      if (nl >= 0) {
        clearTimeout(timer);
        try {
          resolve(JSON.parse(buf.slice(0, nl)));
        } catch (err) {
          reject(err);
        }
      }
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`emulator exited before ready (code ${code}, signal ${signal}): ${stderr}`));
    });
  });
  const origin = new URL(urls.web).origin;
  // The control routes need a configured key when there is one.
  const controlHeaders = opts.apiKeys?.length ? { 'x-api-key': opts.apiKeys[0] } : {};
  let stopped = false;
  // Under a wrapper (strace) the emulator is the wrapper's child: signals go to it, so
  // the wrapper sees its tracee exit and ends too (killing strace would detach and orphan it).
  const target = opts.wrapper ? childOf(proc.pid) ?? proc.pid : proc.pid;

  return {
    /** Web API base, e.g. http://127.0.0.1:PORT/v2 */
    web: urls.web,
    /** Every server the bin reports ({ web, container?, bgr? }). */
    urls,
    origin,
    proc,
    /** Pid of the emulator itself (differs from proc.pid under a wrapper). */
    pid: target,
    /** Resolves when the process exits: { code, signal }. */
    exited,
    stderr: () => stderr,
    alive: () => proc.exitCode === null && proc.signalCode === null,
    /** CPU time the emulator process has used so far, ms (Linux /proc). */
    cpuMs() {
      try {
        const fields = readFileSync(`/proc/${target}/stat`, 'utf8').split(') ')[1].split(' ');
        return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
      } catch {
        return NaN;
      }
    },
    /** GET /_emulator/stats */
    async stats() {
      return (await fetch(`${origin}/_emulator/stats`, { headers: controlHeaders })).json();
    },
    /** DELETE /_emulator/stats (request counters back to zero). */
    async resetStats() {
      await fetch(`${origin}/_emulator/stats`, { method: 'DELETE', headers: controlHeaders });
    },
    /** POST /_emulator/faults (replaces the configuration). */
    async setFaults(faults) {
      const res = await fetch(`${origin}/_emulator/faults`, { method: 'POST', body: JSON.stringify(faults), headers: { ...controlHeaders, 'content-type': 'application/json' } });
      if (!res.ok) throw new Error(`setting faults: ${res.status} ${await res.text()}`);
    },
    /** SIGTERM, then SIGKILL after `graceMs`; resolves with how it exited. */
    async stop(graceMs = 10_000) {
      if (!stopped && this.alive()) {
        stopped = true;
        process.kill(target, 'SIGTERM');
        const timer = setTimeout(() => {
          for (const pid of new Set([target, proc.pid])) {
            try {
              process.kill(pid, 'SIGKILL');
            } catch {
              // already gone
            }
          }
        }, graceMs);
        const r = await exited;
        clearTimeout(timer);
        return r;
      }
      return exited;
    },
  };
}
