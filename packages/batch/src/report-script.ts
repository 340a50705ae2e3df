/**
 * The report page's style and script. The script reads the rows written by
 * `report-html.ts` and shows them a page at a time in two lists: failures
 * first, then the other files. It builds elements and text nodes only (no
 * markup from the data), and a card's thumbnails exist only while its page
 * is shown, loaded lazily by the browser.
 *
 * Row fields, by index: 0 rel, 1 status, 2 link to the original, 3 link to the
 * output, 4 input facts, 5 output size, 6 time, 7 job id, 8 original kept at,
 * 9 parameter set (index into `params`), 10 error, 11 warnings, 12 before
 * thumbnail and 13 after thumbnail (index into `thumbs`, -1: none), 14 video (1).
 */

export const REPORT_SCRIPT = `
(() => {
  const data = JSON.parse(document.getElementById('pfc-report-data').textContent);
  const LABEL = { corrected: 'corrected', 'up-to-date': 'up to date', failed: 'failed', cancelled: 'cancelled' };
  const el = (tag, attrs, ...kids) => {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
    for (const k of kids) if (k !== null && k !== undefined && k !== '') e.append(k);
    return e;
  };
  const fact = (dt, dd) => (dd === '' ? [] : [el('dt', {}, dt), el('dd', {}, dd)]);
  function tile(role, href, t, missing) {
    if (!t) return el('div', { class: 'tile empty', 'data-role': role }, missing);
    const img = el('img', { 'data-role': role, loading: 'lazy', alt: role + ': ' + decodeURIComponent(href), src: t[0] });
    return el('a', { class: 'tile', href, title: decodeURIComponent(href) }, img, el('span', { class: 'dim' }, t[1] + '×' + t[2]));
  }
  function paramsOf(id) {
    const pairs = data.params[id] || [];
    if (pairs.length === 0) return el('span', { class: 'muted' }, 'service defaults');
    const dd = el('span', {});
    pairs.forEach(([k, v], i) => dd.append(i ? ' ' : '', el('code', {}, k + '=' + v)));
    return dd;
  }
  function card(r) {
    const [rel, status, original, output, input, bytesOut, time, jobId, backup, pid, error, warnings, bt, at, video] = r;
    const video_ = (role) => el('div', { class: 'tile empty', 'data-role': role }, 'video');
    const before = video ? video_('before') : tile('before', original, data.thumbs[bt], 'no preview');
    const afterMissing = status === 'failed' ? 'not corrected' : status === 'cancelled' ? 'cancelled' : 'no preview';
    const after = video ? video_('after') : tile('after', output, data.thumbs[at], afterMissing);
    const dl = el('dl', {}, ...fact('input', input), ...fact('output', bytesOut), ...fact('time', time),
      ...(jobId ? [el('dt', {}, 'job'), el('dd', {}, el('code', {}, jobId))] : []), ...fact('original kept', backup),
      el('dt', {}, 'parameters'), el('dd', {}, paramsOf(pid)));
    return el('article', { class: 'card ' + status, 'data-status': status },
      el('header', {}, el('h2', {}, rel), el('span', { class: 'badge ' + status }, LABEL[status] || status)),
      el('div', { class: 'pics' }, el('figure', {}, el('figcaption', {}, 'before'), before), el('figure', {}, el('figcaption', {}, 'after'), after)),
      dl, error ? el('p', { class: 'error' }, error) : null, ...warnings.map((w) => el('p', { class: 'warning' }, w)));
  }
  function list(section, ids) {
    if (ids.length === 0) return;
    section.hidden = false;
    const pages = Math.ceil(ids.length / data.pageSize);
    const nav = section.querySelector('.pager');
    const main = section.querySelector('main');
    let page = 0;
    const button = (label, to, title) => {
      const b = el('button', { type: 'button', title }, label);
      b.disabled = to < 0 || to >= pages || to === page;
      b.addEventListener('click', () => show(to));
      return b;
    };
    function show(p) {
      page = p;
      const from = p * data.pageSize;
      const shown = ids.slice(from, from + data.pageSize);
      main.replaceChildren(...shown.map((i) => card(data.rows[i])));
      nav.replaceChildren(button('«', 0, 'first page'), button('‹', p - 1, 'previous page'),
        el('span', { class: 'where' }, (from + 1) + '–' + (from + shown.length) + ' of ' + ids.length + ' · page ' + (p + 1) + ' of ' + pages),
        button('›', p + 1, 'next page'), button('»', pages - 1, 'last page'));
      nav.hidden = pages < 2;
    }
    show(0);
  }
  const failed = [];
  const others = [];
  data.rows.forEach((r, i) => (r[1] === 'failed' ? failed : others).push(i));
  list(document.getElementById('failures'), failed);
  list(document.getElementById('files'), others);
})();
`;

export const REPORT_CSS = `
:root { color-scheme: light dark; --bg: #fafafa; --fg: #1d1d1f; --muted: #6e6e73; --card: #fff; --line: #d2d2d7; }
@media (prefers-color-scheme: dark) { :root { --bg: #1c1c1e; --fg: #f5f5f7; --muted: #a1a1a6; --card: #2c2c2e; --line: #3a3a3c; } }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, sans-serif; background: var(--bg); color: var(--fg); }
header.top { padding: 20px 24px 8px; }
h1 { margin: 0 0 4px; font-size: 22px; }
.muted { color: var(--muted); }
.counts { display: flex; gap: 16px; list-style: none; padding: 0; margin: 8px 0; }
.list > h2 { font-size: 17px; margin: 8px 0; }
.pager { display: flex; gap: 6px; align-items: center; margin: 0 0 8px; } .pager[hidden] { display: none; }
.pager button { font: inherit; padding: 2px 10px; border-radius: 6px; border: 1px solid var(--line); background: var(--card); color: var(--fg); }
.list main { display: grid; grid-template-columns: repeat(auto-fill, minmax(420px, 1fr)); gap: 16px; }
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
section { padding: 0 24px 24px; } section[hidden] { display: none; }
table { border-collapse: collapse; width: 100%; } td, th { text-align: left; padding: 3px 8px; border-bottom: 1px solid var(--line); }
`;
