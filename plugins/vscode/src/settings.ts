/**
 * The extension's settings (`contributes.configuration` in package.json), read
 * into one typed object and checked: a bad value is named with its allowed
 * range before anything is planned or uploaded.
 */
import { validatePfcParams, type ParamIssue, type PfcParams } from '@pfc/core';
import { join, resolve, sep } from 'node:path';
import { DEFAULT_OUTPUT_DIR, MAX_INSTANCE_JOBS, type OutputMode } from '@pfc/batch';
import type { Uri } from 'vscode';
import type { VscodeApi, VscodeL10n } from './vscode-api';

export const BACKENDS = ['auto', 'hosted', 'container', 'container+bgr', 'emulator'] as const;
export type BackendSetting = (typeof BACKENDS)[number];
export const OUTPUT_MODES = ['folder', 'suffix', 'in-place'] as const;
export type OutputModeSetting = (typeof OUTPUT_MODES)[number];

/** Every setting under `pfc.*`, with package.json's defaults. */
export interface ExtensionSettings {
  /** Default `auto`: hosted with a stored API key, else the container when `pfc.containerUrl` is set, else the embedded emulator. */
  backend: BackendSetting;
  /** Default `https://api.perfectlyclear.io/v2`. */
  webApiUrl: string;
  /** Default `http://127.0.0.1:8081`. */
  /** One address, or several separated by commas (a fleet). */
  containerUrl: string;
  /** Whether the user set `pfc.containerUrl` (backend `auto` then picks the container). */
  containerConfigured: boolean;
  /** Default `http://127.0.0.1:8082`. */
  /** One address, or several separated by commas (a fleet). */
  bgrUrl: string;
  /** Files at once per self-hosted instance: one for every instance, or one per instance (colour URLs, then BGR URLs). Default `[]`: 2 per colour container, 1 per BGR container. */
  instanceJobs: number[];
  /** Address of a running emulator; default empty: the embedded emulator. */
  emulatorUrl: string;
  /** Default Web API parameters of every job, validated. Default `{}`. */
  parameters: PfcParams;
  /** Preset selected first in the picker. Default `Universal`. */
  defaultPreset: string;
  /** Default `folder`. */
  outputMode: OutputModeSetting;
  /** Ask the output mode each run. Default false. */
  askOutputEachRun: boolean;
  /** Default `corrected`. */
  outputFolderName: string;
  /** Default `_pfc`. */
  outputSuffix: string;
  /**
   * Files at once, 1–16; 0 (the default): the backend's own width, as the CLI
   * without `-j` (4 hosted, 2 emulator or container, a fleet's instances together).
   */
  concurrency: number;
  /** Confirm above this many files on a paid backend; 0 never asks. Default 50. */
  confirmAboveFiles: number;
  /** Skip up-to-date outputs. Default true. */
  skipAlreadyCorrected: boolean;
}

/** `WorkspaceConfiguration.get` of the `pfc` section, or a fake of it. */
export type ConfigGetter = <T>(key: string) => T | undefined;

export const DEFAULT_SETTINGS: Readonly<ExtensionSettings> = {
  backend: 'auto',
  webApiUrl: 'https://api.perfectlyclear.io/v2',
  containerUrl: 'http://127.0.0.1:8081',
  containerConfigured: false,
  bgrUrl: 'http://127.0.0.1:8082',
  emulatorUrl: '',
  instanceJobs: [],
  parameters: {},
  defaultPreset: 'Universal',
  outputMode: 'folder',
  askOutputEachRun: false,
  outputFolderName: 'corrected',
  outputSuffix: '_pfc',
  concurrency: 0,
  confirmAboveFiles: 50,
  skipAlreadyCorrected: true,
};

/** A rejected setting; `setting` is its full id (`pfc.concurrency`). */
export interface SettingIssue {
  setting: string;
  message: string;
}

export class SettingsError extends Error {
  override name = 'SettingsError';
  constructor(readonly issues: SettingIssue[]) {
    super(`Invalid Perfectly Clear settings: ${issues.map((i) => i.message).join('; ')}`);
  }
}

function isOneOf<T extends string>(values: readonly T[], v: unknown): v is T {
  return typeof v === 'string' && (values as readonly string[]).includes(v);
}

function checkUrl(name: string, value: unknown, issues: SettingIssue[], { t }: VscodeL10n): string | undefined {
  if (typeof value !== 'string') return undefined;
  // An empty emulator address means the embedded emulator.
  if (name === 'emulatorUrl' && value.trim() === '') return '';
  try {
    const u = new URL(value);
    if (u.protocol === 'http:' || u.protocol === 'https:') return value.replace(/\/+$/, '');
  } catch {
    // fall through to the issue below
  }
  issues.push({ setting: `pfc.${name}`, message: t('pfc.{0} must be an http(s) address (got {1})', name, JSON.stringify(value)) });
  return undefined;
}

