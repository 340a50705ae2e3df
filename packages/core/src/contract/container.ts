/**
 * Contract of the self-hosted colour-correction container
 * (`../shared/spec/colour-correction-container.md`): the `GET /pfc/{imageKey}`
 * query parameters, wire types, error ids and the image-key sanity check.
 * The client validates with it before sending; the emulator answers 400s with
 * the same messages, so the two cannot drift.
 */
import type { ParamIssue } from './webapi-params';
import { DIMENSION_RANGE, QUALITY_RANGE, SCALE_RANGE } from './webapi-params';
import { describeScalar, parseScalar, type Parsed } from './scalars';

/** Content types `PUT /pfc` accepts; anything else is `noContentTypeRequestMessage`. */
export const CONTAINER_CONTENT_TYPES = ['image/jpeg', 'image/png'] as const;
export type ContainerContentType = (typeof CONTAINER_CONTENT_TYPES)[number];

/** Values of `outputType` (case-insensitive on the wire; `jpg` is accepted for JPEG). */
export const CONTAINER_OUTPUT_TYPES = ['JPEG', 'PNG', 'jpg'] as const;
export type ContainerOutputType = (typeof CONTAINER_OUTPUT_TYPES)[number];

export const CONTAINER_SKIP_MODES = ['clipart', 'legacy', 'none'] as const;
export type ContainerSkipMode = (typeof CONTAINER_SKIP_MODES)[number];

/** Every documented query parameter of `GET /pfc/{imageKey}`, typed (camelCase; wire names in {@link CONTAINER_PARAMS}). */
export interface ContainerParams {
  /** Preset file name without `.preset`; omit for AI Scene Detection. */
  preset?: string;
  /** Output format; default: the input's format. */
  outputType?: ContainerOutputType;
  /** JPEG quality, 40–100. Default 90. */
  outputQuality?: number;
  /** `original`, `srgb`, or an ICC profile file name in the container's `/presets`. */
  outputColorSpace?: string;
  /** Output width in pixels (32–10000); height follows the aspect ratio. */
  width?: number;
  /** Output height in pixels (32–10000); width follows the aspect ratio. */
  height?: number;
  /** Long edge in pixels (32–10000). */
  long?: number;
  /** Short edge in pixels (32–10000). */
  short?: number;
  /** Percent of the original dimensions (1–1000); 50 halves them. */
  scale?: number;
  /** Auto cropping with face detection. Default false. */
  autocrop?: boolean;
  /**
   * The crop parameters that accompany `autocrop=true`. The container document
   * does not name them; we send the Web API v2 names (the container has the
   * shape of the hosted API), values copied from the desktop editing tool.
   */
  autocropSize?: string;
  autocropX?: string;
  autocropY?: string;
  cropARW?: string;
  cropARH?: string;
  autocropTopHeadGap?: string;
  autocropType?: 0 | 1 | 2 | 3 | 4;
  /** Non-photo skip mode; ignored by the container when AI preset selection is active. Default `clipart`. */
  skip?: ContainerSkipMode;
  /** Skip images edited by these programs (EXIF Software). Wire name `skip-exif-software`, comma-separated. */
  skipExifSoftware?: string | readonly string[];
  /** Reuse the input file name for the output inside the container. */
  preserveInputFileName?: boolean;
  /** Composite photo extraction. Wire name `enable-composite`. Default true. */
  enableComposite?: boolean;
}
export type ContainerParamName = keyof ContainerParams;

type Row =
  | { wire: string; kind: 'bool' }
  | { wire: string; kind: 'int'; min: number; max: number }
  | { wire: string; kind: 'enum'; values: readonly (string | number)[]; numeric?: boolean; caseInsensitive?: boolean }
  | { wire: string; kind: 'name' }
  | { wire: string; kind: 'colourSpace' }
  | { wire: string; kind: 'decimal'; positive?: boolean }
  | { wire: string; kind: 'list' };

/** One row a parameter, in the document's order, with its wire name. */
export const CONTAINER_PARAMS: { readonly [K in ContainerParamName]-?: Row } = {
  preset: { wire: 'preset', kind: 'name' },
  outputType: { wire: 'outputType', kind: 'enum', values: CONTAINER_OUTPUT_TYPES, caseInsensitive: true },
  outputQuality: { wire: 'outputQuality', kind: 'int', ...QUALITY_RANGE },
  outputColorSpace: { wire: 'outputColorSpace', kind: 'colourSpace' },
  width: { wire: 'width', kind: 'int', ...DIMENSION_RANGE },
  height: { wire: 'height', kind: 'int', ...DIMENSION_RANGE },
  long: { wire: 'long', kind: 'int', ...DIMENSION_RANGE },
  short: { wire: 'short', kind: 'int', ...DIMENSION_RANGE },
  scale: { wire: 'scale', kind: 'int', ...SCALE_RANGE },
  autocrop: { wire: 'autocrop', kind: 'bool' },
  autocropSize: { wire: 'autocropSize', kind: 'decimal', positive: true },
  autocropX: { wire: 'autocropX', kind: 'decimal' },
  autocropY: { wire: 'autocropY', kind: 'decimal' },
  cropARW: { wire: 'cropARW', kind: 'decimal', positive: true },
  cropARH: { wire: 'cropARH', kind: 'decimal', positive: true },
  autocropTopHeadGap: { wire: 'autocropTopHeadGap', kind: 'decimal' },
  autocropType: { wire: 'autocropType', kind: 'enum', values: [0, 1, 2, 3, 4], numeric: true },
  skip: { wire: 'skip', kind: 'enum', values: CONTAINER_SKIP_MODES },
  skipExifSoftware: { wire: 'skip-exif-software', kind: 'list' },
  preserveInputFileName: { wire: 'preserveInputFileName', kind: 'bool' },
  enableComposite: { wire: 'enable-composite', kind: 'bool' },
};

