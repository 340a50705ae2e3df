/**
 * The themed backdrops of the eight AI Art characters, drawn procedurally as
 * SVG (rendered by sharp/librsvg): no image assets, the same picture for the
 * same token and size. Each is described in the package README.
 */
import type { AiArtCharacter } from './tokens';
import { blossom, bokeh, glowGradient, heart, hills, type Rand, ship, snow, star, verticalGradient, waves } from './scene-parts';
import { seededRandom as rng } from '@pfc/core';
import { seedOf } from './planes';

/** One line per scene, for documentation and reports. */
export const SCENE_DESCRIPTIONS: Readonly<Record<AiArtCharacter, string>> = {
  christmasnye: 'Christmas / New Year night: midnight-blue sky, warm gold, red and green bokeh lights, a garland of bulbs, falling snow, snowy ground.',
  stValentines: "St Valentine's: rose-to-crimson gradient, soft pink bokeh, floating hearts of several sizes.",
  business: 'Business portrait: an office at blue hour, grey wall and a window grid looking onto a city skyline with lit windows.',
  ffAdult: 'Fairy-tale fantasy (adult): an enchanted forest at dusk, tree silhouettes in violet mist, glowing fireflies.',
  spring: 'Spring: pale blue sky with a low sun glow, green meadow hills, pink and white blossoms.',
  ffKid: 'Fairy-tale fantasy (kid): bright pastel sky, rainbow, puffy clouds, stars and balloons.',
  singlePirate: 'Pirate: sunset sky over the sea, a three-masted ship with a skull flag on the horizon, wave crests.',
  groupPirate: 'Pirate crew: daylight sea with two ships, a larger flagship, gulls and wave crests.',
};

/** The SVG of a character's backdrop at w × h pixels. */
export function sceneSvg(token: AiArtCharacter, w: number, h: number): string {
  const rand = rng(seedOf(`scene-${token}`));
  const u = Math.min(w, h);
  const body = SCENES[token](rand, w, h, u);
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}">${body}</svg>`;
}

type SceneFn = (rand: Rand, w: number, h: number, u: number) => string;

const sky = (id: string, stops: readonly [number, string][], w: number, h: number): string =>
  `<defs>${verticalGradient(id, stops)}</defs><rect width="${w}" height="${h}" fill="url(#${id})"/>`;

