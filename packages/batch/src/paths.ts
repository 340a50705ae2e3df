/**
 * Where outputs, backups, manifests and partial files go. Names only: nothing
 * here touches the disk.
 */
import { extname, isAbsolute, join, relative, sep } from 'node:path';
import { effectivePfcParams, type PfcParams } from '@pfc/core';
import { isTempName, TEMP_SUFFIX } from '@pfc/node-io';
import { CLI_TERMS, type HostTerms } from './host-terms';
import type { MediaFormat } from './sniff';

/** Folder created under an input folder when no `--out` is given. */
export const DEFAULT_OUTPUT_DIR = 'corrected';
/** Manifest file in each output root (JSON lines; see README "Manifest"). */
export const MANIFEST_FILE = '.pfc-manifest.jsonl';
/** Folder (under the input root) holding originals replaced in in-place mode. */
export const BACKUP_DIR = '.pfc-originals';
/** Lock file of a run, in each folder holding a manifest (see `lock.ts`). */
export const LOCK_FILE = '.pfc-lock';
/** Folder under `BACKUP_DIR` keeping earlier distinct originals of a path, by content hash. */
export const BACKUP_HISTORY_DIR = '.history';
/** Suffix of temporary files; they are renamed into place when complete. */
export const PARTIAL_SUFFIX = TEMP_SUFFIX;
/** Suffix added before the extension in suffix mode when none is given. */
export const DEFAULT_SUFFIX = '_pfc';

/**
 * Where results go.
 * - `mirror`: the input tree is mirrored under `dir` (default `<input>/corrected`).
 * - `suffix`: beside each input, named `<name><suffix><ext>`.
 * - `in-place`: over the input; the original is kept under `<input>/.pfc-originals/`.
 */
export type OutputMode = { kind: 'mirror'; dir?: string } | { kind: 'suffix'; suffix?: string } | { kind: 'in-place' };

const CANONICAL_EXT: Record<MediaFormat, string> = { jpeg: '.jpg', png: '.png', mp4: '.mp4', mov: '.mov' };
const EXT_MATCHES: Record<MediaFormat, readonly string[]> = {
  jpeg: ['.jpg', '.jpeg', '.jpe', '.jfif'],
  png: ['.png'],
  mp4: ['.mp4', '.m4v'],
  mov: ['.mov', '.qt'],
};

/** The format each extension names (lower case, with its dot): a guess from the name, which only content confirms. */
export const FORMAT_OF_EXTENSION: ReadonlyMap<string, MediaFormat> = new Map(
  Object.entries(EXT_MATCHES).flatMap(([format, exts]) => exts.map((ext) => [ext, format as MediaFormat] as const)),
);

/** The format the service will return for an input of `format` with these parameters. */
export function outputFormat(format: MediaFormat, params: PfcParams): MediaFormat {
  if (format === 'mp4' || format === 'mov') return format;
  const type = outputTypeOf(params);
  return type === 'jpg' ? 'jpeg' : type === 'png' ? 'png' : format;
}

/** Output types by parameter object (with the object's text): planning names 100,000 outputs from one run's parameters. */
const OUTPUT_TYPES = new WeakMap<PfcParams, { text: string; type: PfcParams['outputType'] }>();

function outputTypeOf(params: PfcParams): PfcParams['outputType'] {
  // The text too, so a caller that changes its parameter object in place is not served a stale type.
  const text = JSON.stringify(params);
  const hit = OUTPUT_TYPES.get(params);
  if (hit?.text === text) return hit.type;
  // Core's effective parameters carry the rules (e.g. background removal without an output type gives PNG).
  const type = effectivePfcParams(params).outputType;
  OUTPUT_TYPES.set(params, { text, type });
  return type;
}

/**
 * The output file name for an input name: the extension follows the output
 * format (kept as typed when it already matches, e.g. `.JPEG`).
 */
export function outputName(inputName: string, format: MediaFormat, params: PfcParams, suffix = ''): string {
  const ext = extname(inputName);
  const stem = ext ? inputName.slice(0, -ext.length) : inputName;
  const out = outputFormat(format, params);
  const keep = EXT_MATCHES[out].includes(ext.toLowerCase());
  return `${stem}${suffix}${keep ? ext : CANONICAL_EXT[out]}`;
}

/**
 * Why an in-place result could not keep the file's name: the parameters
 * make it another format (outputType, or PNG for background removal), whose
 * bytes under the old extension no viewer would expect. Undefined when the
 * format stays, or when the name already fits the new format (a PNG named
 * `x.jpg` made JPEG: the result is what its name says; its original keeps its
 * own bytes under the same name in `.pfc-originals`, so a restore puts the PNG back). `terms`: the host's names in the advice.
 */
