/**
 * The backend for the panel's settings: the hosted Web API, a local emulator
 * (same protocol, any key), or the self-hosted colour-correction container,
 * optionally followed by the background-removal container. Network calls are
 * `@pfc/core`'s; the panel only chooses the addresses and the keys.
 */
import { createContainerBackend, createSelfHostedBackend, createWebBackend, parseUrl, type CorrectionBackend, type FetchLike } from '@pfc/core';
import type { PanelSettings } from '../settings/store';

export interface BackendSecrets {
  apiKey?: string;
  bgrLicenceKey?: string;
}

/** The key the emulator gets when the user saved none: it accepts any non-empty key. */
const EMULATOR_KEY = 'local-emulator';

/** A setting is missing or wrong; the message names it and says where to set it. */
export class SettingsError extends Error {
  override name = 'SettingsError';
}

export function createBackend(settings: PanelSettings, secrets: BackendSecrets, fetch: FetchLike): CorrectionBackend {
  switch (settings.backend) {
    case 'hosted':
      if (!secrets.apiKey) throw new SettingsError('Enter your API key under Settings (hosted Web API) first.');
      return createWebBackend({ baseURL: settings.hostedURL, apiKey: secrets.apiKey, fetch });
    case 'emulator':
      return createWebBackend({ baseURL: settings.emulatorURL, apiKey: secrets.apiKey || EMULATOR_KEY, fetch });
    case 'container': {
      if (!settings.containerURL) throw new SettingsError('Enter the colour-correction container address under Settings first.');
      const container = { baseURL: settings.containerURL, fetch };
      if (!settings.bgrURL) return createContainerBackend({ container });
      // With a background-removal container, removeBackground runs there after the colour correction.
      const bgr = { baseURL: settings.bgrURL, fetch, ...(secrets.bgrLicenceKey ? { licenseKey: secrets.bgrLicenceKey } : {}) };
      return createSelfHostedBackend({ container, bgr });
    }
  }
}

/** How the settings are named in the panel's header. */
export function describeBackend(settings: PanelSettings): string {
  switch (settings.backend) {
    case 'hosted':
      return `Web API · ${hostOf(settings.hostedURL)}`;
    case 'emulator':
      return `Emulator · ${hostOf(settings.emulatorURL)}`;
    case 'container':
      return `Container · ${hostOf(settings.containerURL)}`;
  }
}

function hostOf(url: string): string {
  try {
    return parseUrl(url).host;
  } catch {
    return url;
  }
}