export const CONTAINER_PARAM_NAMES = Object.keys(CONTAINER_PARAMS) as ContainerParamName[];

/** Resize parameters in the document's priority order; only the first given is used. */
export const CONTAINER_RESIZE_PRIORITY = ['width', 'height', 'long', 'short', 'scale'] as const;

const AUTOCROP_DEPENDENTS = ['autocropSize', 'autocropX', 'autocropY', 'cropARW', 'cropARH', 'autocropTopHeadGap', 'autocropType'] as const;

/**
 * Error ids of the document's error table, with the HTTP status each answers.
 * `unknownOutputTypeMessage`'s status is not documented: 400 is our choice.
 * `cleanUpFileMessage` is a log line only. `invalidParameterMessage` is ours:
 * the emulator's answer to a value outside the documented range.
 */
export const CONTAINER_ERRORS = {
  noContentTypeRequestMessage: 400,
  bodyRequestMessage: 503,
  temporaryFileCreationMessage: 503,
  temporaryFileWritingMessage: 503,
  noIdMessage: 400,
  invalidIdMessage: 400,
  unknownImageIdMessage: 400,
  unknownPresetMessage: 400,
  temporaryOutputFileMessage: 503,
  temporaryCloseOutputFileMessage: 503,
  processingPFCErrorMessage: 503,
  unknownOutputTypeMessage: 400,
  invalidParameterMessage: 400,
} as const;
export type ContainerErrorId = keyof typeof CONTAINER_ERRORS;
export const CONTAINER_ERROR_IDS = Object.keys(CONTAINER_ERRORS) as ContainerErrorId[];
/** Log-only id: a file in the input or output directory could not be deleted. */
export const CLEANUP_FILE_MESSAGE = 'cleanUpFileMessage';

/** Error body of the emulator (the real container's is not documented; clients parse leniently). */
export interface ContainerErrorBody {
  /** The error id of the document's table. */
  error: ContainerErrorId;
  /** Human explanation. */
  message: string;
  /** Rejected parameters, for `invalidParameterMessage`. */
  issues?: ParamIssue[];
}

/** Answer of `PUT /pfc`. */
export interface ContainerUploadResponse {
  imageKey: string;
}

/** Answer of `GET /pfc/{imageKey}`. */
export interface ContainerCorrectionResponse {
  /** Download address: the container's `PFC_SITE_URL` plus `/output/<file>`. */
  corrected_url: string;
  /** Detected scene category; -1 when not detected or unknown. */
  scene: number;
}

/**
 * Answer of `GET /version`. The document shows only "SDK version and supported
 * features"; this is the emulator's shape, and the client reads it leniently.
 */
export interface ContainerVersionResponse {
  sdk_version: string;
  container_version: string;
  features: string[];
}

/** The container package version the document describes. */
export const CONTAINER_PACKAGE_VERSION = '11.0.1';

/** Minimum short side of an input image (pixels). */
export const CONTAINER_MIN_SHORT_SIDE = 32;

/** Longest image key / file name accepted (bytes of UTF-16 code units, as most file systems). */
const MAX_KEY_LENGTH = 255;

/**
 * Why an image key (or direct-access file name) fails the sanity check, or
 * undefined when it is safe. A safe key names one file inside one folder: no
 * separators (`/`, `\`, also when percent-encoded, which shows as `%` after one
 * decoding), no `.`/`..`, no NUL or other control characters, no drive colon,
 * no leading or trailing space, at most 255 characters.
 */
export function imageKeyProblem(key: string): string | undefined {
  if (key.length === 0) return 'the image key is empty';
  if (key.length > MAX_KEY_LENGTH) return `the image key is longer than ${MAX_KEY_LENGTH} characters`;
  if (key === '.' || key === '..') return 'the image key may not be "." or ".."';
  if (/[/\\]/.test(key)) return 'the image key may not contain / or \\';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(key)) return 'the image key may not contain control characters (NUL, newline …)';
  if (key.includes('%')) return 'the image key may not contain % (encoded separators)';
  if (key.includes(':')) return 'the image key may not contain : (drive letters, streams)';
  if (key.trim() !== key) return 'the image key may not start or end with a space';
  return undefined;
}

/** Whether a key passes the container's sanity check ({@link imageKeyProblem}). */
export function isSafeImageKey(key: string): boolean {
  return imageKeyProblem(key) === undefined;
}

