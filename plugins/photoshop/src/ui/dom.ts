/** Typed access to the panel's elements (ids in `index.html`). */

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`panel markup is missing #${id}`);
  return el as T;
}

export const input = (id: string) => byId<HTMLInputElement>(id);
export const select = (id: string) => byId<HTMLSelectElement>(id);
export const button = (id: string) => byId<HTMLButtonElement>(id);

export function show(el: HTMLElement, visible: boolean): void {
  el.classList.toggle('hidden', !visible);
}

/** Replace a select's options, keeping the current value when it is still offered. */
export function setOptions(el: HTMLSelectElement, options: readonly { value: string; label: string; disabled?: boolean }[]): void {
  const current = el.value;
  el.textContent = '';
  for (const o of options) {
    const opt = document.createElement('option');
    opt.value = o.value;
    opt.textContent = o.label;
    if (o.disabled) opt.disabled = true;
    el.appendChild(opt);
  }
  if (options.some((o) => o.value === current && !o.disabled)) el.value = current;
}

/** An element with text, built without innerHTML (names come from documents and servers). */
export function el(tag: string, className: string, text: string): HTMLElement {
  const node = document.createElement(tag);
  node.className = className;
  node.textContent = text;
  return node;
}
