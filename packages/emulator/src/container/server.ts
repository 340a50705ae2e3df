/**
 * The colour-correction container emulation (`createContainerServer`): `PUT
 * /pfc`, `GET /pfc/{imageKey}`, `GET /output/{file}`, `GET /version`, with the
 * documented error ids, direct file access, retention and JSON log lines.
 * Error bodies: `{"error": "<id>", "message": "<text>"}`.
 */
import { join } from 'node:path';
import { listen, type StartedServer } from '../http/listen';
import { createScratchDir, removeScratchDir } from '../scratch';
import { createRequestListener } from '../http/router';
import { defaultImagingEngine } from '../default-engine';
import { ContainerFiles, type InjectableFault } from './files';
import { checkSiteUrl, logLevelOf, LOG_LEVELS, type ContainerServerOptions } from './options';
import { containerFailures, containerRouter, CorrectionWork, type ContainerCorrectionRecord, type ContainerLog, type ContainerState } from './routes';

export { EMULATED_SDK_VERSION } from './routes';

/** A running container emulation. */
export interface ContainerServer {
  /** `http://host:port` where it listens. */
  url: string;
  /** The folders in use. */
  folders: { input: string; output: string; presets: string };
  /** The `PFC_SITE_URL` in use (base of `corrected_url`). */
  siteUrl: string;
  /** Run the retention sweep now (it also runs every `sweepIntervalMs`); resolves to the number of files deleted. */
  sweep(): Promise<number>;
  /** Make the next file-system step that can fail with this id fail with it (test seam for disk-full and close errors). */
  injectFault(id: InjectableFault): void;
  /** Requests answered, by route name. */
  requests: Record<string, number>;
  /** Every correction started (`GET /pfc/{imageKey}`), oldest first: which images this instance corrected, when. */
  corrections: readonly ContainerCorrectionRecord[];
  close(): Promise<void>;
}

/** Starts the container emulation; resolves once it listens. */
export async function createContainerServer(options: ContainerServerOptions = {}): Promise<ContainerServer> {
  const now = options.now ?? Date.now;
  const { files, data, ownsData } = await openFolders(options, now);
  const state = createContainerState(files, options, now);
  const requests: Record<string, number> = {};
  const listener = createRequestListener(containerRouter(state), requestHooks(requests, state.log));
  const server = await listen(listener, options.host ?? '127.0.0.1', options.port ?? 0);
  const sweeper = startSweeper(state, (options.cacheTtlMinutes ?? 60) * 60_000, options.sweepIntervalMs ?? 600_000);
  state.log('info', 'container emulation started', { url: server.origin, siteUrl: state.siteUrl });
  return serverHandle(state, server, sweeper, requests, async () => {
    if (ownsData) await removeScratchDir(data);
  });
}

/** The input, output and presets folders: as given, else under `dataDir`, else under a temporary folder. */
async function openFolders(options: ContainerServerOptions, now: () => number): Promise<{ files: ContainerFiles; data: string; ownsData: boolean }> {
  // A temporary data folder only when some folder was not given; removed by close().
  const ownsData = options.dataDir === undefined && !(options.inputDir && options.outputDir && options.presetsDir);
  const data = options.dataDir ?? (ownsData ? await createScratchDir() : '');
  const files = await ContainerFiles.open(
    {
      input: options.inputDir ?? join(data, 'input'),
      output: options.outputDir ?? join(data, 'output'),
      presets: options.presetsDir ?? join(data, 'presets'),
    },
    now,
  );
  return { files, data, ownsData };
}

/** The state the routes share, with the options checked and resolved to their defaults. */
function createContainerState(files: ContainerFiles, options: ContainerServerOptions, now: () => number): ContainerState {
  const siteUrl = checkSiteUrl(options.siteUrl ?? 'http://localhost', 'siteUrl');
  const log = jsonLogger(options, now);
  return {
    files,
    siteUrl,
    maxUpload: options.maxUploadBytes ?? 200_000_000,
    engine: options.engine ?? defaultImagingEngine(),
    options,
    log,
    ...containerFailures(log),
    work: new CorrectionWork(positiveOr(options.workers, 'workers', Infinity, true), positiveOr(options.processingMs, 'processingMs', 0, false), now),
  };
}

/** A checked count or duration option: a number ≥ 1 (counts, integers) or ≥ 0, else the default. */
function positiveOr(value: number | undefined, name: string, fallback: number, count: boolean): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < (count ? 1 : 0) || (count && !Number.isInteger(value))) {
    throw new RangeError(`${name} must be ${count ? 'an integer ≥ 1' : 'a number ≥ 0'} (got ${value})`);
  }
  return value;
}

/** The container's JSON log lines, filtered by `logLevel`; silent without `options.log`. */
function jsonLogger(options: ContainerServerOptions, now: () => number): ContainerLog {
  const level = logLevelOf(options.logLevel);
  return (at, message, fields = {}) => {
    if (options.log && LOG_LEVELS.indexOf(at) >= LOG_LEVELS.indexOf(level)) {
      options.log(JSON.stringify({ time: new Date(now()).toISOString(), level: at, service: 'container', message, ...fields }));
    }
  };
}

/** Count requests by route; log each at debug and each unexpected error at error. */
function requestHooks(requests: Record<string, number>, log: ContainerLog): Parameters<typeof createRequestListener>[1] {
  return {
    onRequest: (name) => (requests[name] = (requests[name] ?? 0) + 1),
    onResponse: (name, status) => log('debug', 'request', { route: name, status }),
    onError: (name, err) => log('error', 'unexpected error', { route: name, error: err instanceof Error ? err.message : String(err) }),
  };
}

/** The retention sweep, run now on demand and every `intervalMs` (unref'd: it never keeps the process alive). */
function startSweeper(state: ContainerState, ttlMs: number, intervalMs: number): { sweep: () => Promise<number>; timer: NodeJS.Timeout } {
  const sweep = () => state.files.sweep(ttlMs, (path, err) => state.log('info', 'cleanUpFileMessage', { id: 'cleanUpFileMessage', file: path, error: (err as Error).message }));
  const timer = setInterval(() => void sweep().catch(() => undefined), intervalMs);
  timer.unref();
  return { sweep, timer };
}

/** The public handle; `close()` is idempotent and stops the sweep before removing an owned data folder. */
function serverHandle(
  state: ContainerState,
  server: StartedServer,
  sweeper: { sweep: () => Promise<number>; timer: NodeJS.Timeout },
  requests: Record<string, number>,
  removeOwnedData: () => Promise<void>,
): ContainerServer {
  let closing: Promise<void> | undefined;
  return {
    url: server.origin,
    folders: state.files.folders,
    siteUrl: state.siteUrl,
    sweep: sweeper.sweep,
    injectFault: (id) => state.files.inject(id),
    requests,
    corrections: state.work.records,
    close() {
      closing ??= (async () => {
        clearInterval(sweeper.timer);
        await server.close();
        await removeOwnedData();
      })();
      return closing;
    },
  };
}