const ICC_FILE = /\.(icc|icm)$/i;

function describe(row: Row): string {
  switch (row.kind) {
    case 'name':
      return 'a preset name (file name in /presets without .preset)';
    case 'colourSpace':
      return 'original, srgb, or an ICC profile file name (.icc or .icm) in /presets';
    case 'list':
      return 'a comma-separated list of software names';
    default:
      return describeScalar(row);
  }
}

function parseRow(row: Row, raw: unknown): Parsed {
  switch (row.kind) {
    case 'name':
      return typeof raw === 'string' && isSafeImageKey(raw) ? { ok: true, value: raw } : { ok: false };
    case 'colourSpace': {
      if (typeof raw !== 'string') return { ok: false };
      if (/^(original|srgb)$/i.test(raw)) return { ok: true, value: raw.toLowerCase() };
      return isSafeImageKey(raw) && ICC_FILE.test(raw) ? { ok: true, value: raw } : { ok: false };
    }
    case 'list': {
      const items = typeof raw === 'string' ? raw.split(',') : Array.isArray(raw) ? raw : undefined;
      if (!items || !items.every((i) => typeof i === 'string')) return { ok: false };
      const names = (items as string[]).map((i) => i.trim()).filter((i) => i.length > 0);
      return names.length > 0 && names.every((n) => !n.includes(',')) ? { ok: true, value: names } : { ok: false };
    }
    default:
      return parseScalar(row, raw, { boolCaseInsensitive: true });
  }
}

export interface ContainerParamCheck {
  /** Parameters parsed to their types (`skipExifSoftware` as an array; `outputType` in its canonical case). */
  params: ContainerParams;
  errors: ParamIssue[];
  /** What the container will ignore under its priority rules. */
  warnings: string[];
}

const WIRE_TO_NAME = new Map(CONTAINER_PARAM_NAMES.map((n) => [CONTAINER_PARAMS[n].wire, n] as const));

/**
 * Check container parameters against every documented rule. Keys may be the
 * typed names or the wire names (`skip-exif-software`), values typed or in
 * query-string form, so the client, the CLI and the emulator share one check.
 * `outputType` errors carry the container's own id `unknownOutputTypeMessage`
 * in their message.
 */
export function validateContainerParams(
  input: Readonly<Record<string, unknown>>,
  options: { unknown?: 'error' | 'ignore' } = {},
): ContainerParamCheck {
  const errors: ParamIssue[] = [];
  const warnings: string[] = [];
  const params: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(input)) {
    if (raw === undefined) continue;
    const name = (Object.prototype.hasOwnProperty.call(CONTAINER_PARAMS, key) ? key : WIRE_TO_NAME.get(key)) as ContainerParamName | undefined;
    if (!name) {
      if ((options.unknown ?? 'error') === 'error') {
        errors.push({ param: key, message: `unknown container parameter "${key}"; known: ${CONTAINER_PARAM_NAMES.map((n) => CONTAINER_PARAMS[n].wire).join(', ')}` });
      }
      continue;
    }
    const row = CONTAINER_PARAMS[name];
    const parsed = parseRow(row, raw);
    if (parsed.ok) params[name] = parsed.value;
    else errors.push({ param: row.wire, message: `${row.wire} must be ${describe(row)} (got ${JSON.stringify(raw)})` });
  }
  const p = params as ContainerParams;
  if (p.autocrop !== true) {
    for (const dep of AUTOCROP_DEPENDENTS) {
      if (p[dep] !== undefined) errors.push({ param: dep, message: `${dep} requires autocrop=true` });
    }
  }
  const sent = CONTAINER_RESIZE_PRIORITY.filter((k) => p[k] !== undefined);
  if (sent.length > 1) {
    const [used, ...ignored] = sent;
    warnings.push(`several resize parameters were sent (${sent.join(', ')}); the container uses ${used} and ignores ${ignored.join(', ')}`);
  }
  if (p.skip !== undefined && p.preset === undefined) {
    warnings.push('skip is ignored by the container while AI preset selection is active (no preset given)');
  }
  return { params: p, errors, warnings };
}

/** The resize the container applies (first by priority), or undefined. */
export function containerResize(p: ContainerParams): { strategy: (typeof CONTAINER_RESIZE_PRIORITY)[number]; value: number } | undefined {
  for (const k of CONTAINER_RESIZE_PRIORITY) {
    const v = p[k];
    if (v !== undefined) return { strategy: k, value: v };
  }
  return undefined;
}

/** Query-string form with the wire names (lists comma-joined, booleans as text). */
export function containerParamsToQuery(p: ContainerParams): [string, string][] {
  const q: [string, string][] = [];
  for (const name of CONTAINER_PARAM_NAMES) {
    const v = p[name];
    if (v === undefined) continue;
    q.push([CONTAINER_PARAMS[name].wire, Array.isArray(v) ? v.join(',') : String(v)]);
  }
  return q;
}

/** `JPEG` or `PNG`: the canonical output format of an `outputType` value. */
export function canonicalOutputType(t: ContainerOutputType): 'JPEG' | 'PNG' {
  return t === 'PNG' ? 'PNG' : 'JPEG';
}
