/**
 * Choosing and opening a backend from what the user configured, the one place
 * that does it for the CLI and for VS Code: an API key selects the hosted Web
 * API, a container URL the self-hosted containers, an emulator URL a running
 * emulator, and with none of them the embedded emulator is started on
 * loopback in a process of its own, started again when it crashes
 * (embedded.ts: its code is imported only then).
 */
import {
  type BackendKind, type CorrectionBackend, createBgrBackend, createContainerBackend, createSelfHostedBackend, DEFAULT_BASE_URL, type FetchLike, Fleet, type FleetEvent,
  type FleetInstanceStatus, type PfcParams, RateLimitError, type RetryInfo, WebApiClient,
} from '@pfc/core';
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { createDirectContainerBackend } from './container-direct';
import { bgrTarget, containerTarget, describeTarget, type InstanceJobs, instanceJobsFor, type InstanceJobsValue, urlList } from './fleet';
import { createNodeFetch } from './node-fetch';
import { type EmbeddedService, onEmbedded, startEmbedded } from './embedded';
import { BatchUsageError } from './errors';
import { CLI_TERMS, type HostTerms } from './host-terms';
import type { SupervisedEmulatorEvent } from '@pfc/emulator/process';

export type { SupervisedEmulatorEvent };

export type BackendChoice = 'auto' | 'web' | 'container' | 'bgr' | 'emulator';
export const BACKEND_CHOICES: readonly BackendChoice[] = ['auto', 'web', 'container', 'bgr', 'emulator'];

/** An opened backend's identity in the manifest; also what `planBatch`'s `backend` option takes. */
export type BackendId = BackendKind | 'emulator';

/** The key sent to an emulator (embedded or by URL), which accepts any non-empty key: never the user's. */
export const EMULATOR_API_KEY = 'local-emulator';

export interface BackendSelection {
  /** Which backend. Default `auto`: key → web; container URL → container (+ BGR URL); BGR URL → bgr; else the embedded emulator. */
  backend?: BackendChoice;
  /** Web API key, sent only to `baseURL` (backend `web`). Never printed, logged or stored by the engine. */
  apiKey?: string;
  /** Web API base address. Default `https://api.perfectlyclear.io/v2`. */
  baseURL?: string;
  /**
   * Web API base address of a running emulator, e.g. `http://127.0.0.1:8080/v2`
   * (`pfc emulator`). With backend `emulator` (or `auto` and nothing else
   * configured) it is used instead of starting the embedded emulator; it gets
   * a placeholder key, never `apiKey`. Default: start the embedded emulator.
   */
  emulatorUrl?: string;
  /**
   * Colour-correction container address, or several (a list, or commas in one
   * string): several make a fleet, each instance health-checked (`GET
   * /version`) and given `instanceJobs` files at once, a file moved to another
   * instance when its instance fails.
   */
  containerUrl?: string | readonly string[];
  /**
   * Direct file access to the colour-correction container (`createDirectContainerBackend`):
   * the local folders where its `/input` and `/output` are mounted. Images are
   * copied into `inputDir` and read from `outputDir`; only `GET /pfc/<name>`
   * goes over HTTP. Only with the colour container alone (not with `bgrUrl`).
   * Default: images are uploaded and downloaded over HTTP.
   */
  containerDirect?: { inputDir: string; outputDir: string };
  /** Background-removal container address, or several (as `containerUrl`; health-checked with `GET /Status`, each activated with the licence key). */
  bgrUrl?: string | readonly string[];
  /**
   * Files each self-hosted instance of a fleet works on at once: one value for
   * every instance, or one per instance in the order of the URLs (colour
   * containers, then BGR containers), e.g. `"4,2,2"` or `[4, 2, 2]`; `auto`
   * chooses an instance's number from its measured speed. Default `auto`:
   * starting at 2 per colour container (up to 8) and 1 per BGR container (up to 4).
   */
  instanceJobs?: InstanceJobs;
  /** Time between health checks of a fleet's instances while work runs, ms. Default 5,000. */
  healthIntervalMs?: number;
  /** Told when an instance of a fleet goes down, comes back, or a file moves off a failed one (never holds a key). */
  onFleetEvent?: (e: FleetEvent) => void;
  /** Licence key of the background-removal container (sent once to its `/Authorize`). Never printed. */
  bgrLicenseKey?: string;
  /** Extra time each embedded-emulator job spends processing, in ms (demos and tests). Default 0. */
  emulatorProcessingMs?: number;
  /** Told when the embedded emulator starts, ends on its own (and is started again), or is left stopped. */
  onEmbeddedEvent?: (e: SupervisedEmulatorEvent) => void;
  /**
   * The host's own embedded emulator (VS Code's, one per window), used instead of starting one when no
   * `emulatorUrl` is given; the host stops it, not `close()`.
   */
  embedded?: EmbeddedService;
  /** Called before each HTTP retry (never receives credentials). */
  onRetry?: (info: RetryInfo) => void;
  /** The `fetch` under every client. Default: `createNodeFetch()` (streamed uploads keep backpressure). */
  fetch?: FetchLike;
  /** How the host names the addresses and files at once in errors about them. Default `CLI_TERMS`, the CLI's flags. */
  terms?: HostTerms;
}

