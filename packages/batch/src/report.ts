/**
 * The before/after report: an HTML page that a person opens in a browser,
 * offline (no external resource). A run that fits one page of cards makes one
 * self-contained file (thumbnails as data URIs); a larger one a page with the
 * summary, the failures and a folder index, and beside it a folder
 * `<name>.files/` with the other files' rows and the thumbnails, loaded as the
 * reader pages through them (see `report-html.ts`, `report-store.ts`).
 * Entry `@pfc/batch/report`, apart from the engine, because thumbnails need the
 * native `sharp`, which hosts without native modules (VS Code) cannot load.
 */
import { dirname, relative, sep } from 'node:path';
import { Readable } from 'node:stream';
import sharp from 'sharp';
import type { PfcParams } from '@pfc/core';
import { asDiskRefusal } from './errors';
import type { BatchSummary, FileResult } from './events';
import { writeStreamAtomic } from './files';
import { readResults } from './results';
import { type ChunkWriter, REPORT_PAGE_SIZE, ReportData, type ThumbRef } from './report-data';
import { renderReport } from './report-html';
import { checkReportPath } from './report-path';
import { removeCompanion, ReportFiles } from './report-store';

/** Thrown by `writeReport` when the report's disk is full or read-only (the engine's class, exported here for hosts of the report alone). */
export { DiskRefusedError } from './errors';

export interface ReportOptions {
  /** Page title. Default "Perfectly Clear batch report". */
  title?: string;
  /** Backend shown in the header (e.g. "embedded emulator"). Never a credential. */
  backend?: string;
  /** Parameters of the run, as given. */
  params?: PfcParams;
  /** Longest side of the thumbnails in pixels. Default 360. */
  thumbnailPx?: number;
  /** Files shown with thumbnails (failures first, then in the order of the results); the rest are listed without. Default 500. */
  maxThumbnails?: number;
}

/** A run of at most this many files makes one self-contained page (one page of cards). */
export const INLINE_MAX_FILES = REPORT_PAGE_SIZE;

/**
 * Write the report for a finished run to `path` (temporary file + rename; a
 * larger run's data first, in a new generation of its companion folder, so
 * the page on disk always finds its data). Returns the absolute path. Throws
 * `BatchUsageError` (`bad-report`) when `path` is not an `.html` file name, is
 * a file no pfc report wrote, or has a companion folder pfc did not make (see
 * `checkReportPath`), and `DiskRefusedError` when its disk is full or read-only.
 */
export async function writeReport(path: string, summary: BatchSummary, options: ReportOptions = {}): Promise<string> {
  const dest = await checkReportPath(path);
  const results = resultsOf(summary);
  const { files, failed } = countResults(results());
  const store = files > INLINE_MAX_FILES ? await ReportFiles.open(dest) : undefined;
  try {
    const inline = new Map<string, string>();
    const reportDir = dirname(dest);
    const data = new ReportData((name, always) => (store && !always ? store.openChunk(name) : inlineChunk(name, inline)), (file) => relative(reportDir, file).split(sep).map(encodeURIComponent).join('/'));
    const thumbs = new Thumbnails(options.thumbnailPx ?? 360, options.maxThumbnails ?? 500, failed, store);
    let i = 0;
    for (const r of results()) {
      const [before, after] = await thumbs.of(r, i++);
      await data.add(r, before, after);
    }
    const meta = await data.finish();
    const page = renderReport({
      title: options.title ?? 'Perfectly Clear batch report',
      generatedAt: new Date(),
      backend: options.backend,
      params: options.params ?? {},
      summary,
      meta,
      base: store ? store.href('') : '',
      inline,
    });
    // Streamed to the file: the page is never one string in memory.
    await writeStreamAtomic(dest, Readable.from(page, { objectMode: false }));
  } catch (err) {
    await store?.abandon();
    throw asDiskRefusal(err, dirname(dest));
  }
  await (store ? store.commit() : removeCompanion(dest));
  return dest;
}

/**
 * The run's results, each call a fresh pass: the summary's own when it kept
 * them, else its results file read a chunk at a time (a run of 100,000 files
 * never holds them all as objects).
 */
function resultsOf(summary: BatchSummary): () => Iterable<FileResult> {
  const file = summary.resultsFile;
  if (summary.results.length > 0 || !file) return () => summary.results;
  return () => readResults(file);
}

/** A chunk kept for the page itself (`inline`, by name, as its JSON array). */
function inlineChunk(name: string, inline: Map<string, string>): ChunkWriter {
  const rows: string[] = [];
  return {
    add: async (row) => void rows.push(row),
    end: async () => void inline.set(name, `[${rows.join(',')}]`),
  };
}

function countResults(results: Iterable<FileResult>): { files: number; failed: number } {
  let files = 0;
  let failed = 0;
  for (const r of results) {
    files++;
    if (r.status === 'failed') failed++;
  }
  return { files, failed };
}

/**
 * Before and after thumbnails of the first `max` images, failures first, then
 * the others in order: every failure up to `max`, and the first
 * `max − failures` others. Written as files beside the page when there is a
 * companion folder (the browser loads only those of the shown cards), else as
 * data URIs in the page.
 */
class Thumbnails {
  #failures = 0;
  #others = 0;
  readonly #othersMax: number;

  constructor(private readonly px: number, private readonly max: number, failed: number, private readonly store: ReportFiles | undefined) {
    this.#othersMax = Math.max(0, max - failed);
  }

  async of(r: FileResult, index: number): Promise<[ThumbRef, ThumbRef]> {
    const chosen = r.status === 'failed' ? this.#failures++ < this.max : this.#others++ < this.#othersMax;
    if (!chosen || r.media.fileType !== 'image') return [0, 0];
    const done = r.status === 'corrected' || r.status === 'up-to-date';
    const before = await this.#one(r.backup && done ? r.backup : r.input, `t${index}b.webp`);
    const after = done ? await this.#one(r.output, `t${index}a.webp`) : 0;
    return [before, after];
  }

  async #one(file: string, name: string): Promise<ThumbRef> {
    const t = await thumbnail(file, this.px);
    if (!t) return 0;
    if (!this.store) return [`data:image/webp;base64,${t.webp.toString('base64')}`, t.width, t.height];
    await this.store.writeThumbnail(name, t.webp);
    return [this.store.href(name), t.width, t.height];
  }
}

/** A thumbnail (WebP) with the image's own size. */
interface Thumbnail {
  webp: Buffer;
  width: number;
  height: number;
}

/** The thumbnail of `file`, or undefined when it cannot be read. */
async function thumbnail(file: string, px: number): Promise<Thumbnail | undefined> {
  try {
    const img = sharp(file, { failOn: 'none' });
    const meta = await img.metadata();
    // WebP keeps the alpha of background-removed results; EXIF orientation is applied first.
    const webp = await img.rotate().resize({ width: px, height: px, fit: 'inside', withoutEnlargement: true }).webp({ quality: 72 }).toBuffer();
    const swap = (meta.orientation ?? 1) >= 5;
    return { webp, width: (swap ? meta.height : meta.width) ?? 0, height: (swap ? meta.width : meta.height) ?? 0 };
  } catch {
    return undefined;
  }
}

export type { FileResult };
