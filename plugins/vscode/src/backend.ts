/**
 * Which service corrects the files, from the settings and the stored keys.
 * Keys go only to the service they belong to: the emulator gets a placeholder.
 */
import {
  createContainerBackend, createSelfHostedBackend, createWebBackend, type BackendKind, type CorrectionBackend, type RetryInfo, type WebApiClient,
} from '@pfc/core';
import type { KeyName, KeyStore } from './keys';
import type { BackendSetting, ExtensionSettings } from './settings';

/** A backend ready to run, with what the UI and the batch engine need to know about it. */
export interface ResolvedBackend {
  backend: CorrectionBackend;
  /** Identity in the output manifest: results of another backend are redone. */
  id: string;
  /** What the planner checks limits against. */
  planKind: BackendKind | 'emulator';
  /** Paid backends ask for confirmation above `pfc.confirmAboveFiles`. */
  paid: boolean;
  /** For messages: "the hosted Web API at https://…". */
  label: string;
  /** The Web API client, when the backend is one (custom presets). */
  web?: WebApiClient;
}

/** A key the chosen backend needs is not stored. */
export class MissingKeyError extends Error {
  override name = 'MissingKeyError';
  constructor(readonly key: KeyName, readonly backend: BackendSetting) {
    super(`The ${backend} backend needs ${key === 'apiKey' ? 'an API key' : 'a BGR licence key'}: run "Perfectly Clear: ${key === 'apiKey' ? 'Set API Key' : 'Set BGR Licence Key'}".`);
  }
}

/** Key sent to a local emulator, which accepts any non-empty key. */
export const EMULATOR_KEY = 'local-emulator';

/** How backends are made; tests and future container clients plug in here. */
export interface BackendFactories {
  web: typeof createWebBackend;
  /** Self-hosted colour container, followed by the BGR container when `bgr` is given. */
  container: (options: { baseURL: string; bgr?: { baseURL: string; licenceKey: string }; onRetry?: (info: RetryInfo) => void }) => CorrectionBackend;
}

/** Core's clients. */
export const DEFAULT_FACTORIES: BackendFactories = {
  web: createWebBackend,
  container: ({ baseURL, bgr, onRetry }) => {
    const retry = onRetry ? { onRetry } : {};
    return bgr
      ? createSelfHostedBackend({ container: { baseURL, ...retry }, bgr: { baseURL: bgr.baseURL, licenseKey: bgr.licenceKey, ...retry } })
      : createContainerBackend({ container: { baseURL, ...retry } });
  },
};

/** Build the backend the settings name. Throws `MissingKeyError` when its key is not stored. */
export async function resolveBackend(
  settings: ExtensionSettings,
  keys: Pick<KeyStore, 'get'>,
  options: { onRetry?: (info: RetryInfo) => void; factories?: BackendFactories } = {},
): Promise<ResolvedBackend> {
  const f = options.factories ?? DEFAULT_FACTORIES;
  const retry = options.onRetry ? { onRetry: options.onRetry } : {};
  switch (settings.backend) {
    case 'hosted': {
      const apiKey = await keys.get('apiKey');
      if (!apiKey) throw new MissingKeyError('apiKey', 'hosted');
      const web = f.web({ baseURL: settings.webApiUrl, apiKey, ...retry });
      return { backend: web, web, id: 'web', planKind: 'web', paid: true, label: `the hosted Web API at ${settings.webApiUrl}` };
    }
    case 'emulator': {
      const web = f.web({ baseURL: settings.emulatorUrl, apiKey: EMULATOR_KEY, ...retry });
      return { backend: web, web, id: 'emulator', planKind: 'emulator', paid: false, label: `the local emulator at ${settings.emulatorUrl}` };
    }
    case 'container':
    case 'container+bgr': {
      let bgr: { baseURL: string; licenceKey: string } | undefined;
      if (settings.backend === 'container+bgr') {
        const licenceKey = await keys.get('bgrLicenceKey');
        if (!licenceKey) throw new MissingKeyError('bgrLicenceKey', 'container+bgr');
        bgr = { baseURL: settings.bgrUrl, licenceKey };
      }
      const backend = f.container({ baseURL: settings.containerUrl, ...(bgr ? { bgr } : {}), ...retry });
      const label = bgr ? `the containers at ${settings.containerUrl} and ${settings.bgrUrl}` : `the container at ${settings.containerUrl}`;
      return { backend, id: backend.kind, planKind: backend.kind, paid: true, label };
    }
  }
}