/** An opened backend and what a host needs to know about it. */
export interface OpenedBackend {
  backend: CorrectionBackend;
  /** Identity in the manifest (`web`, `emulator`, `container`, `container+bgr`, `bgr`): results of another backend are redone. */
  id: BackendId;
  /** One line for people, e.g. "embedded emulator on http://127.0.0.1:41235/v2" or "emulator at http://127.0.0.1:8080/v2". Never holds a key. */
  description: string;
  /** Whether jobs are billed (the hosted Web API): the cost guard asks before large runs. */
  paid: boolean;
  /** Files corrected at once unless the user says otherwise. */
  defaultConcurrency: number;
  /** The Web API client, when the backend speaks the Web API (hosted or emulator): presets, job status. */
  web?: WebApiClient;
  /**
   * Subscribes to the service's refusals of job starts (429 for jobs in
   * progress; Web API and emulator; not 429s of other requests, which are a
   * request rate): pass it to `runBatch` (`RunOptions.rateLimited`) so the
   * jobs at once adapt. Returns the unsubscribe function.
   */
  rateLimited?: (listener: () => void) => () => void;
  /** Each self-hosted instance's state, when several were configured (which failed, how many files each did). */
  instances?: () => FleetInstanceStatus[];
  /** Stop what was started (the embedded emulator, a fleet's health checks); nothing for backends reached by URL. Idempotent. */
  close(): Promise<void>;
}

/** The backend `auto` resolves to for a selection. */
export function resolveBackendChoice(sel: BackendSelection): Exclude<BackendChoice, 'auto'> {
  const choice = sel.backend ?? 'auto';
  if (choice !== 'auto') return choice;
  if (sel.apiKey) return 'web';
  const terms = sel.terms ?? CLI_TERMS;
  if (urlList(sel.containerUrl, terms.containerUrl).length > 0) return 'container';
  if (urlList(sel.bgrUrl, terms.bgrUrl).length > 0) return 'bgr';
  return 'emulator';
}

/** Open the selected backend. Throws `BatchUsageError` (code `bad-params`) when a needed key or URL is missing. */
export async function openBackend(selection: BackendSelection): Promise<OpenedBackend> {
  const rate = rateLimitSignal(selection.onRetry);
  const sel = { ...selection, fetch: selection.fetch ?? createNodeFetch(), onRetry: rate.onRetry };
  const choice = resolveBackendChoice(sel);
  const terms = sel.terms ?? CLI_TERMS;
  const bgrUrls = urlList(sel.bgrUrl, terms.bgrUrl);
  // Before anything starts (the embedded emulator) or is sent.
  if (sel.containerDirect && (choice !== 'container' || bgrUrls.length > 0)) {
    throw new BatchUsageError(`direct file access (--container-input-dir, --container-output-dir) works only with the colour-correction container alone (--container-url, without --bgr-url), not with the ${bgrUrls.length > 0 && choice === 'container' ? 'container+bgr' : choice} backend`, 'bad-params');
  }
  if (sel.containerDirect && urlList(sel.containerUrl, terms.containerUrl).length > 1) {
    throw new BatchUsageError('direct file access (--container-input-dir, --container-output-dir) works with one colour-correction container, not several --container-url', 'bad-params');
  }
  const noop = async () => undefined;
  switch (choice) {
    case 'web': {
      if (!sel.apiKey) throw new BatchUsageError('the web backend needs an API key: set PFC_API_KEY or pass --api-key', 'bad-params');
      const baseURL = sel.baseURL ?? DEFAULT_BASE_URL;
      const web = webClient({ apiKey: sel.apiKey, baseURL, fetch: sel.fetch, ...(sel.onRetry ? { onRetry: sel.onRetry } : {}) });
      return { backend: web, web, id: 'web', description: `Web API at ${web.baseURL}`, paid: true, defaultConcurrency: 4, rateLimited: rate.subscribe, close: noop };
    }
    case 'emulator':
      return { ...(await openEmulator(sel)), rateLimited: rate.subscribe };
    case 'container':
    case 'bgr':
      return openSelfHosted(choice, sel);
  }
}

