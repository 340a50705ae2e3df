/**
 * The scan before planning: walks the chosen folders (names only, no file
 * reads), counting the candidate files for the "Scanning… N files"
 * notification, and finds what the user's workspace excludes — `files.exclude`
 * and `search.exclude` patterns, and every `node_modules` folder — so those
 * files are never corrected. Cancellable between folders.
 */
import type { Dirent } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';

/** Why a path is left out by the scan. */
export type ScanReason = 'node_modules' | 'files.exclude' | 'search.exclude';

/** A glob set as VS Code's `files.exclude` / `search.exclude` hold it: pattern → true | { when } | false. */
export type ExcludeSetting = Record<string, unknown>;

/**
 * A VS Code glob (`**`, `*`, `?`, `{a,b}`, `[…]`) as a regular expression over
 * `/`-separated relative paths. Patterns without a `/` match a name at any depth
 * only when written with `**` (as VS Code does).
 */
export function globToRegExp(glob: string): RegExp {
  let re = '';
  let inBraces = false;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*') {
      if (glob[i + 1] === '*') {
        // `**/` matches zero or more folders; a trailing `**` everything below.
        const slash = glob[i + 2] === '/';
        re += slash ? '(?:.*/)?' : '.*';
        i += slash ? 2 : 1;
      } else re += '[^/]*';
    } else if (c === '?') re += '[^/]';
    else if (c === '{') {
      inBraces = true;
      re += '(?:';
    } else if (c === '}' && inBraces) {
      inBraces = false;
      re += ')';
    } else if (c === ',' && inBraces) re += '|';
    else if (c === '[') {
      const end = glob.indexOf(']', i + 1);
      if (end < 0) re += '\\[';
      else {
        re += `[${glob.slice(i + 1, end).replace(/^!/, '^').replace(/\\/g, '\\\\')}]`;
        i = end;
      }
    } else re += c.replace(/[.+^$()|\\/]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/** The enabled patterns of an exclude setting (`{ when }` entries, which depend on siblings, are left out: stricter to include files than to guess). */
export function enabledPatterns(setting: ExcludeSetting | undefined): RegExp[] {
  return Object.entries(setting ?? {}).filter(([, v]) => v === true).map(([k]) => globToRegExp(k.replace(/\/+$/, '')));
}

/** Decides whether a path is left out, and why. */
export interface ExcludeRules {
  /** `abs` is absolute; `isDir` whether it is a folder. */
  reason(abs: string, isDir: boolean): ScanReason | undefined;
}

/**
 * Rules from the settings. Patterns match the path relative to the workspace
 * folder holding it (`folderOf`), or to the scanned input when it is outside
 * every workspace folder.
 */
export function excludeRules(files: ExcludeSetting | undefined, search: ExcludeSetting | undefined, folderOf: (abs: string) => string | undefined): ExcludeRules & { withBase(base: string): ExcludeRules } {
  const f = enabledPatterns(files);
  const s = enabledPatterns(search);
  const make = (fallbackBase: string | undefined): ExcludeRules => ({
    reason(abs, isDir) {
      const name = abs.slice(abs.lastIndexOf(sep) + 1);
      if (isDir && name === 'node_modules') return 'node_modules';
      const base = folderOf(abs) ?? fallbackBase;
      if (base === undefined) return undefined;
      const rel = relative(base, abs).split(sep).join('/');
      if (rel === '' || rel.startsWith('..')) return undefined;
      if (f.some((r) => r.test(rel))) return 'files.exclude';
      if (s.some((r) => r.test(rel))) return 'search.exclude';
      return undefined;
    },
  });
  return { ...make(undefined), withBase: (base) => make(base) };
}

export interface ScanResult {
  /** Candidate files found (not hidden, not excluded); planning decides which are images. */
  files: number;
  /** Left-out paths (a folder stands for everything below it), with the reason. */
  excluded: Map<string, ScanReason>;
}

/** Whether `path` is `root` or below it. */
export function isWithin(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

/**
 * Walk `inputs` (folders and files) as planning will, without reading files.
 * `onCount` gets the running count, at most every `every` files. Resolves
 * undefined when `cancelled()` turns true.
 */
export async function scanInputs(
  inputs: readonly string[],
  rules: ExcludeRules & { withBase(base: string): ExcludeRules },
  onCount: (files: number) => void,
  cancelled: () => boolean,
  every = 100,
): Promise<ScanResult | undefined> {
  const result: ScanResult = { files: 0, excluded: new Map() };
  const count = (): void => {
    result.files++;
    if (result.files % every === 0) onCount(result.files);
  };
  const walk = async (dir: string, r: ExcludeRules): Promise<boolean> => {
    if (cancelled()) return false;
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return true; // planning reports unreadable folders
    }
    for (const e of entries) {
      if (e.name.startsWith('.')) continue; // planning leaves hidden entries out and says so
      const path = join(dir, e.name);
      const why = r.reason(path, e.isDirectory());
      if (why) result.excluded.set(path, why);
      else if (e.isDirectory()) {
        if (!(await walk(path, r))) return false;
      } else if (e.isFile()) count();
    }
    return true;
  };
  for (const input of inputs) {
    const info = await stat(input).catch(() => undefined);
    if (!info) continue; // planning names missing inputs
    if (info.isDirectory()) {
      if (!(await walk(input, rules.withBase(input)))) return undefined;
    } else count();
  }
  onCount(result.files);
  return cancelled() ? undefined : result;
}
