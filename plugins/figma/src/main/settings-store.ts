/**
 * Settings and the API key in `figma.clientStorage` (per user, per machine).
 * The key is stored under its own name and leaves the main thread only to open
 * a backend for a run; for display the UI gets a masked hint.
 */
import { checkURL, maskKey, normaliseSettings, type ApiKeyChange, type BackendConfig, type PublicSettings, type Settings } from '../shared/settings';
import type { FigmaApi } from './host';

export const SETTINGS_KEY = 'pfc.settings.v1';
export const API_KEY_KEY = 'pfc.apiKey.v1';

type Storage = FigmaApi['clientStorage'];

async function readKey(storage: Storage): Promise<string | null> {
  const v: unknown = await storage.getAsync(API_KEY_KEY);
  return typeof v === 'string' && v ? v : null;
}

export async function loadSettings(storage: Storage): Promise<PublicSettings> {
  const settings = normaliseSettings(await storage.getAsync(SETTINGS_KEY));
  const key = await readKey(storage);
  return { ...settings, apiKeyHint: key ? maskKey(key) : null };
}

export async function loadBackendConfig(storage: Storage): Promise<BackendConfig> {
  const settings = normaliseSettings(await storage.getAsync(SETTINGS_KEY));
  return { ...settings, apiKey: await readKey(storage) };
}

/** Check and store; errors name the field and never contain the key. */
export async function saveSettings(storage: Storage, input: Settings, apiKey: ApiKeyChange): Promise<PublicSettings> {
  const settings = normaliseSettings(input);
  const problems = [
    checkURL('Container URL', settings.containerURL, settings.backend === 'container'),
    checkURL('Background-removal container URL', settings.bgrURL, false),
    checkURL('Emulator URL', settings.emulatorURL, settings.backend === 'emulator'),
  ].filter((p): p is string => p !== undefined);
  if (apiKey.action === 'set') {
    const v = apiKey.value.trim();
    if (!v) problems.push('API key must not be empty (use "Forget key" to remove it)');
    else if (/\s/.test(v)) problems.push('API key must not contain spaces or line breaks');
  }
  if (problems.length > 0) throw new Error(problems.join('; '));
  await storage.setAsync(SETTINGS_KEY, settings);
  if (apiKey.action === 'set') await storage.setAsync(API_KEY_KEY, apiKey.value.trim());
  if (apiKey.action === 'clear') await storage.deleteAsync(API_KEY_KEY);
  return loadSettings(storage);
}
