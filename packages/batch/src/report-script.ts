/**
 * The report page's style and script. The script shows the rows of
 * `report-data.ts` a page of cards at a time: the failures first, then the
 * other files, or one folder's files chosen from the folder index. A chunk of
 * rows is taken from the page when it is there, else loaded from the
 * companion folder by a `<script src>` (a `file://` page may run scripts
 * beside it but not `fetch` them), once, when a page of cards needs it. It
 * builds elements and text nodes only (no markup from the data), and a card's
 * thumbnails exist only while its page is shown, loaded lazily by the browser.
 */

export const REPORT_SCRIPT = `
(() => {
  const meta = JSON.parse(document.getElementById('pfc-report-meta').textContent);
  const chunks = () => (window.pfcReportChunks ??= {});
  const LABEL = { corrected: 'corrected', 'up-to-date': 'up to date', failed: 'failed', cancelled: 'cancelled' };
  const el = (tag, attrs, ...kids) => {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
    for (const k of kids) if (k !== null && k !== undefined && k !== '') e.append(k);
    return e;
  };
  const loading = new Map();
  /** A chunk's rows: from the page, or its script file beside the page (loaded once). */
  function load(name) {
    if (chunks()[name]) return Promise.resolve(chunks()[name]);
    if (!loading.has(name)) {
      loading.set(name, new Promise((resolve, reject) => {
        const src = meta.base + encodeURIComponent(name) + '.js';
        const s = el('script', { src });
        s.onload = () => (chunks()[name] ? resolve(chunks()[name]) : reject(new Error(src + ' holds no data')));
        s.onerror = () => { loading.delete(name); reject(new Error('cannot read ' + decodeURIComponent(src) + ': keep the report folder beside the page')); };
        document.head.append(s);
      }));
    }
    return loading.get(name);
  }
  /** Rows from..to of a list whose chunks are named prefix + n. */
  async function rowsOf(prefix, from, to) {
    const out = [];
    for (let c = Math.floor(from / meta.chunkRows); c * meta.chunkRows < to; c++) {
      const rows = await load(prefix + c);
      const start = c * meta.chunkRows;
      out.push(...rows.slice(Math.max(0, from - start), to - start));
    }
    return out;
  }
  const fact = (dt, dd) => (dd === '' ? [] : [el('dt', {}, dt), el('dd', {}, dd)]);
  function tile(role, href, t, missing) {
    if (!t) return el('div', { class: 'tile empty', 'data-role': role }, missing);
    const img = el('img', { 'data-role': role, loading: 'lazy', alt: role + ': ' + decodeURIComponent(href), src: t[0] });
    return el('a', { class: 'tile', href, title: decodeURIComponent(href) }, img, el('span', { class: 'dim' }, t[1] + '×' + t[2]));
  }
  function paramsOf(id) {
    const pairs = meta.params[id] || [];
    if (pairs.length === 0) return el('span', { class: 'muted' }, 'service defaults');
    const dd = el('span', {});
    pairs.forEach(([k, v], i) => dd.append(i ? ' ' : '', el('code', {}, k + '=' + v)));
    return dd;
  }
  function card(r) {
    const [rel, status, original, output, input, bytesOut, time, jobId, backup, pid, error, warnings, bt, at, video] = r;
    const video_ = (role) => el('div', { class: 'tile empty', 'data-role': role }, 'video');
    const before = video ? video_('before') : tile('before', original, bt, 'no preview');
    const afterMissing = status === 'failed' ? 'not corrected' : status === 'cancelled' ? 'cancelled' : 'no preview';
    const after = video ? video_('after') : tile('after', output, at, afterMissing);
    const dl = el('dl', {}, ...fact('input', input), ...fact('output', bytesOut), ...fact('time', time),
      ...(jobId ? [el('dt', {}, 'job'), el('dd', {}, el('code', {}, jobId))] : []), ...fact('original kept', backup),
      el('dt', {}, 'parameters'), el('dd', {}, paramsOf(pid)));
    return el('article', { class: 'card ' + status, 'data-status': status },
      el('header', {}, el('h2', {}, rel), el('span', { class: 'badge ' + status }, LABEL[status] || status)),
      el('div', { class: 'pics' }, el('figure', {}, el('figcaption', {}, 'before'), before), el('figure', {}, el('figcaption', {}, 'after'), after)),
      dl, error ? el('p', { class: 'error' }, error) : null, ...warnings.map((w) => el('p', { class: 'warning' }, w)));
  }
  /**
   * A paged view of total items into main, with its pager in nav: page(from, to)
   * gives the page's elements. A newer call on the same nav wins over a page still loading.
   */
  function paged(nav, main, total, size, page) {
    const pages = Math.max(1, Math.ceil(total / size));
    const token = {};
    nav.token = token;
    const button = (label, to, title, at) => {
      const b = el('button', { type: 'button', title }, label);
      b.disabled = to < 0 || to >= pages || to === at;
      b.addEventListener('click', () => show(to));
      return b;
    };
    async function show(p) {
      const from = p * size;
      const to = Math.min(total, from + size);
      let kids;
      try {
        kids = await page(from, to);
      } catch (err) {
        kids = [el('p', { class: 'error' }, String(err.message || err))];
      }
      if (nav.token !== token) return;
      main.replaceChildren(...kids);
      nav.replaceChildren(button('«', 0, 'first page', p), button('‹', p - 1, 'previous page', p),
        el('span', { class: 'where' }, (from + 1) + '–' + to + ' of ' + total + ' · page ' + (p + 1) + ' of ' + pages),
        button('›', p + 1, 'next page', p), button('»', pages - 1, 'last page', p));
      nav.hidden = pages < 2;
    }
    return show(0);
  }
  const cards = (prefix) => async (from, to) => (await rowsOf(prefix, from, to)).map(card);
  const failures = document.getElementById('failures');
  if (meta.failures.total > 0) {
    failures.hidden = false;
    paged(failures.querySelector('.pager'), failures.querySelector('main'), meta.failures.total, meta.pageSize, cards('f'));
  }
  const files = document.getElementById('files');
  const filesNav = files.querySelector(':scope > .pager');
  const filesMain = files.querySelector(':scope > main');
  const view = files.querySelector(':scope > .view');
  function allFiles() {
    view.hidden = true;
    return paged(filesNav, filesMain, meta.files.total, meta.pageSize, cards('c'));
  }
  /** One folder's files, failures first: the rows of the chunks the index names for it. */
  async function showFolder(id, f) {
    const [name, corrected, upToDate, failed, cancelled, names] = f;
    const all = [];
    view.hidden = false;
    view.replaceChildren('Loading ' + (name || '(top folder)') + '…');
    try {
      for (const n of [...names.filter((x) => x[0] === 'f'), ...names.filter((x) => x[0] !== 'f')]) for (const r of await load(n)) if (r[15] === id) all.push(r);
    } catch (err) {
      view.replaceChildren(el('span', { class: 'error' }, String(err.message || err)));
      return;
    }
    const back = el('button', { type: 'button', class: 'all' }, 'all files');
    back.addEventListener('click', allFiles);
    view.replaceChildren('Folder ', el('code', {}, name || '(top folder)'), ': ' + all.length + ' file(s) · ', back);
    await paged(filesNav, filesMain, all.length, meta.pageSize, async (from, to) => all.slice(from, to).map(card));
    view.scrollIntoView();
  }
  const folders = document.getElementById('folders');
  folders.addEventListener('toggle', async () => {
    if (!folders.open || folders.dataset.shown) return;
    folders.dataset.shown = '1';
    const body = folders.querySelector('tbody');
    let list;
    try {
      list = await load('folders');
    } catch (err) {
      body.replaceChildren(el('tr', {}, el('td', { class: 'error' }, String(err.message || err))));
      return;
    }
    paged(folders.querySelector('.pager'), body, list.length, 200, async (from, to) => list.slice(from, to).map((f, i) => {
      const open = el('button', { type: 'button', class: 'folder' }, f[0] || '(top folder)');
      open.addEventListener('click', () => showFolder(from + i, f));
      const n = (v, label) => (v ? el('td', { class: 'n' }, v + ' ' + label) : el('td', {}));
      return el('tr', {}, el('td', {}, open), n(f[1], 'corrected'), n(f[2], 'up to date'), n(f[3], 'failed'), n(f[4], 'cancelled'));
    }));
  });
  if (meta.files.total + meta.failures.total > 0) files.hidden = false;
  if (meta.files.total > 0) allFiles();
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
#folders { margin: 0 0 12px; } #folders summary { cursor: pointer; } .view { margin: 0 0 8px; } .view[hidden] { display: none; }
button.folder { font: inherit; border: 0; background: none; color: inherit; text-decoration: underline; cursor: pointer; padding: 0; } td.n { color: var(--muted); white-space: nowrap; }
table { border-collapse: collapse; width: 100%; } td, th { text-align: left; padding: 3px 8px; border-bottom: 1px solid var(--line); }
`;