/** A string of one or more comma-separated addresses, or a list of them: each checked; joined with commas. */
function checkUrls(name: 'containerUrl' | 'bgrUrl', value: unknown, issues: SettingIssue[], l10n: VscodeL10n): string | undefined {
  const items = typeof value === 'string' ? value.split(',') : Array.isArray(value) ? value : undefined;
  if (items === undefined) return undefined;
  const urls = items.map((v) => (typeof v === 'string' ? v.trim() : v)).filter((v) => v !== '');
  if (urls.length === 0 || urls.some((v) => typeof v !== 'string')) {
    issues.push({ setting: `pfc.${name}`, message: l10n.t('pfc.{0} must be an http(s) address or a list of them (got {1})', name, JSON.stringify(value)) });
    return undefined;
  }
  const checked = urls.map((u) => checkUrl(name, u, issues, l10n));
  return checked.every((u) => u !== undefined) ? checked.join(',') : undefined;
}

/** One integer from 1 to 64, or a list of them (empty: the defaults; the count is checked against the addresses when the backend opens). */
function checkInstanceJobs(value: unknown, issues: SettingIssue[], l10n: VscodeL10n): number[] | undefined {
  if (value === undefined || value === null) return undefined;
  const items = Array.isArray(value) ? value : [value];
  const jobs = items.map((v) => intIn('instanceJobs', v, 1, MAX_INSTANCE_JOBS, issues, l10n));
  return jobs.every((n) => n !== undefined) ? jobs : undefined;
}

function intIn(name: string, value: unknown, min: number, max: number, issues: SettingIssue[], { t }: VscodeL10n): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max) return value;
  issues.push({ setting: `pfc.${name}`, message: t('pfc.{0} must be an integer from {1} to {2} (got {3})', name, min, max, JSON.stringify(value)) });
  return undefined;
}

/**
 * Read and check every setting; throws `SettingsError` naming each bad one, in
 * the display language of `l10n`. `isSet` says whether the user gave a value (not the default).
 */
export function readSettings(get: ConfigGetter, l10n: VscodeL10n, isSet: (key: string) => boolean = (key) => get(key) !== undefined): ExtensionSettings {
  const { t } = l10n;
  const issues: SettingIssue[] = [];
  const s: ExtensionSettings = { ...DEFAULT_SETTINGS };

  const backend = get<unknown>('backend');
  if (backend !== undefined) {
    if (isOneOf(BACKENDS, backend)) s.backend = backend;
    else issues.push({ setting: 'pfc.backend', message: t('pfc.backend must be one of {0} (got {1})', BACKENDS.join(', '), JSON.stringify(backend)) });
  }
  for (const key of ['webApiUrl', 'emulatorUrl'] as const) {
    const v = checkUrl(key, get<unknown>(key), issues, l10n);
    if (v !== undefined) s[key] = v;
  }
  // One address (as before) or a list of them (a fleet), kept as one comma-separated string.
  for (const key of ['containerUrl', 'bgrUrl'] as const) {
    const v = checkUrls(key, get<unknown>(key), issues, l10n);
    if (v !== undefined) s[key] = v;
  }
  s.containerConfigured = isSet('containerUrl');
  const jobs = checkInstanceJobs(get<unknown>('instanceJobs'), issues, l10n);
  if (jobs !== undefined) s.instanceJobs = jobs;

  const params = get<unknown>('parameters');
  if (params !== undefined && params !== null) {
    if (typeof params !== 'object' || Array.isArray(params)) {
      issues.push({ setting: 'pfc.parameters', message: t('pfc.parameters must be an object of Web API parameters') });
    } else {
      // fileKey and fileType are set per file by the engine, never by the user.
      const { fileKey: _k, fileType: _t, ...rest } = params as Record<string, unknown>;
      const check = validatePfcParams(rest, { requireFileKey: false });
      for (const e of check.errors) issues.push({ setting: 'pfc.parameters', message: t('pfc.parameters: {0}', e.message) });
      if (check.errors.length === 0) s.parameters = check.params;
    }
  }

  const preset = get<unknown>('defaultPreset');
  if (typeof preset === 'string' && preset.trim() !== '') s.defaultPreset = preset.trim();

  const mode = get<unknown>('output.mode');
  if (mode !== undefined) {
    if (isOneOf(OUTPUT_MODES, mode)) s.outputMode = mode;
    else issues.push({ setting: 'pfc.output.mode', message: t('pfc.output.mode must be one of {0} (got {1})', OUTPUT_MODES.join(', '), JSON.stringify(mode)) });
  }
  const ask = get<unknown>('output.askEachRun');
  if (typeof ask === 'boolean') s.askOutputEachRun = ask;

  const folder = get<unknown>('output.folderName');
  if (folder !== undefined) {
    if (typeof folder === 'string' && folder.trim() !== '' && !/[/\\]/.test(folder) && folder !== '.' && folder !== '..') s.outputFolderName = folder.trim();
    else issues.push({ setting: 'pfc.output.folderName', message: t('pfc.output.folderName must be a folder name without slashes (got {0})', JSON.stringify(folder)) });
  }
  const suffix = get<unknown>('output.suffix');
  if (suffix !== undefined) {
    if (typeof suffix === 'string' && suffix !== '' && !/[/\\]/.test(suffix)) s.outputSuffix = suffix;
    else issues.push({ setting: 'pfc.output.suffix', message: t('pfc.output.suffix must be non-empty text without slashes (got {0})', JSON.stringify(suffix)) });
  }

  s.concurrency = intIn('concurrency', get<unknown>('concurrency'), 0, 16, issues, l10n) ?? s.concurrency;
  s.confirmAboveFiles = intIn('confirmAboveFiles', get<unknown>('confirmAboveFiles'), 0, Number.MAX_SAFE_INTEGER, issues, l10n) ?? s.confirmAboveFiles;
  const skip = get<unknown>('skipAlreadyCorrected');
  if (typeof skip === 'boolean') s.skipAlreadyCorrected = skip;

  if (issues.length > 0) throw new SettingsError(issues);
  return s;
}