const SCENES: Record<AiArtCharacter, SceneFn> = {
  christmasnye(rand, w, h, u) {
    const defs = `<defs>${glowGradient('gold', '#ffd27a')}${glowGradient('red', '#ff5a4e')}${glowGradient('green', '#6fe08a')}${glowGradient('white', '#fff6e0')}</defs>`;
    let garland = `<path d="M0 ${h * 0.06} Q${w / 2} ${h * 0.2} ${w} ${h * 0.06}" stroke="#20452c" stroke-width="${u / 120}" fill="none"/>`;
    for (let k = 1; k < 16; k++) {
      const t = k / 16;
      const x = t * w;
      const y = h * 0.06 + 4 * t * (1 - t) * h * 0.07;
      garland += `<circle cx="${x}" cy="${y + u / 60}" r="${u / 45}" fill="url(#${['gold', 'red', 'green'][k % 3]})"/>`;
    }
    return (
      sky('night', [[0, '#0b1236'], [0.6, '#1d2b63'], [1, '#2f3f7a']], w, h) +
      defs +
      bokeh(rand, 70, ['gold', 'red', 'green', 'white'], u / 40, u / 9, [0, 0, w, h * 0.8]) +
      hills(rand, w, h, 0.84, 0.04, '#e8eef8') +
      garland +
      snow(rand, Math.round((w * h) / 9000), w, h, u / 500, u / 120)
    );
  },
  stValentines(rand, w, h, u) {
    let hearts = '';
    for (let k = 0; k < 38; k++) {
      const colour = ['#ff2d55', '#ff6b8b', '#d1003f', '#ffc2d1'][k % 4]!;
      hearts += heart(rand() * w, rand() * h, u * (0.04 + 0.14 * rand() ** 2), (rand() - 0.5) * 50, colour, 0.45 + 0.5 * rand());
    }
    return (
      sky('rose', [[0, '#ffb3c7'], [0.55, '#f0507a'], [1, '#8e0b32']], w, h) +
      `<defs>${glowGradient('pink', '#ffe0ea')}</defs>` +
      bokeh(rand, 45, ['pink'], u / 35, u / 10, [0, 0, w, h]) +
      hearts
    );
  },
  business(rand, w, h) {
    const winX = w * 0.08;
    const winY = h * 0.08;
    const winW = w * 0.84;
    const winH = h * 0.62;
    let city = '';
    let x = winX;
    while (x < winX + winW) {
      const bw = winW * (0.05 + 0.08 * rand());
      const bh = winH * (0.3 + 0.6 * rand());
      const top = winY + winH - bh;
      city += `<rect x="${x}" y="${top}" width="${bw}" height="${bh}" fill="#${['1d2a44', '22314f', '18243b'][Math.floor(rand() * 3)]}"/>`;
      for (let wy = top + bh * 0.05; wy < winY + winH - 6; wy += winH * 0.035) {
        for (let wx = x + bw * 0.12; wx < x + bw - bw * 0.12; wx += bw * 0.2) {
          if (rand() < 0.45) city += `<rect x="${wx}" y="${wy}" width="${bw * 0.1}" height="${winH * 0.018}" fill="#ffd98a" opacity="${0.5 + 0.5 * rand()}"/>`;
        }
      }
      x += bw + winW * 0.005;
    }
    let frames = '';
    for (let k = 0; k <= 4; k++) frames += `<rect x="${winX + (winW * k) / 4 - w * 0.006}" y="${winY}" width="${w * 0.012}" height="${winH}"/>`;
    for (let k = 0; k <= 2; k++) frames += `<rect x="${winX}" y="${winY + (winH * k) / 2 - h * 0.006}" width="${winW}" height="${h * 0.012}"/>`;
    return (
      sky('wall', [[0, '#c9ced6'], [1, '#9ea6b3']], w, h) +
      `<defs>${verticalGradient('dusk', [[0, '#203a6e'], [0.7, '#5b7db8'], [1, '#f2b38a']])}</defs>` +
      `<rect x="${winX}" y="${winY}" width="${winW}" height="${winH}" fill="url(#dusk)"/>` +
      city +
      `<g fill="#3a414d">${frames}</g>` +
      `<rect x="0" y="${h * 0.82}" width="${w}" height="${h * 0.18}" fill="#5a4634"/>`
    );
  },
  ffAdult(rand, w, h, u) {
    let trees = '';
    for (let k = 0; k < 14; k++) {
      const x = rand() * w;
      const tw = u * (0.02 + 0.05 * rand());
      const shade = ['#1b1030', '#241640', '#2e1d4f'][k % 3]!;
      trees += `<path d="M${x - tw} ${h} L${x - tw * 0.45} 0 L${x + tw * 0.45} 0 L${x + tw} ${h} Z" fill="${shade}" opacity="${0.6 + 0.4 * rand()}"/>`;
    }
    return (
      sky('dusk', [[0, '#1a0f3a'], [0.5, '#4b2a7a'], [1, '#2a5a6e']], w, h) +
      `<defs>${glowGradient('fly', '#fff3a0', 0.15)}${glowGradient('mist', '#c9b8ff', 0.1)}</defs>` +
      bokeh(rand, 10, ['mist'], u / 5, u / 2.5, [0, h * 0.3, w, h]) +
      trees +
      bokeh(rand, 90, ['fly'], u / 200, u / 45, [0, 0, w, h])
    );
  },
  spring(rand, w, h, u) {
    let flowers = '';
    for (let k = 0; k < 60; k++) {
      const y = h * (0.66 + 0.34 * rand());
      flowers += blossom(rand() * w, y, u * (0.012 + 0.03 * ((y / h - 0.66) / 0.34)), rand() < 0.6 ? '#ffc4dc' : '#ffffff', '#ffd23f', rand() * 72);
    }
    let branch = '';
    for (let k = 0; k < 22; k++) branch += blossom(w * (0.55 + 0.45 * rand()), h * 0.2 * rand(), u * (0.02 + 0.02 * rand()), '#ffb0cf', '#f7a300', rand() * 72);
    return (
      sky('spring', [[0, '#8ec9ff'], [0.6, '#d7ecff'], [1, '#f5fbff']], w, h) +
      `<defs>${glowGradient('sun', '#fff6c8', 0.2)}</defs>` +
      `<circle cx="${w * 0.2}" cy="${h * 0.18}" r="${u * 0.3}" fill="url(#sun)"/>` +
      hills(rand, w, h, 0.62, 0.05, '#8fd16a') +
      hills(rand, w, h, 0.72, 0.04, '#5fb04a') +
      `<path d="M${w} ${h * 0.02} Q${w * 0.75} ${h * 0.12} ${w * 0.5} ${h * 0.05}" stroke="#6b4a32" stroke-width="${u / 70}" fill="none"/>` +
      branch +
      flowers
    );
  },
  ffKid(rand, w, h, u) {
    const colours = ['#ff4d4d', '#ff9f1c', '#ffe14d', '#5bd35b', '#4da6ff', '#9b5de5'];
    let rainbow = '';
    colours.forEach((c, k) => {
      const r = u * (0.62 - k * 0.045);
      rainbow += `<path d="M${w / 2 - r} ${h * 0.75} A${r} ${r} 0 0 1 ${w / 2 + r} ${h * 0.75}" stroke="${c}" stroke-width="${u * 0.045}" fill="none" opacity="0.85"/>`;
    });
    let clouds = '';
    for (let k = 0; k < 6; k++) {
      const cx = rand() * w;
      const cy = h * (0.08 + 0.35 * rand());
      const s = u * (0.05 + 0.05 * rand());
      clouds += `<g fill="#ffffff" opacity="0.95"><circle cx="${cx}" cy="${cy}" r="${s}"/><circle cx="${cx + s}" cy="${cy + s * 0.2}" r="${s * 0.8}"/><circle cx="${cx - s}" cy="${cy + s * 0.25}" r="${s * 0.7}"/></g>`;
    }
    let stars = '';
    for (let k = 0; k < 24; k++) stars += star(rand() * w, rand() * h * 0.7, u * (0.012 + 0.025 * rand()), '#fff27a', 0.7 + 0.3 * rand());
    let balloons = '';
    for (let k = 0; k < 7; k++) {
      const bx = rand() * w;
      const by = h * (0.15 + 0.5 * rand());
      const r = u * (0.03 + 0.03 * rand());
      balloons += `<path d="M${bx} ${by + r * 1.2} q${r * 0.3} ${r * 1.5} ${-r * 0.2} ${r * 3}" stroke="#666" stroke-width="${Math.max(1, u / 600)}" fill="none"/><ellipse cx="${bx}" cy="${by}" rx="${r}" ry="${r * 1.2}" fill="${colours[k % colours.length]}"/>`;
    }
    return sky('kid', [[0, '#b8e1ff'], [0.6, '#ffe3f3'], [1, '#fff7d6']], w, h) + rainbow + clouds + stars + hills(rand, w, h, 0.8, 0.03, '#9be38a') + balloons;
  },
  singlePirate(rand, w, h, u) {
    return (
      sky('sunset', [[0, '#3b2a5a'], [0.35, '#c8566b'], [0.55, '#ffb36b'], [0.58, '#1f4f6e'], [1, '#0d2a40']], w, h) +
      `<defs>${glowGradient('sun', '#ffe3a0', 0.25)}</defs>` +
      `<circle cx="${w * 0.72}" cy="${h * 0.53}" r="${u * 0.16}" fill="url(#sun)"/>` +
      ship(w * 0.25, h * 0.6, u * 0.42, '#160f14', '#2a1c22') +
      waves(rand, 140, w, h * 0.6, h, u * 0.05, '#9cc7e0')
    );
  },
  groupPirate(rand, w, h, u) {
    let gulls = '';
    for (let k = 0; k < 7; k++) {
      const x = rand() * w;
      const y = h * 0.1 + rand() * h * 0.3;
      const s = u * (0.015 + 0.02 * rand());
      gulls += `<path d="M${x - s} ${y} q${s / 2} ${-s / 2} ${s} 0 q${s / 2} ${-s / 2} ${s} 0" stroke="#2b3440" stroke-width="${Math.max(1, s / 6)}" fill="none"/>`;
    }
    return (
      sky('day', [[0, '#5fa8e8'], [0.5, '#bfe0f7'], [0.55, '#2f7fa8'], [1, '#114766']], w, h) +
      ship(w * 0.8, h * 0.57, u * 0.28, '#3b2718', '#f1e7d0') +
      ship(w * 0.18, h * 0.64, u * 0.55, '#2c1c12', '#efe2c4') +
      gulls +
      waves(rand, 160, w, h * 0.56, h, u * 0.05, '#d8eef8')
    );
  },
};
