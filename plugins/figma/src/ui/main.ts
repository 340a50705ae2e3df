/**
 * Entry of the UI iframe: wires the form, the settings panel and the progress
 * list to the main thread (documents) and to the backend (network).
 */
import type { PresetRecord } from '@pfc/core';
import type { Command, SelectionSummary } from '../shared/messages';
import { secretSlot, type ApiKeyChange, type BackendChoice, type PublicSettings } from '../shared/settings';
import { backendLabel, openBackend } from './backend';
import { MainBridge, type MainEvent } from './bridge';
import { applyCommand, byId, fillStaticLists, readOptions, setChecked, setCustomPresets, syncForm, writeOptions } from './form';
import { ItemsView } from './items';
import { describeError } from './network';
import { runCorrection } from './runner';

/** Most custom presets listed. */
const MAX_PRESETS = 200;

let settings: PublicSettings | undefined;
let selection: SelectionSummary = { layers: 0, images: 0, fills: 0 };
let running: AbortController | undefined;
const items = new ItemsView();

function status(id: 'run-status' | 'settings-status' | 'presets-status', text: string, kind: 'ok' | 'error' | '' = ''): void {
  const el = byId(id);
  el.textContent = text;
  el.className = id === 'presets-status' ? `muted small ${kind}` : `status ${kind}`;
}

function showSelection(): void {
  const s = selection;
  byId('selection').textContent =
    s.layers === 0 ? 'Select layers with images' : `${s.images} image${s.images === 1 ? '' : 's'} in ${s.fills} fill${s.fills === 1 ? '' : 's'} · ${s.layers} selected`;
  const run = byId<HTMLButtonElement>('run');
  if (!running) {
    run.textContent = s.images > 0 ? `Correct ${s.images} image${s.images === 1 ? '' : 's'}` : 'Correct images';
    run.disabled = s.images === 0;
  }
}

function showView(which: 'options' | 'settings'): void {
  byId('options-view').hidden = which !== 'options';
  byId('settings-view').hidden = which !== 'settings';
}

function showSettings(s: PublicSettings): void {
  settings = s;
  setChecked('backend', s.backend);
  byId<HTMLInputElement>('container-url').value = s.containerURL;
  byId<HTMLInputElement>('bgr-url').value = s.bgrURL;
  byId<HTMLInputElement>('emulator-url').value = s.emulatorURL;
  byId<HTMLInputElement>('api-key').value = '';
  syncSettingsForm();
  byId('open-settings').title = `Settings · ${backendLabel(s)}`;
}

function syncSettingsForm(): void {
  const backend = document.querySelector<HTMLInputElement>('input[name="backend"]:checked')?.value as BackendChoice | undefined;
  byId('container-fields').hidden = backend !== 'container';
  byId('emulator-fields').hidden = backend !== 'emulator';
  // The container backend has no account; its secret is the BGR container's licence key.
  const slot = secretSlot(backend ?? 'hosted');
  byId('api-key-label').textContent = slot === 'bgrLicence' ? 'Background-removal licence key (optional)' : 'API key';
  // Only a hint is ever shown; a stored secret never comes back to the form.
  const stored = slot === 'bgrLicence' ? settings?.bgrLicenceHint : settings?.apiKeyHint;
  byId('api-key-hint').textContent = stored ? `Stored key: ${stored}` : 'No key stored';
  byId('forget-key').hidden = !stored;
}

/** Fill "Your presets"; returns the problem, if any, for the caller to show where the user is. */
async function loadPresets(bridge: MainBridge): Promise<string | undefined> {
  setCustomPresets([]);
  status('presets-status', '');
  try {
    const backend = openBackend(await bridge.request('backend/config', {}));
    if (!backend.listPresets) return;
    const names: string[] = [];
    for await (const p of backend.listPresets() as AsyncIterable<PresetRecord>) {
      names.push(p.name);
      if (names.length >= MAX_PRESETS) break;
    }
    setCustomPresets(names);
    return undefined;
  } catch (err) {
    const problem = `Your presets could not be loaded: ${describeError(err)}`;
    status('presets-status', problem, 'error');
    return problem;
  }
}

