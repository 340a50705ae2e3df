#!/usr/bin/env node
/**
 * `pfc-emulator`: runs the emulator until SIGINT/SIGTERM. When ready it prints
 * exactly one JSON line to stdout, e.g.
 * {"web":"http://127.0.0.1:8080/v2","storage":"http://127.0.0.1:8082",…};
 * everything else (help, errors, --verbose logs) goes to stderr.
 */
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { selfHostedFlags, selfHostedHelp, selfHostedOptionsFrom } from './container/cli';
import { validateFaultConfig, type FaultConfig, type RouteFaults } from './faults';
import type { EmulatorOptions } from './options';
import { startEmulator } from './server';

const HELP = `Usage: pfc-emulator [options]

Local emulator of the Perfectly Clear Web API v2 and the two self-hosted
containers (real image work with sharp).

  --host HOST                 interface to listen on (default 127.0.0.1)
  --web-port PORT             Web API port (default 8080; 0 = any free port)
  --api-key KEY               accepted X-API-KEY; repeatable. Without any, every
                              non-empty key is accepted
  --data-dir DIR              uploads, outputs, presets (default: a fresh temp
                              folder, removed on exit)
  --processing-ms MS          least time each job spends in PROCESSING, its real
                              work included (default 0)
  --processing-sigma S        spread of job times: log-normal sigma around the
                              median --processing-ms (default 0: all equal)
  --processing-ms-per-mp MS   added to a job's median per megapixel of its input
  --processing-seed N         seed of the job-time draws (default 1)
  --workers N                 jobs processed at once; others wait PENDING (default 2)
  --job-timeout-ms MS         a job PROCESSING longer than this ends FAILED and frees
                              its worker (default 600000; 0 = never)
  --retention-minutes MIN     result URLs expire after this (default 1440)
  --upload-url-ttl-seconds S  pre-signed upload addresses expire after this (default 3600)
  --control                   serve the /_emulator/* control routes (stats, job
                              records, faults); off by default: any web page could
                              reach them. They need --api-key when keys are set
  --idle-timeout-ms MS        close API and storage connections idle this long, e.g.
                              a stalled upload body (default 60000; 0 = never)
  --account-jobs N            per API key: jobs PENDING or PROCESSING at once; more
                              → 429 + Retry-After (default: unlimited)
  --account-rps N             per API key: requests per second (default: unlimited)
  --storage-port PORT         port of the storage origin serving pre-signed uploads
                              and results (default 8082; 0 = any free port)
  --storage-same-origin       serve uploads and results under the API's /v2 instead
  --lenient-storage           accept any Content-Type and chunked PUTs, answer JSON
                              (default: strict, as object storage answers)
  --faults JSON               fault configuration, as POST /_emulator/faults takes
  --fault-seed N              seed for repeatable fault draws
  --fault-429 RATE            share (0-1) of API requests answered 429
  --fault-500 RATE            share answered 500
  --fault-503 RATE            share answered 503
  --fault-drop RATE           share of connections dropped without an answer
  --fault-latency-ms MS       delay added to every API request
  --fault-retry-after S       Retry-After of injected 429/503 (default 1)
  --fault-job-fail RATE       share of jobs that end FAILED
  --fault-job-reject RATE     share of jobs that end REJECTED
  --fault-job-hang RATE       share of jobs that never finish
  --verbose                   log one line per request to stderr (never keys)
  -h, --help                  show this help
${selfHostedHelp}`;

class UsageError extends Error {}

function num(flag: string, raw: string | undefined, { integer = false, min = 0, max = Number.MAX_SAFE_INTEGER } = {}): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || n < min || n > max || (integer && !Number.isInteger(n))) {
    throw new UsageError(`--${flag} must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max} (got ${JSON.stringify(raw)})`);
  }
  return n;
}

