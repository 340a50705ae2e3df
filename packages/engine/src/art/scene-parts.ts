/**
 * SVG pieces the character scenes are drawn from. Each takes a seeded random
 * source so a scene is the same for the same token and size. Sizes are in
 * pixels of the target canvas.
 */

export type Rand = () => number;

const f = (v: number): string => (Math.round(v * 10) / 10).toString();

/** A vertical linear gradient (top to bottom) through the given stops. */
export function verticalGradient(id: string, stops: readonly [number, string][]): string {
  const s = stops.map(([o, c]) => `<stop offset="${o}" stop-color="${c}"/>`).join('');
  return `<linearGradient id="${id}" x1="0" y1="0" x2="0" y2="1">${s}</linearGradient>`;
}

/** A soft round glow (radial gradient from `colour` to transparent), referenced as `url(#id)`. */
export function glowGradient(id: string, colour: string, core = 0.35): string {
  return `<radialGradient id="${id}"><stop offset="0" stop-color="${colour}" stop-opacity="1"/><stop offset="${core}" stop-color="${colour}" stop-opacity="0.8"/><stop offset="1" stop-color="${colour}" stop-opacity="0"/></radialGradient>`;
}

/** Out-of-focus lights: `n` glows of radius rMin..rMax in the box (x0, y0)–(x1, y1), cycling through gradient ids. */
export function bokeh(rand: Rand, n: number, ids: readonly string[], rMin: number, rMax: number, box: readonly [number, number, number, number]): string {
  const [x0, y0, x1, y1] = box;
  let out = '';
  for (let i = 0; i < n; i++) {
    const r = rMin + (rMax - rMin) * rand() ** 2;
    const x = x0 + (x1 - x0) * rand();
    const y = y0 + (y1 - y0) * rand();
    out += `<circle cx="${f(x)}" cy="${f(y)}" r="${f(r)}" fill="url(#${ids[i % ids.length]})" opacity="${f(0.35 + 0.6 * rand())}"/>`;
  }
  return out;
}

/** Falling snow: `n` white dots, radius rMin..rMax. */
export function snow(rand: Rand, n: number, w: number, h: number, rMin: number, rMax: number): string {
  let out = '<g fill="#ffffff">';
  for (let i = 0; i < n; i++) {
    const r = rMin + (rMax - rMin) * rand() ** 3;
    out += `<circle cx="${f(rand() * w)}" cy="${f(rand() * h)}" r="${f(r)}" opacity="${f(0.45 + 0.55 * rand())}"/>`;
  }
  return `${out}</g>`;
}

/** A heart of width ~`size` centred at (x, y), rotated by `deg`. */
export function heart(x: number, y: number, size: number, deg: number, fill: string, opacity: number): string {
  const s = size / 2;
  return `<path transform="translate(${f(x)} ${f(y)}) rotate(${f(deg)}) scale(${f(s)})" d="M0 0.9 C-1.4 -0.1 -0.9 -1.3 0 -0.55 C0.9 -1.3 1.4 -0.1 0 0.9 Z" fill="${fill}" opacity="${f(opacity)}"/>`;
}

/** A five-petal blossom of radius `r` centred at (x, y). */
export function blossom(x: number, y: number, r: number, petal: string, centre: string, deg: number): string {
  let petals = '';
  for (let k = 0; k < 5; k++) {
    petals += `<ellipse cx="0" cy="${f(-r * 0.55)}" rx="${f(r * 0.38)}" ry="${f(r * 0.55)}" transform="rotate(${k * 72})"/>`;
  }
  return `<g transform="translate(${f(x)} ${f(y)}) rotate(${f(deg)})" fill="${petal}">${petals}<circle r="${f(r * 0.22)}" fill="${centre}"/></g>`;
}

/** A five-pointed star of outer radius `r`. */
export function star(x: number, y: number, r: number, fill: string, opacity: number): string {
  const pts: string[] = [];
  for (let k = 0; k < 10; k++) {
    const a = -Math.PI / 2 + (k * Math.PI) / 5;
    const rr = k % 2 === 0 ? r : r * 0.45;
    pts.push(`${f(x + rr * Math.cos(a))},${f(y + rr * Math.sin(a))}`);
  }
  return `<polygon points="${pts.join(' ')}" fill="${fill}" opacity="${f(opacity)}"/>`;
}

