/**
 * The before/after report: one self-contained HTML file (thumbnails embedded
 * as data URIs, no external resource) that a person opens in a browser.
 * Entry `@pfc/batch/report`, apart from the engine, because thumbnails need the
 * native `sharp`, which hosts without native modules (VS Code) cannot load.
 */
import { dirname } from 'node:path';
import { Readable } from 'node:stream';
import sharp from 'sharp';
import type { PfcParams } from '@pfc/core';
import type { BatchSummary, FileResult } from './events';
import { writeStreamAtomic } from './files';
import { readResults } from './results';
import { renderReport, type ReportCard } from './report-html';
import { checkReportPath } from './report-path';

export interface ReportOptions {
  /** Page title. Default "Perfectly Clear batch report". */
  title?: string;
  /** Backend shown in the header (e.g. "embedded emulator"). Never a credential. */
  backend?: string;
  /** Parameters of the run, as given. */
  params?: PfcParams;
  /** Longest side of the thumbnails in pixels. Default 360. */
  thumbnailPx?: number;
  /** Files shown with thumbnails (failures first, then in plan order); the rest are listed without, to keep the page small. Default 500. */
  maxThumbnails?: number;
}

/**
 * Write the report for a finished run to `path` (temporary file + rename).
 * Returns the absolute path. Throws `BatchUsageError` (`bad-report`) when
 * `path` is not an `.html` file name or is a file no pfc report wrote (see `checkReportPath`).
 */
export async function writeReport(path: string, summary: BatchSummary, options: ReportOptions = {}): Promise<string> {
  const dest = await checkReportPath(path);
  const results = resultsOf(summary);
  const thumbs = await thumbnailsOf(results, options.thumbnailPx ?? 360, options.maxThumbnails ?? 500);
  const cards = (function* (): Generator<ReportCard> {
    let i = 0;
    for (const r of results()) yield { result: r, ...(thumbs.get(i++) ?? { before: undefined, after: undefined }) };
  })();
  const html = renderReport({
    title: options.title ?? 'Perfectly Clear batch report',
    generatedAt: new Date(),
    backend: options.backend,
    params: options.params ?? {},
    summary,
    cards,
    reportDir: dirname(dest),
  });
  // Streamed to the file: the page of a large run is never a string in memory.
  await writeStreamAtomic(dest, Readable.from(html, { objectMode: false }));
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

/** Before and after thumbnails of the first `max` images, failures first, by index in the results. */
async function thumbnailsOf(results: () => Iterable<FileResult>, px: number, max: number): Promise<Map<number, Omit<ReportCard, 'result'>>> {
  // Two passes keep only the chosen `max` results: failures first, then the others in order.
  const chosen = new Map<number, FileResult>();
  for (const failedPass of [true, false]) {
    let i = 0;
    for (const r of results()) {
      if (chosen.size >= max) break;
      if ((r.status === 'failed') === failedPass) chosen.set(i, r);
      i++;
    }
  }
  const out = new Map<number, Omit<ReportCard, 'result'>>();
  for (const [i, r] of chosen) {
    if (r.media.fileType !== 'image') continue;
    const done = r.status === 'corrected' || r.status === 'up-to-date';
    const before = await thumbnail(r.backup && done ? r.backup : r.input, px);
    const after = done ? await thumbnail(r.output, px) : undefined;
    out.set(i, { before, after });
  }
  return out;
}

/** A thumbnail as a data URI with the image's own size, or undefined when it cannot be read. */
export interface Thumbnail {
  dataUri: string;
  width: number;
  height: number;
}

async function thumbnail(file: string, px: number): Promise<Thumbnail | undefined> {
  try {
    const img = sharp(file, { failOn: 'none' });
    const meta = await img.metadata();
    // WebP keeps the alpha of background-removed results; EXIF orientation is applied first.
    const buf = await img.rotate().resize({ width: px, height: px, fit: 'inside', withoutEnlargement: true }).webp({ quality: 72 }).toBuffer();
    const swap = (meta.orientation ?? 1) >= 5;
    return { dataUri: `data:image/webp;base64,${buf.toString('base64')}`, width: (swap ? meta.height : meta.width) ?? 0, height: (swap ? meta.width : meta.height) ?? 0 };
  } catch {
    return undefined;
  }
}

export type { FileResult };
