/**
 * Panel settings: the backend and its addresses in `localStorage` (not
 * secret), keys in UXP `secureStorage` (encrypted per user and plugin). Keys
 * are never written anywhere else, never logged and never shown again once saved.
 */
import { parseUrl } from '@pfc/core';
import { decodeUtf8 } from '../backend/fetch';
import type { UxpSecureStorage } from '../host/types';

export type BackendChoice = 'hosted' | 'container' | 'emulator';

export interface PanelSettings {
  backend: BackendChoice;
  /** Base address of the hosted Web API, with `/v2`. */
  hostedURL: string;
  /** Base address of a local emulator's Web API, with `/v2`. */
  emulatorURL: string;
  /** Address of a self-hosted colour-correction container. */
  containerURL: string;
  /** Address of a self-hosted background-removal container (optional). */
  bgrURL: string;
}

export const DEFAULT_SETTINGS: PanelSettings = {
  backend: 'hosted',
  hostedURL: 'https://api.perfectlyclear.io/v2',
  emulatorURL: 'http://127.0.0.1:8080/v2',
  containerURL: 'http://localhost:80',
  bgrURL: '',
};

/** Names of the secrets in secure storage. */
export type SecretName = 'apiKey' | 'bgrLicenceKey';
const SECRET_KEYS: Record<SecretName, string> = { apiKey: 'pfc.apiKey', bgrLicenceKey: 'pfc.bgrLicenceKey' };
const SETTINGS_KEY = 'pfc.settings';

/** The subset of `localStorage` used. */
export interface KeyValueStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

const BACKENDS: readonly BackendChoice[] = ['hosted', 'container', 'emulator'];

export function loadSettings(store: KeyValueStore): PanelSettings {
  let saved: Partial<PanelSettings> = {};
  try {
    saved = JSON.parse(store.getItem(SETTINGS_KEY) ?? '{}') as Partial<PanelSettings>;
  } catch {
    // A damaged entry falls back to the defaults rather than breaking the panel.
  }
  const s = { ...DEFAULT_SETTINGS };
  if (saved.backend && BACKENDS.includes(saved.backend)) s.backend = saved.backend;
  for (const k of ['hostedURL', 'emulatorURL', 'containerURL', 'bgrURL'] as const) {
    if (typeof saved[k] === 'string') s[k] = saved[k];
  }
  return s;
}

/** Check the addresses (clear messages naming the field) and store the settings. */
export function saveSettings(store: KeyValueStore, s: PanelSettings): void {
  const problems = settingsProblems(s);
  if (problems.length > 0) throw new Error(problems.join('; '));
  store.setItem(SETTINGS_KEY, JSON.stringify(s));
}

/** What is wrong with the addresses the chosen backend needs. */
export function settingsProblems(s: PanelSettings): string[] {
  const problems: string[] = [];
  const check = (label: string, value: string, required: boolean) => {
    if (!value) {
      if (required) problems.push(`${label} is required`);
      return;
    }
    // core's parser: UXP documents no URL constructor (see @pfc/core's address.ts).
    const protocol = (() => {
      try {
        return parseUrl(value).protocol;
      } catch {
        return undefined;
      }
    })();
    if (protocol !== 'http:' && protocol !== 'https:') problems.push(`${label} must be an http:// or https:// address (got "${value}")`);
  };
  if (s.backend === 'hosted') check('Web API address', s.hostedURL, true);
  if (s.backend === 'emulator') check('Emulator address', s.emulatorURL, true);
  if (s.backend === 'container') {
    check('Container address', s.containerURL, true);
    check('Background-removal container address', s.bgrURL, false);
  }
  return problems;
}

/** A secret, or undefined when none is stored (secure storage rejects unknown keys). */
export async function loadSecret(secure: UxpSecureStorage, name: SecretName): Promise<string | undefined> {
  try {
    const bytes = await secure.getItem(SECRET_KEYS[name]);
    if (!bytes || bytes.byteLength === 0) return undefined;
    return decodeUtf8(bytes);
  } catch {
    return undefined;
  }
}

/** Store a secret; an empty value removes it. */
export async function saveSecret(secure: UxpSecureStorage, name: SecretName, value: string): Promise<void> {
  const trimmed = value.trim();
  if (trimmed) {
    await secure.setItem(SECRET_KEYS[name], trimmed);
    return;
  }
  await secure.removeItem(SECRET_KEYS[name]).catch(() => undefined);
}
