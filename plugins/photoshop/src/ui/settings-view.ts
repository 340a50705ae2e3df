/**
 * The Settings section: backend choice, addresses, and keys. Keys go to
 * secure storage on Save and are never put back into the form; the form only
 * says whether one is stored.
 */
import type { Host } from '../host/types';
import { describeBackend, type BackendSecrets } from '../backend/factory';
import {
  loadSecret, loadSettings, saveSecret, saveSettings, type BackendChoice, type KeyValueStore, type PanelSettings, type SecretName,
} from '../settings/store';
import { button, byId, clearSecret, field, makeSecretField, picker, pickerValue, secretValue, setPickerOptions, setPickerValue, show } from './dom';

export class SettingsView {
  settings: PanelSettings;
  secrets: BackendSecrets = {};
  /** Called after a successful save (to reload presets). */
  onSaved: (() => void) | undefined;

  constructor(
    private readonly host: Host,
    private readonly store: KeyValueStore,
    private readonly say: (text: string, kind: 'error' | 'info') => void,
  ) {
    this.settings = loadSettings(store);
  }

  async init(): Promise<void> {
    const secure = this.host.uxp.storage.secureStorage;
    this.secrets = { apiKey: await loadSecret(secure, 'apiKey'), bgrLicenceKey: await loadSecret(secure, 'bgrLicenceKey') };
    setPickerOptions(picker('backend'), [
      { value: 'hosted', label: 'Hosted Web API' }, { value: 'container', label: 'Self-hosted container' }, { value: 'emulator', label: 'Local emulator' },
    ]);
    makeSecretField(field('api-key'));
    makeSecretField(field('bgr-key'));
    this.fill();
    picker('backend').addEventListener('change', () => this.showFields());
    button('toggle-settings').addEventListener('click', () => show(byId('settings'), byId('settings').classList.contains('hidden')));
    button('save-settings').addEventListener('click', () => void this.save());
    button('remove-api-key').addEventListener('click', () => void this.removeKey('apiKey'));
    button('remove-bgr-key').addEventListener('click', () => void this.removeKey('bgrLicenceKey'));
  }

  /** Delete a saved key from secure storage (the hosted backend then asks for one again). */
  private async removeKey(name: SecretName): Promise<void> {
    try {
      await saveSecret(this.host.uxp.storage.secureStorage, name, '');
      delete this.secrets[name];
      this.showFields();
      this.say(name === 'apiKey' ? 'The saved API key was removed.' : 'The saved licence key was removed.', 'info');
    } catch (err) {
      this.say(`The key could not be removed: ${err instanceof Error ? err.message : String(err)}`, 'error');
    }
  }

  private fill(): void {
    const s = this.settings;
    setPickerValue(picker('backend'), s.backend);
    field('hosted-url').value = s.hostedURL;
    field('emulator-url').value = s.emulatorURL;
    field('container-url').value = s.containerURL;
    field('bgr-url').value = s.bgrURL;
    clearSecret(field('api-key'));
    clearSecret(field('bgr-key'));
    this.showFields();
    byId('backend-label').textContent = describeBackend(s);
  }

  private showFields(): void {
    const backend = pickerValue(picker('backend')) as BackendChoice;
    show(byId('hosted-fields'), backend === 'hosted');
    show(byId('emulator-fields'), backend === 'emulator');
    show(byId('container-fields'), backend === 'container');
    show(byId('key-fields'), backend !== 'container');
    // sp-textfield takes `placeholder` as an attribute (sp-textfield.md:21); it documents no such property.
    field('api-key').setAttribute('placeholder', this.secrets.apiKey ? 'saved — type to replace' : backend === 'emulator' ? 'optional' : 'your API key');
    field('bgr-key').setAttribute('placeholder', this.secrets.bgrLicenceKey ? 'saved — type to replace' : 'optional');
    show(button('remove-api-key'), !!this.secrets.apiKey);
    show(button('remove-bgr-key'), !!this.secrets.bgrLicenceKey);
    byId('key-hint').textContent = backend === 'hosted' ? 'Stored encrypted in Photoshop’s secure storage.' : 'The emulator accepts any key.';
  }

  private async save(): Promise<void> {
    const next: PanelSettings = {
      backend: pickerValue(picker('backend')) as BackendChoice,
      hostedURL: field('hosted-url').value.trim(),
      emulatorURL: field('emulator-url').value.trim(),
      containerURL: field('container-url').value.trim(),
      bgrURL: field('bgr-url').value.trim(),
    };
    try {
      saveSettings(this.store, next);
      const secure = this.host.uxp.storage.secureStorage;
      const apiKey = secretValue(field('api-key'));
      if (apiKey.trim()) {
        await saveSecret(secure, 'apiKey', apiKey);
        this.secrets.apiKey = apiKey.trim();
      }
      const bgrKey = secretValue(field('bgr-key'));
      if (bgrKey.trim()) {
        await saveSecret(secure, 'bgrLicenceKey', bgrKey);
        this.secrets.bgrLicenceKey = bgrKey.trim();
      }
      this.settings = next;
      this.fill();
      this.say('Settings saved.', 'info');
      this.onSaved?.();
    } catch (err) {
      this.say(`Settings not saved: ${err instanceof Error ? err.message : String(err)}`, 'error');
    }
  }
}
