/**
 * Custom preset files: the engine's own JSON format. A file in any other
 * format is accepted by the services (they store whatever is uploaded) and the
 * engine reports it instead of silently ignoring it.
 *
 * ```json
 * {
 *   "format": "pfc-engine-preset",
 *   "version": 1,
 *   "base": "Universal",
 *   "params": { "vibrance": 0.4, "warmth": 0.2 },
 *   "scenes": { "portrait": { "vibrance": 0.1 } }
 * }
 * ```
 * `base` (optional) is a built-in group the file starts from (default: every
 * parameter off); `params` overrides it for every scene; `scenes` (optional)
 * overrides per scene name (see `SCENE`), which makes the preset an AI preset.
 */
import { COLOUR_PARAM_RANGES, NEUTRAL_COLOUR_PARAMS, type ColourParams } from '../colour/params';
import { SCENE, type SceneName } from '../scene/categories';
import { BUILT_IN_GROUPS, isBuiltInGroup, type BuiltInGroup } from './builtin';

/** The `format` tag of a preset file. */
export const PRESET_FORMAT = 'pfc-engine-preset';

/** A parsed custom preset. */
export interface CustomPreset {
  base?: BuiltInGroup;
  params: Partial<ColourParams>;
  scenes: Partial<Record<SceneName, Partial<ColourParams>>>;
}

/** Outcome of {@link parsePresetFile}: a preset, or why the file is not one. */
export type PresetParse = { ok: true; preset: CustomPreset } | { ok: false; reason: string };

/** Parse a preset file's bytes. Never throws: an unreadable file is a `{ ok: false }` with the reason. */
export function parsePresetFile(bytes: Uint8Array): PresetParse {
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    return { ok: false, reason: `not JSON (expected a "${PRESET_FORMAT}" JSON file)` };
  }
  if (!isObject(json) || json.format !== PRESET_FORMAT) {
    return { ok: false, reason: `JSON without "format": "${PRESET_FORMAT}"` };
  }
  if (json.version !== undefined && json.version !== 1) return { ok: false, reason: `unsupported version ${JSON.stringify(json.version)} (this engine reads version 1)` };
  let base: BuiltInGroup | undefined;
  if (json.base !== undefined) {
    if (typeof json.base !== 'string' || !isBuiltInGroup(json.base)) {
      return { ok: false, reason: `"base" must be one of ${BUILT_IN_GROUPS.join(', ')}` };
    }
    base = json.base;
  }
  const params = readParams(json.params, 'params');
  if (typeof params === 'string') return { ok: false, reason: params };
  const scenes: CustomPreset['scenes'] = {};
  if (json.scenes !== undefined) {
    if (!isObject(json.scenes)) return { ok: false, reason: '"scenes" must be an object keyed by scene name' };
    for (const [name, value] of Object.entries(json.scenes)) {
      if (!(name in SCENE)) return { ok: false, reason: `unknown scene "${name}" (known: ${Object.keys(SCENE).join(', ')})` };
      const p = readParams(value, `scenes.${name}`);
      if (typeof p === 'string') return { ok: false, reason: p };
      scenes[name as SceneName] = p;
    }
  }
  return { ok: true, preset: { ...(base ? { base } : {}), params, scenes } };
}

/** Serialise a preset in the engine's format (used by docs, tests and tools). */
export function formatPresetFile(preset: Partial<CustomPreset>): string {
  return JSON.stringify({ format: PRESET_FORMAT, version: 1, ...preset }, null, 2) + '\n';
}

function readParams(value: unknown, where: string): Partial<ColourParams> | string {
  if (value === undefined) return {};
  if (!isObject(value)) return `"${where}" must be an object of engine parameters`;
  const out: Partial<ColourParams> = {};
  for (const [k, v] of Object.entries(value)) {
    if (!(k in NEUTRAL_COLOUR_PARAMS)) return `unknown parameter "${where}.${k}" (known: ${Object.keys(NEUTRAL_COLOUR_PARAMS).join(', ')})`;
    const [lo, hi] = COLOUR_PARAM_RANGES[k as keyof ColourParams];
    if (typeof v !== 'number' || !Number.isFinite(v) || v < lo || v > hi) return `"${where}.${k}" must be a number from ${lo} to ${hi}`;
    out[k as keyof ColourParams] = v;
  }
  return out;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
