/**
 * UXP's Spectrum widgets (`sp-*`) for the e2e page, as strict as their reference pages (the rules, with file and
 * line of each page, are in `spectrum-rules.ts`): an attribute, attribute value, property or event a widget does
 * not document is refused — thrown at the panel's call and recorded in `spectrumViolations()`, which the e2e test
 * requires to stay empty. Widgets behave as UXP documents them for a user: a disabled widget swallows clicks;
 * clicking a checkbox toggles `checked` and fires `input` then `change`; dragging a slider fires `input` while it
 * moves and `change` when released; choosing a menu item in an open picker selects it and fires `change` on the
 * picker; a text field fires `input` per keystroke and `change` when committed. Setting a property from script
 * fires nothing. They draw themselves in Photoshop's dark or light theme (`prefers-color-scheme`).
 *
 * Loaded before the page is cut down to UXP's globals: it keeps its own references to what it needs.
 */
import { attributeProblem, combinationProblem, eventProblem, propertyProblem, tagProblem, TEMPTING_PROPERTIES, WIDGETS } from './spectrum-rules';

const nativeAdd = EventTarget.prototype.addEventListener;
const nativeSet = Element.prototype.setAttribute;
const nativeRemove = Element.prototype.removeAttribute;
const Observer = globalThis.MutationObserver;

const violations: string[] = [];

/** Record and throw: the panel's call fails as it would do nothing in UXP, and the test sees the record. */
function refuse(problem: string): never {
  violations.push(problem);
  throw new Error(`Spectrum UXP: ${problem}`);
}

const listen = (target: EventTarget, type: string, fn: (e: Event) => void, capture = false) => nativeAdd.call(target, type, fn, capture);
const fire = (el: Element, type: string) => el.dispatchEvent(new Event(type, { bubbles: true }));
const flag = (el: Element, name: string, on: boolean) => (on ? nativeSet.call(el, name, '') : nativeRemove.call(el, name));

/** Colours of Spectrum's dark and light themes (the two Chromium can emulate), used by every widget. */
const THEME = `
  :host { --sp-fg: #e3e3e3; --sp-muted: #a8a8a8; --sp-field: #1f1f1f; --sp-border: #6e6e6e; --sp-button: #4b4b4b; --sp-track: #5a5a5a; --sp-menu: #2c2c2c; --sp-accent: #378ef0; }
  @media (prefers-color-scheme: light) {
    :host { --sp-fg: #2c2c2c; --sp-muted: #6e6e6e; --sp-field: #ffffff; --sp-border: #b3b3b3; --sp-button: #e1e1e1; --sp-track: #c8c8c8; --sp-menu: #ffffff; --sp-accent: #1473e6; }
  }
  :host([disabled]) { opacity: 0.45; }
`;

/** Per-element state that is not a property (the element itself takes no new properties: it is not extensible). */
const parts = new WeakMap<Element, Record<string, HTMLElement>>();
const part = (el: Element, name: string) => parts.get(el)![name]!;

abstract class SpWidget extends HTMLElement {
  static get observedAttributes(): string[] {
    return Object.keys(WIDGETS[(this as unknown as { tag: string }).tag]!.attributes);
  }

  constructor() {
    super();
    const root = this.attachShadow({ mode: 'open' });
    root.innerHTML = `<style>${THEME}${this.css()}</style>${this.template()}`;
    const found: Record<string, HTMLElement> = {};
    for (const node of root.querySelectorAll<HTMLElement>('[data-part]')) found[node.dataset.part!] = node;
    parts.set(this, found);
    // A disabled widget does nothing for a click (sp-button.md:72-76, sp-checkbox.md:40-44, …).
    listen(this, 'click', (e) => {
      if (this.hasAttribute('disabled')) {
        e.stopImmediatePropagation();
        e.preventDefault();
      }
    }, true);
    this.setup();
    // Undocumented properties (`button.disabled = …`, `picker.value`, `textfield.placeholder = …`) throw.
    Object.preventExtensions(this);
  }

  protected css(): string {
    return ':host { display: inline-block; color: var(--sp-fg); }';
  }
  protected template(): string {
    return '<slot></slot>';
  }
  protected setup(): void {}
  protected render(): void {}

