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
import { applyAccepted, correctForPreview, discardRun, type PreviewRun } from './runner';
import type { RunOptions } from './options';

/** Most custom presets listed. */
const MAX_PRESETS = 200;

let settings: PublicSettings | undefined;
let selection: SelectionSummary = { layers: 0, images: 0, fills: 0 };
let running: AbortController | undefined;
/** A corrected run waiting for the user to accept or reject its results. */
let review: PreviewRun | undefined;
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
    run.disabled = s.images === 0 || review !== undefined;
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

function showReview(on: boolean): void {
  byId('review-actions').hidden = !on;
  byId<HTMLButtonElement>('run').disabled = on || selection.images === 0;
}

/** End a pending review without applying anything (a new run, or Discard). */
async function discardReview(bridge: MainBridge): Promise<void> {
  const pending = review;
  review = undefined;
  showReview(false);
  if (!pending) return;
  const { message } = await discardRun(bridge, pending);
  status('run-status', `Discarded: ${message}`, 'ok');
}

/** Correct the selection and show the results for review; nothing on the canvas changes yet. */
async function run(bridge: MainBridge, preset?: RunOptions): Promise<void> {
  const read = preset ? { ok: true as const, options: preset } : readOptions();
  if (!read.ok) return status('run-status', read.error, 'error');
  await discardReview(bridge);
  const controller = new AbortController();
  running = controller;
  byId<HTMLButtonElement>('run').disabled = true;
  byId('cancel').hidden = false;
  byId('run-warnings').hidden = true;
  items.clear();
  status('run-status', 'Reading the selection…');
  try {
    const backend = openBackend(await bridge.request('backend/config', {}));
    const pending = await correctForPreview(bridge, backend, read.options, controller.signal, {
      onPlan: (plan) => {
        items.show(plan);
        status('run-status', `Correcting ${plan.images.length} image${plan.images.length === 1 ? '' : 's'}…`);
        if (plan.warnings.length > 0) {
          byId('run-warnings').textContent = plan.warnings.join(' ');
          byId('run-warnings').hidden = false;
        }
      },
      onItem: (hash, update) => items.update(hash, update),
    });
    if (pending.previews.size === 0) {
      const { summary, message } = await discardRun(bridge, pending);
      status('run-status', message, summary.failed > 0 || summary.cancelled ? 'error' : 'ok');
      return;
    }
    review = pending;
    const n = pending.previews.size;
    status('run-status', `${n} result${n === 1 ? '' : 's'} to review: untick any you do not want, then Apply accepted. Nothing has changed yet.`);
    showReview(true);
  } catch (err) {
    status('run-status', describeError(err), 'error');
  } finally {
    running = undefined;
    byId('cancel').hidden = true;
    showSelection();
    if (review) showReview(true);
  }
}

/** Put the accepted results into the document. */
async function applyReview(bridge: MainBridge): Promise<void> {
  const pending = review;
  if (!pending) return;
  review = undefined;
  showReview(false);
  status('run-status', 'Putting the accepted results into Figma…');
  try {
    const { summary, message } = await applyAccepted(bridge, pending, items.accepted(), (hash, u) => items.update(hash, u));
    status('run-status', message, summary.failed > 0 || summary.cancelled ? 'error' : 'ok');
  } catch (err) {
    status('run-status', describeError(err), 'error');
  } finally {
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
      // "Correct again": the options saved on the layer, at once (the results still wait for review).
      if (msg.command === 'correct-again') {
        if (msg.againOptions) writeOptions(msg.againOptions);
        void run(bridge, msg.againOptions ?? undefined);
      }
      return;
    case 'plan/progress':
      if (running) status('run-status', `Reading the selection… ${msg.done} of ${msg.total} images`);
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
  for (const id of ['remove-bg', 'ai-art', 'resize-kind', 'output-type']) byId(id).addEventListener('change', syncForm);
  for (const r of document.querySelectorAll('input[name="bg"]')) r.addEventListener('change', syncForm);
  for (const r of document.querySelectorAll('input[name="backend"]')) r.addEventListener('change', syncSettingsForm);
  byId('run').addEventListener('click', () => void run(bridge));
  byId('cancel').addEventListener('click', () => {
    running?.abort();
    bridge.send({ type: 'plan/cancel' });
    status('run-status', 'Cancelling…');
  });
  byId('apply').addEventListener('click', () => void applyReview(bridge));
  byId('discard').addEventListener('click', () => void discardReview(bridge));
  byId('accept-all').addEventListener('click', () => items.setAll(true));
  byId('reject-all').addEventListener('click', () => items.setAll(false));
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
