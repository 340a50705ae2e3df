/**
 * Contract of the self-hosted background-removal (BGR) container
 * (`../shared/spec/background-removal-container.md`): wire types, submit
 * options, the `process_id` check and the error codes. Shared by the client
 * (`@pfc/core`) and the emulator (`@pfc/emulator`).
 */
import type { ParamIssue } from './webapi-params';

export const BGR_MODES = ['portrait', 'general'] as const;
export type BgrMode = (typeof BGR_MODES)[number];

export const BGR_JOB_STATES = ['queued', 'processing', 'completed', 'failed'] as const;
export type BgrJobState = (typeof BGR_JOB_STATES)[number];

/** Licence states of `/Authorize/{key}` and `/Status`. */
export type BgrLicenceState = 'Licensed' | 'Unlicensed';

/** Answer of `GET /Authorize/{license_key}` and `GET /Status` (field names with spaces, as documented). */
export interface BgrLicenceStatus {
  status: BgrLicenceState;
  message: string;
  'licensed org': string;
  /** `YYYY-MM` in the Authorize answer; ISO 8601 date-time in the Status answer. */
  'expiration date': string;
  /** Only in the Status answer. */
  model_version?: string;
}

/** Answer of `POST /SubmitImage`. */
export interface BgrSubmitResponse {
  status: 'processing';
  process_id: string;
  mode: BgrMode;
  /** `"true"` or `"false"` (a string on the wire). */
  preprocessing_enabled: 'true' | 'false';
  message: string;
}

/** Answer of `GET /CheckImage/{process_id}`. */
export interface BgrCheckResponse {
  status: BgrJobState;
  original_name: string;
  mode: BgrMode;
  /** Seconds; only when completed. */
  processing_time?: number;
  /** Only when failed. */
  error?: string;
}

/** Answer of `DELETE /RemoveImage/{process_id}`. */
export interface BgrRemoveResponse {
  status: 'deleted';
  process_id: string;
  files_deleted: number;
  previous_status: 'processing' | 'completed' | 'failed' | 'queued';
}

/** Options of `POST /SubmitImage`. */
export interface BgrSubmitOptions {
  /** `portrait` or `general` (form field). The container's default when omitted is not documented; the emulator uses `general`. */
  mode?: BgrMode;
  /** Preprocessing (query `preprocessing`). */
  preprocessing?: boolean;
  /** Spill reduction (query `postprocessing`). */
  postprocessing?: boolean;
  /** JSON configuration of the preprocessing (form field `preprocessing_config`); an object is serialised. Default empty. */
  preprocessingConfig?: string | Record<string, unknown>;
}

/** Check submit options before sending (and in the emulator, the same rules). */
export function validateBgrSubmitOptions(o: Readonly<Record<string, unknown>>): { errors: ParamIssue[] } {
  const errors: ParamIssue[] = [];
  const mode = o.mode;
  if (mode !== undefined && mode !== '' && !BGR_MODES.includes(mode as BgrMode)) {
    errors.push({ param: 'mode', message: `mode must be one of ${BGR_MODES.join(', ')} (got ${JSON.stringify(mode)})` });
  }
  for (const k of ['preprocessing', 'postprocessing'] as const) {
    const v = o[k];
    if (v !== undefined && typeof v !== 'boolean' && !(typeof v === 'string' && /^(true|false)$/i.test(v))) {
      errors.push({ param: k, message: `${k} must be true or false (got ${JSON.stringify(v)})` });
    }
  }
  const cfg = o.preprocessingConfig ?? o.preprocessing_config;
  if (typeof cfg === 'string' && cfg.trim() !== '') {
    try {
      const parsed: unknown = JSON.parse(cfg);
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
    } catch {
      errors.push({ param: 'preprocessing_config', message: 'preprocessing_config must be a JSON object (or empty)' });
    }
  } else if (cfg !== undefined && typeof cfg !== 'string' && (cfg === null || typeof cfg !== 'object' || Array.isArray(cfg))) {
    errors.push({ param: 'preprocessing_config', message: 'preprocessing_config must be a JSON object (or empty)' });
  }
  return { errors };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether a `process_id` has the documented format (a UUID). */
export function isProcessId(id: string): boolean {
  return UUID.test(id);
}

/**
 * Error codes of the document, with the status each answers. Two are ours:
 * `unlicensed` (the document leaves the status of calls before activation
 * open; the emulator answers 403 with `status: "Unlicensed"` in the body) and
 * `invalidParameter` (a form or query value outside its range: 422, as
 * FastAPI answers a failed validation).
 */
export const BGR_ERRORS = {
  licenceKeyMissing: 400,
  invalidProcessId: 400,
  notFound: 404,
  invalidFile: 404,
  missingFile: 422,
  invalidParameter: 422,
  processingFailed: 500,
  internalError: 500,
  unlicensed: 403,
} as const;
export type BgrErrorCode = keyof typeof BGR_ERRORS;

/**
 * Error body of the emulator: FastAPI's `{"detail": ...}` shape (the BGR
 * container answers 422 for a missing form field, as FastAPI does) plus our
 * `code`. The real container's bodies are not documented; clients parse leniently.
 */
export interface BgrErrorBody {
  detail: string | { loc: string[]; msg: string; type: string }[];
  code: BgrErrorCode;
  /** `Unlicensed` on 403 before activation. */
  status?: BgrLicenceState;
}

/** The container package version the document describes. */
export const BGR_PACKAGE_VERSION = '11.0.1';
