/**
 * Opening the backend chosen in Settings. All of them come from `@pfc/core`
 * and share the `CorrectionBackend` interface; this file only maps settings to
 * constructor options and adds the fetch that explains blocked requests.
 */
import { createContainerBackend, createSelfHostedBackend, createWebBackend, type CorrectionBackend } from '@pfc/core';
import { HOSTED_BASE_URL, type BackendConfig } from '../shared/settings';
import { explainingFetch } from './network';

/** What the header says about the backend, e.g. `Hosted API` or `Emulator at 127.0.0.1:8787`. */
export function backendLabel(config: Pick<BackendConfig, 'backend' | 'containerURL' | 'emulatorURL'>): string {
  const host = (url: string) => {
    try {
      return new URL(url).host;
    } catch {
      return url;
    }
  };
  switch (config.backend) {
    case 'hosted':
      return 'Hosted API';
    case 'container':
      return `Container at ${host(config.containerURL)}`;
    case 'emulator':
      return `Emulator at ${host(config.emulatorURL)}`;
  }
}

/**
 * Retries after a failed request. Fewer than core's default (4): someone is
 * watching the window, and a request the browser blocks fails the same way
 * every time.
 */
export const UI_MAX_RETRIES = 2;

/** The backend for a run; throws a message for the user when Settings are incomplete. */
export function openBackend(config: BackendConfig, fetchImpl: typeof fetch = explainingFetch()): CorrectionBackend {
  switch (config.backend) {
    case 'hosted':
      if (!config.apiKey) throw new Error('Enter your API key in Settings to use the hosted API');
      return createWebBackend({ baseURL: HOSTED_BASE_URL, apiKey: config.apiKey, fetch: fetchImpl, maxRetries: UI_MAX_RETRIES });
    case 'emulator':
      // The emulator accepts any non-empty key unless it was started with a list of keys.
      return createWebBackend({ baseURL: config.emulatorURL, apiKey: config.apiKey ?? 'local-emulator', fetch: fetchImpl, maxRetries: UI_MAX_RETRIES });
    case 'container': {
      if (!config.containerURL) throw new Error('Enter the colour container URL in Settings');
      const container = { baseURL: config.containerURL, fetch: fetchImpl, maxRetries: UI_MAX_RETRIES };
      if (!config.bgrURL) return createContainerBackend({ container });
      // With a background-removal container, removeBackground runs there after the colour correction.
      const bgr = { baseURL: config.bgrURL, fetch: fetchImpl, maxRetries: UI_MAX_RETRIES, ...(config.bgrLicenceKey ? { licenseKey: config.bgrLicenceKey } : {}) };
      return createSelfHostedBackend({ container, bgr });
    }
  }
}
