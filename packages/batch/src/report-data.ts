/**
 * The report's data: one compact JSON row per file, gathered into chunks of
 * `REPORT_CHUNK_ROWS` rows in two lists (`f`: failures, `c`: every other
 * file, each in the order the results came), and an index of folders naming
 * the chunks that hold each folder's files. A chunk is written out as soon as
 * it is full, so writing the report holds one chunk of each list, the first
 * chunk of failures (shown by the page itself) and the folder index, never a
 * row per file.
 *
 * Row fields, by index: 0 rel, 1 status, 2 link to the original, 3 link to the
 * output, 4 input facts, 5 output size, 6 time, 7 job id, 8 original kept at,
 * 9 parameter set (index into the page's `params`), 10 error, 11 warnings,
 * 12 before and 13 after thumbnail (`[src, width, height]`, or 0: none),
 * 14 video (1), 15 folder (index into the folder index).
 */
import { PFC_PARAMS, type PfcParams } from '@pfc/core';
import type { FileResult, FileStatus } from './events';
import { formatBytes, formatDuration } from './format';

/** Rows in one data chunk (a script file of its own when the report has a companion folder). */
export const REPORT_CHUNK_ROWS = 1000;
/** Cards the page shows at once. */
export const REPORT_PAGE_SIZE = 100;

/** A thumbnail as the page uses it: its address (a data URI or a file beside the page) and the image's own size. */
export type ThumbRef = [src: string, width: number, height: number] | 0;

/** One chunk being written: its rows one at a time (JSON texts), then its end. */
export interface ChunkWriter {
  add(row: string): Promise<void>;
  end(): Promise<void>;
}

/**
 * Opens the writer of a chunk: `inline` ones go into the page, the others
 * (with a companion folder) to files, a row at a time as they come, so no row
 * lives long enough to reach V8's old generation (where a chunk of held rows,
 * ~250 KB, would wait for a full collection and memory would grow with the
 * chunks written).
 */
export type ChunkSink = (name: string, inline: boolean) => ChunkWriter;

/** The folder index's entry: name, counts by status, and the chunks holding the folder's files. */
type FolderEntry = [name: string, corrected: number, upToDate: number, failed: number, cancelled: number, chunks: string[]];

const STATUS_COLUMN: Record<FileStatus, 1 | 2 | 3 | 4> = { corrected: 1, 'up-to-date': 2, failed: 3, cancelled: 4 };

/** JSON safe inside a `<script>` element (no `<` can close it or open a comment), and in a script file. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}

/** The parameters that differ from the service's defaults (what a person chose). */
export function chosenParams(p: PfcParams): [string, unknown][] {
  return Object.entries(p).filter(([k, v]) => (PFC_PARAMS[k as keyof PfcParams] as { default?: unknown } | undefined)?.default !== v);
}

/** One list of rows cut into chunks named `<prefix><n>`. */
class ChunkedList {
  total = 0;
  chunks = 0;
  #inChunk = 0;
  #open: ChunkWriter | undefined;

  constructor(private readonly prefix: string, private readonly open: (name: string) => ChunkWriter) {}

  /** The name of the chunk the next row lands in. */
  get current(): string {
    return `${this.prefix}${this.chunks}`;
  }

