/**
 * The background-removal (BGR) container emulation (`createBgrServer`):
 * licence activation, SubmitImage, CheckImage, DownloadImage, RemoveImage and
 * Status, with the documented codes. Error bodies are FastAPI's shape plus
 * our code: `{"detail": …, "code": …, "error": …}`.
 *
 * DownloadImage while the job is queued or processing (the document's "102"):
 * the request is held; an interim `102 Processing` goes out at once and every
 * `processingHeartbeatMs` (HTTP/1.1 clients only), then the final answer when
 * the job settles — 200 PNG, 500 when it failed, 404 when it was removed. If it
 * has not settled within `downloadHoldMs`, the final answer is `202 Accepted`
 * with `{"status": "processing"}` and `Retry-After: 1`. fetch ignores the
 * interim 102s and sees only the final status; curl prints them with `-i`.
 */
import { mkdir, readdir } from 'node:fs/promises';
import { listen, type StartedServer } from '../http/listen';
import { createScratchDir, OWNER_FILE, removeScratchDir } from '../scratch';
import { createRequestListener } from '../http/router';
import type { ImagingEngine } from '../engine';
import { defaultImagingEngine } from '../default-engine';
import { BgrJobs } from './jobs';
import { bgrRouter, type BgrState } from './routes';

export interface BgrServerOptions {
  /** Interface to listen on. Default `127.0.0.1`. */
  host?: string;
  /** Port. Default 0 (any free port); the bin defaults to 8000. */
  port?: number;
  /** The key `GET /Authorize/{key}` accepts. Default: none configured, and then any non-empty key activates. */
  licenseKey?: string;
  /** `licensed org` of the licence status. Default `Emulated Studio`. */
  licensedOrg?: string;
  /** Licence expiry. Default one year after start. */
  licenceExpires?: Date;
  /** Folder for inputs and results. Default: a fresh temporary folder, removed by `close()`. */
  workDir?: string;
  /**
   * Imaging engine; its `segment` hook (person segmentation) makes the mask. Default: `@pfc/engine`'s
   * `createImagingEngine()`, one per process; `{}` for none (the border-colour heuristic of `bgr/mask.ts`).
   */
  engine?: ImagingEngine;
  /** Largest SubmitImage body in bytes (413 above). Default 100 MB. */
  maxUploadBytes?: number;
  /** Longest a DownloadImage request is held for a running job, ms, before the final 202. Default 30 000. */
  downloadHoldMs?: number;
  /** Interval of interim `102 Processing` answers while held, ms. Default 5 000. */
  processingHeartbeatMs?: number;
  /** Receives one line per request and per unexpected error (never the licence key). Default: silent. */
  log?: (line: string) => void;
}

/** A running BGR emulation. */
export interface BgrServer {
  url: string;
  /** Whether `Authorize` has activated this instance. */
  readonly licensed: boolean;
  /** Forget the activation, as a container restart does. */
  deactivate(): void;
  /** Keep jobs in `processing` until `release()` (test seam). */
  hold(): void;
  release(): void;
  /** Resolves when no job is queued or processing. */
  idle(): Promise<void>;
  /** Files in the work folder (inputs and results not yet removed). */
  files(): Promise<string[]>;
  /** DownloadImage requests being held for a running job right now. */
  readonly heldDownloads: number;
  /** Requests answered, by route name. */
  requests: Record<string, number>;
  close(): Promise<void>;
}

export const EMULATED_MODEL_VERSION = 'emulator-border-heuristic-1';

/** Starts the BGR emulation; resolves once it listens. */
export async function createBgrServer(options: BgrServerOptions = {}): Promise<BgrServer> {
  const { dir, ownsDir } = await prepareWorkDir(options.workDir);
  const state = createBgrState(dir, options);
  const requests: Record<string, number> = {};
  const listener = createRequestListener(bgrRouter(state), requestHooks(requests, options.log));
  const server = await listen(listener, options.host ?? '127.0.0.1', options.port ?? 0);
  return serverHandle(state, server, dir, ownsDir, requests);
}

/** The given work folder (created if missing), or a scratch folder (it holds the user's photos) that `close()` or the exit hook removes. */
async function prepareWorkDir(workDir: string | undefined): Promise<{ dir: string; ownsDir: boolean }> {
  if (workDir === undefined) return { dir: await createScratchDir(), ownsDir: true };
  await mkdir(workDir, { recursive: true });
  return { dir: workDir, ownsDir: false };
}

/** The state the routes share, with every option resolved to its default. */
function createBgrState(dir: string, options: BgrServerOptions): BgrState {
  const engine = options.engine ?? defaultImagingEngine();
  const state: BgrState = {
    licensed: false,
    held: 0,
    // Jobs read the activation live: a deactivated container stops processing.
    jobs: new BgrJobs(dir, { engine, licensed: () => state.licensed }),
    licenseKey: options.licenseKey,
    org: options.licensedOrg ?? 'Emulated Studio',
    expires: options.licenceExpires ?? new Date(Date.now() + 365 * 24 * 3600_000),
    holdMs: options.downloadHoldMs ?? 30_000,
    beatMs: options.processingHeartbeatMs ?? 5_000,
    maxUpload: options.maxUploadBytes ?? 100_000_000,
    modelVersion: engine.segment ? 'emulator-engine-segmentation' : EMULATED_MODEL_VERSION,
  };
  return state;
}

/** Count requests by route and log one line per response and per unexpected error. */
function requestHooks(requests: Record<string, number>, log: BgrServerOptions['log']): Parameters<typeof createRequestListener>[1] {
  return {
    onRequest: (name) => (requests[name] = (requests[name] ?? 0) + 1),
    // Route names only: the Authorize path holds the key.
    onResponse: (name, status) => log?.(`bgr ${name} ${status}`),
    onError: (name, err) => log?.(`bgr ${name} error: ${err instanceof Error ? err.message : String(err)}`),
  };
}

/** The public handle; `close()` is idempotent and lets running jobs finish before removing an owned folder. */
function serverHandle(state: BgrState, server: StartedServer, dir: string, ownsDir: boolean, requests: Record<string, number>): BgrServer {
  const { jobs } = state;
  let closing: Promise<void> | undefined;
  return {
    url: server.origin,
    get licensed() {
      return state.licensed;
    },
    get heldDownloads() {
      return state.held;
    },
    deactivate: () => {
      state.licensed = false;
    },
    hold: () => jobs.hold(),
    release: () => jobs.release(),
    idle: () => jobs.idle(),
    files: async () => (await readdir(dir)).filter((name) => name !== OWNER_FILE).sort(),
    requests,
    close() {
      closing ??= (async () => {
        jobs.release();
        await server.close();
        await jobs.idle();
        if (ownsDir) await removeScratchDir(dir);
      })();
      return closing;
    },
  };
}
