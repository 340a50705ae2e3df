/**
 * The backend for the panel's settings: the hosted Web API, a local emulator
 * (same protocol, any key), or the self-hosted colour-correction container,
 * optionally followed by the background-removal container. Network calls are
 * `@pfc/core`'s; the panel only chooses the addresses and the keys.
 */
import { createContainerBackend, createSelfHostedBackend, createWebBackend, type CorrectionBackend, type FetchLike } from '@pfc/core';
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

/** What the running UXP can do, where the panel's backends differ. */
export interface RuntimeFeatures {
  /** `require('uxp').versions.uxp`, e.g. `uxp-7.3.0`. */
  uxpVersion: string;
}

/**
 * Multipart `FormData` with a `Blob` part (the background-removal container's
 * upload) arrived with UXP 7.3.0 (AdobeDocs/uxp-photoshop `src/pages/uxp-api/changelog3-p.md:91-106`),
 * which Photoshop 25.2 carries (`src/pages/ps-reference/changelog/index.md:210-212`).
 */
export function supportsMultipartBlob(features: RuntimeFeatures): boolean {
  const m = /(\d+)\.(\d+)/.exec(features.uxpVersion);
  if (!m) return false;
  const [major, minor] = [Number(m[1]), Number(m[2])];
  return major > 7 || (major === 7 && minor >= 3);
}

export function createBackend(settings: PanelSettings, secrets: BackendSecrets, fetch: FetchLike, features: RuntimeFeatures): CorrectionBackend {
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
      if (!supportsMultipartBlob(features)) {
        throw new SettingsError(
          `The background-removal container needs Photoshop 25.2 or later (UXP 7.3; this is ${features.uxpVersion}): its upload is a multipart form with a file, which earlier versions cannot send. Update Photoshop, or clear "BG removal" under Settings.`,
        );
      }
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
    return new URL(url).host;
  } catch {
    return url;
  }
}
