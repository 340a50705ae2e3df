/**
 * The report page: the summary, the parameters and the failures, with an
 * index of folders and a paged list of every other file whose rows the
 * page's script loads a chunk at a time (see `report-data.ts`): from the page
 * itself for a run that fits one page of cards, else from the companion
 * folder beside it. So a run of 100,000 files makes a first page of a few
 * hundred kilobytes. Every value reaches the page escaped: HTML-escaped in the
 * markup, and as text nodes (never markup) from the rows.
 */
import { type PfcParams } from '@pfc/core';
import type { BatchSummary } from './events';
import { formatBytes, formatDuration } from './format';
import { LEFT_OUT_KEPT } from './left-out';
import { chosenParams, type ReportMeta, scriptJson } from './report-data';
import { REPORT_MARKER } from './report-path';
import { REPORT_CSS, REPORT_SCRIPT } from './report-script';
import { NOT_SUPPORTED } from './sniff';

export interface ReportModel {
  title: string;
  generatedAt: Date;
  backend: string | undefined;
  params: PfcParams;
  summary: BatchSummary;
  meta: ReportMeta;
  /** Address of the companion folder's generation relative to the page, ending in `/`; empty when every chunk is inline. */
  base: string;
  /** Chunks written into the page, by name (JSON arrays). */
  inline: Map<string, string>;
}

/** Left-out paths listed in the page (the summary keeps as many); the rest are counted. */
const MAX_EXCLUDED_ROWS = LEFT_OUT_KEPT;

export function esc(s: unknown): string {
  return String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function paramList(p: PfcParams): string {
  const entries = chosenParams(p);
  if (entries.length === 0) return '<span class="muted">service defaults</span>';
  return entries.map(([k, v]) => `<code>${esc(k)}=${esc(v)}</code>`).join(' ');
}

function excludedTable(s: BatchSummary): string {
  if (s.excludedCounts.total === 0) return '';
  // Files that are no photo or video (sidecars, documents) last: thousands of them would push the photos the user
  // may want to convert out of the rows shown.
  const ordered = [...s.excludedPaths.filter((p) => p.reason !== NOT_SUPPORTED), ...s.excludedPaths.filter((p) => p.reason === NOT_SUPPORTED)];
  const shown = ordered.slice(0, MAX_EXCLUDED_ROWS);
  const more = s.excludedCounts.total - shown.length;
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
<section id="files" class="list" hidden><h2>Files</h2>
<details id="folders"><summary>Folders (${model.meta.folders})</summary><nav class="pager"></nav><table><tbody></tbody></table></details>
<p class="view" hidden></p><nav class="pager"></nav><main></main></section>
${excludedTable(s)}
<script>window.pfcReportChunk=(n,r)=>{(window.pfcReportChunks??={})[n]=r;};</script>
`;
  for (const [name, json] of model.inline) yield `<script>pfcReportChunk(${scriptJson(name)},${json});</script>\n`;
  yield `<script type="application/json" id="pfc-report-meta">${scriptJson({ ...model.meta, base: model.base })}</script>
<script>${REPORT_SCRIPT}</script>
<noscript><p>The list of files needs JavaScript.</p></noscript>
</body>
</html>
`;
}
