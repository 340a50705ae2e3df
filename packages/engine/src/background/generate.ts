/**
 * Generative backgrounds (`bgGenerativePrompt`): a backdrop synthesised from
 * the prompt's words, the same for the same prompt and size. Not a learned
 * image generator (none installs offline): themes are recognised by keyword
 * (beach, sunset, forest, city, snow, sky, studio, …), colours by CSS colour
 * name, and the rest (sun position, lights, hills) is drawn from a seed made
 * of the prompt.
 */
import sharp from 'sharp';
import { NAMED_COLOURS } from '@pfc/core';
import { bokeh, glowGradient, hills, snow, verticalGradient, waves, type Rand } from '../art/scene-parts';
import { seededRandom as rng } from '@pfc/core';
import { seedOf } from '../art/planes';
import type { Raster } from '../image/raster';

/** Themes a prompt can name, with the words that select them (first match wins, in this order). */
export const BACKGROUND_THEMES = {
  sunset: ['sunset', 'sunrise', 'dusk', 'dawn', 'evening', 'golden hour'],
  beach: ['beach', 'sea', 'ocean', 'coast', 'shore', 'island', 'tropical', 'cruise'],
  snow: ['snow', 'winter', 'mountain', 'alps', 'ski', 'ice'],
  city: ['city', 'street', 'urban', 'night', 'lights', 'bokeh', 'party'],
  forest: ['forest', 'park', 'garden', 'tree', 'nature', 'green', 'meadow', 'field', 'spring'],
  sky: ['sky', 'cloud', 'clouds', 'heaven', 'air'],
  studio: ['studio', 'backdrop', 'plain', 'office', 'portrait', 'wall', 'paper'],
} as const;
export type BackgroundTheme = keyof typeof BACKGROUND_THEMES | 'abstract';

/** The theme a prompt selects (`abstract` when it names none). */
export function promptTheme(prompt: string): BackgroundTheme {
  const p = ` ${prompt.toLowerCase().replace(/[^a-z ]+/g, ' ')} `;
  for (const [theme, words] of Object.entries(BACKGROUND_THEMES) as [keyof typeof BACKGROUND_THEMES, readonly string[]][]) {
    if (words.some((w) => p.includes(` ${w} `) || p.includes(` ${w}s `))) return theme;
  }
  return 'abstract';
}

/** CSS colour names in the prompt, as hex, in order. */
export function promptColours(prompt: string): string[] {
  return prompt
    .toLowerCase()
    .split(/[^a-z]+/)
    .map((w) => NAMED_COLOURS[w])
    .filter((c): c is string => c !== undefined);
}

/** Render the background for a prompt at width × height (RGB). */
export async function generateBackground(prompt: string, width: number, height: number): Promise<Raster> {
  const svg = backgroundSvg(prompt, width, height);
  const { data, info } = await sharp(Buffer.from(svg)).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  // Film-like grain keeps large gradients from banding and looking flat.
  const rand = rng(seedOf(`grain:${prompt}`));
  for (let i = 0; i < data.length; i += 3) {
    const n = (rand() - 0.5) * 6;
    for (let c = 0; c < 3; c++) data[i + c] = Math.max(0, Math.min(255, Math.round(data[i + c]! + n)));
  }
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.length), width: info.width, height: info.height, channels: 3 };
}

/** The SVG of the background (deterministic for prompt and size). */
export function backgroundSvg(prompt: string, w: number, h: number): string {
  const rand = rng(seedOf(`bg:${prompt.trim().toLowerCase()}`));
  const colours = promptColours(prompt);
  const u = Math.min(w, h);
  const body = THEMES[promptTheme(prompt)](rand, w, h, u, colours);
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}">${body}</svg>`;
}

type ThemeFn = (rand: Rand, w: number, h: number, u: number, colours: string[]) => string;

const fill = (id: string, stops: readonly [number, string][], w: number, h: number): string =>
  `<defs>${verticalGradient(id, stops)}</defs><rect width="${w}" height="${h}" fill="url(#${id})"/>`;

/** Blurred copy of an SVG group (depth of field: backgrounds sit behind the subject). */
const soft = (inner: string, sigma: number): string =>
  `<defs><filter id="dof" x="-10%" y="-10%" width="120%" height="120%"><feGaussianBlur stdDeviation="${sigma.toFixed(1)}"/></filter></defs><g filter="url(#dof)">${inner}</g>`;