  override setAttribute(name: string, value: string): void {
    const problem = attributeProblem(this.localName, name, String(value));
    if (problem) refuse(problem);
    nativeSet.call(this, name, value);
    this.checkCombination();
  }

  override removeAttribute(name: string): void {
    const problem = attributeProblem(this.localName, name, null);
    if (problem) refuse(problem);
    nativeRemove.call(this, name);
  }

  override toggleAttribute(name: string, force?: boolean): boolean {
    const problem = attributeProblem(this.localName, name, null);
    if (problem) refuse(problem);
    return super.toggleAttribute(name, force);
  }

  override addEventListener(type: string, listener: EventListenerOrEventListenerObject | null, options?: boolean | AddEventListenerOptions): void {
    const problem = eventProblem(this.localName, type);
    if (problem) refuse(problem);
    nativeAdd.call(this, type, listener, options);
  }

  connectedCallback(): void {
    for (const attr of [...this.attributes]) {
      const problem = attributeProblem(this.localName, attr.name, attr.value);
      if (problem) refuse(problem);
    }
    this.checkCombination();
    this.render();
  }

  attributeChangedCallback(): void {
    this.render();
  }

  private checkCombination(): void {
    const problem = combinationProblem(this.localName, new Map([...this.attributes].map((a) => [a.name, a.value])));
    if (problem) refuse(problem);
  }
}

const BUTTON_CSS = `
  :host { display: inline-flex; align-items: center; justify-content: center; color: var(--sp-fg); background-color: var(--sp-button);
    border: 2px solid var(--sp-border); border-radius: 16px; padding: 3px 14px; font-size: 12px; font-weight: 600; min-height: 18px; }
  :host([variant="cta"]), :host(:not([variant])) { background-color: var(--sp-accent); border-color: var(--sp-accent); color: #ffffff; }
  :host([variant="secondary"]) { background-color: transparent; }
  :host([variant="warning"]) { background-color: transparent; border-color: #e34850; color: #e34850; }
  :host([quiet]) { border-color: transparent; background-color: transparent; }
`;

class SpButton extends SpWidget {
  static tag = 'sp-button';
  protected override css() { return BUTTON_CSS; }
  protected override template() { return '<slot name="icon"></slot><slot></slot>'; }
}

class SpActionButton extends SpWidget {
  static tag = 'sp-action-button';
  protected override css() {
    return `:host { display: inline-flex; align-items: center; justify-content: center; color: var(--sp-fg); background-color: var(--sp-button);
      border: 1px solid var(--sp-border); border-radius: 4px; padding: 2px 8px; font-size: 12px; min-height: 18px; }
      :host([quiet]) { background-color: transparent; border-color: transparent; }`;
  }
  protected override template() { return '<slot name="icon"></slot><slot></slot>'; }
}

class SpCheckbox extends SpWidget {
  static tag = 'sp-checkbox';
  get checked(): boolean {
    return this.hasAttribute('checked');
  }
  set checked(on: boolean) {
    flag(this, 'checked', !!on);
  }
  protected override css() {
    return `:host { display: inline-flex; align-items: center; color: var(--sp-fg); font-size: 12px; }
      [data-part=box] { width: 12px; height: 12px; border: 2px solid var(--sp-border); border-radius: 2px; margin-right: 6px; background-color: var(--sp-field); }
      :host([checked]) [data-part=box] { background-color: var(--sp-accent); border-color: var(--sp-accent); }`;
  }
  protected override template() { return '<span data-part="box"></span><slot></slot>'; }
  protected override setup() {
    // sp-checkbox.md:52-59: a click toggles `checked`; `input` and `change` follow.
    listen(this, 'click', () => {
      this.checked = !this.checked;
      fire(this, 'input');
      fire(this, 'change');
    });
  }
}

