/**
 * API and licence keys live in VS Code's SecretStorage (the OS keychain or the
 * host's encrypted store), never in settings, never in logs. The commands here
 * ask with a password input box and store or delete them.
 */
import { AuthenticationError, PermissionDeniedError } from '@pfc/core';
import type * as vscode from 'vscode';
import type { VscodeApi, VscodeL10n } from './vscode-api';

/** SecretStorage entries. */
export const SECRET_KEYS = {
  apiKey: 'pfc.apiKey',
  bgrLicenceKey: 'pfc.bgrLicenceKey',
} as const;
export type KeyName = keyof typeof SECRET_KEYS;

/** The extension's keys, read from SecretStorage each time (another window may change them). */
export class KeyStore {
  /**
   * `onValue` hears every value before it is stored, so the log masks a key
   * from the moment it is set (a run may be logging at that very moment).
   */
  constructor(private readonly secrets: vscode.SecretStorage, private readonly onValue?: (value: string) => void) {}

  async get(name: KeyName): Promise<string | undefined> {
    const v = await this.secrets.get(SECRET_KEYS[name]);
    return v && v.trim() !== '' ? v : undefined;
  }

  async set(name: KeyName, value: string): Promise<void> {
    this.onValue?.(value.trim());
    await this.secrets.store(SECRET_KEYS[name], value.trim());
  }

  /**
   * Calls `listener` with every stored key value whenever one of the
   * extension's keys is stored or deleted, also by another window
   * (`SecretStorage.onDidChange`: "Fires when a secret is stored or deleted",
   * @types/vscode 1.100).
   */
  onDidChange(listener: (values: string[]) => void): vscode.Disposable {
    const ours = new Set<string>(Object.values(SECRET_KEYS));
    return this.secrets.onDidChange((e) => {
      if (ours.has(e.key)) void this.values().then(listener);
    });
  }

  async clear(): Promise<void> {
    for (const k of Object.values(SECRET_KEYS)) await this.secrets.delete(k);
  }

  /** Every stored key value, for scrubbing log lines (defence in depth: keys are never logged on purpose). */
  async values(): Promise<string[]> {
    const all = await Promise.all((Object.keys(SECRET_KEYS) as KeyName[]).map((k) => this.get(k)));
    return all.filter((v): v is string => v !== undefined);
  }
}

/**
 * The button that sets a key, in the display language. Every notification
 * about a key offers the same one — a key missing at the first run, no local
 * emulator in this installation, the service refusing the key — and a click
 * runs what the key's command (`pfc.setApiKey`, `pfc.setBgrLicenceKey`) runs:
 * `promptAndStoreKey`. The choice comes back
 * as this translated label.
 */
export function setKeyButton(l10n: VscodeL10n, name: KeyName): string {
  return name === 'apiKey' ? l10n.t('Set API Key') : l10n.t('Set BGR Licence Key');
}

/** The service refused the credentials: 401 (`AuthenticationError`) or 403 (`PermissionDeniedError`), as @pfc/batch's run stops on. */
export function isRefusedKey(err: unknown): boolean {
  return err instanceof AuthenticationError || err instanceof PermissionDeniedError;
}

/**
 * The service refused a key while the extension used it outside a run (an
 * upload): says which key, so the error notification can offer to set it.
 */
export class KeyRefusedError extends Error {
  override name = 'KeyRefusedError';
  constructor(readonly key: KeyName, refused: Error) {
    super(refused.message, { cause: refused });
  }
}

/**
 * How long a key's confirmation stays in the status bar. Confirmations of what
 * the user just did go there, not to a notification: VS Code shows at most 3
 * toasts per 800 ms, and a run refused for its key uses all three (scan,
 * progress, summary) within a moment, so one more toast could send the run's
 * summary to the Notification Center unseen.
 */
export const CONFIRMATION_MS = 10_000;

/** Ask for a key in a password box and store it. Returns whether one was stored. */
export async function promptAndStoreKey(api: VscodeApi, keys: KeyStore, name: KeyName): Promise<boolean> {
  const { t } = api.l10n;
  // Whole sentences per key: a translation may need the key's name in a different case or place.
  const text = name === 'apiKey'
    ? {
      title: t('Perfectly Clear: API key'),
      prompt: t("Paste your API key. It is kept in VS Code's secret storage, never in settings or logs."),
      empty: t('The API key cannot be empty.'),
      spaces: t('The API key cannot contain spaces.'),
      saved: t('Perfectly Clear: API key saved in secret storage.'),
    }
    : {
      title: t('Perfectly Clear: BGR licence key'),
      prompt: t("Paste your BGR licence key. It is kept in VS Code's secret storage, never in settings or logs."),
      empty: t('The BGR licence key cannot be empty.'),
      spaces: t('The BGR licence key cannot contain spaces.'),
      saved: t('Perfectly Clear: BGR licence key saved in secret storage.'),
    };
  const value = await api.window.showInputBox({
    title: text.title,
    prompt: text.prompt,
    password: true,
    ignoreFocusOut: true,
    validateInput: (v) => (v.trim() === '' ? text.empty : /\s/.test(v.trim()) ? text.spaces : undefined),
  });
  if (value === undefined || value.trim() === '') return false;
  await keys.set(name, value);
  api.window.setStatusBarMessage(text.saved, CONFIRMATION_MS);
  return true;
}

/** "Clear Keys": delete both keys after a modal confirmation. */
export async function clearKeys(api: VscodeApi, keys: KeyStore): Promise<boolean> {
  const clear = api.l10n.t('Clear Keys');
  const ok = await api.window.showWarningMessage(api.l10n.t('Remove the Perfectly Clear API key and BGR licence key from secret storage?'), { modal: true }, clear);
  if (ok !== clear) return false;
  await keys.clear();
  api.window.setStatusBarMessage(api.l10n.t('Perfectly Clear: keys cleared.'), CONFIRMATION_MS);
  return true;
}
