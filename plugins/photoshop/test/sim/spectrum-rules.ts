/**
 * What UXP's Spectrum widgets accept, from their reference pages in AdobeDocs/uxp-photoshop
 * (`src/pages/uxp-api/reference-spectrum/spectrum-uxp-widgets/`, cited below as `ui/<file>:<line>` for
 * `user-interface/` and `type/<file>:<line>` for `typography/`). The simulated widgets (`spectrum.ts`) refuse
 * every attribute, attribute value, property and event not listed here: Chromium would accept them, Photoshop
 * ignores them silently (an unknown attribute does nothing, a listener for an event the widget never fires never
 * runs — "Interactive elements swallow most events", known-issues.md:47). When a page is silent, the rule is the
 * stricter reading. Pure data and checks, so Node tests can prove the strictness without a browser.
 */

/** `null`: any value (a boolean attribute or free text); otherwise the documented values. */
export type AttributeValues = readonly string[] | null;

export interface WidgetRule {
  /** `Since:` line of the widget's page. */
  since: string;
  attributes: Readonly<Record<string, AttributeValues>>;
  /** JavaScript properties beyond the generic DOM ones (textContent, classList…), as the page uses them. */
  properties: readonly string[];
  /** Events the page documents under "Responding to events". */
  events: readonly string[];
}

/** Attributes every element takes in UXP's DOM (reference-js/global-members/html-elements/HTMLElement.md: id, className, style; slot for the documented `slot="label"|"options"|"icon"`). */
const GENERIC: Readonly<Record<string, AttributeValues>> = { id: null, class: null, style: null, slot: null };

const SIZES_HEADING = ['XXXL', 'XXL', 'XL', 'L', 'M', 'S', 'XS', 'XXS'];
const SIZES_BODY = ['XXXL', 'XXL', 'XL', 'L', 'M', 'S', 'XS'];

export const WIDGETS: Readonly<Record<string, WidgetRule>> = {
  // ui/sp-button.md:8 since; :33-69 variants; :75 disabled; :87 quiet (not with cta, :84); :113-120 click.
  'sp-button': {
    since: '4.1',
    attributes: { variant: ['cta', 'primary', 'secondary', 'warning', 'overBackground'], disabled: null, quiet: null },
    properties: [],
    events: ['click'],
  },
  // ui/sp-action-button.md:8 since; :31 disabled; :37 quiet; :85-92 click.
  'sp-action-button': { since: '4.1', attributes: { disabled: null, quiet: null }, properties: [], events: ['click'] },
  // ui/sp-checkbox.md:8 since; :31 checked, :37 indeterminate, :43 disabled, :49 invalid; :52-59 change/input and `checked`.
  'sp-checkbox': {
    since: '4.1',
    attributes: { checked: null, indeterminate: null, disabled: null, invalid: null },
    properties: ['checked'],
    events: ['change', 'input'],
  },
  // ui/sp-slider.md:8 since; :21 min/max/value; :35 disabled; :43-44 variant filled + fill-offset; :52 value-label;
  // :60 show-value; :63-70 change/input and `value`. No `step` is documented.
  'sp-slider': {
    since: '4.1',
    attributes: { min: null, max: null, value: null, disabled: null, variant: ['filled'], 'fill-offset': ['left', 'right'], 'value-label': null, 'show-value': ['true', 'false'] },
    properties: ['value'],
    events: ['change', 'input'],
  },
  // The picker is ui/sp-dropdown.md under the name UXP asks for: using sp-dropdown logs "deprecated, use sp-picker"
  // (AdobeDocs/uxp-photoshop issue #317); spectrum-to-swc-mapping/index.md:40 lists sp-picker as the widget.
  // ui/sp-dropdown.md:8 since; :10 an sp-menu slot="options" inside; :21 placeholder; :41 quiet; :47 disabled;
  // :53 invalid; :56-63 change and `selectedIndex`.
  'sp-picker': {
    since: '4.1',
    attributes: { placeholder: null, quiet: null, disabled: null, invalid: null },
    properties: ['selectedIndex'],
    events: ['change'],
  },
  // ui/sp-menu.md:8 since; :10 holds sp-menu-item/sp-menu-divider; :31-38 change and `selectedIndex`.
  'sp-menu': { since: '4.1', attributes: {}, properties: ['selectedIndex'], events: ['change'] },
  // ui/sp-menu-item.md:8 since; :21-22 selected, disabled; :25-33 click and `selected`. No `value` is documented.
  'sp-menu-item': { since: '4.1', attributes: { selected: null, disabled: null }, properties: ['selected'], events: ['click'] },
  // ui/sp-menu.md:10,43 (renders only inside a dropdown).
  'sp-menu-divider': { since: '4.1', attributes: {}, properties: [], events: [] },
  // ui/sp-textfield.md:8 since; :21 placeholder; :35 disabled; :43 valid; :51 invalid; :59 quiet; :67-83 type
  // number/search/password (text: the default, and the documented macOS workaround at :88 switches to it);
  // :64 no min/max/step; :91-98 change/input and `value`; focus/blur: the page's own workaround for password fields
  // (:86-88) switches `type` on them.
  'sp-textfield': {
    since: '4.1',
    attributes: { placeholder: null, disabled: null, valid: null, invalid: null, quiet: null, type: ['text', 'number', 'search', 'password'] },
    properties: ['value'],
    events: ['change', 'input', 'focus', 'blur'],
  },
  // ui/sp-progressbar.md:8 since; :21 max/value; :27 value-label; :31 show-value; :35 size small; :40 variant
  // overBackground. No events and no properties are documented: it is driven through its attributes.
  'sp-progressbar': {
    since: '4.1',
    attributes: { max: null, value: null, 'value-label': null, 'show-value': ['true', 'false'], size: ['small'], variant: ['overBackground'] },
    properties: [],
    events: [],
  },
  // ui/sp-divider.md:8 since; :29-31 sizes.
  'sp-divider': { since: '4.1', attributes: { size: ['large', 'medium', 'small'] }, properties: [], events: [] },
  // type/sp-heading.md:8 since; :26-33 sizes.
  'sp-heading': { since: '4.1', attributes: { size: SIZES_HEADING }, properties: [], events: [] },
  // type/sp-body.md:8 since; :26-32 sizes.
  'sp-body': { since: '4.1', attributes: { size: SIZES_BODY }, properties: [], events: [] },
  // type/sp-detail.md:8 since; no attributes documented.
  'sp-detail': { since: '4.1', attributes: {}, properties: [], events: [] },
  // type/sp-label.md:8 since; :23 isrequired.
  'sp-label': { since: '4.1', attributes: { isrequired: ['true', 'false'] }, properties: [], events: [] },
};