class SpSlider extends SpWidget {
  static tag = 'sp-slider';
  private static readonly values = new WeakMap<Element, number>();
  private num(name: string, fallback: number): number {
    const v = Number(this.getAttribute(name));
    return this.hasAttribute(name) && Number.isFinite(v) ? v : fallback;
  }
  get value(): number {
    return SpSlider.values.get(this) ?? this.num('value', this.num('min', 0));
  }
  set value(v: number) {
    const min = this.num('min', 0);
    const max = this.num('max', 100);
    SpSlider.values.set(this, Math.min(max, Math.max(min, Number(v))));
    this.render();
  }
  protected override css() {
    return `:host { display: block; color: var(--sp-fg); font-size: 12px; }
      [data-part=top] { display: flex; justify-content: space-between; }
      [data-part=track] { position: relative; height: 16px; margin-top: 2px; }
      [data-part=rail] { position: absolute; left: 0; right: 0; top: 7px; height: 2px; background-color: var(--sp-track); }
      [data-part=handle] { position: absolute; top: 1px; width: 10px; height: 10px; margin-left: -7px; border: 2px solid var(--sp-fg); border-radius: 8px; background-color: var(--sp-field); }`;
  }
  protected override template() {
    return '<div data-part="top"><slot name="label"></slot><span data-part="value"></span></div><div data-part="track"><div data-part="rail"></div><div data-part="handle"></div></div>';
  }
  protected override setup() {
    // sp-slider.md:63-70: `input` while the value moves, `change` when the user lets go.
    const track = part(this, 'track');
    let dragging = false;
    const moveTo = (e: PointerEvent) => {
      const box = track.getBoundingClientRect();
      const min = this.num('min', 0);
      const max = this.num('max', 100);
      const next = Math.round(min + Math.min(1, Math.max(0, (e.clientX - box.left) / box.width)) * (max - min));
      if (next === this.value) return;
      this.value = next;
      fire(this, 'input');
    };
    listen(track, 'pointerdown', (e) => {
      if (this.hasAttribute('disabled')) return;
      dragging = true;
      track.setPointerCapture((e as PointerEvent).pointerId);
      moveTo(e as PointerEvent);
    });
    listen(track, 'pointermove', (e) => dragging && moveTo(e as PointerEvent));
    listen(track, 'pointerup', (e) => {
      if (!dragging) return;
      dragging = false;
      moveTo(e as PointerEvent);
      fire(this, 'change');
    });
  }
  protected override render() {
    if (!parts.has(this)) return;
    const min = this.num('min', 0);
    const max = this.num('max', 100);
    if (this.hasAttribute('value') && !SpSlider.values.has(this)) SpSlider.values.set(this, this.num('value', min));
    part(this, 'handle').style.left = `${((this.value - min) / (max - min || 1)) * 100}%`;
    part(this, 'value').textContent = this.getAttribute('show-value') === 'false' ? '' : `${this.value}${this.getAttribute('value-label') ?? ''}`;
  }
}

/** The items of a picker or menu (its sp-menu-item elements, dividers not counted). */
function itemsOf(el: Element): HTMLElement[] {
  const menu = el.localName === 'sp-menu' ? el : el.querySelector(':scope > sp-menu[slot="options"]');
  return menu ? ([...menu.children].filter((c) => c.localName === 'sp-menu-item') as HTMLElement[]) : [];
}

function selectIndex(el: Element, index: number): void {
  itemsOf(el).forEach((item, i) => flag(item, 'selected', i === index));
}

class SpPicker extends SpWidget {
  static tag = 'sp-picker';
  private static readonly open = new WeakSet<Element>();
  get selectedIndex(): number {
    return itemsOf(this).findIndex((i) => i.hasAttribute('selected'));
  }
  set selectedIndex(index: number) {
    selectIndex(this, index);
  }
  protected override css() {
    return `:host { display: inline-block; position: relative; color: var(--sp-fg); font-size: 12px; }
      [data-part=field] { display: flex; justify-content: space-between; border: 1px solid var(--sp-border); border-radius: 4px; padding: 3px 6px; background-color: var(--sp-field); }
      [data-part=popup] { display: none; position: absolute; left: 0; right: 0; z-index: 10; background-color: var(--sp-menu); border: 1px solid var(--sp-border); border-radius: 4px; padding: 2px 0; }
      :host([data-open]) [data-part=popup] { display: block; }
      :host([quiet]) [data-part=field] { border-color: transparent; background-color: transparent; }
      :host([invalid]) [data-part=field] { border-color: #e34850; }`;
  }
  protected override template() {
    return '<div data-part="field"><span data-part="label"></span><span>⌄</span></div><div data-part="popup"><slot name="options"></slot></div>';
  }
  protected override setup() {
    listen(this, 'click', (e) => {
      const item = e.composedPath().find((n): n is HTMLElement => n instanceof HTMLElement && n.localName === 'sp-menu-item');
      if (item && SpPicker.open.has(this)) {
        // sp-dropdown.md:56-63: choosing an item selects it and fires `change` on the picker.
        selectIndex(this, itemsOf(this).indexOf(item));
        this.setOpen(false);
        fire(this, 'change');
      } else {
        this.setOpen(!SpPicker.open.has(this));
      }
    });
    new Observer(() => this.render()).observe(this, { subtree: true, childList: true, attributes: true, characterData: true });
  }
  private setOpen(on: boolean): void {
    if (on) SpPicker.open.add(this);
    else SpPicker.open.delete(this);
    flag(this, 'data-open', on);
  }
  protected override render() {
    if (!parts.has(this)) return;
    const chosen = itemsOf(this)[this.selectedIndex];
    part(this, 'label').textContent = chosen ? (chosen.textContent ?? '').trim() : (this.getAttribute('placeholder') ?? '');
  }
}

