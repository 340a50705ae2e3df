/**
 * "Compare with Original": VS Code's diff editor between a corrected file and
 * the file it was made from (image previews side by side). The pair comes
 * from the last run's results file when it holds the file, else from the output layouts the
 * engine writes (`<folder>/corrected/<rel>`, `<name><suffix>.<ext>`).
 */
import { existsSync } from 'node:fs';
import { basename, dirname, extname, join, sep } from 'node:path';
import type { FileResult } from '@pfc/batch';
import { DEFAULT_OUTPUT_DIR } from '@pfc/batch';

/** The original and the corrected file of a pair. */
export interface ComparePair {
  original: string;
  corrected: string;
}

/** The pair of a run's result: in-place outputs compare with their backup. */
function fromResult(r: FileResult): ComparePair | undefined {
  if (r.status !== 'corrected' && r.status !== 'up-to-date') return undefined;
  const original = r.backup ?? r.input;
  return original === r.output ? undefined : { original, corrected: r.output };
}

/** Candidates for the original of `path` by layout: the mirror folder's parent tree, or the name without the suffix. */
function fromLayout(path: string, folderName: string, suffix: string): ComparePair | undefined {
  const parts = path.split(sep);
  const at = parts.lastIndexOf(folderName);
  const ext = extname(path);
  const stems = (p: string): string[] => ['.jpg', '.jpeg', '.png', '.JPG', '.JPEG', '.PNG'].map((e) => p.slice(0, p.length - extname(p).length) + e);
  if (at > 0) {
    const original = [...parts.slice(0, at), ...parts.slice(at + 1)].join(sep);
    const found = [original, ...stems(original)].find((p) => existsSync(p));
    if (found) return { original: found, corrected: path };
  }
  const name = basename(path, ext);
  if (suffix && name.endsWith(suffix)) {
    const original = join(dirname(path), name.slice(0, -suffix.length) + ext);
    const found = [original, ...stems(original)].find((p) => existsSync(p));
    if (found) return { original: found, corrected: path };
  }
  return undefined;
}

/**
 * The pair `path` belongs to, as a corrected file or as an original: from the
 * last run's results (read until the file is found) when given, else by
 * layout. Undefined when nothing says which file it was made from or made into.
 */
export async function comparePair(path: string, results: AsyncIterable<FileResult> | Iterable<FileResult> | undefined, layout: { folderName?: string; suffix?: string } = {}): Promise<ComparePair | undefined> {
  for await (const r of results ?? []) {
    const pair = fromResult(r);
    if (pair && (pair.corrected === path || pair.original === path || r.input === path)) return pair;
  }
  return fromLayout(path, layout.folderName ?? DEFAULT_OUTPUT_DIR, layout.suffix ?? '_pfc');
}
