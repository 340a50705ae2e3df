/** The progress list: one row per distinct image (thumbnail, phase, notes, error) and one per skipped layer. */
import type { ImageJob, RunPlan, Skip } from '../shared/messages';
import { byId } from './form';
import type { ItemPhase, ItemUpdate } from './runner';

const PHASE_TEXT: Record<ItemPhase, string> = {
  queued: 'Waiting',
  reading: 'Reading from Figma',
  uploading: 'Uploading',
  processing: 'Correcting',
  downloading: 'Downloading',
  applying: 'Putting back into Figma',
  done: 'Done',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

const PHASE_PROGRESS: Record<ItemPhase, number> = {
  queued: 0, reading: 10, uploading: 25, processing: 55, downloading: 80, applying: 92, done: 100, failed: 100, cancelled: 100,
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
    const img = el('img', 'thumb');
    img.alt = '';
    const info = el('div', 'info');
    const uses = job.fillCount > 1 ? ` · used by ${job.fillCount} fills on ${job.nodeCount} layer${job.nodeCount === 1 ? '' : 's'}` : '';
    const name = el('div', 'name', job.nodeNames.join(', ') || 'Image');
    name.title = name.textContent ?? '';
    info.append(
      name,
      el('div', 'muted small', `${job.width}×${job.height} ${job.format.toUpperCase()}${uses}`),
      el('div', 'phase', PHASE_TEXT.queued),
    );
    const track = el('div', 'bar-track');
    track.append(el('div', 'bar-fill'));
    info.append(track);
    if (job.notes.length > 0) info.append(this.notes(job.notes));
    li.append(img, info);
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

  private thumb(li: HTMLLIElement, bytes: Uint8Array): void {
    const img = li.querySelector('img.thumb');
    if (!(img instanceof HTMLImageElement)) return;
    const url = URL.createObjectURL(new Blob([bytes as BlobPart]));
    this.urls.push(url);
    img.src = url;
  }

  update(hash: string, u: ItemUpdate): void {
    const li = this.rows.get(hash);
    if (!li) return;
    li.dataset.phase = u.phase;
    const phase = li.querySelector('.phase');
    if (phase) phase.textContent = PHASE_TEXT[u.phase];
    const fill = li.querySelector<HTMLElement>('.bar-fill');
    if (fill) fill.style.width = `${PHASE_PROGRESS[u.phase]}%`;
    if (u.bytes) this.thumb(li, u.bytes);
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
