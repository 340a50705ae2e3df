/**
 * The manifest: one per output root, recording for each output the input's
 * content hash and the settings it was made with, so a rerun skips finished
 * work, redoes changed work and resumes after an interruption.
 *
 * It is a JSON-lines file: a header line, then one `done` line appended per
 * finished output. Appending keeps each update O(1) and survives `kill -9`
 * (a torn last line is ignored on load); the file is compacted to one line per
 * output at the end of a run, written to a temporary file and renamed.
 */
import { mkdir, open, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { PfcParams } from '@pfc/core';
import { appendFileDurable } from '@pfc/node-io';
import { writeFileAtomic } from './files';
import { hashValue } from './hash';
import { MANIFEST_FILE, type OutputMode, portableRelative } from './paths';

export const MANIFEST_VERSION = 1;

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
  /** Effective parameters (defaults filled, ignored ones dropped), for people reading the file. */
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
  /** ISO 8601 time the output was renamed into place. */
  completedAt: string;
}

interface HeaderLine {
  type: 'header';
  format: 'pfc-manifest';
  version: number;
  mode: OutputMode['kind'];
}

/** The settings key of a backend and parameter set. */
export function settingsKey(backend: string, effectiveParams: PfcParams): string {
  return hashValue({ backend, params: effectiveParams });
}

export class Manifest {
  /** Absolute path of the manifest file. */
  readonly path: string;
  private readonly entries = new Map<string, ManifestEntry>();
  /** Hashes of results being renamed into place, by output: a kill between the rename and `record` leaves pfc's own file. */
  private readonly writing = new Map<string, Set<string>>();
  private queue: Promise<void> = Promise.resolve();
  private exists = false;

  private constructor(
    /** Folder the manifest describes (paths in entries are relative to it). */
    readonly dir: string,
    readonly mode: OutputMode['kind'],
  ) {
    this.path = join(dir, MANIFEST_FILE);
  }

  /** Load the manifest of `dir`, or start an empty one (nothing is written until the first `record`). */
  static async load(dir: string, mode: OutputMode['kind']): Promise<Manifest> {
    const m = new Manifest(resolve(dir), mode);
    let text: string;
    try {
      text = await readFile(m.path, 'utf8');
      m.exists = true;
    } catch {
      return m;
    }
    for (const line of text.split('\n')) {
      const rec = parseLine(line);
      if (rec?.type === 'done') {
        const { type: _type, ...entry } = rec;
        m.entries.set(entry.output, entry);
      } else if (rec?.type === 'writing') {
        m.addWriting(rec.output, rec.outputHash);
      }
    }
    return m;
  }

  /** Number of outputs recorded. */
  get size(): number {
    return this.entries.size;
  }

  /** The entry for an output path (absolute). */
  get(output: string): ManifestEntry | undefined {
    return this.entries.get(portableRelative(this.dir, output));
  }

  /** Whether `hash` is a result pfc wrote (or was renaming into place) at `output` (absolute). */
  wrote(output: string, hash: string): boolean {
    const rel = portableRelative(this.dir, output);
    return this.entries.get(rel)?.outputHash === hash || (this.writing.get(rel)?.has(hash) ?? false);
  }

  /** Note, before it is renamed into place, the hash of a result about to be at `output` (absolute). Appends one line. */
  intend(output: string, outputHash: string): Promise<void> {
    const rel = portableRelative(this.dir, output);
    this.addWriting(rel, outputHash);
    return this.enqueue(async () => {
      await this.ensureFile();
      await appendFileDurable(this.path, `${JSON.stringify({ type: 'writing', output: rel, outputHash })}\n`);
    });
  }

  private addWriting(rel: string, hash: string): void {
    const set = this.writing.get(rel) ?? new Set<string>();
    set.add(hash);
    this.writing.set(rel, set);
  }

  private async ensureFile(): Promise<void> {
    if (this.exists) return;
    await mkdir(this.dir, { recursive: true });
    await appendFileDurable(this.path, `${JSON.stringify(this.header())}\n`);
    this.exists = true;
  }

  /** Every entry, in recording order. */
  all(): ManifestEntry[] {
    return [...this.entries.values()];
  }

  /** Record a finished output (absolute `output` and `input` paths). Appends one line. */
  record(entry: Omit<ManifestEntry, 'output' | 'input'> & { output: string; input: string }): Promise<void> {
    const e: ManifestEntry = { ...entry, output: portableRelative(this.dir, entry.output), input: portableRelative(this.dir, entry.input) };
    this.entries.set(e.output, e);
    return this.enqueue(async () => {
      await this.ensureFile();
      // Flushed: the output it records is already on disk, and a later run trusts this line.
      await appendFileDurable(this.path, `${JSON.stringify({ type: 'done', ...e })}
`);
    });
  }

  /** Rewrite the file with one line per output (temporary file + rename). */
  compact(): Promise<void> {
    return this.enqueue(async () => {
      if (!this.exists) return;
      // Results renamed into place but never recorded (the run was killed between the two) stay known as pfc's.
      const writing = [...this.writing].flatMap(([output, hashes]) => [...hashes]
        .filter((h) => this.entries.get(output)?.outputHash !== h)
        .map((outputHash) => ({ type: 'writing', output, outputHash })));
      const lines = [this.header(), ...[...this.entries.values()].map((e) => ({ type: 'done', ...e })), ...writing];
      await writeFileAtomic(this.path, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    });
  }

  /** Wait for pending writes. */
  flush(): Promise<void> {
    return this.enqueue(async () => undefined);
  }

  private header(): HeaderLine {
    return { type: 'header', format: 'pfc-manifest', version: MANIFEST_VERSION, mode: this.mode };
  }

  private enqueue(task: () => Promise<void>): Promise<void> {
    const next = this.queue.then(task);
    this.queue = next.catch(() => undefined);
    return next;
  }
}

type Line = HeaderLine | ({ type: 'done' } & ManifestEntry) | { type: 'writing'; output: string; outputHash: string };

function parseLine(line: string): Line | undefined {
  if (!line.trim()) return undefined;
  try {
    const v = JSON.parse(line) as Line;
    if (v.type === 'done' && typeof v.output === 'string' && typeof v.inputHash === 'string') return v;
    if (v.type === 'header') return v;
    if (v.type === 'writing' && typeof v.output === 'string' && typeof v.outputHash === 'string') return v;
  } catch {
    // A torn last line after `kill -9`: the output it described is redone.
  }
  return undefined;
}

/** Whether `dir` holds the manifest of a mirror run (so it is an output folder, not input). */
export async function isMirrorOutputFolder(dir: string): Promise<boolean> {
  let head: string;
  try {
    const fh = await open(join(dir, MANIFEST_FILE), 'r');
    try {
      const buf = Buffer.alloc(512);
      const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
      head = buf.subarray(0, bytesRead).toString('utf8');
    } finally {
      await fh.close();
    }
  } catch {
    return false;
  }
  const first = parseLine(head.split('\n')[0] ?? '');
  return first?.type === 'header' && first.mode === 'mirror';
}
