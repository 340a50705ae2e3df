/**
 * The `/pfc` parameter contract of the Web API v2: one table of every documented
 * parameter, and the rules between them. The client validates with it before
 * sending anything; the emulator answers 400 with the same messages.
 */
import { isNamedColour } from './colours';
import { describeScalar, parseScalar, type Parsed } from './scalars';

export const BUILT_IN_PRESETS = ['Universal', 'Pro', 'School and Sports', 'Attractions and Cruise Lines'] as const;
export type BuiltInPreset = (typeof BUILT_IN_PRESETS)[number];

export const AI_ART_STYLES = ['pencilBw', 'oilPainting', 'cartoon', 'watercolor', 'softPastel', 'comics', 'popArt', 'vanGogh'] as const;
export const AI_ART_CHARACTERS = ['christmasnye', 'stValentines', 'business', 'ffAdult', 'spring', 'ffKid', 'singlePirate', 'groupPirate'] as const;
export const AI_ART_TOKENS = [...AI_ART_STYLES, ...AI_ART_CHARACTERS] as const;
export type AiArtToken = (typeof AI_ART_TOKENS)[number];

/** Bounds of width/height/long/short (pixels). */
export const DIMENSION_RANGE = { min: 32, max: 10000 } as const;
/** Bounds of outputQuality. */
export const QUALITY_RANGE = { min: 40, max: 100 } as const;
/**
 * Bounds of `scale` (percent). The document leaves them open; 1–1000 is our
 * choice (documented in the core README): larger outputs exceed every output limit.
 */
export const SCALE_RANGE = { min: 1, max: 1000 } as const;

/** Every documented parameter of `GET /pfc`, typed. */
export interface PfcParams {
  fileKey?: string;
  fileType?: 'image' | 'video';
  preset?: string;
  cache?: boolean;
  outputType?: 'jpg' | 'png' | 'original';
  resize?: 'auto' | 'general' | 'smallDetails';
  width?: number;
  height?: number;
  long?: number;
  short?: number;
  scale?: number;
  outputQuality?: number;
  autocrop?: boolean;
  autocropDetectOnly?: boolean;
  autocropSize?: string;
  autocropX?: string;
  autocropY?: string;
  cropARW?: string;
  cropARH?: string;
  autocropTopHeadGap?: string;
  autocropType?: 0 | 1 | 2 | 3 | 4;
  skip?: 'clipart' | 'legacy' | 'none';
  removeGlares?: boolean;
  removeBlemish?: boolean;
  removeBackground?: boolean;
  bgColor?: string;
  bgGenerativePrompt?: string;
  bgFileKey?: string;
  bgShadow?: 'soft' | 'hard' | 'floating';
  aiArt?: AiArtToken;
  aiArtOutputSize?: '2k' | '4k';
  aiArtReferenceFileKey?: string;
  preserveMetadata?: boolean;
  updateThumbnail?: boolean;
  includeDetectionData?: boolean;
}
export type PfcParamName = keyof PfcParams;

type Spec =
  | { kind: 'bool'; default?: boolean }
  | { kind: 'int'; min: number; max: number; default?: number }
  | { kind: 'enum'; values: readonly (string | number)[]; numeric?: boolean; default?: string | number }
  | { kind: 'uuid' }
  | { kind: 'decimal'; positive?: boolean }
  | { kind: 'text'; maxLength: number }
  | { kind: 'colour' }
  | { kind: 'preset' };