/** Why `tag` may not be used, or undefined when it is a modelled widget (or not a Spectrum tag at all). */
export function tagProblem(tag: string): string | undefined {
  const name = tag.toLowerCase();
  if (name === 'sp-dropdown') return 'sp-dropdown is deprecated in UXP: use sp-picker (AdobeDocs/uxp-photoshop issue #317)';
  if (name.startsWith('sp-') && !WIDGETS[name]) return `<${name}> is not one of the Spectrum UXP widgets the simulated host models`;
  return undefined;
}

/** Why setting `name="value"` on a `tag` is refused, or undefined when UXP documents it. */
export function attributeProblem(tag: string, name: string, value: string | null): string | undefined {
  const rule = WIDGETS[tag];
  if (!rule) return tagProblem(tag);
  const key = name.toLowerCase();
  const values = key in GENERIC ? GENERIC[key] : rule.attributes[key];
  if (values === undefined) return `<${tag}> has no attribute "${key}" in UXP (documented: ${[...Object.keys(rule.attributes), ...Object.keys(GENERIC)].join(', ')})`;
  if (values !== null && value !== null && !values.includes(value)) return `<${tag} ${key}="${value}"> is not a value UXP documents (${values.join(', ')})`;
  return undefined;
}

/** kebab-case attribute name → its property spelling (`fill-offset` → `fillOffset`). */
const camel = (name: string) => name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/**
 * Properties a panel might reach for because an HTML control or another widget has them: every widget attribute and
 * property name, and the form-control ones. On a widget that does not document one as a property they are refused
 * (a plain `el.disabled = true` would do nothing in UXP, and in a sloppy-mode script would not even throw).
 */
export const TEMPTING_PROPERTIES: readonly string[] = [...new Set([
  ...Object.values(WIDGETS).flatMap((w) => [...w.properties, ...Object.keys(w.attributes).map(camel)]),
  'disabled', 'placeholder', 'value', 'checked', 'selected', 'selectedIndex', 'selectedOptions', 'options', 'type', 'min', 'max', 'step',
  'label', 'name', 'readOnly', 'required', 'valueAsNumber', 'indeterminate', 'multiple',
])];

/** Why reading or setting `name` on a `tag` is refused, or undefined when the widget's page uses it. */
export function propertyProblem(tag: string, name: string): string | undefined {
  const rule = WIDGETS[tag];
  if (!rule) return tagProblem(tag);
  if (rule.properties.includes(name)) return undefined;
  return `<${tag}> has no property "${name}" in UXP (documented: ${rule.properties.join(', ') || 'none; use its attributes'})`;
}

/** Why listening for `type` on a `tag` is refused, or undefined when the widget fires it. */
export function eventProblem(tag: string, type: string): string | undefined {
  const rule = WIDGETS[tag];
  if (!rule) return tagProblem(tag);
  if (rule.events.includes(type)) return undefined;
  return `<${tag}> does not fire "${type}" in UXP (documented: ${rule.events.join(', ') || 'no events'})`;
}

/** Combinations a widget's page rules out even though each attribute alone is fine. */
export function combinationProblem(tag: string, attributes: ReadonlyMap<string, string>): string | undefined {
  // ui/sp-button.md:84 "Quiet buttons do not support the cta variant"; cta is the default variant (:30).
  if (tag === 'sp-button' && attributes.has('quiet') && (attributes.get('variant') ?? 'cta') === 'cta') {
    return '<sp-button quiet> needs a variant other than cta (sp-button.md:84)';
  }
  return undefined;
}
