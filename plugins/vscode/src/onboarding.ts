/**
 * The first run without a key: offer to set one, or (for the hosted backend)
 * to use the embedded emulator instead (backend `auto`, in the user's
 * settings); without an emulator in this installation, offer the key or an
 * emulator address. And the one notice that results come from the local emulator.
 */
import { MissingKeyError, type ResolvedBackend } from './backend';
import { EmbeddedEmulatorUnavailableError } from './embedded';
import { CONFIRMATION_MS, promptAndStoreKey, setKeyButton, type KeyStore } from './keys';
import { settingsFrom, type ExtensionSettings } from './settings';
import type { ConfigurationTarget, Memento } from 'vscode';
import type { Log } from './log';
import type { VscodeApi } from './vscode-api';

/** The onboarding buttons in the display language (the choice comes back as the translated label); the key buttons are every key notification's. */
function offers(api: VscodeApi): { setKey: string; setBgr: string; emulator: string } {
  return { setKey: setKeyButton(api.l10n, 'apiKey'), setBgr: setKeyButton(api.l10n, 'bgrLicenceKey'), emulator: api.l10n.t('Use Local Emulator') };
}

/**
 * Resolve the backend; when its key is missing, offer the ways out and try
 * again once. Resolves undefined when the user backs out.
 */
export async function ensureBackend(
  svc: { api: VscodeApi; keys: KeyStore; log: Pick<Log, 'line'> },
  settings: ExtensionSettings,
  resolve: (s: ExtensionSettings) => Promise<ResolvedBackend>,
): Promise<{ backend: ResolvedBackend; settings: ExtensionSettings } | undefined> {
  const { api, keys } = svc;
  try {
    return { backend: await resolve(settings), settings };
  } catch (err) {
    if (err instanceof EmbeddedEmulatorUnavailableError) return withoutEmbeddedEmulator(svc, settings, resolve, err);
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
      // Only the backend is read again (a workspace may still set its own); the folder's other settings stay.
      const next = { ...settings, backend: settingsFrom(api).backend };
      try {
        return { backend: await resolve(next), settings: next };
      } catch (again) {
        // `auto` without a key is the embedded emulator, which this installation may not have: said as on any run.
        if (again instanceof EmbeddedEmulatorUnavailableError) return withoutEmbeddedEmulator(svc, next, resolve, again);
        throw again;
      }
    }
    return undefined;
  }
}

/**
 * The embedded emulator is not part of this installation (the universal
 * package without `@pfc/emulator` beside it or on `NODE_PATH`): say so and offer
 * what works instead — with backend `auto`, an API key (the hosted Web API,
 * tried at once); in any case the address of a running emulator. The folders
 * searched go to the log, not into the notification.
 */
async function withoutEmbeddedEmulator(
  svc: { api: VscodeApi; keys: KeyStore; log: Pick<Log, 'line'> },
  settings: ExtensionSettings,
  resolve: (s: ExtensionSettings) => Promise<ResolvedBackend>,
  err: EmbeddedEmulatorUnavailableError,
): Promise<{ backend: ResolvedBackend; settings: ExtensionSettings } | undefined> {
  const { api, keys } = svc;
  const { t } = api.l10n;
  svc.log.line(err.message);
  const setKey = offers(api).setKey;
  const setAddress = t('Set Emulator Address');
  // A key helps only where `auto` then picks the hosted Web API; an explicit backend keeps its choice.
  const keyHelps = settings.backend === 'auto';
  const text = keyHelps
    ? t('Perfectly Clear: this installation has no local emulator, so photos cannot be corrected offline. Set an API key to correct them with the hosted service, or set pfc.emulatorUrl to a running emulator (started with "pfc emulator").')
    : t('Perfectly Clear: this installation has no local emulator. Set pfc.emulatorUrl to a running emulator (started with "pfc emulator").');
  const choice = await api.window.showWarningMessage(text, { modal: true }, ...(keyHelps ? [setKey, setAddress] : [setAddress]));
  if (choice === setKey) {
    if (!(await promptAndStoreKey(api, keys, 'apiKey'))) return undefined;
    return { backend: await resolve(settings), settings };
  }
  if (choice === setAddress) void api.commands.executeCommand('workbench.action.openSettings', 'pfc.emulatorUrl');
  return undefined;
}

