/**
 * The panel: correction choices, the three buttons, progress with Cancel,
 * and one line per document with what happened.
 */
import { AI_ART_STYLES, BUILT_IN_PRESETS, type AiArtToken, type CorrectionBackend, type FetchLike } from '@pfc/core';
import { createBackend } from '../backend/factory';
import type { Host } from '../host/types';
import { DEFAULT_CHOICES, describeCorrection, toParams, type BackgroundChoice, type PanelChoices, type ResizeChoice, type ShadowChoice } from '../correct/options';
import { makePreview, type Preview } from '../correct/preview';
import { messageOf, runCorrections, type Outcome, type RunProgress } from '../correct/run';
import { resolveTargets, type Scope } from '../correct/targets';
import type { KeyValueStore } from '../settings/store';
import { button, byId, checkbox, el, field, picker, pickerValue, setDisabled, setPickerOptions, show, slider } from './dom';
import { SettingsView } from './settings-view';

const PHASE_TEXT: Record<RunProgress['phase'], string> = {
  reading: 'reading pixels', validating: 'checking', uploading: 'uploading', queued: 'queued', processing: 'processing',
  downloading: 'downloading', applying: 'adding the result', done: 'done',
};
/**
 * What the progress line says of a document: its phase, or — while the service makes it wait (a 429's
 * `Retry-After`, a 503) — why and how long is left, counting down (`RunProgress.waiting`, core's wording).
 */
function statusText(phase: RunProgress['phase'], waiting: string | undefined): string {
  return waiting ?? PHASE_TEXT[phase];
}

/** Most custom presets listed (the selector stays usable). */
const MAX_CUSTOM_PRESETS = 200;
/** Longest wait for the account's preset list, in ms. */
const PRESET_LIST_TIMEOUT_MS = 20_000;

export interface PanelEnv {
  fetch: FetchLike;
  store: KeyValueStore;
}

export class Panel {
  private readonly settings: SettingsView;
  private running: AbortController | undefined;
  private customPresets: string[] = [];
  private shown: { preview: Preview; name: string } | undefined;
  /** Paid results Photoshop was too busy to take, kept for the session until placed (`Outcome.placeAgain`). */
  private kept: Outcome[] = [];

  constructor(
    private readonly host: Host,
    private readonly env: PanelEnv,
  ) {
    this.settings = new SettingsView(host, env.store, (text, kind) => this.say(text, kind));
    this.settings.onSaved = () => void this.refreshPresets();
  }

  async start(): Promise<void> {
    setPickerOptions(picker('ai-art'), [{ value: '', label: 'None' }, ...AI_ART_STYLES.map((s) => ({ value: s, label: s }))]);
    setPickerOptions(picker('background'), [
      { value: 'keep', label: 'Keep' }, { value: 'transparent', label: 'Remove (transparent)' }, { value: 'colour', label: 'Replace with colour' },
    ]);
    setPickerOptions(picker('shadow'), [
      { value: 'none', label: 'None' }, { value: 'soft', label: 'Soft' }, { value: 'hard', label: 'Hard' }, { value: 'floating', label: 'Floating' },
    ]);
    setPickerOptions(picker('resize'), [{ value: 'none', label: 'Keep size' }, { value: 'long', label: 'Long edge (px)' }, { value: 'scale', label: 'Scale (%)' }]);
    setPickerOptions(picker('preview-target'), [{ value: 'document', label: 'Document' }, { value: 'layer', label: 'Active layer' }]);
    field('bg-colour').value = '#ffffff';
    field('resize-value').value = '200';
    this.renderPresets();
    for (const id of ['background', 'resize']) picker(id).addEventListener('change', () => this.showDependentFields());
    this.showDependentFields();
    button('correct-document').addEventListener('click', () => void this.run('document'));
    button('correct-layer').addEventListener('click', () => void this.run('layer'));
    button('correct-all').addEventListener('click', () => void this.run('all'));
    button('cancel').addEventListener('click', () => this.cancel());
    button('preview').addEventListener('click', () => void this.preview());
    button('place-kept').addEventListener('click', () => void this.placeKept());
    button('show-before').addEventListener('click', () => this.showPreview('before'));
    button('show-after').addEventListener('click', () => this.showPreview('after'));
    button('refresh-presets').addEventListener('click', () => void this.refreshPresets());
    await this.settings.init();
    await this.refreshPresets();
  }

