/** The report page's markup: plain HTML and CSS, every value escaped. */
import { relative, sep } from 'node:path';
import { PFC_PARAMS, type PfcParams } from '@pfc/core';
import type { BatchSummary, FileResult } from './events';
import { formatBytes, formatDuration } from './format';
import { REPORT_MARKER } from './report-path';
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
  cards: ReportCard[];
  /** Folder of the report, for relative links to the full-size files. */
  reportDir: string;
}

const STATUS_LABEL: Record<FileResult['status'], string> = {
  corrected: 'corrected',
  'up-to-date': 'up to date',
  failed: 'failed',
  cancelled: 'cancelled',
};

export function esc(s: unknown): string {
  return String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function link(model: ReportModel, file: string): string {
  return relative(model.reportDir, file).split(sep).map(encodeURIComponent).join('/');
}

/** The parameters that differ from the service's defaults (what a person chose). */
function chosen(p: PfcParams): PfcParams {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(p)) {
    const spec = PFC_PARAMS[k as keyof PfcParams] as { default?: unknown } | undefined;
    if (spec?.default !== v) out[k] = v;
  }
  return out as PfcParams;
}

function paramList(p: PfcParams): string {
  const entries = Object.entries(chosen(p));
  if (entries.length === 0) return '<span class="muted">service defaults</span>';
  return entries.map(([k, v]) => `<code>${esc(k)}=${esc(v)}</code>`).join(' ');
}

function image(model: ReportModel, role: 'before' | 'after', file: string, t: Thumbnail | undefined, missing: string): string {
  if (!t) return `<div class="tile empty" data-role="${role}">${esc(missing)}</div>`;
  return `<a class="tile" href="${esc(link(model, file))}" title="${esc(file)}"><img data-role="${role}" src="${t.dataUri}" alt="${esc(role)}: ${esc(file)}" loading="lazy"><span class="dim">${t.width}×${t.height}</span></a>`;
}

function card(model: ReportModel, c: ReportCard): string {
  const r = c.result;
  const isVideo = r.media.fileType === 'video';
  const original = r.backup && (r.status === 'corrected' || r.status === 'up-to-date') ? r.backup : r.input;
  const facts = [
    `<dt>input</dt><dd>${esc(formatBytes(r.bytesIn))}${r.media.width ? ` · ${r.media.width}×${r.media.height}` : ''}</dd>`,
    r.bytesOut !== undefined ? `<dt>output</dt><dd>${esc(formatBytes(r.bytesOut))}</dd>` : '',
    r.durationMs !== undefined ? `<dt>time</dt><dd>${esc(formatDuration(r.durationMs))}${r.job?.timeTaken !== undefined ? ` (service ${esc(r.job.timeTaken)} s)` : ''}</dd>` : '',
    r.jobId ? `<dt>job</dt><dd><code>${esc(r.jobId)}</code></dd>` : '',
    r.backup ? `<dt>original kept</dt><dd>${esc(r.backup)}</dd>` : '',
    `<dt>parameters</dt><dd>${paramList(r.params)}</dd>`,
  ].join('');
  const notes = [
    r.error ? `<p class="error">${esc(r.error)}</p>` : '',
    ...r.warnings.map((w) => `<p class="warning">${esc(w)}</p>`),
  ].join('');
  const video = (role: string) => `<div class="tile empty" data-role="${role}">video</div>`;
  const before = isVideo ? video('before') : image(model, 'before', original, c.before, 'no preview');
  const afterMissing = r.status === 'failed' ? 'not corrected' : r.status === 'cancelled' ? 'cancelled' : 'no preview';
  const after = isVideo ? video('after') : image(model, 'after', r.output, c.after, afterMissing);
  return `<article class="card ${r.status}" data-status="${r.status}">
<header><h2>${esc(r.rel)}</h2><span class="badge ${r.status}">${STATUS_LABEL[r.status]}</span></header>
<div class="pics"><figure><figcaption>before</figcaption>${before}</figure><figure><figcaption>after</figcaption>${after}</figure></div>
<dl>${facts}</dl>${notes}
</article>`;
}

