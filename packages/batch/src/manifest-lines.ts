/**
 * The manifest's lines on disk. Version 2 (written today) keeps each file's
 * line short: the parameters are stored once per settings key (a `settings`
 * line with a small id that `done` lines refer to), hashes as base64url
 * digests, and field names of one or two letters. Version 1 (every line
 * repeating the full parameter set, ≈880 bytes a file) is still read.
 */
import type { PfcParams } from '@pfc/core';
import type { OutputMode } from './paths';

export const MANIFEST_VERSION = 2;

/** One finished output. Paths are relative to the manifest's folder, `/`-separated. */
export interface ManifestEntry {
  output: string;
  input: string;
  /** `sha256:<hex>` of the input the output was made from (in in-place mode: of the original). */
  inputHash: string;
  /** Input size in bytes and modification time in ms, to skip re-hashing unchanged files. */
  inputSize: number;
  inputMtimeMs: number;
  /** Hash of the backend id and the effective parameters; equal keys mean equal settings. */
  settingsKey: string;
  /** Effective parameters (defaults filled, ignored ones dropped); one object shared by every entry of a settings key. */
  params: PfcParams;
  /** Backend id (`emulator`, `web`, `container`, `container+bgr`, `bgr`). */
  backend: string;
  outputHash: string;
  /** Output size in bytes and modification time in ms. */
  outputSize: number;
  outputMtimeMs: number;
  /** Web API job id, when there was one. */
  jobId?: string;
  /** Wall time of the correction in ms. */
  durationMs: number;
  /** ISO 8601 time the output was renamed into place (version 1 lines only; version 2 has the output's mtime). */
  completedAt?: string;
}

export interface HeaderLine {
  type: 'header';
  format: 'pfc-manifest';
  version: number;
  mode: OutputMode['kind'];
}

/** A settings key's parameters, once per manifest (version 2). */
export interface SettingsLine {
  t: 's';
  /** Id the `done` lines refer to; unique within the file. */
  s: number;
  key: string;
  backend: string;
  params: PfcParams;
}

/** A finished output (version 2); see `ManifestEntry` for the meaning of each field. */
export interface DoneLineV2 {
  t: 'd';
  o: string;
  i: string;
  /** Input hash, base64url SHA-256 digest. */
  ih: string;
  is: number;
  im: number;
  /** Settings id (`SettingsLine.s`). */
  s: number;
  oh: string;
  os: number;
  om: number;
  j?: string;
  d: number;
}

/** A result about to be renamed into place (version 2). */
interface WritingLineV2 {
  t: 'w';
  o: string;
  h: string;
}

type DoneLineV1 = { type: 'done' } & ManifestEntry;
type WritingLineV1 = { type: 'writing'; output: string; outputHash: string };

/** A line as read, in either version; undefined for blank, torn or unknown lines. */
export type ParsedLine =
  | HeaderLine
  | SettingsLine
  | { kind: 'done'; line: DoneLineV2 }
  | { kind: 'done-v1'; entry: ManifestEntry }
  | { kind: 'writing'; output: string; outputHash: string };

const SHA = 'sha256:';

/** `sha256:<hex>` → base64url digest (43 characters instead of 71). Other forms are kept as they are, prefixed with `=`. */
export function packHash(hash: string): string {
  return hash.startsWith(SHA) && /^[0-9a-f]{64}$/.test(hash.slice(SHA.length)) ? Buffer.from(hash.slice(SHA.length), 'hex').toString('base64url') : `=${hash}`;
}

export function unpackHash(packed: string): string {
  return packed.startsWith('=') ? packed.slice(1) : `${SHA}${Buffer.from(packed, 'base64url').toString('hex')}`;
}

export function doneLine(e: ManifestEntry, settingsId: number): string {
  const line: DoneLineV2 = {
    t: 'd', o: e.output, i: e.input, ih: packHash(e.inputHash), is: e.inputSize, im: e.inputMtimeMs, s: settingsId,
    oh: packHash(e.outputHash), os: e.outputSize, om: e.outputMtimeMs, ...(e.jobId ? { j: e.jobId } : {}), d: e.durationMs,
  };
  return JSON.stringify(line);
}

export function writingLine(output: string, outputHash: string): string {
  const line: WritingLineV2 = { t: 'w', o: output, h: packHash(outputHash) };
  return JSON.stringify(line);
}

export function settingsLine(id: number, key: string, backend: string, params: PfcParams): string {
  const line: SettingsLine = { t: 's', s: id, key, backend, params };
  return JSON.stringify(line);
}

export function parseLine(text: string): ParsedLine | undefined {
  if (!text.trim()) return undefined;
  let v: Record<string, unknown>;
  try {
    v = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // A torn last line after `kill -9`: the output it described is redone.
    return undefined;
  }
  const str = (k: string) => typeof v[k] === 'string';
  if (v.t === 'd' && str('o') && str('i') && str('ih') && str('oh') && typeof v.s === 'number') return { kind: 'done', line: v as unknown as DoneLineV2 };
  if (v.t === 'w' && str('o') && str('h')) return { kind: 'writing', output: v.o as string, outputHash: unpackHash(v.h as string) };
  if (v.t === 's' && typeof v.s === 'number' && str('key') && str('backend')) return v as unknown as SettingsLine;
  if (v.type === 'header') return v as unknown as HeaderLine;
  if (v.type === 'done' && str('output') && str('inputHash')) {
    const { type: _type, ...entry } = v as unknown as DoneLineV1;
    return { kind: 'done-v1', entry };
  }
  if (v.type === 'writing' && str('output') && str('outputHash')) {
    const w = v as unknown as WritingLineV1;
    return { kind: 'writing', output: w.output, outputHash: w.outputHash };
  }
  return undefined;
}