  /** The choices as they stand in the form. */
  choices(): PanelChoices {
    return {
      preset: pickerValue(picker('preset')) || DEFAULT_CHOICES.preset,
      background: pickerValue(picker('background')) as BackgroundChoice,
      backgroundColour: field('bg-colour').value.trim(),
      shadow: pickerValue(picker('shadow')) as ShadowChoice,
      aiArt: pickerValue(picker('ai-art')) as AiArtToken | '',
      resize: pickerValue(picker('resize')) as ResizeChoice,
      resizeValue: Number(field('resize-value').value),
    };
  }

  private showDependentFields(): void {
    const bg = pickerValue(picker('background'));
    show(byId('colour-row'), bg === 'colour');
    show(byId('shadow-row'), bg === 'colour');
    const resize = pickerValue(picker('resize'));
    show(field('resize-value'), resize !== 'none');
    show(byId('resize-hint'), resize !== 'none');
  }

  private renderPresets(): void {
    setPickerOptions(picker('preset'), [
      ...BUILT_IN_PRESETS.map((p) => ({ value: p, label: p === 'Universal' ? 'Universal (AI preset selection)' : p })),
      { value: 'none', label: 'No colour correction' },
      // The account's presets after a divider (sp-menu.md:10).
      ...(this.customPresets.length > 0 ? (['divider'] as const) : []),
      ...this.customPresets.map((name) => ({ value: name, label: name })),
    ]);
  }

  private backend(): CorrectionBackend {
    return createBackend(this.settings.settings, this.settings.secrets, this.env.fetch);
  }

  /** Load the account's custom presets; a failure is said, and the built-in ones stay usable. */
  async refreshPresets(): Promise<void> {
    let backend: CorrectionBackend;
    try {
      backend = this.backend();
    } catch {
      return; // Not configured yet: the built-in presets are enough.
    }
    if (!backend.listPresets) return;
    const names: string[] = [];
    // UXP's AbortSignal has no static timeout() (abort-signal.md:9-33): a controller and a timer instead.
    const limit = new AbortController();
    const timer = setTimeout(() => limit.abort(), PRESET_LIST_TIMEOUT_MS);
    try {
      for await (const p of backend.listPresets({ signal: limit.signal })) {
        if (!names.includes(p.name)) names.push(p.name);
        if (names.length >= MAX_CUSTOM_PRESETS) break;
      }
      this.customPresets = names;
      this.renderPresets();
    } catch (err) {
      this.say(`Your custom presets could not be loaded: ${messageOf(err)}`, 'error');
    } finally {
      clearTimeout(timer);
    }
  }

  private async run(scope: Scope): Promise<void> {
    if (this.running) return;
    this.say('', 'info');
    byId('outcomes').textContent = '';
    let outcomes: Outcome[];
    const abort = new AbortController();
    try {
      const targets = resolveTargets(this.host, scope);
      const backend = this.backend();
      const params = toParams(this.choices());
      this.setRunning(abort);
      outcomes = await runCorrections(this.host, backend, targets, params, {
        signal: abort.signal,
        strength: Math.round(Number(slider('strength').value)),
        selectionOnly: checkbox('selection-only').checked,
        onProgress: (p) => this.progress(p),
      });
    } catch (err) {
      this.say(messageOf(err), 'error');
      return;
    } finally {
      this.setRunning(undefined);
    }
    this.renderOutcomes(outcomes);
  }

  /** Place the kept results (see {@link kept}), each as its run would have: those Photoshop is still too busy for stay kept. */
  private async placeKept(): Promise<void> {
    if (this.running || this.kept.length === 0) return;
    this.say('', 'info');
    byId('outcomes').textContent = '';
    const abort = new AbortController();
    const kept = this.kept;
    this.kept = [];
    const outcomes: Outcome[] = [];
    this.setRunning(abort);
    try {
      for (const [index, o] of kept.entries()) {
        byId('progress-text').textContent = `${kept.length > 1 ? `${index + 1}/${kept.length} ` : ''}${o.title}: adding the kept result…`;
        // Cancel ends the one that waits; the others are not tried, and stay kept.
        outcomes.push(abort.signal.aborted ? o : await o.placeAgain!(abort.signal));
      }
    } finally {
      this.setRunning(undefined);
    }
    this.renderOutcomes(outcomes);
  }

