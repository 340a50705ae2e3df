/**
 * Options of the colour-correction container emulation, with the container's
 * documented defaults, and how its `PFC_*` environment variables map onto them.
 */
import type { ContainerSkipMode } from '@pfc/core';
import type { ImagingEngine } from '../engine';

export const LOG_LEVELS = ['debug', 'info', 'warning', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface ContainerServerOptions {
  /** Interface to listen on. Default `127.0.0.1`. */
  host?: string;
  /** Port. Default 0 (any free port); the bin defaults to 8081. */
  port?: number;
  /** Base URL of `corrected_url` (PFC_SITE_URL). Default `http://localhost`, as documented — usually not where the emulator listens. */
  siteUrl?: string;
  /** Folder of `NAME.preset` files and ICC profiles (the container's `/presets`). Default: an empty folder in the data folder. */
  presetsDir?: string;
  /** The container's `/input`: uploads are written here, and direct-access files are read from here. Default: a folder in the data folder. */
  inputDir?: string;
  /** The container's `/output`: corrected files. Default: a folder in the data folder. */
  outputDir?: string;
  /** Folder for the default input, output and presets folders. Default: a fresh temporary folder, removed by `close()`. */
  dataDir?: string;
  /** Reuse the input file name for the output (PFC_PRESERVE_INPUT_FILENAME). Default false. */
  preserveInputFileName?: boolean;
  /** Minutes to keep uploads and outputs (PFC_IMG_CACHE_TTL, decimals allowed). Default 60. */
  cacheTtlMinutes?: number;
  /** Time between retention sweeps in ms. Default 600 000 (the documented 10 minutes). */
  sweepIntervalMs?: number;
  /** Log level (PFC_LOG_LEVEL): debug, info, warning, error; unknown values fall back to info. Default info. */
  logLevel?: string;
  /** Default skip mode (PFC_SKIP_MODE). Default `clipart`. */
  skipMode?: ContainerSkipMode;
  /** Default list of software names whose edited images are skipped (PFC_SKIP_EXIF_SOFTWARE). Default none. */
  skipExifSoftware?: string[];
  /** Composite photo extraction default (PFC_ENABLE_COMPOSITE); accepted, no effect in the emulator. Default true. */
  enableComposite?: boolean;
  /** Whether valid licence files are "mounted". Without, outputs are byte-identical to the inputs, as documented. Default true. */
  licensed?: boolean;
  /** Largest `PUT /pfc` body in bytes (answered 413 `bodyRequestMessage` above). Default 200 MB. */
  maxUploadBytes?: number;
  /**
   * Imaging engine hooks (look, faces and scene). Default: `@pfc/engine`'s
   * `createImagingEngine()`, one per process; `{}` for none (geometry and
   * encoding only, `scene` -1: see the README).
   */
  engine?: ImagingEngine;
  /** Clock in ms since the epoch; tests inject one to expire files without waiting. Default `Date.now`. */
  now?: () => number;
  /** Receives the container's JSON log lines at `logLevel` and above. Default: silent. */
  log?: (line: string) => void;
  /** Least time each correction (`GET /pfc/{imageKey}`) takes, its real work included, ms: a slower or faster GPU machine. Default 0. */
  processingMs?: number;
  /** Corrections run at once; more wait their turn (in arrival order). Default: no limit. */
  workers?: number;
}

/** The level a `PFC_LOG_LEVEL` value selects: case-insensitive; unknown → info. */
export function logLevelOf(value: string | undefined): LogLevel {
  const v = value?.trim().toLowerCase();
  return (LOG_LEVELS as readonly string[]).includes(v ?? '') ? (v as LogLevel) : 'info';
}

const bool = (v: string | undefined): boolean | undefined => (v === undefined || v.trim() === '' ? undefined : /^(1|true|yes|on)$/i.test(v.trim()));

/**
 * Container options from the documented environment variables
 * (PFC_SITE_URL, PFC_LOG_LEVEL, PFC_IMG_CACHE_TTL, PFC_SKIP_MODE,
 * PFC_SKIP_EXIF_SOFTWARE, PFC_PRESERVE_INPUT_FILENAME, PFC_ENABLE_COMPOSITE)
 * and ours for the mounts (PFC_PRESETS_DIR, PFC_INPUT_DIR, PFC_OUTPUT_DIR).
 * PFC_AVX, PFC_USE_FASTFAE and PFC_USE_AI_SERVER are accepted and have no
 * effect. Invalid values throw, naming the variable.
 */
export function containerOptionsFromEnv(env: Readonly<Record<string, string | undefined>>): ContainerServerOptions {
  const out: ContainerServerOptions = {};
  if (env.PFC_SITE_URL) out.siteUrl = checkSiteUrl(env.PFC_SITE_URL, 'PFC_SITE_URL');
  if (env.PFC_LOG_LEVEL) out.logLevel = env.PFC_LOG_LEVEL;
  if (env.PFC_IMG_CACHE_TTL) out.cacheTtlMinutes = checkTtl(env.PFC_IMG_CACHE_TTL, 'PFC_IMG_CACHE_TTL');
  if (env.PFC_SKIP_MODE) {
    const m = env.PFC_SKIP_MODE.trim().toLowerCase();
    if (m !== 'clipart' && m !== 'legacy' && m !== 'none') throw new Error(`PFC_SKIP_MODE must be clipart, legacy or none (got ${JSON.stringify(env.PFC_SKIP_MODE)})`);
    out.skipMode = m;
  }
  if (env.PFC_SKIP_EXIF_SOFTWARE) out.skipExifSoftware = splitList(env.PFC_SKIP_EXIF_SOFTWARE);
  const preserve = bool(env.PFC_PRESERVE_INPUT_FILENAME);
  if (preserve !== undefined) out.preserveInputFileName = preserve;
  const composite = bool(env.PFC_ENABLE_COMPOSITE);
  if (composite !== undefined) out.enableComposite = composite;
  if (env.PFC_PRESETS_DIR) out.presetsDir = env.PFC_PRESETS_DIR;
  if (env.PFC_INPUT_DIR) out.inputDir = env.PFC_INPUT_DIR;
  if (env.PFC_OUTPUT_DIR) out.outputDir = env.PFC_OUTPUT_DIR;
  return out;
}

/** A site URL as `corrected_url` will use it: http(s), no trailing slash. */
export function checkSiteUrl(value: string, name: string): string {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw new Error(`${name} must be an http(s) URL such as http://localhost:8081 (got ${JSON.stringify(value)})`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error(`${name} must be an http(s) URL (got ${JSON.stringify(value)})`);
  return u.href.replace(/\/+$/, '');
}

/** A retention in minutes: a number above 0. */
export function checkTtl(value: string, name: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a number of minutes above 0 (got ${JSON.stringify(value)})`);
  return n;
}

export function splitList(value: string): string[] {
  return value.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
}
