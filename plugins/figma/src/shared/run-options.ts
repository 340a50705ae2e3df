/**
 * The options of a run as the form holds them. Shared because the main thread
 * remembers the last ones in `clientStorage`, so "Correct again" and the next
 * run start from them.
 */
import type { ResizeChoice } from './fit';
import type { Placement } from './messages';

export type BackgroundKind = 'transparent' | 'colour' | 'shadow';

export interface RunOptions {
  /** A built-in group, a custom preset's name, or `none` (no colour correction). */
  preset: string;
  removeBackground: boolean;
  background: BackgroundKind;
  /** `#rrggbb`, for the colour and shadow kinds. */
  bgColor: string;
  bgShadow: 'soft' | 'hard' | 'floating';
  /** An AI Art token (checked against core's list by the UI), or empty for none. */
  aiArt: string;
  aiArtOutputSize: '2k' | '4k';
  resize: ResizeChoice;
  placement: Placement;
  /** The service's `removeGlares` (glasses glare) and `removeBlemish` (skin blemishes). */
  removeGlares: boolean;
  removeBlemish: boolean;
  /** The service's `autocrop` (crop to the detected subject). */
  autocrop: boolean;
  /** `auto` keeps the input's type (PNG when the background is removed); else the service's `outputType`. */
  outputType: 'auto' | 'jpg' | 'png';
  /** JPEG quality 1–100 (the service's `outputQuality`), used when the output is JPEG. */
  outputQuality: number;
  /** Correct hidden layers and hidden image fills too (off: they are skipped and not sent). */
  includeHidden: boolean;
}

export const DEFAULT_OPTIONS: RunOptions = {
  preset: 'Universal',
  removeBackground: false,
  background: 'transparent',
  bgColor: '#ffffff',
  bgShadow: 'soft',
  aiArt: '',
  aiArtOutputSize: '2k',
  resize: { kind: 'none' },
  placement: 'replace',
  removeGlares: false,
  removeBlemish: false,
  autocrop: false,
  outputType: 'auto',
  outputQuality: 92,
  includeHidden: false,
};

function oneOf<T extends string>(v: unknown, allowed: readonly T[], fallback: T): T {
  return typeof v === 'string' && (allowed as readonly string[]).includes(v) ? (v as T) : fallback;
}

function resizeOf(v: unknown): ResizeChoice {
  const o = v && typeof v === 'object' ? (v as Record<string, unknown>) : {};
  if (o.kind === 'long' && Number.isInteger(o.px)) return { kind: 'long', px: o.px as number };
  if (o.kind === 'scale' && Number.isInteger(o.percent)) return { kind: 'scale', percent: o.percent as number };
  return { kind: 'none' };
}

/** Remembered options read leniently: anything missing or malformed takes the default. */
export function normaliseOptions(raw: unknown): RunOptions {
  const o = raw && typeof raw === 'object' ? (raw as Record<string, unknown>) : {};
  const d = DEFAULT_OPTIONS;
  return {
    preset: typeof o.preset === 'string' && o.preset ? o.preset : d.preset,
    removeBackground: typeof o.removeBackground === 'boolean' ? o.removeBackground : d.removeBackground,
    background: oneOf(o.background, ['transparent', 'colour', 'shadow'], d.background),
    bgColor: typeof o.bgColor === 'string' && /^#[0-9a-f]{6}$/i.test(o.bgColor) ? o.bgColor : d.bgColor,
    bgShadow: oneOf(o.bgShadow, ['soft', 'hard', 'floating'], d.bgShadow),
    aiArt: typeof o.aiArt === 'string' ? o.aiArt : d.aiArt,
    aiArtOutputSize: oneOf(o.aiArtOutputSize, ['2k', '4k'], d.aiArtOutputSize),
    resize: resizeOf(o.resize),
    placement: oneOf(o.placement, ['replace', 'copy'], d.placement),
    removeGlares: typeof o.removeGlares === 'boolean' ? o.removeGlares : d.removeGlares,
    removeBlemish: typeof o.removeBlemish === 'boolean' ? o.removeBlemish : d.removeBlemish,
    autocrop: typeof o.autocrop === 'boolean' ? o.autocrop : d.autocrop,
    outputType: oneOf(o.outputType, ['auto', 'jpg', 'png'], d.outputType),
    outputQuality: Number.isInteger(o.outputQuality) && (o.outputQuality as number) >= 1 && (o.outputQuality as number) <= 100 ? (o.outputQuality as number) : d.outputQuality,
    includeHidden: typeof o.includeHidden === 'boolean' ? o.includeHidden : d.includeHidden,
  };
}