/** globalState entry: the emulator notice was shown once. */
export const EMULATOR_NOTICE_SHOWN = 'pfc.emulatorNoticeShown';

/**
 * Say once (per installation) that results come from the local emulator. With
 * no API key stored, that is why, and the button sets one; with a key stored,
 * `pfc.backend` = emulator is why (the key is not used), and the button goes
 * back to `auto`. Not awaited by the run: the notice stays while it works.
 */
export async function noticeEmbeddedEmulator(svc: { api: VscodeApi; keys: KeyStore; globalState: Pick<Memento, 'get' | 'update'> }): Promise<void> {
  if (svc.globalState.get<boolean>(EMULATOR_NOTICE_SHOWN)) return;
  await svc.globalState.update(EMULATOR_NOTICE_SHOWN, true);
  const { api } = svc;
  const { t } = api.l10n;
  if (await svc.keys.get('apiKey')) {
    const hosted = useHostedButton(api);
    const choice = await api.window.showInformationMessage(
      t('Perfectly Clear: the results come from the local emulator, an offline stand-in for the service that runs on this computer: pfc.backend is set to emulator, so your API key is not used. Use the hosted service to correct with Perfectly Clear itself.'),
      hosted,
    );
    if (choice === hosted) await useHostedService(api);
    return;
  }
  const setKey = offers(api).setKey;
  const choice = await api.window.showInformationMessage(
    t('Perfectly Clear: no API key is set, so the results come from the local emulator, an offline stand-in for the service that runs on this computer. Set an API key to correct with Perfectly Clear itself.'),
    setKey,
  );
  if (choice === setKey && (await promptAndStoreKey(api, svc.keys, 'apiKey'))) await offerHostedService(api);
}

/** The button that sets `pfc.backend` back to `auto`, in the display language. */
function useHostedButton(api: VscodeApi): string {
  return api.l10n.t('Use the hosted service');
}

/**
 * The settings layers that hold `pfc.backend` = emulator. `get` alone would
 * not do: in Restricted Mode VS Code ignores the workspace's value, which
 * would still hold once the folder is trusted, so every such layer counts.
 */
function emulatorTargets(api: VscodeApi): { target: ConfigurationTarget; workspace: boolean }[] {
  const i = api.workspace.getConfiguration('pfc').inspect<string>('backend');
  return [
    ...(i?.globalValue === 'emulator' ? [{ target: api.ConfigurationTarget.Global, workspace: false }] : []),
    ...(i?.workspaceValue === 'emulator' ? [{ target: api.ConfigurationTarget.Workspace, workspace: true }] : []),
  ];
}

/** `pfc.backend` back to `auto` wherever it says emulator: with the API key now stored, `auto` is the hosted service. */
async function useHostedService(api: VscodeApi): Promise<void> {
  for (const { target } of emulatorTargets(api)) await api.workspace.getConfiguration('pfc').update('backend', 'auto', target);
  api.window.setStatusBarMessage(api.l10n.t('Perfectly Clear: corrections now run on the hosted service with your API key (pfc.backend = auto).'), CONFIRMATION_MS);
}

/**
 * After an API key is stored: when `pfc.backend` = emulator (the walkthrough's
 * "Use the Local Emulator") keeps it unused, say so and offer to go back to
 * `auto`, which picks the hosted service now that a key is stored. Without
 * this the user sets a key and every run still goes to the emulator.
 */
export async function offerHostedService(api: VscodeApi): Promise<void> {
  // Only where the emulator is what runs now: a workspace's other backend decides on its own.
  if (api.workspace.getConfiguration('pfc').get<string>('backend') !== 'emulator') return;
  const where = emulatorTargets(api);
  const { t } = api.l10n;
  const hosted = useHostedButton(api);
  const choice = await api.window.showInformationMessage(
    where.some((w) => w.workspace)
      ? t('Perfectly Clear: API key saved, but corrections still run on the local emulator: this workspace\'s settings set pfc.backend to emulator. Use the hosted service with your key?')
      : t('Perfectly Clear: API key saved, but corrections still run on the local emulator: your settings set pfc.backend to emulator. Use the hosted service with your key?'),
    hosted,
  );
  if (choice === hosted) await useHostedService(api);
}