async function saveSettings(bridge: MainBridge, apiKey: ApiKeyChange): Promise<void> {
  const backend = (document.querySelector<HTMLInputElement>('input[name="backend"]:checked')?.value ?? 'hosted') as BackendChoice;
  try {
    const saved = await bridge.request('settings/save', {
      settings: {
        backend,
        containerURL: byId<HTMLInputElement>('container-url').value.trim(),
        bgrURL: byId<HTMLInputElement>('bgr-url').value.trim(),
        emulatorURL: byId<HTMLInputElement>('emulator-url').value.trim(),
      },
      apiKey,
    });
    showSettings(saved);
    status('settings-status', 'Saved · checking the connection…', 'ok');
    // Listing presets doubles as a connection check, reported here where the user is.
    const problem = await loadPresets(bridge);
    if (problem) status('settings-status', `Saved, but ${problem.charAt(0).toLowerCase()}${problem.slice(1)}`, 'error');
    else status('settings-status', 'Saved', 'ok');
  } catch (err) {
    status('settings-status', describeError(err), 'error');
  }
}

async function run(bridge: MainBridge): Promise<void> {
  const read = readOptions();
  if (!read.ok) return status('run-status', read.error, 'error');
  const controller = new AbortController();
  running = controller;
  const runButton = byId<HTMLButtonElement>('run');
  runButton.disabled = true;
  byId('cancel').hidden = false;
  items.clear();
  status('run-status', 'Reading the selection…');
  try {
    const backend = openBackend(await bridge.request('backend/config', {}));
    const result = await runCorrection(bridge, backend, read.options, controller.signal, {
      onPlan: (plan) => {
        items.show(plan);
        status('run-status', `Correcting ${plan.images.length} image${plan.images.length === 1 ? '' : 's'}…`);
      },
      onItem: (hash, update) => items.update(hash, update),
    });
    status('run-status', result.message, result.summary.failed > 0 || result.summary.cancelled ? 'error' : 'ok');
  } catch (err) {
    status('run-status', describeError(err), 'error');
  } finally {
    running = undefined;
    byId('cancel').hidden = true;
    showSelection();
  }
}

function onEvent(bridge: MainBridge, msg: MainEvent): void {
  switch (msg.type) {
    case 'init':
      selection = msg.selection;
      showSelection();
      showSettings(msg.settings);
      // The last run's options first ("Correct again" repeats them), then what the command asks for.
      if (msg.lastOptions) writeOptions(msg.lastOptions);
      start(msg.command);
      void loadPresets(bridge);
      return;
    case 'selection':
      selection = msg.selection;
      showSelection();
      return;
  }
}

function start(command: Command): void {
  applyCommand(command);
  showView(command === 'settings' ? 'settings' : 'options');
}

function wire(bridge: MainBridge): void {
  for (const id of ['remove-bg', 'ai-art', 'resize-kind']) byId(id).addEventListener('change', syncForm);
  for (const r of document.querySelectorAll('input[name="bg"]')) r.addEventListener('change', syncForm);
  for (const r of document.querySelectorAll('input[name="backend"]')) r.addEventListener('change', syncSettingsForm);
  byId('run').addEventListener('click', () => void run(bridge));
  byId('cancel').addEventListener('click', () => {
    running?.abort();
    status('run-status', 'Cancelling…');
  });
  byId('open-settings').addEventListener('click', () => {
    if (settings) showSettings(settings);
    status('settings-status', '');
    showView('settings');
  });
  byId('close-settings').addEventListener('click', () => showView('options'));
  byId('save-settings').addEventListener('click', () => {
    const key = byId<HTMLInputElement>('api-key').value;
    void saveSettings(bridge, key ? { action: 'set', value: key } : { action: 'keep' });
  });
  byId('forget-key').addEventListener('click', () => void saveSettings(bridge, { action: 'clear' }));
}

fillStaticLists();
syncForm();
const bridge = MainBridge.connect(window, (msg) => onEvent(bridge, msg));
wire(bridge);
bridge.send({ type: 'ui/ready' });
