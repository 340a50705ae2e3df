/**
 * Choosing and opening a backend from what the user configured, the same way in
 * the CLI and in VS Code: an API key selects the hosted Web API, a container
 * URL the self-hosted containers, and with neither the embedded emulator is
 * started in-process on loopback.
 */
import {
  type CorrectionBackend, createBgrBackend, createContainerBackend, createSelfHostedBackend, DEFAULT_BASE_URL, type FetchLike, type PfcParams,
  type RetryInfo, WebApiClient,
} from '@pfc/core';
import { createNodeFetch } from './node-fetch';
import { BatchUsageError } from './errors';

export type BackendChoice = 'auto' | 'web' | 'container' | 'bgr' | 'emulator';
export const BACKEND_CHOICES: readonly BackendChoice[] = ['auto', 'web', 'container', 'bgr', 'emulator'];

export interface BackendSelection {
  /** Which backend. Default `auto`: key → web; container URL → container (+ BGR URL); BGR URL → bgr; else the embedded emulator. */
  backend?: BackendChoice;
  /** Web API key. Never printed, logged or stored by the engine. */
  apiKey?: string;
  /** Web API base address. Default `https://api.perfectlyclear.io/v2`. */
  baseURL?: string;
  /** Colour-correction container address. */
  containerUrl?: string;
  /** Background-removal container address. */
  bgrUrl?: string;
  /** Licence key of the background-removal container (sent once to its `/Authorize`). Never printed. */
  bgrLicenseKey?: string;
  /** Extra time each embedded-emulator job spends processing, in ms (demos and tests). Default 0. */
  emulatorProcessingMs?: number;
  /** Called before each HTTP retry (never receives credentials). */
  onRetry?: (info: RetryInfo) => void;
  /** The `fetch` under every client. Default: `createNodeFetch()` (streamed uploads keep backpressure). */
  fetch?: FetchLike;
}

/** An opened backend and what a host needs to know about it. */
export interface OpenedBackend {
  backend: CorrectionBackend;
  /** Identity in the manifest (`web`, `emulator`, `container`, `container+bgr`, `bgr`): results of another backend are redone. */
  id: string;
  /** One line for people, e.g. "embedded emulator on http://127.0.0.1:41235/v2". Never holds a key. */
  description: string;
  /** Whether jobs are billed (the hosted Web API): the cost guard asks before large runs. */
  paid: boolean;
  /** Files corrected at once unless the user says otherwise. */
  defaultConcurrency: number;
  /** The Web API client, when the backend speaks the Web API (hosted or emulator): presets, job status. */
  web?: WebApiClient;
  /** Stop what was started (the embedded emulator). Idempotent. */
  close(): Promise<void>;
}

/** The backend `auto` resolves to for a selection. */
export function resolveBackendChoice(sel: BackendSelection): Exclude<BackendChoice, 'auto'> {
  const choice = sel.backend ?? 'auto';
  if (choice !== 'auto') return choice;
  if (sel.apiKey) return 'web';
  if (sel.containerUrl) return 'container';
  if (sel.bgrUrl) return 'bgr';
  return 'emulator';
}

/** Open the selected backend. Throws `BatchUsageError` (code `bad-params`) when a needed key or URL is missing. */
export async function openBackend(selection: BackendSelection): Promise<OpenedBackend> {
  const sel = { ...selection, fetch: selection.fetch ?? createNodeFetch() };
  const choice = resolveBackendChoice(sel);
  const noop = async () => undefined;
  switch (choice) {
    case 'web': {
      if (!sel.apiKey) throw new BatchUsageError('the web backend needs an API key: set PFC_API_KEY or pass --api-key', 'bad-params');
      const baseURL = sel.baseURL ?? DEFAULT_BASE_URL;
      const web = new WebApiClient({ apiKey: sel.apiKey, baseURL, fetch: sel.fetch, ...(sel.onRetry ? { onRetry: sel.onRetry } : {}) });
      return { backend: web, web, id: 'web', description: `Web API at ${web.baseURL}`, paid: true, defaultConcurrency: 4, close: noop };
    }
    case 'emulator': {
      const { startEmulator } = await import('@pfc/emulator');
      // Only the Web API is needed; the container emulations stay off.
      const emu = await startEmulator({ host: '127.0.0.1', container: false, bgr: false, ...(sel.emulatorProcessingMs ? { processingMs: sel.emulatorProcessingMs } : {}) });
      // The embedded emulator accepts any non-empty key; this one never leaves the process.
      const web = new WebApiClient({ apiKey: 'embedded-emulator', baseURL: emu.web, fetch: sel.fetch, ...(sel.onRetry ? { onRetry: sel.onRetry } : {}) });
      return { backend: web, web, id: 'emulator', description: `embedded emulator on ${emu.web}`, paid: false, defaultConcurrency: 2, close: () => emu.close() };
    }
    case 'container':
    case 'bgr':
      return openSelfHosted(choice, sel);
  }
}

async function openSelfHosted(choice: 'container' | 'bgr', sel: BackendSelection): Promise<OpenedBackend> {
  const retry = { ...(sel.onRetry ? { onRetry: sel.onRetry } : {}), ...(sel.fetch ? { fetch: sel.fetch } : {}) };
  const bgr = sel.bgrUrl ? { baseURL: sel.bgrUrl, ...(sel.bgrLicenseKey ? { licenseKey: sel.bgrLicenseKey } : {}), ...retry } : undefined;
  const close = async () => undefined;
  if (choice === 'bgr') {
    if (!bgr) throw new BatchUsageError('the bgr backend needs --bgr-url (or PFC_BGR_URL)', 'bad-params');
    // One GPU job at a time is what a single BGR container does well.
    return { backend: createBgrBackend({ bgr }), id: 'bgr', description: `background-removal container at ${bgr.baseURL}`, paid: false, defaultConcurrency: 1, close };
  }
  if (!sel.containerUrl) throw new BatchUsageError('the container backend needs --container-url (or PFC_CONTAINER_URL)', 'bad-params');
  const container = { baseURL: sel.containerUrl, ...retry };
  if (bgr) {
    return {
      backend: createSelfHostedBackend({ container, bgr }),
      id: 'container+bgr',
      description: `containers at ${container.baseURL} (colour) and ${bgr.baseURL} (background removal)`,
      paid: false,
      defaultConcurrency: 2,
      close,
    };
  }
  return { backend: createContainerBackend({ container }), id: 'container', description: `colour-correction container at ${container.baseURL}`, paid: false, defaultConcurrency: 2, close };
}

/**
 * Parameters a backend implies: the BGR container alone always removes the
 * background (and answers PNG), so outputs are named and keyed as with
 * `removeBackground=true`.
 */
export function impliedParams(choice: Exclude<BackendChoice, 'auto'>, params: PfcParams): PfcParams {
  return choice === 'bgr' && params.removeBackground === undefined ? { ...params, removeBackground: true } : params;
}
