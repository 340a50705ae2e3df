/**
 * Real paths (symbolic links resolved) of paths that may not exist yet: an
 * output folder or a target is judged by where its bytes would really land, so
 * a link to the input folder is refused like the input folder itself.
 */
import { realpathSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

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

/** `realPathOfSync` with one lookup per folder, for many files in few folders (no promise per file). */
export function realFolderCacheSync(): (dir: string) => string {
  const cache = new Map<string, string>();
  return (dir) => {
    let hit = cache.get(dir);
    if (hit === undefined) cache.set(dir, (hit = realPathOfSync(dir)));
    return hit;
  };
}
