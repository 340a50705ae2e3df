/**
 * "Show Report": the last run's before/after view in a webview, a page of
 * files at a time (the failures first), read from the run's results file (see
 * last-run.ts) — never every result at once. Images are served from disk
 * through `asWebviewUri` (no copies, no re-encoding); the page runs no script,
 * and its Content-Security-Policy allows only those images. A click on an
 * image shows it at full size (a `<details>` toggle, no script); "Compare"
 * opens VS Code's diff editor and the pager shows another page, through
 * command links, the only commands the webview may run (`enableCommandUris`).
 */
import type * as vscode from 'vscode';
import type { FileResult } from '@pfc/batch';
import { resultsPage, type LastRun, type ResultsPage, type RunCounts } from './last-run';
import type { VscodeApi, VscodeL10n } from './vscode-api';

/** The commands the report's links may run. */
export const COMPARE_COMMAND = 'pfc.compareWithOriginal';
export const SHOW_REPORT_COMMAND = 'pfc.showReport';

/** Files on one page of the report panel (a webview of 100,000 rows would not open). */
export const REPORT_PANEL_ROWS = 200;

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

function kb(n: number | undefined): string {
  return n === undefined ? '' : `${(n / 1024).toFixed(0)} KB`;
}

function cell(r: FileResult, path: string, src: (path: string) => string, show: boolean, { t }: VscodeL10n): string {
  if (!show) return '<td class="none">—</td>';
  if (r.media.fileType === 'video') return `<td class="none">${esc(t('video ({0})', path.split(/[\\/]/).pop() ?? path))}</td>`;
  return `<td><details><summary title="${esc(t('Click for full size'))}"><img src="${esc(src(path))}" alt="${esc(path)}" loading="lazy"></summary></details></td>`;
}

function commandLink(command: string, args: unknown[], text: string, cls: string): string {
  return `<a class="${cls}" href="command:${command}?${esc(encodeURIComponent(JSON.stringify(args)))}">${esc(text)}</a>`;
}

function row(r: FileResult, src: (path: string) => string, l10n: VscodeL10n): string {
  const { t } = l10n;
  const status: Record<FileResult['status'], string> = {
    corrected: t('corrected'), 'up-to-date': t('up to date'), failed: t('failed'), cancelled: t('not finished'),
  };
  const hasOutput = r.status === 'corrected' || r.status === 'up-to-date';
  const params = Object.entries(r.params).map(([k, v]) => `${k}=${String(v)}`).join(', ');
  const detail = r.status === 'failed' ? esc(r.error ?? t('failed')) : r.warnings.map(esc).join('<br>');
  const timing = r.durationMs !== undefined ? `${(r.durationMs / 1000).toFixed(1)} s` : '';
  const compare = hasOutput && (r.backup ?? r.input) !== r.output && r.media.fileType !== 'video'
    ? `<div>${commandLink(COMPARE_COMMAND, [r.output], t('Compare with original'), 'compare')}</div>` : '';
  return `<tr class="${r.status}"><th scope="row">${esc(r.rel)}<div class="meta">${esc(params)}</div></th>`
    + `${cell(r, r.backup ?? r.input, src, r.status !== 'corrected' || r.output !== r.input || r.backup !== undefined, l10n)}${cell(r, r.output, src, hasOutput, l10n)}`
    + `<td>${esc(status[r.status])}<div class="meta">${kb(r.bytesIn)} → ${kb(r.bytesOut)} ${timing}</div><div class="meta">${detail}</div>${compare}</td></tr>`;
}

/** "Showing 201–400 of 100000 files…" and the links to the pages around this one; empty for a run that fits one page. */
function pager(page: ResultsPage, at: number, { t }: VscodeL10n): string {
  if (page.total <= REPORT_PANEL_ROWS) return '';
  const from = at * REPORT_PANEL_ROWS;
  const links = [
    at > 0 ? commandLink(SHOW_REPORT_COMMAND, [at - 1], t('Previous page'), 'page') : '',
    from + REPORT_PANEL_ROWS < page.total ? commandLink(SHOW_REPORT_COMMAND, [at + 1], t('Next page'), 'page') : '',
  ].filter(Boolean).join(' · ');
  const shown = t('Showing {0}–{1} of {2} files: the failures first, then the others in order.', from + 1, from + page.rows.length, page.total);
  return `<p class="more">${esc(shown)}</p><nav class="pager">${links}</nav>`;
}