class SpMenu extends SpWidget {
  static tag = 'sp-menu';
  get selectedIndex(): number {
    return itemsOf(this).findIndex((i) => i.hasAttribute('selected'));
  }
  protected override css() { return ':host { display: block; }'; }
}

class SpMenuItem extends SpWidget {
  static tag = 'sp-menu-item';
  get selected(): boolean {
    return this.hasAttribute('selected');
  }
  /** Only this item: the page does not say that selecting one clears the others, so the panel must do it. */
  set selected(on: boolean) {
    flag(this, 'selected', !!on);
  }
  protected override css() {
    return `:host { display: block; padding: 3px 8px 3px 20px; color: var(--sp-fg); font-size: 12px; }
      :host([selected]) { color: var(--sp-accent); }
      :host(:hover) { background-color: var(--sp-button); }`;
  }
}

class SpMenuDivider extends SpWidget {
  static tag = 'sp-menu-divider';
  protected override css() { return ':host { display: block; height: 1px; margin: 3px 0; background-color: var(--sp-border); }'; }
  protected override template() { return ''; }
}

class SpTextfield extends SpWidget {
  static tag = 'sp-textfield';
  /** A password field's value cannot be read on macOS (sp-textfield.md:86-88, known-issues.md:37): the stricter platform is modelled. */
  get value(): string {
    return this.getAttribute('type') === 'password' ? '' : (part(this, 'input') as HTMLInputElement).value;
  }
  set value(v: string) {
    (part(this, 'input') as HTMLInputElement).value = String(v);
  }
  protected override css() {
    return `:host { display: inline-block; color: var(--sp-fg); font-size: 12px; }
      input { width: 100%; box-sizing: border-box; color: var(--sp-fg); background-color: var(--sp-field); border: 1px solid var(--sp-border); border-radius: 4px; padding: 3px 6px; font-size: 12px; }
      :host([quiet]) input { border-width: 0 0 1px 0; border-radius: 0; background-color: transparent; }
      :host([invalid]) input { border-color: #e34850; }`;
  }
  protected override template() { return '<slot name="label"></slot><input data-part="input">'; }
  protected override setup() {
    const input = part(this, 'input') as HTMLInputElement;
    // `input` crosses the shadow boundary by itself (it is composed); `change` does not, so it is fired on the widget.
    listen(input, 'change', () => {
      // sp-textfield.md:64: numeric fields are capped to ±214,748.36.
      if (this.getAttribute('type') === 'number' && input.value !== '') input.value = String(Math.max(-214748.36, Math.min(214748.36, Number(input.value))));
      fire(this, 'change');
    });
  }
  protected override render() {
    if (!parts.has(this)) return;
    const input = part(this, 'input') as HTMLInputElement;
    const type = this.getAttribute('type') ?? 'text';
    input.type = type === 'number' ? 'text' : type;
    input.placeholder = this.getAttribute('placeholder') ?? '';
    input.disabled = this.hasAttribute('disabled');
  }
}

