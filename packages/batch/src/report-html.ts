/**
 * The report page's markup. The summary and parameters are plain HTML; the
 * files are one compact JSON row each, shown a page at a time (failures first,
 * then the other files) by the page's own script, so a run of 100,000 files
 * makes a page that opens in a moment and holds only the shown cards in its
 * DOM. Every value reaches the page escaped: HTML-escaped in the markup, and
 * as text nodes (never markup) from the rows.
 */
import { relative, sep } from 'node:path';
import { PFC_PARAMS, type PfcParams } from '@pfc/core';
import type { BatchSummary, FileResult } from './events';
import { formatBytes, formatDuration } from './format';
import { REPORT_MARKER } from './report-path';
import { REPORT_CSS, REPORT_SCRIPT } from './report-script';
import type { Thumbnail } from './report';

export interface ReportCard {
  result: FileResult;
  before: Thumbnail | undefined;
  after: Thumbnail | undefined;
}

export interface ReportModel {
  title: string;
  generatedAt: Date;
  backend: string | undefined;
  params: PfcParams;
  summary: BatchSummary;
  /** One per file, in plan order. */
  cards: Iterable<ReportCard>;
  /** Folder of the report, for relative links to the full-size files. */
  reportDir: string;
}

/** Cards a page of the report shows at once. */
export const REPORT_PAGE_SIZE = 100;
/** Left-out paths listed in the page; the rest are counted. */
const MAX_EXCLUDED_ROWS = 1000;

export function esc(s: unknown): string {
  return String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function link(model: ReportModel, file: string): string {
  return relative(model.reportDir, file).split(sep).map(encodeURIComponent).join('/');
}

/** The parameters that differ from the service's defaults (what a person chose). */
function chosen(p: PfcParams): [string, unknown][] {
  return Object.entries(p).filter(([k, v]) => (PFC_PARAMS[k as keyof PfcParams] as { default?: unknown } | undefined)?.default !== v);
}

function paramList(p: PfcParams): string {
  const entries = chosen(p);
  if (entries.length === 0) return '<span class="muted">service defaults</span>';
  return entries.map(([k, v]) => `<code>${esc(k)}=${esc(v)}</code>`).join(' ');
}

/**
 * The data the page's script renders, as one JSON object: `pageSize`, `rows`
 * (fields listed in report-script.ts), `thumbs` (`[dataUri, width, height]`,
 * referenced by index), and `params` (each distinct parameter set once, as
 * `[name, value]` pairs). Written a few hundred rows at a time: a run of
 * 100,000 files never holds its rows, nor the page, in memory.
 */
function* reportData(model: ReportModel): Generator<string> {
  const thumbs: [string, number, number][] = [];
  const params: [string, string][][] = [];
  const paramIds = new Map<PfcParams, number>();
  const paramIdsByText = new Map<string, number>();
  const thumb = (t: Thumbnail | undefined): number => (t ? thumbs.push([t.dataUri, t.width, t.height]) - 1 : -1);
  let chunk = `{"pageSize":${REPORT_PAGE_SIZE},"rows":[`;
  let first = true;
  for (const c of model.cards) {
    const r = c.result;
    let pid = paramIds.get(r.params);
    if (pid === undefined) {
      const pairs = chosen(r.params).map(([k, v]): [string, string] => [k, String(v)]);
      const text = JSON.stringify(pairs);
      pid = paramIdsByText.get(text) ?? params.push(pairs) - 1;
      paramIdsByText.set(text, pid);
      paramIds.set(r.params, pid);
    }
    const original = r.backup && (r.status === 'corrected' || r.status === 'up-to-date') ? r.backup : r.input;
    const row = [
      r.rel, r.status, link(model, original), link(model, r.output),
      `${formatBytes(r.bytesIn)}${r.media.width ? ` · ${r.media.width}×${r.media.height}` : ''}`,
      r.bytesOut !== undefined ? formatBytes(r.bytesOut) : '',
      r.durationMs !== undefined ? `${formatDuration(r.durationMs)}${r.job?.timeTaken !== undefined ? ` (service ${r.job.timeTaken} s)` : ''}` : '',
      r.jobId ?? '', r.backup ?? '', pid, r.error ?? '', r.warnings,
      thumb(c.before), thumb(c.after), r.media.fileType === 'video' ? 1 : 0,
    ];
    chunk += `${first ? '' : ','}${scriptJson(row)}`;
    first = false;
    if (chunk.length >= DATA_CHUNK_CHARS) {
      yield chunk;
      chunk = '';
    }
  }
  yield `${chunk}],"thumbs":${scriptJson(thumbs)},"params":${scriptJson(params)}}`;
}

/** Characters of the report's data written at once. */
const DATA_CHUNK_CHARS = 64 * 1024;

/** JSON inside a `<script>` element: no `<` can close it or open a comment. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}

function excludedTable(s: BatchSummary): string {
  if (s.excludedPaths.length === 0) return '';
  const shown = s.excludedPaths.slice(0, MAX_EXCLUDED_ROWS);
  const more = s.excludedPaths.length - shown.length;
  return `<section><h2>Left out</h2><table><thead><tr><th>path</th><th>why</th></tr></thead><tbody>${shown
    .map((p) => `<tr><td>${esc(p.path)}</td><td>${esc(p.reason)}</td></tr>`)
    .join('')}</tbody></table>${more > 0 ? `<p class="muted">and ${more} more</p>` : ''}</section>`;
}

/** The page, a chunk at a time (its file rows streamed: see `reportData`). */
export function* renderReport(model: ReportModel): Generator<string> {
  const s = model.summary;
  const counts = [
    ['corrected', s.corrected],
    ['up to date', s.upToDate],
    ['failed', s.failed],
    ['cancelled', s.cancelled],
    ['left out', s.excluded],
  ] as const;
  yield `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
${REPORT_MARKER}
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(model.title)}</title>
<style>${REPORT_CSS}</style>
</head>
<body>
<header class="top">
<h1>${esc(model.title)}</h1>
<p class="muted">${esc(model.generatedAt.toISOString())}${model.backend ? ` · backend: ${esc(model.backend)}` : ''} · ${esc(formatDuration(s.durationMs))} · ${esc(formatBytes(s.bytesIn))} in, ${esc(formatBytes(s.bytesOut))} out${s.interrupted ? ' · <strong>interrupted</strong>' : ''}</p>
<ul class="counts">${counts.map(([k, v]) => `<li><b>${v}</b> ${esc(k)}</li>`).join('')}</ul>
<p>Parameters: ${paramList(model.params)}</p>
<p class="muted">Output folders: ${s.outputRoots.map((o) => `<code>${esc(o)}</code>`).join(', ') || 'none'}</p>
</header>
<section id="failures" class="list" hidden><h2>Failures</h2><nav class="pager"></nav><main></main></section>
<section id="files" class="list" hidden><h2>Files</h2><nav class="pager"></nav><main></main></section>
${excludedTable(s)}
<script type="application/json" id="pfc-report-data">`;
  yield* reportData(model);
  yield `</script>
<script>${REPORT_SCRIPT}</script>
<noscript><p>The list of files needs JavaScript.</p></noscript>
</body>
</html>
`;
}
