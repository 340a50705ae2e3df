/**
 * `startEmulator`: starts the emulator's servers on one data folder and
 * returns their URLs and a `close()`: the Web API v2 with its storage origin,
 * and the self-hosted container emulations (one `urls` key each).
 */
import { emulatorJobs, emulatorStats, type EmulatorJobRecord, type EmulatorStats } from './control/routes-control';
import type { FaultConfig } from './faults';
import type { EmulatorOptions } from './options';
import { startSelfHosted, type SelfHostedEmulation } from './container/start';
import { DataStore } from './storage';
import { sweep } from './webapi/app';
import { startWebApi } from './webapi/index';
import { defaultImagingEngine } from './default-engine';

/** The URLs the bin prints as its ready line (one JSON object). */
export interface EmulatorUrls {
  /** Base URL of the Web API v2, e.g. `http://127.0.0.1:8080/v2`. */
  web: string;
  /** Origin of the pre-signed uploads and results, e.g. `http://127.0.0.1:8082` (absent when same-origin). */
  storage?: string;
  [server: string]: string | undefined;
}

/** A running emulator. */
export interface EmulatorHandle {
  /** Base URL of the Web API v2 (same as `urls.web`). */
  web: string;
  /** Base of the pre-signed upload and result addresses: the storage origin, or `web` when same-origin. */
  storage: string;
  /** Every server's URL; `JSON.stringify(urls)` is the bin's ready line. */
  urls: EmulatorUrls;
  /** The data folder in use. */
  dataDir: string;
  /** The container emulations (absent when started with `container: false` / `bgr: false`). */
  selfHosted: Pick<SelfHostedEmulation, 'container' | 'containers' | 'bgr'>;
  /** Request, job and fault counters (as `GET /_emulator/stats`). */
  stats(): EmulatorStats;
  /** Every Web API job with the parameters the service received (as `GET /_emulator/jobs`). */
  jobs(): EmulatorJobRecord[];
  /** Replaces the fault configuration (as `POST /_emulator/faults`); throws on an invalid one. */
  setFaults(config: FaultConfig): void;
  /** Deletes expired results and uploads now (as `POST /_emulator/sweep`). */
  sweep(): Promise<void>;
  /** Stops the servers, drops open connections, waits for running pipelines, removes a temporary data folder. Idempotent. */
  close(): Promise<void>;
}

/**
 * Starts the emulator. Resolves once every server listens.
 *
 * @example
 * const emu = await startEmulator({ apiKeys: ['test-key'] });
 * // emu.web === 'http://127.0.0.1:<port>/v2'
 * await emu.close();
 */
export async function startEmulator(options: EmulatorOptions = {}): Promise<EmulatorHandle> {
  const store = await DataStore.open(options.dataDir);
  const closers: (() => Promise<void>)[] = [];
  try {
    // Every server runs the real imaging engine unless the caller brings its own
    // (`engine: {}` for none): one engine for the Web API and both containers.
    const engine = options.engine ?? defaultImagingEngine();
    const web = await startWebApi({ ...options, engine }, store);
    closers.push(web.close);
    const selfHosted = await startSelfHosted({ ...options, engine }, store.root);
    closers.push(selfHosted.close);
    const urls: EmulatorUrls = { web: web.url };
    if (web.storageUrl !== web.url) urls.storage = web.storageUrl;
    Object.assign(urls, selfHosted.urls);
    let closing: Promise<void> | undefined;
    return {
      web: web.url,
      storage: web.storageUrl,
      urls,
      dataDir: store.root,
      selfHosted: { container: selfHosted.container, containers: selfHosted.containers, bgr: selfHosted.bgr },
      stats: () => emulatorStats(web.app),
      jobs: () => emulatorJobs(web.app),
      setFaults: (config) => web.app.faults.set(config),
      sweep: () => sweep(web.app),
      close() {
        closing ??= (async () => {
          await Promise.allSettled(closers.map((c) => c()));
          await store.destroy();
        })();
        return closing;
      },
    };
  } catch (err) {
    await Promise.allSettled(closers.map((c) => c()));
    await store.destroy();
    throw err;
  }
}