/** A Web API client on the user's address: an address the client refuses (not http(s), plain http on the internet) is a usage error saying why, before anything is sent. */
function webClient(options: ConstructorParameters<typeof WebApiClient>[0]): WebApiClient {
  try {
    return new WebApiClient(options);
  } catch (err) {
    if (err instanceof TypeError) throw new BatchUsageError(`the Web API address cannot be used: ${err.message}`, 'bad-params');
    throw err;
  }
}

async function openEmulator(sel: BackendSelection & { fetch: FetchLike }): Promise<OpenedBackend> {
  const opened = (web: WebApiClient, backend: CorrectionBackend, description: string, close: () => Promise<void>): OpenedBackend =>
    ({ backend, web, id: 'emulator', description, paid: false, defaultConcurrency: 2, close });
  if (sel.emulatorUrl) {
    const web = webClient({ apiKey: EMULATOR_API_KEY, baseURL: sel.emulatorUrl, fetch: sel.fetch, ...(sel.onRetry ? { onRetry: sel.onRetry } : {}) });
    return opened(web, web, `emulator at ${web.baseURL}`, async () => undefined);
  }
  const client = { apiKey: EMULATOR_API_KEY, fetch: sel.fetch, onRetry: sel.onRetry };
  const embedded = sel.embedded
    ? { ...(await onEmbedded(sel.embedded, client)), close: async () => undefined }
    : await startEmbedded({ ...client, processingMs: sel.emulatorProcessingMs, onEvent: sel.onEmbeddedEvent });
  return opened(embedded.web, embedded.backend, `embedded emulator on ${embedded.url}`, embedded.close);
}

async function openSelfHosted(choice: 'container' | 'bgr', sel: BackendSelection): Promise<OpenedBackend> {
  const retry = { ...(sel.onRetry ? { onRetry: sel.onRetry } : {}), ...(sel.fetch ? { fetch: sel.fetch } : {}) };
  const terms = sel.terms ?? CLI_TERMS;
  const containerUrls = urlList(sel.containerUrl, terms.containerUrl);
  const bgrUrls = urlList(sel.bgrUrl, terms.bgrUrl);
  const jobs = instanceJobsFor(sel.instanceJobs, { colour: choice === 'container' ? containerUrls.length : 0, bgr: bgrUrls.length }, terms);
  const setup = (perInstance: InstanceJobsValue[]) => ({ jobs: perInstance, healthIntervalMs: sel.healthIntervalMs, onEvent: sel.onFleetEvent });
  const bgr = bgrUrls.length > 0 ? bgrTarget(bgrUrls, { ...(sel.bgrLicenseKey ? { licenseKey: sel.bgrLicenseKey } : {}), ...retry }, setup(jobs.bgr)) : undefined;
  if (choice === 'bgr') {
    if (!bgr) throw new BatchUsageError('the bgr backend needs --bgr-url (or PFC_BGR_URL)', 'bad-params');
    return { ...fleetFacts([bgr], 1), backend: createBgrBackend({ bgr }), id: 'bgr', description: `background-removal container${bgr instanceof Fleet ? 's' : ''} at ${describeTarget(bgr)}`, paid: false };
  }
  if (containerUrls.length === 0) throw new BatchUsageError('the container backend needs --container-url (or PFC_CONTAINER_URL)', 'bad-params');
  const container = containerTarget(containerUrls, retry, setup(jobs.colour));
  if (bgr) {
    return {
      ...fleetFacts([container, bgr], 2),
      backend: createSelfHostedBackend({ container, bgr }),
      id: 'container+bgr',
      description: `containers at ${describeTarget(container)} (colour) and ${describeTarget(bgr)} (background removal)`,
      paid: false,
    };
  }
  const opened = { ...fleetFacts([container], 2), id: 'container', paid: false } as const;
  if (sel.containerDirect && !(container instanceof Fleet)) {
    const { inputDir, outputDir } = await directFolders(sel.containerDirect);
    return {
      ...opened,
      backend: createDirectContainerBackend({ container, inputDir, outputDir }),
      description: `colour-correction container at ${container.transport.baseURL} with direct file access (input ${inputDir}, output ${outputDir})`,
    };
  }
  return { ...opened, backend: createContainerBackend({ container }), description: `colour-correction container${container instanceof Fleet ? 's' : ''} at ${describeTarget(container)}` };
}