class SpProgressbar extends SpWidget {
  static tag = 'sp-progressbar';
  protected override css() {
    return `:host { display: block; color: var(--sp-fg); font-size: 11px; }
      [data-part=top] { display: flex; justify-content: space-between; }
      [data-part=track] { height: 4px; border-radius: 2px; background-color: var(--sp-track); }
      :host([size="small"]) [data-part=track] { height: 2px; }
      [data-part=fill] { height: 100%; border-radius: 2px; background-color: var(--sp-accent); }`;
  }
  protected override template() {
    return '<div data-part="top"><slot name="label"></slot><span data-part="value"></span></div><div data-part="track"><div data-part="fill"></div></div>';
  }
  protected override render() {
    if (!parts.has(this)) return;
    const max = Number(this.getAttribute('max') ?? 100) || 100;
    const share = Math.min(1, Math.max(0, Number(this.getAttribute('value') ?? 0) / max));
    part(this, 'fill').style.width = `${share * 100}%`;
    part(this, 'value').textContent = this.getAttribute('show-value') === 'false' ? '' : (this.getAttribute('value-label') ?? `${Math.round(share * 100)}%`);
  }
}

const FONT: Record<string, number> = { XXXL: 28, XXL: 24, XL: 20, L: 17, M: 15, S: 13, XS: 12, XXS: 11 };

class SpHeading extends SpWidget {
  static tag = 'sp-heading';
  protected override css() { return ':host { display: block; color: var(--sp-fg); font-weight: 700; margin: 0; }'; }
  protected override render() {
    this.style.fontSize = `${FONT[this.getAttribute('size') ?? 'M']}px`;
  }
}

class SpBody extends SpWidget {
  static tag = 'sp-body';
  protected override css() { return ':host { display: block; color: var(--sp-fg); }'; }
  protected override render() {
    this.style.fontSize = `${FONT[this.getAttribute('size') ?? 'M']! - 2}px`;
  }
}

class SpDetail extends SpWidget {
  static tag = 'sp-detail';
  protected override css() { return ':host { display: block; color: var(--sp-muted); font-size: 11px; font-weight: 700; letter-spacing: 0.06em; text-transform: uppercase; }'; }
}

class SpLabel extends SpWidget {
  static tag = 'sp-label';
  protected override css() { return ':host { display: inline-block; color: var(--sp-muted); font-size: 12px; }'; }
}

class SpDivider extends SpWidget {
  static tag = 'sp-divider';
  protected override css() {
    return `:host { display: block; height: 2px; margin: 8px 0; background-color: var(--sp-border); }
      :host([size="small"]) { height: 1px; } :host([size="large"]) { height: 4px; }`;
  }
  protected override template() { return ''; }
}

/** Tags UXP knows but the panel must not use, and any unmodelled sp-* tag: refused when they enter the document. */
function watchForUnknownTags(): void {
  const check = (node: Node) => {
    if (!(node instanceof Element)) return;
    for (const el of [node, ...node.querySelectorAll('*')]) {
      const problem = tagProblem(el.localName);
      if (problem && !violations.includes(problem)) violations.push(problem);
    }
  };
  new Observer((records) => records.forEach((r) => r.addedNodes.forEach(check))).observe(document, { subtree: true, childList: true });
}

/** Undocumented properties that a form control has: reading or setting one on a widget throws (any script mode). */
function refuseTemptingProperties(widget: { tag: string; prototype: object }): void {
  for (const name of TEMPTING_PROPERTIES) {
    const problem = propertyProblem(widget.tag, name);
    if (!problem || Object.prototype.hasOwnProperty.call(widget.prototype, name)) continue;
    Object.defineProperty(widget.prototype, name, { configurable: true, get: () => refuse(problem), set: () => refuse(problem) });
  }
}

/** Define the widgets on the page (call before the panel's markup is parsed); returns the violations seen. */
export function installSpectrum(registry: CustomElementRegistry): () => string[] {
  for (const widget of [SpButton, SpActionButton, SpCheckbox, SpSlider, SpPicker, SpMenu, SpMenuItem, SpMenuDivider, SpTextfield, SpProgressbar,
    SpHeading, SpBody, SpDetail, SpLabel, SpDivider]) {
    refuseTemptingProperties(widget);
    registry.define(widget.tag, widget);
  }
  watchForUnknownTags();
  return () => [...violations];
}
