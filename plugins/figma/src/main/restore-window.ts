/**
 * The Why window of a restore: every statement the toast had no room for (a toast shows 100 characters), each left
 * layer's name and reason among them. Static HTML built here, names escaped: a layer's name is the user's text, not
 * markup. No script, so nothing to allow beyond the page itself; the window's close button ends the plugin.
 */
import type { FigmaApi } from './host';

/** `text` safe as HTML element content. */
function escaped(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The window's page: the statements as a list, the first (the toast's) as its heading. */
export function restoreWindowHtml(statements: readonly string[]): string {
  const [first, ...rest] = statements;
  const items = rest.map((s) => `<li>${escaped(s)}</li>`).join('');
  // Figma's themeColors variables, with the light theme's values where a host has none.
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Perfectly Clear: Restore</title><style>
body{margin:0;padding:12px 16px;font:12px/1.5 Inter,system-ui,sans-serif;color:var(--figma-color-text,#1e1e1e);background:var(--figma-color-bg,#fff)}
h1{font-size:12px;font-weight:600;margin:0 0 8px}ul{margin:0;padding-left:18px}li{margin:0 0 4px;overflow-wrap:anywhere}
</style></head><body><h1>${escaped(first ?? '')}</h1><ul>${items}</ul></body></html>`;
}

/** Size of the Why window (px): taller with more to say, up to a screen's share. */
function windowSize(statements: readonly string[]): { width: number; height: number } {
  return { width: 360, height: Math.min(480, 64 + 22 * statements.length) };
}

/** Open the Why window over the canvas. */
export function showRestoreWindow(figma: Pick<FigmaApi, 'showUI'>, statements: readonly string[]): void {
  figma.showUI(restoreWindowHtml(statements), { title: 'Perfectly Clear: Restore', themeColors: true, ...windowSize(statements) });
}