export function formatChange(name: string, format: MediaFormat, params: PfcParams, terms: HostTerms = CLI_TERMS): string | undefined {
  const out = outputFormat(format, params);
  if (out === format) return undefined;
  const fits = outputName(name, format, params);
  if (fits === name) return undefined;
  return `the parameters make its result ${out.toUpperCase()}, and ${terms.inPlace} keeps the name ${name}; use ${terms.renamingModes} (they name the result ${fits})`;
}

/** A name that keeps the input's extension visible, for inputs whose outputs would collide (`a.png` → `a.png.jpg`). */
export function disambiguatedName(inputName: string, format: MediaFormat, params: PfcParams, suffix = ''): string {
  const out = outputFormat(format, params);
  return `${inputName}${suffix}${CANONICAL_EXT[out]}`;
}

/** Whether a file name is an output of suffix mode (`photo_pfc.jpg` for suffix `_pfc`). */
export function hasSuffix(fileName: string, suffix: string): boolean {
  const ext = extname(fileName);
  const stem = ext ? fileName.slice(0, -ext.length) : fileName;
  return suffix.length > 0 && stem.endsWith(suffix) && stem.length > suffix.length;
}

/**
 * What to say of a path that cannot be read. A name that is not valid UTF-8
 * (from an old zip archive or a Windows copy) comes back from a folder
 * listing with U+FFFD in place of its bytes, and no file has that name.
 */
export function unreadableReason(path: string, err: Error): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENAMETOOLONG') return `its path is ${Buffer.byteLength(path)} bytes, too long for the file system (ENAMETOOLONG); move the folder nearer the root or shorten its folder names`;
  const notUtf8 = path.includes('\uFFFD') && code === 'ENOENT';
  return notUtf8 ? 'its name is not valid UTF-8, which pfc cannot address; rename it (convmv does this for a whole tree) and run again' : err.message;
}

/** Whether a file name is one of our temporary files. */
export function isPartialName(fileName: string): boolean {
  return isTempName(fileName);
}

/** Path relative to `from`, with `/` separators (manifest keys, reports, JSON events). */
export function portableRelative(from: string, to: string): string {
  // A normalised POSIX path below `from` is cut, not resolved: planning asks this of every file.
  if (sep === '/' && to.length > from.length + 1 && to.startsWith(from) && to[from.length] === '/' && normalBase(from) && isNormalAbsolute(to)) {
    return to.slice(from.length + 1);
  }
  return relative(from, to).split(sep).join('/');
}

/** `isNormalAbsolute` of the last base asked about (the same base is asked for every file of a folder). */
let lastBase: { path: string; normal: boolean } = { path: '', normal: false };
function normalBase(from: string): boolean {
  if (lastBase.path !== from) lastBase = { path: from, normal: isNormalAbsolute(from) };
  return lastBase.normal;
}

/** An absolute POSIX path without `.`/`..` segments, empty segments or a trailing `/` (what `join` and `resolve` give). */
function isNormalAbsolute(p: string): boolean {
  return p.startsWith('/') && !p.endsWith('/') && !p.includes('//') && !p.includes('/./') && !p.includes('/../') && !p.endsWith('/.') && !p.endsWith('/..');
}

/** The deepest folder containing every path. */
export function commonAncestor(paths: readonly string[]): string {
  if (paths.length === 0) throw new TypeError('commonAncestor needs at least one path');
  let parts = paths[0]!.split(sep);
  for (const p of paths.slice(1)) {
    const q = p.split(sep);
    let i = 0;
    while (i < parts.length && i < q.length && parts[i] === q[i]) i++;
    parts = parts.slice(0, i);
  }
  return parts.join(sep) || sep;
}

/** Whether `child` is `parent` or inside it. */
export function isInside(child: string, parent: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/**
 * Where an earlier original of `rel` is kept when a different original replaces
 * it: `.pfc-originals/.history/<rel>/<hash><ext>`, named by content so the same
 * original is never kept twice and no two originals share a name.
 */
export function backupHistoryPath(backup: string, rel: string, hash: string): string {
  const backupRoot = backup.slice(0, backup.length - rel.length - 1);
  const hex = hash.replace(/^sha256:/, '').slice(0, 16);
  return join(backupRoot, BACKUP_HISTORY_DIR, rel, `${hex}${extname(rel)}`);
}
