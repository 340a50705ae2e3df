/**
 * API and licence keys live in VS Code's SecretStorage (the OS keychain or the
 * host's encrypted store), never in settings, never in logs. The commands here
 * ask with a password input box and store or delete them.
 */
import type * as vscode from 'vscode';
import type { VscodeApi } from './vscode-api';

/** SecretStorage entries. */
export const SECRET_KEYS = {
  apiKey: 'pfc.apiKey',
  bgrLicenceKey: 'pfc.bgrLicenceKey',
} as const;
export type KeyName = keyof typeof SECRET_KEYS;

const LABEL: Record<KeyName, string> = { apiKey: 'API key', bgrLicenceKey: 'BGR licence key' };

/** The extension's keys, read from SecretStorage each time (another window may change them). */
export class KeyStore {
  constructor(private readonly secrets: vscode.SecretStorage) {}

  async get(name: KeyName): Promise<string | undefined> {
    const v = await this.secrets.get(SECRET_KEYS[name]);
    return v && v.trim() !== '' ? v : undefined;
  }

  async set(name: KeyName, value: string): Promise<void> {
    await this.secrets.store(SECRET_KEYS[name], value.trim());
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

/** Ask for a key in a password box and store it. Returns whether one was stored. */
export async function promptAndStoreKey(api: VscodeApi, keys: KeyStore, name: KeyName): Promise<boolean> {
  const value = await api.window.showInputBox({
    title: `Perfectly Clear: ${LABEL[name]}`,
    prompt: `Paste your ${LABEL[name]}. It is kept in VS Code's secret storage, never in settings or logs.`,
    password: true,
    ignoreFocusOut: true,
    validateInput: (v) => (v.trim() === '' ? `The ${LABEL[name]} cannot be empty.` : /\s/.test(v.trim()) ? `The ${LABEL[name]} cannot contain spaces.` : undefined),
  });
  if (value === undefined || value.trim() === '') return false;
  await keys.set(name, value);
  void api.window.showInformationMessage(`Perfectly Clear: ${LABEL[name]} saved in secret storage.`);
  return true;
}

/** "Clear Keys": delete both keys after a modal confirmation. */
export async function clearKeys(api: VscodeApi, keys: KeyStore): Promise<boolean> {
  const ok = await api.window.showWarningMessage('Remove the Perfectly Clear API key and BGR licence key from secret storage?', { modal: true }, 'Clear Keys');
  if (ok !== 'Clear Keys') return false;
  await keys.clear();
  void api.window.showInformationMessage('Perfectly Clear: keys cleared.');
  return true;
}