const THEMES: Record<BackgroundTheme, ThemeFn> = {
  sunset(rand, w, h, u, colours) {
    const top = colours[0] ?? '#2b1b4f';
    const sunX = w * (0.25 + 0.5 * rand());
    const horizon = h * (0.62 + 0.1 * rand());
    const sky = fill('sky', [[0, top], [0.45, '#c2476b'], [0.75, '#f28c3a'], [1, '#ffd08a']], w, horizon);
    const sun = `<defs>${glowGradient('sun', '#fff1b8', 0.25)}</defs><circle cx="${sunX}" cy="${horizon}" r="${u * 0.22}" fill="url(#sun)"/>`;
    // Ground first: the hills' outline does not reach every edge.
    const ground = `<rect y="${horizon}" width="${w}" height="${h - horizon}" fill="#24142a"/>`;
    return sky + ground + sun + soft(hills(rand, w, h, horizon, h * 0.05, '#3b1f3a') + hills(rand, w, h, horizon + h * 0.08, h * 0.04, '#24142a'), u / 150);
  },
  beach(rand, w, h, u, colours) {
    const sea = colours[0] ?? '#1b8fb0';
    const horizon = h * (0.45 + 0.08 * rand());
    const shore = horizon + h * (0.18 + 0.06 * rand());
    const sky = fill('sky', [[0, '#5fb4f0'], [1, '#d9f1ff']], w, h);
    const water = `<defs>${verticalGradient('sea', [[0, sea], [1, '#7fd8d0']])}</defs><rect y="${horizon}" width="${w}" height="${shore - horizon}" fill="url(#sea)"/>`;
    const sand = `<defs>${verticalGradient('sand', [[0, '#f3ddb0'], [1, '#e2c48e']])}</defs><rect y="${shore}" width="${w}" height="${h - shore}" fill="url(#sand)"/>`;
    return soft(sky + water + waves(rand, 40, w, horizon + 4, shore - 4, u / 60, '#ffffff') + sand, u / 200);
  },
  snow(rand, w, h, u) {
    const sky = fill('sky', [[0, '#9cc3e6'], [1, '#eef5fb']], w, h);
    return soft(sky + hills(rand, w, h, h * 0.45, h * 0.18, '#c9d6e3') + hills(rand, w, h, h * 0.62, h * 0.08, '#f4f8fb'), u / 180) + snow(rand, Math.round((w * h) / 4000), w, h, u / 400, u / 120);
  },
  city(rand, w, h, u, colours) {
    const base = colours[0] ?? '#0d1630';
    const sky = fill('sky', [[0, base], [1, '#2b2140']], w, h);
    const defs = `<defs>${glowGradient('a', '#ffcf6e')}${glowGradient('b', '#ff7a59')}${glowGradient('c', '#8fd3ff')}${glowGradient('d', '#fff2cf')}</defs>`;
    return sky + defs + bokeh(rand, Math.round(30 + (w * h) / 20000), ['a', 'b', 'c', 'd'], u * 0.02, u * 0.09, [0, 0, w, h]);
  },
  forest(rand, w, h, u, colours) {
    const light = colours[0] ?? '#cfe8a0';
    const sky = fill('sky', [[0, light], [1, '#3f6b2e']], w, h);
    const defs = `<defs>${glowGradient('g1', '#7fb24a')}${glowGradient('g2', '#4d8a3a')}${glowGradient('g3', '#b7d97a')}${glowGradient('g4', '#2f5e2a')}</defs>`;
    return sky + defs + soft(bokeh(rand, Math.round(40 + (w * h) / 15000), ['g1', 'g2', 'g3', 'g4'], u * 0.05, u * 0.2, [0, 0, w, h]), u / 80);
  },
  sky(rand, w, h, u, colours) {
    const top = colours[0] ?? '#3d8be0';
    const sky = fill('sky', [[0, top], [1, '#cfe6fb']], w, h);
    const defs = `<defs>${glowGradient('cl', '#ffffff', 0.5)}</defs>`;
    return sky + defs + soft(bokeh(rand, Math.round(12 + (w * h) / 60000), ['cl'], u * 0.08, u * 0.25, [0, 0, w, h * 0.8]), u / 60);
  },
  studio(_rand, w, h, _u, colours) {
    // A lit paper backdrop: the colour in the middle, falling off to the edges.
    const c = colours[0] ?? '#8a8f96';
    const vignette = `<radialGradient id="st" cx="0.5" cy="0.4" r="0.75"><stop offset="0" stop-color="#000000" stop-opacity="0"/><stop offset="1" stop-color="#000000" stop-opacity="0.55"/></radialGradient>`;
    return `<defs>${vignette}</defs><rect width="${w}" height="${h}" fill="${c}"/><rect width="${w}" height="${h}" fill="url(#st)"/>`;
  },
  abstract(rand, w, h, u, colours) {
    const hue = Math.floor(rand() * 360);
    const a = colours[0] ?? `hsl(${hue},55%,62%)`;
    const b = colours[1] ?? `hsl(${(hue + 40 + rand() * 80) % 360},50%,35%)`;
    const sky = fill('ab', [[0, a], [1, b]], w, h);
    const defs = `<defs>${glowGradient('x', a)}${glowGradient('y', '#ffffff')}</defs>`;
    return sky + defs + soft(bokeh(rand, 14, ['x', 'y'], u * 0.1, u * 0.35, [0, 0, w, h]), u / 40);
  },
};
