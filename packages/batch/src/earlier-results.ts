/**
 * Results of earlier runs among a run's inputs. A photo pfc wrote — into a
 * mirror's output folder, beside its input with a suffix, or over it in
 * place — is a correction already: taken as an input (the user points at an
 * output folder, or at a folder corrected in place, to make a copy of it) it
 * would be corrected twice, sharpening, contrast and colour twice over, and
 * paid for again. The manifest of the folder it was written under records it:
 * a file that a manifest in its own folder or one above records as an output,
 * with the bytes pfc wrote there (size and mtime, else the hash), is such a
 * result; so is a file with the bytes of a result recorded there under
 * another name (renamed, or copied: Finder's "a_pfc copy.jpg", Windows'
 * "a_pfc - Copy.jpg"), and one with the bytes of a result of the run's own
 * output folder (a result copied back among the photos, or over its original).
 * In an earlier mirror run's output folder every file is hashed for that;
 * elsewhere (where the inputs stand beside or apart from the results) only a
 * file of a recorded result's size is, against the manifests of the folders
 * above it, the run's own, and those of earlier output folders the planner
 * found below the inputs (a result copied out of one). A symbolic link is
 * judged by what it leads to as well: a link to a result is that result.
 */
import { existsSync, lstatSync, realpathSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { hashFile } from './hash';
import { Manifest, type ManifestEntry, manifestModeOf } from './manifest';
import { BACKUP_DIR, MANIFEST_FILE } from './paths';

export class EarlierResults {
  /** The manifests at or above each folder asked about, nearest first (a run's files share a few hundred folders). */
  private readonly chains = new Map<string, Promise<Manifest[]>>();
  /** The run's own manifests, by folder: read already, and kept up to date by the run. */
  private readonly known: ReadonlyMap<string, Manifest>;
  /** The manifests of earlier output folders found below the inputs, read when a file first asks. */
  private apart: Promise<Manifest[]> | undefined;

  /** `earlierOutputs`: earlier mirror runs' output folders below the inputs (`BatchPlan.earlierOutputs`). */
  constructor(known: Iterable<Manifest> = [], private readonly earlierOutputs: readonly string[] = []) {
    this.known = new Map([...known].map((m) => [m.dir, m]));
  }

  /**
   * Why `file` (of `size` bytes, modified at `mtimeMs`) is not to be corrected: the reason when a manifest
   * records it as pfc's result, else undefined. `hashed`: its hash, where the caller has taken it already.
   */
  async reasonFor(file: string, size: number, mtimeMs: number, signal?: AbortSignal, hashed?: string): Promise<string | undefined> {
    const path = resolve(file);
    const target = linkTarget(path);
    let hash = hashed;
    const chains: Manifest[][] = [];
    for (const at of target === undefined ? [path] : [path, target]) {
      const chain = await this.chainOf(dirname(at));
      chains.push(chain);
      for (const manifest of chain) {
        const entry = manifest.get(at);
        if (!entry || entry.outputSize !== size) continue;
        if (entry.outputMtimeMs !== mtimeMs) {
          // Copied with the folder (new times), or touched: the bytes decide.
          hash ??= await hashFile(path, signal);
          if (hash !== entry.outputHash) continue;
        }
        return `${alreadyCorrected(manifest, entry)}${at === path ? '' : ` (a link to ${target})`}`;
      }
    }
    return this.copyOfResult(path, size, chains.flat(), signal, hash);
  }

  /**
   * Why `path` (of `size` bytes) is not to be corrected: it has the bytes of a result recorded under another
   * name (renamed or copied since) by a manifest of its folder or one above, or by one of the run's own. Under
   * an earlier mirror run's output folder every file may be such a copy; elsewhere, where the inputs themselves
   * stand beside or apart from the results, only a file of a recorded result's size is read to ask.
   * `hashed`: its hash, if taken already.
   */
  private async copyOfResult(path: string, size: number, chain: readonly Manifest[], signal: AbortSignal | undefined, hashed: string | undefined): Promise<string | undefined> {
    const below = chain.filter((m) => m.mode === 'mirror' && !this.known.has(m.dir));
    const apart = [...this.known.values(), ...(await this.apartManifests())].filter((m) => m.hasResultOfSize(size));
    const searched = [...new Set([...below, ...chain.filter((m) => m.hasResultOfSize(size)), ...apart])];
    if (searched.length === 0) return undefined;
    const hash = hashed ?? (await hashFile(path, signal));
    for (const manifest of searched) {
      const other = manifest.outputWithResult(hash);
      const entry = other === undefined || other === path ? undefined : manifest.get(other);
      if (!entry) continue;
      if (resolve(manifest.dir, entry.input) === path) return replacedByResult(manifest, other!);
      return `${alreadyCorrected(manifest, entry)} (${other} renamed or copied)`;
    }
    return undefined;
  }

  /** The manifests of the earlier output folders found below the inputs (an unreadable one is not asked). */
  private apartManifests(): Promise<Manifest[]> {
    this.apart ??= Promise.all(this.earlierOutputs.map((dir) => this.manifestIn(dir).catch(() => undefined))).then((ms) => ms.filter((m): m is Manifest => m !== undefined));
    return this.apart;
  }

  private chainOf(dir: string): Promise<Manifest[]> {
    let chain = this.chains.get(dir);
    if (!chain) {
      const parent = dirname(dir);
      chain = Promise.all([this.manifestIn(dir), parent === dir ? [] : this.chainOf(parent)]).then(([own, above]) => (own ? [own, ...above] : above));
      this.chains.set(dir, chain);
    }
    return chain;
  }

  private async manifestIn(dir: string): Promise<Manifest | undefined> {
    const known = this.known.get(dir);
    if (known) return known;
    // A stat per folder of the run and above it, once: most hold no manifest.
    if (!statSync(join(dir, MANIFEST_FILE), { throwIfNoEntry: false })?.isFile()) return undefined;
    // Read only, never written. A manifest of the first format has no header line, so no mode: its results are
    // known by their paths only (as a suffix run's), not searched by hash.
    return Manifest.load(dir, manifestModeOf(dir) ?? 'suffix');
  }
}

/** Where the symbolic link at `path` leads (its real path), or undefined for a file that is no link (or a broken one). */
function linkTarget(path: string): string | undefined {
  try {
    return lstatSync(path).isSymbolicLink() ? realpathSync(path) : undefined;
  } catch {
    return undefined;
  }
}

/** The photo at `path` is its own result, `result`, copied over it: its original is gone, and pfc kept none. */
function replacedByResult(manifest: Manifest, result: string): string {
  return `is already corrected: it has the bytes of pfc's result for it, ${result} (recorded in ${manifest.path}), copied over it since; left as is, not corrected twice. pfc kept no copy of the original (only the in-place mode keeps originals)`;
}

function alreadyCorrected(manifest: Manifest, entry: ManifestEntry): string {
  if (entry.input === entry.output) {
    return `is already corrected: an earlier run corrected it in place, and its original is kept in ${join(manifest.dir, BACKUP_DIR, entry.output)}; left as is, not corrected twice: correct the original instead (restoring the originals of ${manifest.dir} puts it back)`;
  }
  // The manifest names the input relative to its folder: a folder copied or moved elsewhere took it along, not the input.
  const input = resolve(manifest.dir, entry.input);
  const named = existsSync(input) ? input : `${entry.input} (as ${manifest.path} names it, from the folder it was written in; moved or copied since)`;
  return `is already corrected: it is pfc's result for ${named}, written by an earlier run (recorded in ${manifest.path}); left as is, not corrected twice: correct the original instead`;
}
