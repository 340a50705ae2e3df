/**
 * "Show Report": the last run's before/after view in a webview. Images are
 * served from disk through `asWebviewUri` (no copies, no re-encoding); the page
 * runs no script, and its Content-Security-Policy allows only those images.
 * A click on an image shows it at full size (a `<details>` toggle, no script);
 * "Compare" opens VS Code's diff editor through a command link, the only
 * command the webview may run (`enableCommandUris`).
 */
import type * as vscode from 'vscode';
import type { BatchSummary, FileResult } from '@pfc/batch';
import type { VscodeApi, VscodeL10n } from './vscode-api';

/** The one command the report's links may run. */
export const COMPARE_COMMAND = 'pfc.compareWithOriginal';

/** Files the report panel shows at most: a webview of 100,000 rows would not open. */
export const REPORT_PANEL_ROWS = 1000;

/** The files the report panel shows: the failures first, then the others in order, `REPORT_PANEL_ROWS` at most. */
export function shownResults(results: readonly FileResult[]): FileResult[] {
  const failed = results.filter((r) => r.status === 'failed').slice(0, REPORT_PANEL_ROWS);
  const others: FileResult[] = [];
  for (const r of results) {
    if (failed.length + others.length >= REPORT_PANEL_ROWS) break;
    if (r.status !== 'failed') others.push(r);
  }
  return [...failed, ...others];
}

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

/** The report page. `src` maps a file path to a webview address; `cspSource` is `webview.cspSource`. */
export function renderReport(summary: BatchSummary, src: (path: string) => string, cspSource: string, l10n: VscodeL10n): string {
  const { t } = l10n;
  const status: Record<FileResult['status'], string> = {
    corrected: t('corrected'), 'up-to-date': t('up to date'), failed: t('failed'), cancelled: t('not finished'),
  };
  const shown = shownResults(summary.results);
  const rows = shown.map((r) => {
    const hasOutput = r.status === 'corrected' || r.status === 'up-to-date';
    const params = Object.entries(r.params).map(([k, v]) => `${k}=${String(v)}`).join(', ');
    const detail = r.status === 'failed' ? esc(r.error ?? t('failed')) : r.warnings.map(esc).join('<br>');
    const timing = r.durationMs !== undefined ? `${(r.durationMs / 1000).toFixed(1)} s` : '';
    const compare = hasOutput && (r.backup ?? r.input) !== r.output && r.media.fileType !== 'video'
      ? `<div><a class="compare" href="command:${COMPARE_COMMAND}?${esc(encodeURIComponent(JSON.stringify([r.output])))}">${esc(t('Compare with original'))}</a></div>` : '';
    return `<tr class="${r.status}"><th scope="row">${esc(r.rel)}<div class="meta">${esc(params)}</div></th>`
      + `${cell(r, r.backup ?? r.input, src, r.status !== 'corrected' || r.output !== r.input || r.backup !== undefined, l10n)}${cell(r, r.output, src, hasOutput, l10n)}`
      + `<td>${esc(status[r.status])}<div class="meta">${kb(r.bytesIn)} → ${kb(r.bytesOut)} ${timing}</div><div class="meta">${detail}</div>${compare}</td></tr>`;
  });
  const head = t('{0} corrected, {1} up to date, {2} failed, {3} not finished, {4} left out — {5} s', summary.corrected, summary.upToDate, summary.failed, summary.cancelled, summary.excluded, (summary.durationMs / 1000).toFixed(1));
  const more = shown.length < summary.results.length ? `<p id="more">${esc(t('Showing {0} of {1} files: the failures first, then the others in order.', shown.length, summary.results.length))}</p>` : '';
  const title = esc(t('Perfectly Clear report'));
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src ${cspSource}; style-src 'unsafe-inline';">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title>
<style>
body{font-family:var(--vscode-font-family);color:var(--vscode-foreground);background:var(--vscode-editor-background);padding:0 1em}
table{border-collapse:collapse;width:100%}th,td{border-bottom:1px solid var(--vscode-panel-border);padding:.4em;vertical-align:top;text-align:left}
img{max-width:320px;max-height:240px;display:block;cursor:zoom-in}summary{list-style:none}summary::-webkit-details-marker{display:none}
details[open] img{max-width:none;max-height:none;cursor:zoom-out}.meta{opacity:.75;font-size:.85em;font-weight:normal}.failed td:last-child{color:var(--vscode-errorForeground)}
</style></head><body><h1>${title}</h1><p id="summary">${esc(head)}</p>${more}
<table><thead><tr><th>${esc(t('File'))}</th><th>${esc(t('Before'))}</th><th>${esc(t('After'))}</th><th>${esc(t('Result'))}</th></tr></thead><tbody>
${rows.join('\n')}
</tbody></table></body></html>`;
}

/** Open (or refresh) the report panel for a run. */
export function showReport(api: VscodeApi, summary: BatchSummary, roots: readonly vscode.Uri[], existing?: vscode.WebviewPanel): vscode.WebviewPanel {
  const panel = existing ?? api.window.createWebviewPanel('pfc.report', api.l10n.t('Perfectly Clear Report'), api.ViewColumn.Active, {
    enableScripts: false,
    enableCommandUris: [COMPARE_COMMAND],
    localResourceRoots: [...roots],
  });
  if (existing) {
    panel.webview.options = { enableScripts: false, enableCommandUris: [COMPARE_COMMAND], localResourceRoots: [...roots] };
    panel.reveal();
  }
  const webview = panel.webview;
  panel.webview.html = renderReport(summary, (p) => webview.asWebviewUri(api.Uri.file(p)).toString(), webview.cspSource, api.l10n);
  return panel;
}
