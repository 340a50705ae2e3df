/** The options form: filling its lists, reading it into `RunOptions`, and presetting it per menu command. */
import { AI_ART_CHARACTERS, AI_ART_STYLES, BUILT_IN_PRESETS, DIMENSION_RANGE, QUALITY_RANGE, SCALE_RANGE } from '@pfc/core';
import type { ResizeChoice } from '../shared/fit';
import type { Command, Placement } from '../shared/messages';
import { AI_ART_NAMES, DEFAULT_OPTIONS, type BackgroundKind, type RunOptions } from './options';

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`ui.html has no #${id}`);
  return el as T;
}

function option(value: string, label: string): HTMLOptionElement {
  const o = document.createElement('option');
  o.value = value;
  o.textContent = label;
  return o;
}

function checkedValue(name: string): string {
  return document.querySelector<HTMLInputElement>(`input[name="${name}"]:checked`)?.value ?? '';
}

export function setChecked(name: string, value: string): void {
  const input = document.querySelector<HTMLInputElement>(`input[name="${name}"][value="${value}"]`);
  if (input) input.checked = true;
}

/** Fill the built-in presets and AI Art lists from the contract in core. */
export function fillStaticLists(): void {
  const builtin = byId('builtin-presets');
  for (const p of BUILT_IN_PRESETS) builtin.append(option(p, p === 'Universal' ? 'Universal (AI preset selection)' : p));
  const styles = byId('ai-art-styles');
  for (const t of AI_ART_STYLES) styles.append(option(t, AI_ART_NAMES[t]));
  const characters = byId('ai-art-characters');
  for (const t of AI_ART_CHARACTERS) characters.append(option(t, AI_ART_NAMES[t]));
  // While the page was parsed only "No colour correction" existed, so the browser selected it.
  byId<HTMLSelectElement>('preset').value = DEFAULT_OPTIONS.preset;
}

/** A remembered custom preset waiting for the account's list to arrive. */
let pendingPreset: string | undefined;

function hasOption(select: HTMLSelectElement, value: string): boolean {
  return [...select.options].some((o) => o.value === value);
}

/** Show the account's custom presets (by name, which is what `/pfc` takes). */
export function setCustomPresets(names: readonly string[]): void {
  const group = byId('custom-presets');
  const select = byId<HTMLSelectElement>('preset');
  const current = pendingPreset ?? select.value;
  group.replaceChildren(...names.map((n) => option(n, n)));
  group.hidden = names.length === 0;
  if (hasOption(select, current)) {
    select.value = current;
    if (names.includes(current)) pendingPreset = undefined;
  }
}

/** Put options (the last run's) into the form. */
export function writeOptions(o: RunOptions): void {
  const preset = byId<HTMLSelectElement>('preset');
  if (hasOption(preset, o.preset)) preset.value = o.preset;
  else pendingPreset = o.preset;
  byId<HTMLInputElement>('remove-bg').checked = o.removeBackground;
  setChecked('bg', o.background);
  byId<HTMLInputElement>('bg-color').value = o.bgColor;
  byId<HTMLSelectElement>('bg-shadow').value = o.bgShadow;
  const aiArt = byId<HTMLSelectElement>('ai-art');
  if (hasOption(aiArt, o.aiArt)) aiArt.value = o.aiArt;
  byId<HTMLSelectElement>('ai-art-size').value = o.aiArtOutputSize;
  byId<HTMLSelectElement>('resize-kind').value = o.resize.kind;
  const value = o.resize.kind === 'long' ? o.resize.px : o.resize.kind === 'scale' ? o.resize.percent : '';
  byId<HTMLInputElement>('resize-value').value = String(value);
  setChecked('placement', o.placement);
  byId<HTMLInputElement>('remove-glares').checked = o.removeGlares;
  byId<HTMLInputElement>('remove-blemish').checked = o.removeBlemish;
  byId<HTMLInputElement>('autocrop').checked = o.autocrop;
  byId<HTMLSelectElement>('output-type').value = o.outputType;
  byId<HTMLInputElement>('output-quality').value = String(o.outputQuality);
  byId<HTMLInputElement>('include-hidden').checked = o.includeHidden;
  syncForm();
}

