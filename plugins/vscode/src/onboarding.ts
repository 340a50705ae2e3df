/**
 * The first run without a key: offer to set one, or (for the hosted backend)
 * to use the embedded emulator instead (backend `auto`, in the user's
 * settings). And the one notice that results come from the local emulator.
 */
import { MissingKeyError, type ResolvedBackend } from './backend';
import { promptAndStoreKey, type KeyStore } from './keys';
import { settingsFrom, type ExtensionSettings } from './settings';
import type { Memento } from 'vscode';
import type { VscodeApi } from './vscode-api';

/** The onboarding buttons in the display language (the choice comes back as the translated label). */
function offers(api: VscodeApi): { setKey: string; setBgr: string; emulator: string } {
  return { setKey: api.l10n.t('Set API Key'), setBgr: api.l10n.t('Set BGR Licence Key'), emulator: api.l10n.t('Use Local Emulator') };
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
    const offer = offers(api);
    const buttons = err.key === 'apiKey' ? [offer.setKey, offer.emulator] : [offer.setBgr];
    // The modal says it in the display language; err.message (English) stays for logs.
    const text = err.key === 'apiKey'
      ? api.l10n.t('The {0} backend needs an API key: run "Perfectly Clear: Set API Key".', err.backend)
      : api.l10n.t('The {0} backend needs a BGR licence key: run "Perfectly Clear: Set BGR Licence Key".', err.backend);
    const choice = await api.window.showWarningMessage(text, { modal: true }, ...buttons);
    if (choice === offer.setKey || choice === offer.setBgr) {
      if (!(await promptAndStoreKey(api, keys, err.key))) return undefined;
      return { backend: await resolve(settings), settings };
    }
    if (choice === offer.emulator) {
      // `auto` without a key is the embedded emulator; once a key is set, the hosted Web API again.
      await api.workspace.getConfiguration('pfc').update('backend', 'auto', api.ConfigurationTarget.Global);
      const next = settingsFrom(api);
      return { backend: await resolve(next), settings: next };
    }
    return undefined;
  }
}

/** globalState entry: the emulator notice was shown once. */
export const EMULATOR_NOTICE_SHOWN = 'pfc.emulatorNoticeShown';

/**
 * Say once (per installation) that results come from the local emulator, with
 * a "Set API Key" button. Not awaited by the run: the notice stays while it works.
 */
export async function noticeEmbeddedEmulator(svc: { api: VscodeApi; keys: KeyStore; globalState: Pick<Memento, 'get' | 'update'> }): Promise<void> {
  if (svc.globalState.get<boolean>(EMULATOR_NOTICE_SHOWN)) return;
  await svc.globalState.update(EMULATOR_NOTICE_SHOWN, true);
  const setKey = offers(svc.api).setKey;
  const choice = await svc.api.window.showInformationMessage(
    svc.api.l10n.t('Perfectly Clear: no API key is set, so the results come from the local emulator, an offline stand-in for the service that runs on this computer. Set an API key to correct with Perfectly Clear itself.'),
    setKey,
  );
  if (choice === setKey) await promptAndStoreKey(svc.api, svc.keys, 'apiKey');
}
