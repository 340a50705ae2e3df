/**
 * Typed access to the panel's elements (ids in `index.html`). The controls are Spectrum UXP widgets, used only
 * through what their reference pages document (AdobeDocs/uxp-photoshop
 * `src/pages/uxp-api/reference-spectrum/spectrum-uxp-widgets/user-interface/`): attributes for `disabled` and
 * `placeholder`, the `value` / `checked` / `selected` properties, and the `click` / `change` / `input` events.
 */

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`panel markup is missing #${id}`);
  return el as T;
}

/** `sp-textfield` (sp-textfield.md:91-98: `value`). */
export type TextField = HTMLElement & { value: string };
/** `sp-slider` (sp-slider.md:63-70: `value`). */
export type Slider = HTMLElement & { value: number };
/** `sp-checkbox` (sp-checkbox.md:52-59: `checked`). */
export type Checkbox = HTMLElement & { checked: boolean };
/** `sp-menu-item` (sp-menu-item.md:25-33: `selected`). */
type MenuItem = HTMLElement & { selected: boolean };

export const field = (id: string) => byId<TextField>(id);
export const slider = (id: string) => byId<Slider>(id);
export const checkbox = (id: string) => byId<Checkbox>(id);
/** `sp-button` / `sp-action-button`. */
export const button = (id: string) => byId(id);
/** `sp-picker` (the name UXP asks for sp-dropdown, sp-dropdown.md). */
export const picker = (id: string) => byId(id);

export function show(el: HTMLElement, visible: boolean): void {
  el.classList.toggle('hidden', !visible);
}

/** Spectrum widgets take `disabled` as an attribute (sp-button.md:72-76); they document no property for it. */
export function setDisabled(el: HTMLElement, disabled: boolean): void {
  if (disabled) el.setAttribute('disabled', '');
  else el.removeAttribute('disabled');
}

export function isDisabled(el: HTMLElement): boolean {
  return el.hasAttribute('disabled');
}

/** What was typed into each secret field, kept from its `input` events (see `makeSecretField`). */
const typedSecrets = new WeakMap<HTMLElement, string>();

/**
 * A password `sp-textfield` whose `value` cannot be read on macOS (sp-textfield.md:86-88, known-issues.md:37):
 * Adobe's workaround — plain text while focused, password again on blur — with the typed text kept from the
 * `input` events, which fire while the field is readable. Read it with `secretValue`.
 */
export function makeSecretField(el: TextField): void {
  el.addEventListener('focus', () => el.setAttribute('type', 'text'));
  el.addEventListener('input', () => typedSecrets.set(el, el.value));
  el.addEventListener('blur', () => el.setAttribute('type', 'password'));
}

export function secretValue(el: TextField): string {
  return typedSecrets.get(el) ?? '';
}

/** Empty a secret field and forget what was typed. */
export function clearSecret(el: TextField): void {
  typedSecrets.delete(el);
  el.value = '';
}

export interface PickerOption {
  value: string;
  label: string;
}

/** A picker's values, in the order of its items: sp-menu-item documents no `value`, so the panel keeps them. */
const pickerValues = new WeakMap<HTMLElement, string[]>();

function itemsOf(el: HTMLElement): MenuItem[] {
  const menu = el.querySelector('sp-menu');
  return menu ? ([...menu.children].filter((c) => c.tagName.toLowerCase() === 'sp-menu-item') as MenuItem[]) : [];
}

/**
 * Replace a picker's items (an `sp-menu slot="options"` of `sp-menu-item`s, sp-dropdown.md:10; `'divider'` gives an
 * `sp-menu-divider`), keeping the current choice when it is still offered, else the first item.
 */
export function setPickerOptions(el: HTMLElement, options: readonly (PickerOption | 'divider')[]): void {
  const current = pickerValue(el);
  const menu = document.createElement('sp-menu');
  menu.setAttribute('slot', 'options');
  const values: string[] = [];
  for (const o of options) {
    if (o === 'divider') {
      menu.appendChild(document.createElement('sp-menu-divider'));
      continue;
    }
    const item = document.createElement('sp-menu-item');
    item.textContent = o.label;
    menu.appendChild(item);
    values.push(o.value);
  }
  el.textContent = '';
  el.appendChild(menu);
  pickerValues.set(el, values);
  setPickerValue(el, values.includes(current) ? current : (values[0] ?? ''));
}

/** The value of the picker's selected item ('' when none is selected). */
export function pickerValue(el: HTMLElement): string {
  const index = itemsOf(el).findIndex((item) => item.selected);
  return (pickerValues.get(el) ?? [])[index] ?? '';
}

/** Select the item offered for `value` (no `change` event: only the user's choice fires one). */
export function setPickerValue(el: HTMLElement, value: string): void {
  const index = (pickerValues.get(el) ?? []).indexOf(value);
  if (index < 0) return;
  itemsOf(el).forEach((item, i) => (item.selected = i === index));
}

/** An element with text, built without innerHTML (names come from documents and servers). */
export function el(tag: string, className: string, text: string): HTMLElement {
  const node = document.createElement(tag);
  node.className = className;
  node.textContent = text;
  return node;
}
