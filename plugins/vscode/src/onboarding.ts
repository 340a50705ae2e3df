/**
 * The first run without a key: offer to set one, or (for the hosted backend)
 * to use a local emulator instead. Settings changed here go to the user's
 * settings, where the URL settings live.
 */
import { MissingKeyError, type ResolvedBackend } from './backend';
import { promptAndStoreKey, type KeyStore } from './keys';
import { settingsFrom, type ExtensionSettings } from './settings';
import type { VscodeApi } from './vscode-api';

export const OFFER_SET_KEY = 'Set API Key';
export const OFFER_SET_BGR = 'Set BGR Licence Key';
export const OFFER_EMULATOR = 'Use Local Emulator…';

function validUrl(v: string): string | undefined {
  try {
    const u = new URL(v.trim());
    return u.protocol === 'http:' || u.protocol === 'https:' ? undefined : 'Give an http:// or https:// address.';
  } catch {
    return 'Give an address such as http://127.0.0.1:8080/v2.';
  }
}

/**
 * Resolve the backend; when its key is missing, offer the ways out and try
 * again once. Resolves undefined when the user backs out.
 */
export async function ensureBackend(
  svc: { api: VscodeApi; keys: KeyStore },
  settings: ExtensionSettings,
  resolve: (s: ExtensionSettings) => Promise<ResolvedBackend>,
): Promise<{ backend: ResolvedBackend; settings: ExtensionSettings } | undefined> {
  const { api, keys } = svc;
  try {
    return { backend: await resolve(settings), settings };
  } catch (err) {
    if (!(err instanceof MissingKeyError)) throw err;
    const offers = err.key === 'apiKey' ? [OFFER_SET_KEY, OFFER_EMULATOR] : [OFFER_SET_BGR];
    const choice = await api.window.showWarningMessage(err.message, { modal: true }, ...offers);
    if (choice === OFFER_SET_KEY || choice === OFFER_SET_BGR) {
      if (!(await promptAndStoreKey(api, keys, err.key))) return undefined;
      return { backend: await resolve(settings), settings };
    }
    if (choice === OFFER_EMULATOR) {
      const url = await api.window.showInputBox({
        title: 'Perfectly Clear: local emulator',
        prompt: 'Web API address of a running emulator (start one with `pfc emulator` or `pfc-emulator`)',
        value: settings.emulatorUrl,
        ignoreFocusOut: true,
        validateInput: validUrl,
      });
      if (url === undefined) return undefined;
      const cfg = api.workspace.getConfiguration('pfc');
      await cfg.update('emulatorUrl', url.trim(), api.ConfigurationTarget.Global);
      await cfg.update('backend', 'emulator', api.ConfigurationTarget.Global);
      const next = settingsFrom(api);
      return { backend: await resolve(next), settings: next };
    }
    return undefined;
  }
}