/** The table: one row a parameter, in the document's order. */
export const PFC_PARAMS: { readonly [K in PfcParamName]-?: Spec } = {
  fileKey: { kind: 'uuid' },
  fileType: { kind: 'enum', values: ['image', 'video'], default: 'image' },
  preset: { kind: 'preset' },
  cache: { kind: 'bool', default: true },
  outputType: { kind: 'enum', values: ['jpg', 'png', 'original'], default: 'original' },
  resize: { kind: 'enum', values: ['auto', 'general', 'smallDetails'], default: 'auto' },
  width: { kind: 'int', ...DIMENSION_RANGE },
  height: { kind: 'int', ...DIMENSION_RANGE },
  long: { kind: 'int', ...DIMENSION_RANGE },
  short: { kind: 'int', ...DIMENSION_RANGE },
  scale: { kind: 'int', ...SCALE_RANGE },
  outputQuality: { kind: 'int', ...QUALITY_RANGE, default: 90 },
  autocrop: { kind: 'bool', default: false },
  autocropDetectOnly: { kind: 'bool', default: false },
  autocropSize: { kind: 'decimal', positive: true },
  autocropX: { kind: 'decimal' },
  autocropY: { kind: 'decimal' },
  cropARW: { kind: 'decimal', positive: true },
  cropARH: { kind: 'decimal', positive: true },
  autocropTopHeadGap: { kind: 'decimal' },
  autocropType: { kind: 'enum', values: [0, 1, 2, 3, 4], numeric: true, default: 0 },
  skip: { kind: 'enum', values: ['clipart', 'legacy', 'none'], default: 'clipart' },
  removeGlares: { kind: 'bool', default: false },
  removeBlemish: { kind: 'bool', default: false },
  removeBackground: { kind: 'bool', default: false },
  bgColor: { kind: 'colour' },
  bgGenerativePrompt: { kind: 'text', maxLength: 1000 },
  bgFileKey: { kind: 'uuid' },
  bgShadow: { kind: 'enum', values: ['soft', 'hard', 'floating'] },
  aiArt: { kind: 'enum', values: AI_ART_TOKENS },
  aiArtOutputSize: { kind: 'enum', values: ['2k', '4k'], default: '2k' },
  aiArtReferenceFileKey: { kind: 'uuid' },
  preserveMetadata: { kind: 'bool', default: true },
  updateThumbnail: { kind: 'bool', default: false },
  includeDetectionData: { kind: 'bool', default: false },
};

export const PFC_PARAM_NAMES = Object.keys(PFC_PARAMS) as PfcParamName[];

/** Resize strategies in the document's priority order (rule 1). */
export const RESIZE_PRIORITY = ['width', 'height', 'long', 'short', 'scale'] as const;
export type ResizeStrategy = (typeof RESIZE_PRIORITY)[number];

/** Background replacement modes in priority order (rule 2). */
export type BackgroundMode = 'generative' | 'image' | 'colour' | 'transparent';

const AUTOCROP_DEPENDENTS = ['autocropSize', 'autocropX', 'autocropY', 'cropARW', 'cropARH', 'autocropTopHeadGap', 'autocropType'] as const;
const BACKGROUND_DEPENDENTS = ['bgColor', 'bgGenerativePrompt', 'bgFileKey', 'bgShadow'] as const;
const AI_ART_DEPENDENTS = ['aiArtOutputSize', 'aiArtReferenceFileKey'] as const;

/** One rejected parameter: its name and a message naming the allowed values. */
export interface ParamIssue {
  param: string;
  message: string;
}

export interface ParamCheck {
  /** Parameters parsed to their types (only those that were valid). */
  params: PfcParams;
  /** Rejections; empty when the request may be sent. */
  errors: ParamIssue[];
  /** What the service will ignore under the priority rules, said to the caller. */
  warnings: string[];
}