/**
 * The settings of `resource` scope in package.json (keys without `pfc.`): each
 * folder of a multi-root workspace may set its own, so they are read for the
 * folder being corrected.
 */
export const RESOURCE_SCOPED: ReadonlySet<string> = new Set([
  'parameters', 'defaultPreset', 'output.mode', 'output.askEachRun', 'output.folderName', 'output.suffix', 'concurrency', 'confirmAboveFiles', 'skipAlreadyCorrected',
]);

/**
 * The current `pfc.*` settings, checked: those of `resource` scope as the
 * folder holding `resource` sets them (its `.vscode/settings.json` in a
 * multi-root workspace), the others as the window does. Without a resource,
 * the workspace's values ("any resource": `null`, as VS Code asks for, instead
 * of a warning in the extension host log).
 */
export function settingsFrom(api: Pick<VscodeApi, 'workspace' | 'l10n'>, resource?: Uri): ExtensionSettings {
  const cfg = api.workspace.getConfiguration('pfc');
  const folderCfg = api.workspace.getConfiguration('pfc', resource ?? null);
  const isSet = (key: string): boolean => {
    const i = cfg.inspect(key);
    return i === undefined ? cfg.get(key) !== undefined : [i.globalValue, i.workspaceValue, i.workspaceFolderValue].some((v) => v !== undefined);
  };
  return readSettings((key) => (RESOURCE_SCOPED.has(key) ? folderCfg : cfg).get(key), api.l10n, isSet);
}

/**
 * The batch engine's output mode for a setting. `bases` are the folders the
 * inputs' trees start at (a folder input itself, a file input's folder). With
 * the default folder name each folder gets its own `<folder>/corrected`; with
 * another name, the outputs go under `<common folder of the bases>/<name>`.
 */
export function outputModeOf(mode: OutputModeSetting, s: Pick<ExtensionSettings, 'outputFolderName' | 'outputSuffix'>, bases: readonly string[]): OutputMode {
  switch (mode) {
    case 'folder':
      return s.outputFolderName === DEFAULT_OUTPUT_DIR ? { kind: 'mirror' } : { kind: 'mirror', dir: join(commonFolder(bases), s.outputFolderName) };
    case 'suffix':
      return { kind: 'suffix', suffix: s.outputSuffix };
    case 'in-place':
      return { kind: 'in-place' };
  }
}

/** Parameter issues as setting issues (for messages). */
export function paramIssuesText(issues: readonly ParamIssue[]): string {
  return issues.map((i) => i.message).join('; ');
}

/** The deepest folder containing every path (absolute paths). */
export function commonFolder(paths: readonly string[]): string {
  const split = paths.map((p) => resolve(p).split(sep));
  const first = split[0] ?? [];
  let n = first.length;
  for (const parts of split.slice(1)) {
    let i = 0;
    while (i < n && i < parts.length && parts[i] === first[i]) i++;
    n = i;
  }
  return first.slice(0, n).join(sep) || sep;
}
