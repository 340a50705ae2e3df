/**
 * The panel's CSS uses only what UXP supports: the properties, pseudo-classes and
 * media queries documented under AdobeDocs/uxp-photoshop `src/pages/uxp-api/reference-css/`
 * (one page each in `styles/`, `pseudo-classes/`, `pseudo-elements/`, `media-queries/`),
 * plus custom properties (`general/variables.md`). Anything else UXP ignores silently,
 * which in Photoshop shows as a broken layout that Chromium would not show.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PANEL_DIR } from './e2e-page';

/** `reference-css/styles/*.md`. */
const PROPERTIES = new Set(`align-content align-items align-self background-attachment background-color background-image
background-repeat background-size background border-bottom-color border-bottom-left-radius border-bottom-right-radius
border-bottom-style border-bottom-width border-bottom border-color border-left-color border-left-style border-left-width
border-left border-radius border-right-color border-right-style border-right-width border-right border-style
border-top-color border-top-left-radius border-top-style border-top-width border-top border-width bottom color display
flex-basis flex-direction flex-grow flex-shrink flex-wrap flex font-family font-size font-style font-weight height
justify-content left letter-spacing margin-bottom margin-left margin-right margin-top margin max-height max-width
min-height min-width opacity overflow-x overflow-y overflow padding-bottom padding-left padding-right padding-top padding
right text-align text-overflow top visibility white-space width`.split(/\s+/));
/** `reference-css/pseudo-classes/*.md` and `pseudo-elements/*.md`. */
const PSEUDO = new Set(['active', 'checked', 'defined', 'disabled', 'empty', 'enabled', 'first-child', 'focus', 'hover', 'last-child',
  'nth-child', 'nth-last-child', 'nth-last-of-type', 'nth-of-type', 'only-child', 'root', 'after', 'before']);
/** `reference-css/media-queries/*.md`. */
const MEDIA = new Set(['prefers-color-scheme', 'width', 'height', 'min-width', 'max-width', 'min-height', 'max-height']);

const html = readFileSync(join(PANEL_DIR, 'src/index.html'), 'utf8');
const css = [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1]).join('\n').replace(/\/\*[\s\S]*?\*\//g, '');

describe('panel CSS', () => {
  it('uses only properties UXP documents', () => {
    const used = [...css.matchAll(/([a-z-]+)\s*:(?!:)[^;{}]*;/g)].map((m) => m[1]!).filter((p) => !p.startsWith('--'));
    expect(used.length).toBeGreaterThan(10);
    expect(used.filter((p) => !PROPERTIES.has(p))).toEqual([]);
  });

  it('uses only pseudo-classes and media features UXP documents, and follows all five Photoshop themes', () => {
    const selectors = css.replace(/\{[^{}]*\}/g, '{}');
    const pseudo = [...selectors.matchAll(/::?([a-z-]+)/g)].map((m) => m[1]!).filter((p) => !/^(lightest|light|dark|darkest|medium)$/.test(p));
    expect(pseudo.filter((p) => !PSEUDO.has(p) && !MEDIA.has(p))).toEqual([]);
    const media = [...css.matchAll(/\(\s*([a-z-]+)\s*:/g)].map((m) => m[1]!);
    expect(media.filter((m) => !MEDIA.has(m))).toEqual([]);
    expect(css).toMatch(/prefers-color-scheme:\s*light\b/);
    expect(css).toMatch(/prefers-color-scheme:\s*lightest/);
    expect(css).not.toContain('!important');
  });
});