export function renderReport(model: ReportModel): string {
  const s = model.summary;
  const counts = [
    ['corrected', s.corrected],
    ['up to date', s.upToDate],
    ['failed', s.failed],
    ['cancelled', s.cancelled],
    ['left out', s.excluded],
  ] as const;
  const excluded = s.excludedPaths.length
    ? `<section><h2>Left out</h2><table><thead><tr><th>path</th><th>why</th></tr></thead><tbody>${s.excludedPaths
        .map((p) => `<tr><td>${esc(p.path)}</td><td>${esc(p.reason)}</td></tr>`)
        .join('')}</tbody></table></section>`
    : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
${REPORT_MARKER}
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(model.title)}</title>
<style>${CSS}</style>
</head>
<body>
<header class="top">
<h1>${esc(model.title)}</h1>
<p class="muted">${esc(model.generatedAt.toISOString())}${model.backend ? ` · backend: ${esc(model.backend)}` : ''} · ${esc(formatDuration(s.durationMs))} · ${esc(formatBytes(s.bytesIn))} in, ${esc(formatBytes(s.bytesOut))} out${s.interrupted ? ' · <strong>interrupted</strong>' : ''}</p>
<ul class="counts">${counts.map(([k, v]) => `<li><b>${v}</b> ${esc(k)}</li>`).join('')}</ul>
<p>Parameters: ${paramList(model.params)}</p>
<p class="muted">Output folders: ${s.outputRoots.map((o) => `<code>${esc(o)}</code>`).join(', ') || 'none'}</p>
</header>
<main>${model.cards.map((c) => card(model, c)).join('\n')}</main>
${excluded}
</body>
</html>
`;
}

const CSS = `
:root { color-scheme: light dark; --bg: #fafafa; --fg: #1d1d1f; --muted: #6e6e73; --card: #fff; --line: #d2d2d7; }
@media (prefers-color-scheme: dark) { :root { --bg: #1c1c1e; --fg: #f5f5f7; --muted: #a1a1a6; --card: #2c2c2e; --line: #3a3a3c; } }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, sans-serif; background: var(--bg); color: var(--fg); }
header.top { padding: 20px 24px 8px; }
h1 { margin: 0 0 4px; font-size: 22px; }
.muted { color: var(--muted); }
.counts { display: flex; gap: 16px; list-style: none; padding: 0; margin: 8px 0; }
main { display: grid; grid-template-columns: repeat(auto-fill, minmax(420px, 1fr)); gap: 16px; padding: 8px 24px 24px; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 12px 14px; }
.card > header { display: flex; justify-content: space-between; align-items: baseline; gap: 8px; }
.card h2 { font-size: 15px; margin: 0; overflow-wrap: anywhere; }
.badge { font-size: 12px; padding: 2px 8px; border-radius: 10px; background: var(--line); white-space: nowrap; }
.badge.corrected { background: #2e7d32; color: #fff; } .badge.failed { background: #c62828; color: #fff; } .badge.cancelled { background: #8d6e63; color: #fff; }
.pics { display: grid; grid-template-columns: 1fr 1fr; gap: 8px; margin-top: 8px; }
.pics figure { margin: 0; } figcaption { font-size: 12px; color: var(--muted); }
.tile { position: relative; display: flex; align-items: center; justify-content: center; min-height: 120px; border-radius: 6px; overflow: hidden;
  background: repeating-conic-gradient(#ccc 0 25%, #eee 0 50%) 0 0 / 16px 16px; }
.tile img { display: block; max-width: 100%; height: auto; }
.tile.empty { background: var(--line); color: var(--muted); }
.dim { position: absolute; right: 4px; bottom: 4px; font-size: 11px; background: rgba(0,0,0,.55); color: #fff; padding: 0 4px; border-radius: 3px; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 10px; margin: 10px 0 0; font-size: 13px; }
dt { color: var(--muted); } dd { margin: 0; overflow-wrap: anywhere; }
code { font-size: 12px; }
.error { color: #c62828; margin: 8px 0 0; } .warning { color: #b26a00; margin: 8px 0 0; }
section { padding: 0 24px 24px; } table { border-collapse: collapse; width: 100%; } td, th { text-align: left; padding: 3px 8px; border-bottom: 1px solid var(--line); }
`;