export interface ValidateOptions {
  /** Unknown names are an error (client default) or skipped (emulator: the real service ignores them). */
  unknown?: 'error' | 'ignore';
  /** Whether `fileKey` must be present (true for `/pfc`; false when checking a parameter set before upload). */
  requireFileKey?: boolean;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const HEX_COLOUR = /^#[0-9a-f]{6}$/i;

/** What a spec allows, as said in error messages. */
export function describeAllowed(name: PfcParamName): string {
  const spec = PFC_PARAMS[name];
  switch (spec.kind) {
    case 'uuid':
      return 'a fileKey (UUID) from GET /upload';
    case 'text':
      return `text of 1 to ${spec.maxLength} characters`;
    case 'colour':
      return 'a 6-digit hex colour with # (e.g. #ffffff), a named colour, or transparent';
    case 'preset':
      return 'a preset name (a built-in group, a custom preset name, or none)';
    default:
      return describeScalar(spec);
  }
}

function parseOne(name: PfcParamName, raw: unknown): Parsed {
  const spec = PFC_PARAMS[name];
  switch (spec.kind) {
    case 'uuid':
      return typeof raw === 'string' && UUID.test(raw) ? { ok: true, value: raw } : { ok: false };
    case 'text':
      return typeof raw === 'string' && raw.trim().length > 0 && raw.length <= spec.maxLength ? { ok: true, value: raw } : { ok: false };
    case 'colour':
      return typeof raw === 'string' && (HEX_COLOUR.test(raw) || isNamedColour(raw) || raw.toLowerCase() === 'transparent') ? { ok: true, value: raw } : { ok: false };
    case 'preset':
      return typeof raw === 'string' && raw.trim().length > 0 && raw.length <= 200 ? { ok: true, value: raw } : { ok: false };
    default:
      return parseScalar(spec, raw);
  }
}

/**
 * A rejected value as its query-string text, quoted: `31` and `"31"` both read
 * `(got "31")`, so the client's message and the service's 400 for the same
 * request are identical.
 */
function gotText(raw: unknown): string {
  return JSON.stringify(typeof raw === 'string' ? raw : String(raw));
}

function isPfcParamName(name: string): name is PfcParamName {
  return Object.prototype.hasOwnProperty.call(PFC_PARAMS, name);
}

/**
 * Check a parameter set against every documented rule. Accepts typed values or
 * their query-string forms (`"true"`, `"800"`), so the same function serves a
 * typed caller, `--param key=value` on the CLI and the emulator's query parser.
 */
export function validatePfcParams(input: Readonly<Record<string, unknown>>, options: ValidateOptions = {}): ParamCheck {
  const unknown = options.unknown ?? 'error';
  const errors: ParamIssue[] = [];
  const warnings: string[] = [];
  const params: Record<string, unknown> = {};

  for (const [name, raw] of Object.entries(input)) {
    if (raw === undefined) continue;
    if (!isPfcParamName(name)) {
      if (unknown === 'error') errors.push({ param: name, message: `unknown parameter "${name}"; known parameters: ${PFC_PARAM_NAMES.join(', ')}` });
      continue;
    }
    const parsed = parseOne(name, raw);
    if (parsed.ok) params[name] = parsed.value;
    else errors.push({ param: name, message: `${name} must be ${describeAllowed(name)} (got ${gotText(raw)})` });
  }
  const p = params as PfcParams;

  if (options.requireFileKey && p.fileKey === undefined && !errors.some((e) => e.param === 'fileKey')) {
    errors.push({ param: 'fileKey', message: 'fileKey is required: the fileKey (UUID) returned by GET /upload' });
  }
  // Rule 3: autocropDetectOnly and the other autocrop parameters accompany autocrop=true.
  if (p.autocrop !== true) {
    if (p.autocropDetectOnly === true) errors.push({ param: 'autocropDetectOnly', message: 'autocropDetectOnly requires autocrop=true' });
    for (const dep of AUTOCROP_DEPENDENTS) {
      if (p[dep] !== undefined) errors.push({ param: dep, message: `${dep} requires autocrop=true` });
    }
  }
  // bg* parameters require removeBackground=true.
  if (p.removeBackground !== true) {
    for (const dep of BACKGROUND_DEPENDENTS) {
      if (p[dep] !== undefined) errors.push({ param: dep, message: `${dep} requires removeBackground=true` });
    }
  }
  // Rule 4: aiArtOutputSize and aiArtReferenceFileKey require aiArt.
  if (p.aiArt === undefined) {
    for (const dep of AI_ART_DEPENDENTS) {
      if (p[dep] !== undefined) errors.push({ param: dep, message: `${dep} requires aiArt` });
    }
  }
  if (p.fileType === 'video' && p.aiArt !== undefined) {
    errors.push({ param: 'aiArt', message: 'aiArt applies to images only (fileType=image)' });
  }

  // Rule 1: one resize strategy; the service uses the first by priority.
  const strategies = RESIZE_PRIORITY.filter((k) => p[k] !== undefined);
  if (strategies.length > 1) {
    const [used, ...ignored] = strategies;
    warnings.push(`several resize parameters were sent (${strategies.join(', ')}); the service uses ${used} and ignores ${ignored.join(', ')}`);
  }
  // Rule 2: background modes by priority.
  if (p.removeBackground === true) {
    const mode = backgroundMode(p);
    const sent = (['bgGenerativePrompt', 'bgFileKey', 'bgColor'] as const).filter(
      (k) => p[k] !== undefined && !(k === 'bgColor' && p.bgColor?.toLowerCase() === 'transparent'),
    );
    const usedKey = mode === 'generative' ? 'bgGenerativePrompt' : mode === 'image' ? 'bgFileKey' : mode === 'colour' ? 'bgColor' : undefined;
    const ignored = sent.filter((k) => k !== usedKey);
    if (ignored.length > 0) warnings.push(`background mode is ${mode}${usedKey ? ` (from ${usedKey})` : ''}; the service ignores ${ignored.join(', ')}`);
    if (p.bgShadow !== undefined && (mode === 'generative' || mode === 'transparent')) {
      warnings.push(`bgShadow applies to the solid-colour and image modes only; the service ignores it in ${mode} mode`);
    }
  }
  if (p.fileType === 'video' && p.removeBlemish === true) {
    warnings.push('removeBlemish applies to images only; the service ignores it for video');
  }
  return { params: p, errors, warnings };
}

/** The resize strategy the service uses (rule 1), with its value. */
export function resizeStrategy(p: PfcParams): { strategy: ResizeStrategy; value: number } | undefined {
  for (const k of RESIZE_PRIORITY) {
    const v = p[k];
    if (v !== undefined) return { strategy: k, value: v };
  }
  return undefined;
}

/** The background mode the service uses (rule 2), or undefined without removeBackground. */
export function backgroundMode(p: PfcParams): BackgroundMode | undefined {
  if (p.removeBackground !== true) return undefined;
  if (p.bgGenerativePrompt !== undefined) return 'generative';
  if (p.bgFileKey !== undefined) return 'image';
  if (p.bgColor !== undefined && p.bgColor.toLowerCase() !== 'transparent') return 'colour';
  return 'transparent';
}

/**
 * Whether `updateThumbnail` regenerates the embedded thumbnail of an output in
 * `format`: only a JPEG that keeps its metadata has one (with
 * `preserveMetadata=false` there is no EXIF to hold it).
 */
export function regeneratesThumbnail(p: PfcParams, format: 'jpeg' | 'png'): boolean {
  return p.updateThumbnail === true && format === 'jpeg' && p.preserveMetadata !== false;
}

/**
 * The parameters as the service will apply them: defaults filled, ignored
 * resize and background parameters dropped. Two requests with equal effective
 * parameters give the same output (the emulator's `cache` key; the batch manifest).
 */
export function effectivePfcParams(p: PfcParams): PfcParams {
  const out: Record<string, unknown> = {};
  // "With removeBackground=true and no output type, the output is PNG with transparency."
  if (p.removeBackground === true && p.outputType === undefined) out.outputType = 'png';
  for (const name of PFC_PARAM_NAMES) {
    if (out[name] !== undefined) continue;
    const spec = PFC_PARAMS[name];
    const v = p[name] ?? ('default' in spec ? spec.default : undefined);
    if (v !== undefined) out[name] = v;
  }
  const r = resizeStrategy(p);
  for (const k of RESIZE_PRIORITY) if (k !== r?.strategy) delete out[k];
  const mode = backgroundMode(p);
  if (mode !== 'generative') delete out.bgGenerativePrompt;
  if (mode !== 'image') delete out.bgFileKey;
  if (mode !== 'colour') delete out.bgColor;
  if (mode === 'generative' || mode === 'transparent' || mode === undefined) delete out.bgShadow;
  if (out.aiArt === undefined) delete out.aiArtOutputSize;
  if (out.preset === 'Universal') delete out.preset;
  return out as PfcParams;
}

/** Query-string form of a parameter set (booleans and numbers as text). */
export function pfcParamsToQuery(p: PfcParams): [string, string][] {
  const q: [string, string][] = [];
  for (const name of PFC_PARAM_NAMES) {
    const v = p[name];
    if (v !== undefined) q.push([name, String(v)]);
  }
  return q;
}