/** Show and hide the dependent controls. */
export function syncForm(): void {
  const removeBg = byId<HTMLInputElement>('remove-bg').checked;
  byId('bg-options').hidden = !removeBg;
  const bg = checkedValue('bg');
  byId('bg-colour-row').hidden = bg === 'transparent';
  byId('bg-shadow').hidden = bg !== 'shadow';
  byId('bg-shadow-label').hidden = bg !== 'shadow';
  byId<HTMLSelectElement>('ai-art-size').disabled = byId<HTMLSelectElement>('ai-art').value === '';
  byId('output-quality').hidden = byId<HTMLSelectElement>('output-type').value !== 'jpg';
  const kind = byId<HTMLSelectElement>('resize-kind').value;
  const value = byId<HTMLInputElement>('resize-value');
  value.hidden = kind === 'none';
  if (kind === 'long' && !value.value) value.value = '2048';
  if (kind === 'scale' && !value.value) value.value = '200';
}

function readResize(): ResizeChoice | string {
  const kind = byId<HTMLSelectElement>('resize-kind').value;
  if (kind === 'none') return { kind: 'none' };
  const raw = byId<HTMLInputElement>('resize-value').value.trim();
  const n = Number(raw);
  const range = kind === 'long' ? DIMENSION_RANGE : SCALE_RANGE;
  const what = kind === 'long' ? 'Long edge' : 'Scale';
  if (!/^\d+$/.test(raw) || n < range.min || n > range.max) {
    return `${what} must be a whole number from ${range.min} to ${range.max}${kind === 'long' ? ' px' : ' %'} (got ${raw || 'nothing'})`;
  }
  return kind === 'long' ? { kind: 'long', px: n } : { kind: 'scale', percent: n };
}

/** The form's values, or a message naming the field that is wrong. */
export function readOptions(): { ok: true; options: RunOptions } | { ok: false; error: string } {
  const resize = readResize();
  if (typeof resize === 'string') return { ok: false, error: resize };
  const outputType = byId<HTMLSelectElement>('output-type').value as RunOptions['outputType'];
  const qualityRaw = byId<HTMLInputElement>('output-quality').value.trim();
  const outputQuality = Number(qualityRaw);
  if (outputType === 'jpg' && (!/^\d+$/.test(qualityRaw) || outputQuality < QUALITY_RANGE.min || outputQuality > QUALITY_RANGE.max)) {
    return { ok: false, error: `JPEG quality must be a whole number from ${QUALITY_RANGE.min} to ${QUALITY_RANGE.max} (got ${qualityRaw || 'nothing'})` };
  }
  const aiArt = byId<HTMLSelectElement>('ai-art').value;
  return {
    ok: true,
    options: {
      preset: byId<HTMLSelectElement>('preset').value,
      removeBackground: byId<HTMLInputElement>('remove-bg').checked,
      background: (checkedValue('bg') || 'transparent') as BackgroundKind,
      bgColor: byId<HTMLInputElement>('bg-color').value,
      bgShadow: byId<HTMLSelectElement>('bg-shadow').value as RunOptions['bgShadow'],
      aiArt,
      aiArtOutputSize: byId<HTMLSelectElement>('ai-art-size').value as RunOptions['aiArtOutputSize'],
      resize,
      placement: (checkedValue('placement') || 'replace') as Placement,
      removeGlares: byId<HTMLInputElement>('remove-glares').checked,
      removeBlemish: byId<HTMLInputElement>('remove-blemish').checked,
      autocrop: byId<HTMLInputElement>('autocrop').checked,
      outputType,
      outputQuality: outputType === 'jpg' ? outputQuality : DEFAULT_OPTIONS.outputQuality,
      includeHidden: byId<HTMLInputElement>('include-hidden').checked,
    },
  };
}

/** Preset the form for the menu command the plugin was started with. */
export function applyCommand(command: Command): void {
  if (command === 'remove-background') byId<HTMLInputElement>('remove-bg').checked = true;
  if (command === 'ai-art') {
    const select = byId<HTMLSelectElement>('ai-art');
    if (!select.value) select.value = AI_ART_STYLES[0];
    select.focus();
  }
  syncForm();
}
