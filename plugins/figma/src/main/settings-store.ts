/**
 * Settings and secrets in `figma.clientStorage` (per user, per machine). Each
 * secret (the Web API key, the BGR container's licence key) is stored under
 * its own name and leaves the main thread only to open a backend for a run;
 * for display the UI gets a masked hint.
 */
import {
  checkURL,
  maskKey,
  normaliseSettings,
  secretSlot,
  type ApiKeyChange,
  type BackendConfig,
  type PublicSettings,
  type SecretSlot,
  type Settings,
} from '../shared/settings';
import type { FigmaApi } from './host';

export const SETTINGS_KEY = 'pfc.settings.v1';
/** clientStorage names of the secrets. */
export const SECRET_KEYS: Record<SecretSlot, string> = { apiKey: 'pfc.apiKey.v1', bgrLicence: 'pfc.bgrLicence.v1' };

type Storage = FigmaApi['clientStorage'];

async function readSecret(storage: Storage, slot: SecretSlot): Promise<string | null> {
  const v: unknown = await storage.getAsync(SECRET_KEYS[slot]);
  return typeof v === 'string' && v ? v : null;
}

const hint = (key: string | null) => (key ? maskKey(key) : null);

export async function loadSettings(storage: Storage): Promise<PublicSettings> {
  const settings = normaliseSettings(await storage.getAsync(SETTINGS_KEY));
  return { ...settings, apiKeyHint: hint(await readSecret(storage, 'apiKey')), bgrLicenceHint: hint(await readSecret(storage, 'bgrLicence')) };
}

export async function loadBackendConfig(storage: Storage): Promise<BackendConfig> {
  const settings = normaliseSettings(await storage.getAsync(SETTINGS_KEY));
  return { ...settings, apiKey: await readSecret(storage, 'apiKey'), bgrLicenceKey: await readSecret(storage, 'bgrLicence') };
}

/** Check and store; `apiKey` changes the secret of the chosen backend. Errors name the field and never contain the key. */
export async function saveSettings(storage: Storage, input: Settings, apiKey: ApiKeyChange): Promise<PublicSettings> {
  const settings = normaliseSettings(input);
  const problems = [
    checkURL('Container URL', settings.containerURL, settings.backend === 'container'),
    checkURL('Background-removal container URL', settings.bgrURL, false),
    checkURL('Emulator URL', settings.emulatorURL, settings.backend === 'emulator'),
  ].filter((p): p is string => p !== undefined);
  const slot = secretSlot(settings.backend);
  const label = slot === 'apiKey' ? 'API key' : 'Licence key';
  if (apiKey.action === 'set') {
    const v = apiKey.value.trim();
    if (!v) problems.push(`${label} must not be empty (use "Forget key" to remove it)`);
    else if (/\s/.test(v)) problems.push(`${label} must not contain spaces or line breaks`);
  }
  if (problems.length > 0) throw new Error(problems.join('; '));
  await storage.setAsync(SETTINGS_KEY, settings);
  if (apiKey.action === 'set') await storage.setAsync(SECRET_KEYS[slot], apiKey.value.trim());
  if (apiKey.action === 'clear') await storage.deleteAsync(SECRET_KEYS[slot]);
  return loadSettings(storage);
}