  /** Correct a small copy of the active document and show it; the document is not touched. */
  private async preview(): Promise<void> {
    if (this.running) return;
    this.say('', 'info');
    const abort = new AbortController();
    try {
      const backend = this.backend();
      const params = toParams(this.choices());
      this.setRunning(abort);
      // Until the service reports its first phase: the read may first wait for Photoshop (a dialog open).
      byId('progress-text').textContent = 'Preview: reading a small copy of the document…';
      const scope = pickerValue(picker('preview-target')) === 'layer' ? 'layer' : 'document';
      const preview = await makePreview(this.host, backend, params, scope, abort.signal, (phase, waiting) => {
        if (!abort.signal.aborted) byId('progress-text').textContent = `Preview: ${statusText(phase, waiting)}`;
      });
      this.shown = { preview, name: describeCorrection(params) };
      this.showPreview('after');
      if (preview.notes.length > 0) this.say(preview.notes.join(' · '), 'info');
    } catch (err) {
      this.say(abort.signal.aborted ? 'Preview cancelled.' : `No preview: ${messageOf(err)}`, abort.signal.aborted ? 'info' : 'error');
    } finally {
      this.setRunning(undefined);
    }
  }

  private showPreview(which: 'before' | 'after'): void {
    if (!this.shown) return;
    const { preview, name } = this.shown;
    (byId('preview-image') as HTMLImageElement).src = which === 'before' ? preview.before : preview.after;
    byId('preview-caption').textContent = which === 'before' ? `${preview.title}: before` : `${preview.title}: after — ${name}`;
    setDisabled(button('show-before'), false);
    setDisabled(button('show-after'), false);
    button('show-before').classList.toggle('on', which === 'before');
    button('show-after').classList.toggle('on', which === 'after');
    show(byId('preview-area'), true);
  }

  private cancel(): void {
    if (!this.running) return;
    this.running.abort();
    byId('progress-text').textContent = 'Cancelling…';
    setDisabled(button('cancel'), true);
  }

  private setRunning(abort: AbortController | undefined): void {
    this.running = abort;
    for (const id of ['correct-document', 'correct-layer', 'correct-all', 'preview', 'place-kept', 'refresh-presets', 'save-settings']) setDisabled(button(id), !!abort);
    setDisabled(button('cancel'), !abort);
    show(byId('progress-area'), !!abort);
    if (abort) {
      // sp-progressbar documents its value as an attribute only (sp-progressbar.md:21).
      byId('progress').setAttribute('value', '0');
      byId('progress-text').textContent = 'Starting…';
    }
  }

  private progress(p: RunProgress): void {
    byId('progress').setAttribute('value', String(Math.round(p.fraction * 100)));
    const of = p.total > 1 ? `${p.index + 1}/${p.total} ` : '';
    if (!this.running?.signal.aborted) byId('progress-text').textContent = `${of}${p.title}: ${statusText(p.phase, p.waiting)}`;
  }

  private renderOutcomes(outcomes: Outcome[]): void {
    this.kept.push(...outcomes.filter((o) => o.placeAgain));
    show(button('place-kept'), this.kept.length > 0);
    const list = byId('outcomes');
    for (const o of outcomes) {
      const item = el('li', o.status, '');
      item.appendChild(el('span', 'title', o.title));
      item.appendChild(document.createTextNode(` — ${o.message}`));
      for (const note of o.notes) item.appendChild(el('span', 'note', note));
      list.appendChild(item);
    }
    const done = outcomes.filter((o) => o.status === 'done').length;
    const failed = outcomes.filter((o) => o.status === 'failed').length;
    const cancelled = outcomes.filter((o) => o.status === 'cancelled').length;
    const parts = [`${done} of ${outcomes.length} corrected`];
    if (failed) parts.push(`${failed} failed`);
    if (cancelled) parts.push(`${cancelled} cancelled`);
    this.say(parts.join(', ') + '.', failed ? 'error' : 'info');
  }

  private say(text: string, kind: 'error' | 'info'): void {
    const box = byId('message');
    box.textContent = text;
    box.className = kind === 'info' ? 'info' : '';
    show(box, text !== '');
  }
}
