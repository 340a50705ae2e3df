/**
 * The panel's choices, turned into `/pfc` parameters and into the name of the
 * layer (and history step) that holds the result.
 */
import type { AiArtToken, PfcParams } from '@pfc/core';
import { RESULT_LAYER_PREFIX } from '../ps/earlier-results';

export type BackgroundChoice = 'keep' | 'transparent' | 'colour';
export type ShadowChoice = 'none' | 'soft' | 'hard' | 'floating';
export type ResizeChoice = 'none' | 'long' | 'scale';

/** What the user picked in the panel. */
export interface PanelChoices {
  /** A built-in group (`Universal`, `Pro`, …), a custom preset name, or `none` (no colour correction). */
  preset: string;
  background: BackgroundChoice;
  /** `#rrggbb`, used when `background` is `colour`. */
  backgroundColour: string;
  /** Shadow under the subject; the service applies it in colour mode only. */
  shadow: ShadowChoice;
  /** AI Art style token, or empty for none. */
  aiArt: AiArtToken | '';
  resize: ResizeChoice;
  /** Long edge in pixels (`long`) or percent (`scale`). */
  resizeValue: number;
}

export const DEFAULT_CHOICES: PanelChoices = {
  preset: 'Universal',
  background: 'keep',
  backgroundColour: '#ffffff',
  shadow: 'none',
  aiArt: '',
  resize: 'none',
  resizeValue: 200,
};

/** The `/pfc` parameters for the panel's choices (validated by the backend before any upload). */
export function toParams(c: PanelChoices): PfcParams {
  const p: PfcParams = { preset: c.preset };
  if (c.background !== 'keep') {
    p.removeBackground = true;
    if (c.background === 'colour') {
      p.bgColor = c.backgroundColour;
      if (c.shadow !== 'none') p.bgShadow = c.shadow;
    } else {
      // Transparency survives only in PNG.
      p.outputType = 'png';
    }
  }
  if (c.aiArt) p.aiArt = c.aiArt;
  if (c.resize === 'long') p.long = c.resizeValue;
  if (c.resize === 'scale') p.scale = c.resizeValue;
  return p;
}

/** Whether the result is resized, and so opens as a new document instead of a layer. */
export function isResize(p: PfcParams): boolean {
  return p.width !== undefined || p.height !== undefined || p.long !== undefined || p.short !== undefined || p.scale !== undefined;
}

/** A short name of what was applied, e.g. `Perfectly Clear: Pro, background removed, AI Art oilPainting`. */
export function describeCorrection(p: PfcParams): string {
  const parts: string[] = [];
  if (p.preset === 'none') parts.push('no colour correction');
  else parts.push(p.preset ?? 'Universal');
  if (p.removeBackground) {
    if (p.bgColor && p.bgColor.toLowerCase() !== 'transparent') {
      parts.push(`background ${p.bgColor}${p.bgShadow ? ` with ${p.bgShadow} shadow` : ''}`);
    } else {
      parts.push('background removed');
    }
  }
  if (p.aiArt) parts.push(`AI Art ${p.aiArt}`);
  if (p.long !== undefined) parts.push(`long edge ${p.long} px`);
  if (p.scale !== undefined) parts.push(`${p.scale} %`);
  return RESULT_LAYER_PREFIX + parts.join(', ');
}
