/**
 * Which service corrects the files, from the settings and the stored keys.
 * The backend itself is opened by @pfc/batch's `openBackend`, as in the CLI;
 * this file only maps the settings to a selection, asks for the keys the
 * chosen backend needs (and only those: a key is passed only to the service
 * it belongs to; the emulator gets a placeholder), and words it for the UI.
 * Backend `auto` (the default) is offline first: the hosted Web API once an
 * API key is stored, the container once `pfc.containerUrl` is set, else the
 * embedded emulator (src/embedded.ts).
 */
import { openBackend, type BackendSelection, type EmbeddedService, type OpenedBackend } from '@pfc/batch';
import type { FetchLike, RetryInfo } from '@pfc/core';
import type { KeyName, KeyStore } from './keys';
import type { BackendSetting, ExtensionSettings } from './settings';
import { VSCODE_TERMS } from './terms';
import { ENGLISH_L10N, type VscodeL10n } from './vscode-api';

/** A backend ready to run, with what the UI and the batch engine need to know about it. */
export interface ResolvedBackend extends Pick<OpenedBackend, 'backend' | 'id' | 'web' | 'close' | 'rateLimited' | 'defaultConcurrency'> {
  /** What the planner checks limits against (the backend's id). */
  planKind: OpenedBackend['id'];
  /** Paid backends ask for confirmation above `pfc.confirmAboveFiles`: every backend but the local emulator. */
  paid: boolean;
  /** For messages: "the hosted Web API at https://…". */
  label: string;
  /** The embedded emulator corrects the files (no key, no container configured). */
  embedded: boolean;
  /** The stored key this backend sends (hosted: the API key; container+bgr: the BGR licence key): the one to set again when the service refuses it. */
  key?: KeyName;
}

/** A backend setting with `auto` decided. */
export type ConcreteBackend = Exclude<BackendSetting, 'auto'>;

/** A key the chosen backend needs is not stored. */
export class MissingKeyError extends Error {
  override name = 'MissingKeyError';
  constructor(readonly key: KeyName, readonly backend: BackendSetting) {
    super(`The ${backend} backend needs ${key === 'apiKey' ? 'an API key' : 'a BGR licence key'}: run "Perfectly Clear: ${key === 'apiKey' ? 'Set API Key' : 'Set BGR Licence Key'}".`);
  }
}

/** What `resolveBackend` passes on to `openBackend`. */
export interface ResolveOptions {
  /** Called before each HTTP retry (never receives credentials). */
  onRetry?: (info: RetryInfo) => void;
  /** The `fetch` under every client (tests count requests with it). Default: @pfc/batch's `createNodeFetch()`. */
  fetch?: FetchLike;
  /** The window's embedded emulator (backend `emulator` without `pfc.emulatorUrl`; src/embedded.ts). */
  embedded?: EmbeddedService;
  /** The display language for `label` (default: English). */
  l10n?: VscodeL10n;
}

/** The key each backend sends (`selectionFrom`); the others send none. */
const KEY_OF: Partial<Record<ConcreteBackend, KeyName>> = { hosted: 'apiKey', 'container+bgr': 'bgrLicenceKey' };

/** What `auto` means now: hosted with a stored API key, the container when its address is set, else the emulator. */
export async function concreteBackend(settings: ExtensionSettings, keys: Pick<KeyStore, 'get'>): Promise<ConcreteBackend> {
  if (settings.backend !== 'auto') return settings.backend;
  if (await keys.get('apiKey')) return 'hosted';
  if (settings.containerConfigured) return 'container';
  return 'emulator';
}

async function required(keys: Pick<KeyStore, 'get'>, key: KeyName, backend: BackendSetting): Promise<string> {
  const value = await keys.get(key);
  if (!value) throw new MissingKeyError(key, backend);
  return value;
}

/** The `openBackend` selection the settings name, with only the keys that backend uses. Throws `MissingKeyError`. */
export async function selectionFrom(settings: ExtensionSettings, keys: Pick<KeyStore, 'get'>, embedded?: EmbeddedService): Promise<BackendSelection> {
  switch (await concreteBackend(settings, keys)) {
    case 'hosted':
      return { backend: 'web', baseURL: settings.webApiUrl, apiKey: await required(keys, 'apiKey', 'hosted') };
    case 'emulator': {
      if (settings.emulatorUrl) return { backend: 'emulator', emulatorUrl: settings.emulatorUrl };
      if (!embedded) throw new Error('no emulator address (pfc.emulatorUrl) and no embedded emulator');
      return { backend: 'emulator', embedded };
    }
    case 'container':
      return { backend: 'container', containerUrl: settings.containerUrl, ...jobsOf(settings) };
    case 'container+bgr':
      return { backend: 'container', containerUrl: settings.containerUrl, bgrUrl: settings.bgrUrl, bgrLicenseKey: await required(keys, 'bgrLicenceKey', 'container+bgr'), ...jobsOf(settings) };
  }
}

/** `pfc.instanceJobs` when set: files at once per self-hosted instance. */
function jobsOf(settings: ExtensionSettings): Pick<BackendSelection, 'instanceJobs'> {
  return settings.instanceJobs.length > 0 ? { instanceJobs: settings.instanceJobs } : {};
}

function labelOf(backend: ConcreteBackend, s: ExtensionSettings, emulatorUrl: string | undefined, { t }: VscodeL10n): string {
  switch (backend) {
    case 'hosted':
      return t('the hosted Web API at {0}', s.webApiUrl);
    case 'emulator':
      return s.emulatorUrl ? t('the local emulator at {0}', s.emulatorUrl) : t('the embedded local emulator ({0})', emulatorUrl ?? '127.0.0.1');
    case 'container':
      return t('the container at {0}', s.containerUrl);
    case 'container+bgr':
      return t('the containers at {0} and {1}', s.containerUrl, s.bgrUrl);
  }
}

/** Open the backend the settings name. Throws `MissingKeyError` when its key is not stored. `close()` it after the run. */
export async function resolveBackend(settings: ExtensionSettings, keys: Pick<KeyStore, 'get'>, options: ResolveOptions = {}): Promise<ResolvedBackend> {
  const backend = await concreteBackend(settings, keys);
  const { embedded, l10n = ENGLISH_L10N, ...open } = options;
  const selection = await selectionFrom({ ...settings, backend }, keys, embedded);
  const onEmbedded = backend === 'emulator' && !settings.emulatorUrl;
  const opened = await openBackend({ ...selection, ...open, terms: VSCODE_TERMS });
  return {
    backend: opened.backend,
    id: opened.id,
    ...(opened.web ? { web: opened.web } : {}),
    ...(opened.rateLimited ? { rateLimited: opened.rateLimited } : {}),
    close: opened.close,
    // Files at once when pfc.concurrency is 0, as the CLI without -j (a fleet: its instances' jobs together).
    defaultConcurrency: opened.defaultConcurrency,
    planKind: opened.id,
    // As pfc.confirmAboveFiles documents, the extension's cost guard covers the containers too (the CLI's only the hosted Web API).
    paid: backend !== 'emulator',
    label: labelOf(backend, settings, opened.web?.baseURL, l10n),
    embedded: onEmbedded,
    ...(KEY_OF[backend] ? { key: KEY_OF[backend] } : {}),
  };
}