/**
 * The report page for page `at` (from 0) of a run. `src` maps a file path to a
 * webview address; `cspSource` is `webview.cspSource`.
 */
export function renderReport(counts: RunCounts, page: ResultsPage, at: number, src: (path: string) => string, cspSource: string, l10n: VscodeL10n): string {
  const { t } = l10n;
  const rows = page.rows.map((r) => row(r, src, l10n));
  const head = t('{0} corrected, {1} up to date, {2} failed, {3} not finished, {4} left out — {5} s', counts.corrected, counts.upToDate, counts.failed, counts.cancelled, counts.excluded, (counts.durationMs / 1000).toFixed(1));
  const nav = pager(page, at, l10n);
  const title = esc(t('Perfectly Clear report'));
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src ${cspSource}; style-src 'unsafe-inline';">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title>
<style>
body{font-family:var(--vscode-font-family);color:var(--vscode-foreground);background:var(--vscode-editor-background);padding:0 1em}
table{border-collapse:collapse;width:100%}th,td{border-bottom:1px solid var(--vscode-panel-border);padding:.4em;vertical-align:top;text-align:left}
img{max-width:320px;max-height:240px;display:block;cursor:zoom-in}summary{list-style:none}summary::-webkit-details-marker{display:none}
details[open] img{max-width:none;max-height:none;cursor:zoom-out}.meta{opacity:.75;font-size:.85em;font-weight:normal}.failed td:last-child{color:var(--vscode-errorForeground)}
</style></head><body><h1>${title}</h1><p id="summary">${esc(head)}</p>${nav}
<table><thead><tr><th>${esc(t('File'))}</th><th>${esc(t('Before'))}</th><th>${esc(t('After'))}</th><th>${esc(t('Result'))}</th></tr></thead><tbody>
${rows.join('\n')}
</tbody></table>${nav}</body></html>`;
}

/** The folders the webview may load images from: the run's inputs and output roots, and the shown files' folders. */
function resourceRoots(last: LastRun, rows: readonly FileResult[]): string[] {
  const folderOf = (p: string): string => p.slice(0, p.lastIndexOf('/') + 1) || p;
  return [...new Set([...last.inputs, ...last.summary.outputRoots, ...rows.flatMap((r) => [r.input, r.output, ...(r.backup ? [r.backup] : [])].map(folderOf))])];
}

/** Open (or refresh) the report panel on page `at` of the last run (a page past the end shows the last one). */
export async function showReport(api: VscodeApi, last: LastRun, at: number, existing?: vscode.WebviewPanel): Promise<vscode.WebviewPanel> {
  let page = await resultsPage(last, at * REPORT_PANEL_ROWS, REPORT_PANEL_ROWS);
  if (page.rows.length === 0 && at > 0 && page.total > 0) {
    at = Math.ceil(page.total / REPORT_PANEL_ROWS) - 1;
    page = await resultsPage(last, at * REPORT_PANEL_ROWS, REPORT_PANEL_ROWS);
  }
  const options = { enableScripts: false, enableCommandUris: [COMPARE_COMMAND, SHOW_REPORT_COMMAND], localResourceRoots: resourceRoots(last, page.rows).map((p) => api.Uri.file(p)) };
  const panel = existing ?? api.window.createWebviewPanel('pfc.report', api.l10n.t('Perfectly Clear Report'), api.ViewColumn.Active, options);
  if (existing) {
    panel.webview.options = options;
    panel.reveal();
  }
  const webview = panel.webview;
  panel.webview.html = renderReport(last.summary, page, at, (p) => webview.asWebviewUri(api.Uri.file(p)).toString(), webview.cspSource, api.l10n);
  return panel;
}