/** Rolling hills: a filled wavy band from height `top` (fraction of h) down to the bottom. */
export function hills(rand: Rand, w: number, h: number, top: number, amplitude: number, fill: string): string {
  const n = 6;
  let d = `M0 ${f(h)} L0 ${f(h * top)}`;
  for (let k = 1; k <= n; k++) {
    const x = (w * k) / n;
    const cx = x - w / (2 * n);
    const cy = h * top + (rand() - 0.5) * 2 * amplitude * h;
    d += ` Q${f(cx)} ${f(cy)} ${f(x)} ${f(h * top + (rand() - 0.5) * amplitude * h)}`;
  }
  return `<path d="${d} L${f(w)} ${f(h)} Z" fill="${fill}"/>`;
}

/** Wave crests: thin light curves over the sea between heights y0..y1. */
export function waves(rand: Rand, n: number, w: number, y0: number, y1: number, size: number, colour: string): string {
  let out = `<g fill="none" stroke="${colour}" stroke-linecap="round">`;
  for (let i = 0; i < n; i++) {
    const y = y0 + (y1 - y0) * rand();
    const depth = (y - y0) / Math.max(1, y1 - y0);
    const len = size * (0.6 + 1.8 * depth);
    const x = rand() * w;
    out += `<path d="M${f(x)} ${f(y)} q${f(len / 2)} ${f(-len / 6)} ${f(len)} 0" stroke-width="${f(Math.max(1, len / 14))}" opacity="${f(0.3 + 0.5 * rand())}"/>`;
  }
  return `${out}</g>`;
}

/** A three-masted sailing ship silhouette with its keel at (x, y), length `len`, with a skull-and-bones flag. */
export function ship(x: number, y: number, len: number, hull: string, sail: string): string {
  const u = len / 100;
  const P = (px: number, py: number): string => `${f(x + px * u)} ${f(y + py * u)}`;
  const hullPath = `M${P(-50, -14)} L${P(50, -18)} L${P(40, 0)} L${P(-42, 0)} Z`;
  const stern = `M${P(-50, -14)} L${P(-50, -24)} L${P(-34, -24)} L${P(-34, -15)} Z`;
  let masts = '';
  let sails = '';
  for (const [mx, mh] of [
    [-22, 78],
    [4, 92],
    [28, 70],
  ] as const) {
    masts += `<rect x="${f(x + (mx - 1) * u)}" y="${f(y - (mh + 14) * u)}" width="${f(2 * u)}" height="${f(mh * u)}"/>`;
    for (const [sy, sw] of [
      [0.22, 13],
      [0.48, 16],
      [0.74, 18],
    ] as const) {
      const top = -14 - mh * (1 - sy) - 4;
      sails += `<path d="M${P(mx - sw, top)} Q${P(mx, top - 5)} ${P(mx + sw, top)} L${P(mx + sw - 2, top + mh * 0.22)} Q${P(mx, top + mh * 0.22 + 5)} ${P(mx - sw + 2, top + mh * 0.22)} Z"/>`;
    }
  }
  const flagTop = -14 - 92;
  const flag = `<rect x="${f(x + 5 * u)}" y="${f(y + (flagTop - 1) * u)}" width="${f(16 * u)}" height="${f(10 * u)}" fill="${hull}"/><circle cx="${f(x + 13 * u)}" cy="${f(y + (flagTop + 3) * u)}" r="${f(2.4 * u)}" fill="${sail}"/><path d="M${P(8, flagTop + 7)} L${P(18, flagTop + 2)} M${P(8, flagTop + 2)} L${P(18, flagTop + 7)}" stroke="${sail}" stroke-width="${f(1.2 * u)}"/>`;
  return `<g fill="${hull}"><path d="${hullPath}"/><path d="${stern}"/>${masts}</g><g fill="${sail}" opacity="0.92">${sails}</g>${flag}`;
}