  async add(row: string): Promise<void> {
    this.#open ??= this.open(this.current);
    await this.#open.add(row);
    this.total++;
    if (++this.#inChunk >= REPORT_CHUNK_ROWS) await this.flush();
  }

  async flush(): Promise<void> {
    if (!this.#open) return;
    const open = this.#open;
    this.#open = undefined;
    this.#inChunk = 0;
    this.chunks++;
    await open.end();
  }
}

/** What the page needs to find the data: counts, chunk counts, parameter sets, folder count. */
export interface ReportMeta {
  pageSize: number;
  chunkRows: number;
  failures: { total: number; chunks: number };
  files: { total: number; chunks: number };
  folders: number;
  /** Each distinct parameter set once, as `[name, value]` pairs of the chosen ones. */
  params: [string, string][][];
}

/** Gathers the rows of a report (see the file's comment). */
export class ReportData {
  readonly #failures: ChunkedList;
  readonly #files: ChunkedList;
  readonly #folders = new Map<string, { id: number; entry: FolderEntry }>();
  readonly #params: [string, string][][] = [];
  readonly #paramIdsByText = new Map<string, number>();
  /** Results kept in memory share their parameter objects: each is turned into text once. */
  readonly #paramIds = new WeakMap<PfcParams, number>();

  /**
   * `sink` opens each chunk's writer; the first chunk of failures is always
   * `inline` (the page shows it without loading anything).
   */
  constructor(private readonly sink: ChunkSink, private readonly link: (file: string) => string) {
    this.#failures = new ChunkedList('f', (name) => sink(name, name === 'f0'));
    this.#files = new ChunkedList('c', (name) => sink(name, false));
  }

  /** Add one file's row. */
  async add(r: FileResult, before: ThumbRef, after: ThumbRef): Promise<void> {
    const list = r.status === 'failed' ? this.#failures : this.#files;
    const folder = this.#folder(r.rel, list.current, r.status);
    const original = r.backup && (r.status === 'corrected' || r.status === 'up-to-date') ? r.backup : r.input;
    const row = [
      r.rel, r.status, this.link(original), this.link(r.output),
      `${formatBytes(r.bytesIn)}${r.media.width ? ` · ${r.media.width}×${r.media.height}` : ''}`,
      r.bytesOut !== undefined ? formatBytes(r.bytesOut) : '',
      r.durationMs !== undefined ? `${formatDuration(r.durationMs)}${r.job?.timeTaken !== undefined ? ` (service ${r.job.timeTaken} s)` : ''}` : '',
      r.jobId ?? '', r.backup ?? '', this.#paramId(r.params), r.error ?? '', r.warnings,
      before, after, r.media.fileType === 'video' ? 1 : 0, folder,
    ];
    await list.add(scriptJson(row));
  }

  /** Write the last chunks and the folder index; returns what the page needs. */
  async finish(): Promise<ReportMeta> {
    await this.#failures.flush();
    await this.#files.flush();
    const folders = this.sink('folders', false);
    for (const f of this.#folders.values()) await folders.add(scriptJson(f.entry));
    await folders.end();
    return {
      pageSize: REPORT_PAGE_SIZE,
      chunkRows: REPORT_CHUNK_ROWS,
      failures: { total: this.#failures.total, chunks: this.#failures.chunks },
      files: { total: this.#files.total, chunks: this.#files.chunks },
      folders: this.#folders.size,
      params: this.#params,
    };
  }

  /** The folder's index, counting the file and noting the chunk it lands in. */
  #folder(rel: string, chunk: string, status: FileStatus): number {
    const slash = Math.max(rel.lastIndexOf('/'), rel.lastIndexOf('\\'));
    const name = slash < 0 ? '' : rel.slice(0, slash);
    let f = this.#folders.get(name);
    if (!f) {
      f = { id: this.#folders.size, entry: [name, 0, 0, 0, 0, []] };
      this.#folders.set(name, f);
    }
    f.entry[STATUS_COLUMN[status]]++;
    const chunks = f.entry[5];
    if (!chunks.includes(chunk)) chunks.push(chunk);
    return f.id;
  }

  #paramId(p: PfcParams): number {
    const known = this.#paramIds.get(p);
    if (known !== undefined) return known;
    const pairs = chosenParams(p).map(([k, v]): [string, string] => [k, String(v)]);
    const text = JSON.stringify(pairs);
    let id = this.#paramIdsByText.get(text);
    if (id === undefined) {
      id = this.#params.push(pairs) - 1;
      this.#paramIdsByText.set(text, id);
    }
    this.#paramIds.set(p, id);
    return id;
  }
}
