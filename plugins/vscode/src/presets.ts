/**
 * The preset picker: the built-in AI preset groups, then the account's custom
 * presets fetched from the backend (listed while the picker is already open).
 */
import type * as vscode from 'vscode';
import { BUILT_IN_PRESETS, type CorrectionBackend } from '@pfc/core';
import type { VscodeL10n } from './vscode-api';

export interface PresetItem extends vscode.QuickPickItem {
  /** The `preset` parameter; undefined on separators. */
  preset?: string;
}

/** The built-in groups' one-line details; the names themselves are the service's and stay as they are. */
function builtInDetail(l10n: VscodeL10n): Record<string, string> {
  return {
    Universal: l10n.t('AI preset selection for everyday photos (the service default)'),
    Pro: l10n.t('AI preset selection tuned for professional photography'),
    'School and Sports': l10n.t('AI preset selection for school and sports portraits'),
    'Attractions and Cruise Lines': l10n.t('AI preset selection for attraction and cruise photos'),
  };
}

/** Custom presets listed at most this long before the picker shows the built-ins alone, ms. */
export const PRESET_LIST_TIMEOUT_MS = 15_000;

/** The custom presets' names (at most `max`), or the reason they could not be listed. */
export async function listCustomPresets(backend: CorrectionBackend, max = 200, timeoutMs = PRESET_LIST_TIMEOUT_MS): Promise<{ names: string[]; error?: string }> {
  if (!backend.listPresets) return { names: [] };
  const signal = AbortSignal.timeout(timeoutMs);
  const names: string[] = [];
  try {
    for await (const p of backend.listPresets({ signal })) {
      names.push(p.name);
      if (names.length >= max) break;
    }
    return { names };
  } catch (err) {
    return { names, error: err instanceof Error ? err.message : String(err) };
  }
}

/** Picker items: built-in groups, then custom presets; the default preset leads its group and is marked. */
export function presetItems(custom: readonly string[], defaultPreset: string, separator: vscode.QuickPickItemKind, l10n: VscodeL10n): PresetItem[] {
  const { t } = l10n;
  const detail = builtInDetail(l10n);
  const builtInNames = BUILT_IN_PRESETS as readonly string[];
  const mark = (items: PresetItem[]): PresetItem[] => {
    const i = items.findIndex((it) => it.preset === defaultPreset);
    if (i < 0) return items;
    const [d] = items.splice(i, 1);
    return [{ ...d!, description: [d!.description, t('default')].filter(Boolean).join(' · ') }, ...items];
  };
  const builtIn = mark(BUILT_IN_PRESETS.map((p) => ({ label: p, preset: p, detail: detail[p] })));
  const customItems = mark([...new Set(custom)].filter((n) => !builtInNames.includes(n)).map((n) => ({ label: n, preset: n, description: t('custom preset') })));
  const out: PresetItem[] = [{ label: t('Built-in AI preset groups'), kind: separator }, ...builtIn];
  if (customItems.length > 0) out.push({ label: t('Your custom presets'), kind: separator }, ...customItems);
  // A default that is neither built in nor listed (an account without it, or offline) still comes first.
  if (!builtInNames.includes(defaultPreset) && !custom.includes(defaultPreset)) out.unshift({ label: defaultPreset, preset: defaultPreset, description: t('default (from settings)') });
  return out;
}
