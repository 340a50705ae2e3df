/**
 * The progress and preview list: one row per distinct image (before and after
 * thumbnails, phase, notes, error, and — once corrected — an Accept box) and
 * one per skipped layer.
 */
import type { ImageJob, RunPlan, Skip } from '../shared/messages';
import { byId } from './form';
import type { ItemPhase, ItemUpdate } from './runner';

const PHASE_TEXT: Record<ItemPhase, string> = {
  queued: 'Waiting',
  reading: 'Reading from Figma',
  uploading: 'Uploading',
  processing: 'Correcting',
  downloading: 'Downloading',
  ready: 'Ready: compare, then accept or reject',
  applying: 'Putting back into Figma',
  done: 'Done',
  rejected: 'Rejected: left unchanged',
  skipped: 'Skipped',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

const PHASE_PROGRESS: Record<ItemPhase, number> = {
  queued: 0, reading: 10, uploading: 25, processing: 55, downloading: 75, ready: 85, applying: 92, done: 100, rejected: 100, skipped: 100, failed: 100, cancelled: 100,
};

function el<K extends keyof HTMLElementTagNameMap>(tag: K, className: string, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}

export class ItemsView {
  private readonly list = byId<HTMLUListElement>('items');
  private readonly rows = new Map<string, HTMLLIElement>();
  private readonly urls: string[] = [];

  clear(): void {
    for (const u of this.urls) URL.revokeObjectURL(u);
    this.urls.length = 0;
    this.rows.clear();
    this.list.replaceChildren();
  }

  show(plan: RunPlan): void {
    this.clear();
    for (const job of plan.images) this.list.append(this.imageRow(job));
    for (const skip of plan.skipped) this.list.append(this.skipRow(skip));
  }

  private imageRow(job: ImageJob): HTMLLIElement {
    const li = el('li', 'item');
    li.dataset.hash = job.hash;
    li.dataset.phase = 'queued';
    const pair = el('div', 'pair');
    const before = el('img', 'thumb before');
    before.alt = 'Before';
    const after = el('img', 'thumb after');
    after.alt = 'After';
    pair.append(before, after);
    const info = el('div', 'info');
    const uses = job.fillCount > 1 ? ` · used by ${job.fillCount} fills on ${job.nodeCount} layer${job.nodeCount === 1 ? '' : 's'}` : '';
    const name = el('div', 'name', job.nodeNames.join(', ') || 'Image');
    name.title = name.textContent ?? '';
    info.append(
      name,
      el('div', 'muted small', `${job.width}×${job.height}${uses}`),
      el('div', 'phase', PHASE_TEXT.queued),
    );
    const track = el('div', 'bar-track');
    track.append(el('div', 'bar-fill'));
    info.append(track);
    if (job.notes.length > 0) info.append(this.notes(job.notes));
    const decide = el('label', 'check accept');
    const box = el('input', '');
    box.type = 'checkbox';
    box.checked = true;
    decide.append(box, document.createTextNode(' Accept'));
    decide.hidden = true;
    info.append(decide);
    li.append(pair, info);
    this.rows.set(job.hash, li);
    return li;
  }

  private skipRow(skip: Skip): HTMLLIElement {
    const li = el('li', 'item skipped');
    li.dataset.phase = 'skipped';
    const info = el('div', 'info');
    info.append(el('div', 'name', skip.nodeName), el('div', 'phase', `Skipped: ${skip.reason}`));
    li.append(el('div', 'thumb'), info);
    return li;
  }

  private notes(lines: readonly string[]): HTMLUListElement {
    const ul = el('ul', 'notes small');
    for (const n of lines) ul.append(el('li', '', n));
    return ul;
  }

  private thumb(li: HTMLLIElement, which: 'before' | 'after', thumbnail: Blob): void {
    const img = li.querySelector(`img.thumb.${which}`);
    if (!(img instanceof HTMLImageElement)) return;
    const url = URL.createObjectURL(thumbnail);
    this.urls.push(url);
    img.src = url;
  }

  /** Hashes of the results the user left accepted. */
  accepted(): Set<string> {
    const out = new Set<string>();
    for (const [hash, li] of this.rows) {
      const box = li.querySelector<HTMLInputElement>('label.accept:not([hidden]) input');
      if (li.dataset.phase === 'ready' && box?.checked) out.add(hash);
    }
    return out;
  }

  /** Accept or reject every result at once. */
  setAll(accept: boolean): void {
    for (const box of this.list.querySelectorAll<HTMLInputElement>('label.accept input')) box.checked = accept;
  }

  update(hash: string, u: ItemUpdate): void {
    const li = this.rows.get(hash);
    if (!li) return;
    li.dataset.phase = u.phase;
    const phase = li.querySelector('.phase');
    // A wait the service asked for is said instead of the phase (`ItemUpdate.waiting`), until the request is made again.
    if (phase) phase.textContent = u.waiting ?? PHASE_TEXT[u.phase];
    const fill = li.querySelector<HTMLElement>('.bar-fill');
    if (fill) fill.style.width = `${PHASE_PROGRESS[u.phase]}%`;
    if (u.thumbnail) this.thumb(li, u.phase === 'ready' ? 'after' : 'before', u.thumbnail);
    const decide = li.querySelector<HTMLLabelElement>('label.accept');
    if (decide) decide.hidden = u.phase !== 'ready';
    if (u.phase === 'skipped') li.classList.add('skipped');
    const info = li.querySelector('.info');
    if (!info) return;
    if (u.notes && u.notes.length > 0) {
      info.querySelector('.notes')?.remove();
      info.append(this.notes(u.notes));
    }
    if (u.error) {
      info.querySelector('.error')?.remove();
      const err = el('div', 'error small', u.error);
      err.setAttribute('role', 'alert');
      info.append(err);
    }
    if (u.phase === 'done' && u.applied) {
      const a = u.applied;
      const what = a.copiesCreated > 0 ? `${a.copiesCreated} cop${a.copiesCreated === 1 ? 'y' : 'ies'} added, ` : '';
      if (phase) phase.textContent = `Done · ${what}${a.fillsChanged} fill${a.fillsChanged === 1 ? '' : 's'} updated`;
    }
  }
}
