/**
 * Real paths (symbolic links resolved) of paths that may not exist yet: an
 * output folder or a target is judged by where its bytes would really land, so
 * a link to the input folder is refused like the input folder itself.
 */
import { realpathSync } from 'node:fs';
import { basename, dirname, join, sep } from 'node:path';

/**
 * The real path of `path`: its nearest existing ancestor resolved, the rest appended as given.
 * Synchronous inside: a lookup from the page cache takes microseconds, and the planner asks it
 * once per folder (an asynchronous lookup waited its turn in libuv's threads).
 */
export async function realPathOf(path: string): Promise<string> {
  return realPathOfSync(path);
}

/** `realPathOf`, synchronously. */
export function realPathOfSync(path: string): string {
  const rest: string[] = [];
  let at = path;
  for (;;) {
    try {
      return join(realpathSync(at), ...rest.reverse());
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      const parent = dirname(at);
      // A dangling link or a missing folder: resolve what exists above it.
      if ((code !== 'ENOENT' && code !== 'ENOTDIR') || parent === at) return join(at, ...rest.reverse());
      rest.push(basename(at));
      at = parent;
    }
  }
}

/**
 * The real path of a file path whose folder may hold links (the file itself is taken as named), with
 * one lookup per folder; `fold`: as a case-insensitive file system compares names (NFC, lower case).
 * The folder is cut off at its last separator, not parsed by `dirname`/`join` (asked for every planned file).
 */
export function realFilePaths(fold: boolean): (path: string) => string {
  const folders = new Map<string, string>();
  return (path) => {
    const cut = path.lastIndexOf(sep);
    const dir = cut <= 0 ? dirname(path) : path.slice(0, cut);
    let real = folders.get(dir);
    if (real === undefined) {
      real = realPathOfSync(dir);
      if (fold) real = real.normalize('NFC').toLowerCase();
      if (!real.endsWith(sep)) real += sep;
      folders.set(dir, real);
    }
    const name = path.slice(cut + 1);
    return real + (fold ? name.normalize('NFC').toLowerCase() : name);
  };
}
