/**
 * The Spectrum widget rules the e2e page enforces (`test/sim/spectrum-rules.ts`): documented attributes, values,
 * properties and events pass; what the widgets' pages do not document is refused. The e2e test
 * (`panel.e2e.ts`, last case) proves the simulated widgets apply these rules in the browser.
 */
import { describe, expect, it } from 'vitest';
import { attributeProblem, combinationProblem, eventProblem, propertyProblem, tagProblem, TEMPTING_PROPERTIES } from './sim/spectrum-rules';

describe('Spectrum UXP widget rules', () => {
  it('accept what the reference pages document', () => {
    expect(attributeProblem('sp-button', 'variant', 'cta')).toBeUndefined();
    expect(attributeProblem('sp-button', 'disabled', '')).toBeUndefined();
    expect(attributeProblem('sp-slider', 'value-label', '%')).toBeUndefined();
    expect(attributeProblem('sp-textfield', 'type', 'password')).toBeUndefined();
    expect(attributeProblem('sp-progressbar', 'size', 'small')).toBeUndefined();
    expect(attributeProblem('sp-heading', 'size', 'S')).toBeUndefined();
    expect(attributeProblem('sp-menu', 'slot', 'options')).toBeUndefined();
    expect(eventProblem('sp-slider', 'input')).toBeUndefined();
    expect(eventProblem('sp-picker', 'change')).toBeUndefined();
    expect(eventProblem('sp-button', 'click')).toBeUndefined();
    expect(propertyProblem('sp-picker', 'selectedIndex')).toBeUndefined();
    expect(propertyProblem('sp-checkbox', 'checked')).toBeUndefined();
    expect(propertyProblem('sp-menu-item', 'selected')).toBeUndefined();
    expect(tagProblem('sp-picker')).toBeUndefined();
    expect(combinationProblem('sp-button', new Map([['quiet', ''], ['variant', 'primary']]))).toBeUndefined();
  });

  it('refuse attributes, values, properties, events and tags UXP does not document', () => {
    expect(attributeProblem('sp-button', 'size', 'L')).toMatch(/no attribute "size"/);
    expect(attributeProblem('sp-button', 'variant', 'accent')).toMatch(/not a value UXP documents/);
    expect(attributeProblem('sp-button', 'title', 'tip')).toMatch(/no attribute "title"/);
    expect(attributeProblem('sp-textfield', 'min', '1')).toMatch(/no attribute "min"/); // sp-textfield.md:64
    expect(attributeProblem('sp-slider', 'step', '5')).toMatch(/no attribute "step"/);
    expect(attributeProblem('sp-progressbar', 'size', 'large')).toMatch(/not a value/);
    expect(eventProblem('sp-picker', 'input')).toMatch(/does not fire "input"/);
    expect(eventProblem('sp-button', 'mouseenter')).toMatch(/does not fire/);
    expect(eventProblem('sp-progressbar', 'change')).toMatch(/no events/);
    expect(propertyProblem('sp-button', 'disabled')).toMatch(/no property "disabled"/);
    expect(propertyProblem('sp-picker', 'value')).toMatch(/no property "value"/);
    expect(propertyProblem('sp-progressbar', 'value')).toMatch(/use its attributes/);
    expect(TEMPTING_PROPERTIES).toEqual(expect.arrayContaining(['disabled', 'placeholder', 'value', 'valueLabel', 'fillOffset']));
    expect(tagProblem('sp-dropdown')).toMatch(/deprecated.*sp-picker/);
    expect(tagProblem('sp-switch')).toMatch(/not one of the Spectrum UXP widgets/);
    expect(combinationProblem('sp-button', new Map([['quiet', '']]))).toMatch(/cta/);
  });
});