function parse(argv: string[]): EmulatorOptions & { verbose: boolean; help: boolean } {
  const str = { type: 'string' } as const;
  const { values: v } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      host: str,
      'web-port': str,
      'api-key': { type: 'string', multiple: true },
      'data-dir': str,
      'processing-ms': str,
      'processing-sigma': str,
      'processing-ms-per-mp': str,
      'processing-seed': str,
      workers: str,
      'job-timeout-ms': str,
      'retention-minutes': str,
      'upload-url-ttl-seconds': str,
      control: { type: 'boolean', default: false },
      'storage-port': str,
      'account-jobs': str,
      'idle-timeout-ms': str,
      'account-rps': str,
      'storage-same-origin': { type: 'boolean', default: false },
      'lenient-storage': { type: 'boolean', default: false },
      faults: str,
      'fault-seed': str,
      'fault-429': str,
      'fault-500': str,
      'fault-503': str,
      'fault-drop': str,
      'fault-latency-ms': str,
      'fault-retry-after': str,
      'fault-job-fail': str,
      'fault-job-reject': str,
      'fault-job-hang': str,
      ...selfHostedFlags,
      verbose: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const rate = (flag: string): number | undefined => num(flag, v[flag as keyof typeof v] as string | undefined, { max: 1 });
  let faults: FaultConfig = {};
  if (v.faults !== undefined) {
    try {
      faults = JSON.parse(v.faults) as FaultConfig;
    } catch {
      throw new UsageError('--faults must be JSON, e.g. {"routes":{"pfc":{"rate503":0.5}}}');
    }
  }
  const all: RouteFaults = {
    rate429: rate('fault-429'),
    rate500: rate('fault-500'),
    rate503: rate('fault-503'),
    dropRate: rate('fault-drop'),
    latencyMs: num('fault-latency-ms', v['fault-latency-ms'], { max: 600_000 }),
    retryAfterSeconds: num('fault-retry-after', v['fault-retry-after'], { max: 3600 }),
  };
  const jobs = { failRate: rate('fault-job-fail'), rejectRate: rate('fault-job-reject'), hangRate: rate('fault-job-hang') };
  const defined = <T extends object>(o: T): Partial<T> => Object.fromEntries(Object.entries(o).filter(([, x]) => x !== undefined)) as Partial<T>;
  if (Object.keys(defined(all)).length > 0) faults.routes = { ...faults.routes, '*': defined(all) };
  if (Object.keys(defined(jobs)).length > 0) faults.jobs = { ...faults.jobs, ...defined(jobs) };
  const seed = num('fault-seed', v['fault-seed'], { integer: true });
  if (seed !== undefined) faults.seed = seed;
  try {
    faults = validateFaultConfig(faults);
  } catch (err) {
    throw new UsageError(`fault configuration: ${(err as Error).message}`);
  }
  let selfHosted: ReturnType<typeof selfHostedOptionsFrom>;
  try {
    selfHosted = selfHostedOptionsFrom(v, process.env, v['web-port'] === '0');
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  return {
    ...selfHosted,
    host: v.host ?? '127.0.0.1',
    webPort: num('web-port', v['web-port'], { integer: true, max: 65535 }) ?? 8080,
    apiKeys: v['api-key'],
    dataDir: v['data-dir'],
    processingMs: num('processing-ms', v['processing-ms']),
    processingSigma: num('processing-sigma', v['processing-sigma'], { max: 3 }),
    processingMsPerMegapixel: num('processing-ms-per-mp', v['processing-ms-per-mp']),
    processingSeed: num('processing-seed', v['processing-seed'], { integer: true }),
    workers: num('workers', v.workers, { integer: true, min: 1, max: 64 }),
    jobTimeoutMs: num('job-timeout-ms', v['job-timeout-ms'], { integer: true }),
    retentionMinutes: num('retention-minutes', v['retention-minutes']),
    uploadUrlTtlSeconds: num('upload-url-ttl-seconds', v['upload-url-ttl-seconds'], { min: 1 }),
    idleTimeoutMs: num('idle-timeout-ms', v['idle-timeout-ms'], { integer: true }),
    accountLimits: defined({
      jobsInProgress: num('account-jobs', v['account-jobs'], { integer: true, min: 1 }),
      requestsPerSecond: num('account-rps', v['account-rps'], { min: 0.001 }),
    }),
    storage: {
      // Port 0 for the API means "any free port" for every server (tests); else the storage's default 8082.
      port: num('storage-port', v['storage-port'], { integer: true, max: 65535 }) ?? (v['web-port'] === '0' ? 0 : 8082),
      sameOrigin: v['storage-same-origin'] ?? false,
      lenient: v['lenient-storage'] ?? false,
    },
    faults,
    control: v.control ?? false,
    verbose: v.verbose ?? false,
    help: v.help ?? false,
  };
}

async function main(): Promise<void> {
  let opts: ReturnType<typeof parse>;
  try {
    opts = parse(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`pfc-emulator: ${(err as Error).message}\nRun pfc-emulator --help for the options.\n`);
    process.exit(2);
  }
  if (opts.help) {
    process.stderr.write(HELP);
    return;
  }
  if (opts.apiKeys?.some((k) => k.trim() === '')) {
    process.stderr.write('pfc-emulator: --api-key must not be empty\n');
    process.exit(2);
  }
  sharp.concurrency(availableParallelism());
  const { verbose, help: _h, ...options } = opts;
  if (verbose) options.log = (line) => process.stderr.write(`${line}\n`);
  const emulator = await startEmulator(options).catch((err: unknown) => {
    process.stderr.write(`pfc-emulator: could not start: ${(err as Error).message}\n`);
    process.exit(1);
  });
  let stopping = false;
  const stop = (): void => {
    if (stopping) process.exit(1); // a second signal: stop now
    stopping = true;
    emulator.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  process.stdout.write(`${JSON.stringify(emulator.urls)}\n`);
}

void main();