/**
 * Concurrency, status and closing of self-hosted targets: with fleets, the
 * files at once default to the most the first stage's instances may take
 * together (each instance's number, or the ceiling of one chosen from its
 * measured speed, so the fleet can widen it), and `close` stops their health
 * checks.
 */
function fleetFacts(targets: readonly unknown[], single: number): Pick<OpenedBackend, 'defaultConcurrency' | 'instances' | 'close'> {
  const fleets = targets.filter((t): t is Fleet<unknown> => t instanceof Fleet);
  const first = targets[0];
  return {
    defaultConcurrency: first instanceof Fleet ? first.maxConcurrency : single,
    ...(fleets.length > 0 ? { instances: () => fleets.flatMap((f) => f.status()) } : {}),
    close: async () => {
      for (const f of fleets) f.close();
    },
  };
}

/**
 * Tells subscribers of each refused job start the transport retries (429 for
 * the account's jobs in progress), then passes every notice on. A 429 on any
 * other request (upload ticket, status, preset) is a request rate: the
 * transport waits its `Retry-After`, and fewer jobs at once would not help.
 */
function rateLimitSignal(onRetry: ((info: RetryInfo) => void) | undefined): { onRetry: (info: RetryInfo) => void; subscribe: (listener: () => void) => () => void } {
  const listeners = new Set<() => void>();
  return {
    onRetry: (info) => {
      if (info.error instanceof RateLimitError && info.rateLimit === 'jobs') for (const l of listeners) l();
      onRetry?.(info);
    },
    subscribe: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/** The mounted folders, absolute; each must be an existing folder, and they must differ (the container writes `/output/<input name>`). */
async function directFolders(dirs: { inputDir: string; outputDir: string }): Promise<{ inputDir: string; outputDir: string }> {
  const inputDir = resolve(dirs.inputDir);
  const outputDir = resolve(dirs.outputDir);
  for (const [flag, dir] of [['--container-input-dir', inputDir], ['--container-output-dir', outputDir]] as const) {
    const info = await stat(dir).catch(() => undefined);
    if (!info?.isDirectory()) throw new BatchUsageError(`${flag} ${dir} is not a folder: give the local folder where the container's ${flag.includes('input') ? '/input' : '/output'} is mounted`, 'not-found');
  }
  if (inputDir === outputDir) throw new BatchUsageError(`--container-input-dir and --container-output-dir must be two folders (the container's /input and /output), got ${inputDir} twice`, 'bad-params');
  return { inputDir, outputDir };
}

/**
 * Parameters a backend implies: the BGR container alone always removes the
 * background (and answers PNG), so outputs are named and keyed as with
 * `removeBackground=true`.
 */
export function impliedParams(choice: Exclude<BackendChoice, 'auto'>, params: PfcParams): PfcParams {
  return choice === 'bgr' && params.removeBackground === undefined ? { ...params, removeBackground: true } : params;
}
