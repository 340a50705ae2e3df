/**
 * Real paths (symbolic links resolved) of paths that may not exist yet: an
 * output folder or a target is judged by where its bytes would really land, so
 * a link to the input folder is refused like the input folder itself.
 */
import { realpath } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** The real path of `path`: its nearest existing ancestor resolved, the rest appended as given. */
export async function realPathOf(path: string): Promise<string> {
  const rest: string[] = [];
  let at = path;
  for (;;) {
    try {
      return join(await realpath(at), ...rest.reverse());
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

/** `realPathOf` with one lookup per folder, for many files in few folders. */
export function realFolderCache(): (dir: string) => Promise<string> {
  const cache = new Map<string, Promise<string>>();
  return (dir) => {
    let hit = cache.get(dir);
    if (!hit) cache.set(dir, (hit = realPathOf(dir)));
    return hit;
  };
}
