/**
 * CIELAB and CIEDE2000 colour difference, used by the quality benchmark and
 * the tests to measure how close a corrected photo is to a reference.
 */
import { LINEAR_OF_BYTE } from './srgb';

/** CIELAB coordinates (D65 white). */
export interface Lab {
  L: number;
  a: number;
  b: number;
}

const XN = 0.95047;
const ZN = 1.08883;

function f(t: number): number {
  return t > 216 / 24389 ? Math.cbrt(t) : (24389 / 27 * t + 16) / 116;
}

/** 8-bit sRGB → CIELAB (D65). */
export function srgbToLab(r: number, g: number, b: number): Lab {
  return linearToLab(LINEAR_OF_BYTE[r] ?? 0, LINEAR_OF_BYTE[g] ?? 0, LINEAR_OF_BYTE[b] ?? 0);
}

/** Linear-light sRGB (0..1 a channel) → CIELAB (D65). */
export function linearToLab(R: number, G: number, B: number): Lab {
  const x = (0.4124564 * R + 0.3575761 * G + 0.1804375 * B) / XN;
  const y = 0.2126729 * R + 0.7151522 * G + 0.072175 * B;
  const z = (0.0193339 * R + 0.119192 * G + 0.9503041 * B) / ZN;
  const fx = f(x);
  const fy = f(y);
  const fz = f(z);
  return { L: 116 * fy - 16, a: 500 * (fx - fy), b: 200 * (fy - fz) };
}

const DEG = Math.PI / 180;

/** CIEDE2000 difference of two Lab colours (kL = kC = kH = 1). */
export function ciede2000(x: Lab, y: Lab): number {
  const C1 = Math.hypot(x.a, x.b);
  const C2 = Math.hypot(y.a, y.b);
  const Cm = (C1 + C2) / 2;
  const Cm7 = Cm ** 7;
  const G = 0.5 * (1 - Math.sqrt(Cm7 / (Cm7 + 25 ** 7)));
  const a1 = (1 + G) * x.a;
  const a2 = (1 + G) * y.a;
  const c1 = Math.hypot(a1, x.b);
  const c2 = Math.hypot(a2, y.b);
  const h1 = c1 === 0 ? 0 : (Math.atan2(x.b, a1) / DEG + 360) % 360;
  const h2 = c2 === 0 ? 0 : (Math.atan2(y.b, a2) / DEG + 360) % 360;
  const dL = y.L - x.L;
  const dC = c2 - c1;
  let dh = 0;
  if (c1 * c2 !== 0) {
    dh = h2 - h1;
    if (dh > 180) dh -= 360;
    else if (dh < -180) dh += 360;
  }
  const dH = 2 * Math.sqrt(c1 * c2) * Math.sin((dh / 2) * DEG);
  const Lm = (x.L + y.L) / 2;
  const cm = (c1 + c2) / 2;
  let hm = h1 + h2;
  if (c1 * c2 !== 0) {
    if (Math.abs(h1 - h2) > 180) hm = h1 + h2 < 360 ? (h1 + h2 + 360) / 2 : (h1 + h2 - 360) / 2;
    else hm = (h1 + h2) / 2;
  }
  const T =
    1 - 0.17 * Math.cos((hm - 30) * DEG) + 0.24 * Math.cos(2 * hm * DEG) + 0.32 * Math.cos((3 * hm + 6) * DEG) - 0.2 * Math.cos((4 * hm - 63) * DEG);
  const dTheta = 30 * Math.exp(-(((hm - 275) / 25) ** 2));
  const cm7 = cm ** 7;
  const Rc = 2 * Math.sqrt(cm7 / (cm7 + 25 ** 7));
  const Lm50 = (Lm - 50) ** 2;
  const Sl = 1 + (0.015 * Lm50) / Math.sqrt(20 + Lm50);
  const Sc = 1 + 0.045 * cm;
  const Sh = 1 + 0.015 * cm * T;
  const Rt = -Math.sin(2 * dTheta * DEG) * Rc;
  const l = dL / Sl;
  const c = dC / Sc;
  const h = dH / Sh;
  return Math.sqrt(l * l + c * c + h * h + Rt * c * h);
}

/**
 * Mean CIEDE2000 between two 8-bit images of equal size and channel count
 * (3 or 4; alpha ignored). `step` > 1 measures every step-th pixel only
 * (quick estimates). Throws when the sizes differ.
 */
export function meanDeltaE2000(a: Uint8Array, b: Uint8Array, channels: number, step = 1): number {
  if (a.length !== b.length) throw new Error(`meanDeltaE2000: images differ in size (${a.length} vs ${b.length} bytes)`);
  if (channels !== 3 && channels !== 4) throw new Error(`meanDeltaE2000: channels must be 3 or 4 (got ${channels})`);
  if (a.length === 0) return 0;
  // Photos repeat colours a lot; memoise the Lab conversion per packed RGB.
  const cache = new Map<number, Lab>();
  const lab = (buf: Uint8Array, i: number): Lab => {
    const r = buf[i] ?? 0;
    const g = buf[i + 1] ?? 0;
    const bl = buf[i + 2] ?? 0;
    const key = (r << 16) | (g << 8) | bl;
    let v = cache.get(key);
    if (!v) {
      v = srgbToLab(r, g, bl);
      if (cache.size < 1 << 20) cache.set(key, v);
    }
    return v;
  };
  let sum = 0;
  let count = 0;
  const stride = channels * Math.max(1, Math.floor(step));
  for (let i = 0; i < a.length; i += stride) {
    count++;
    if (a[i] === b[i] && a[i + 1] === b[i + 1] && a[i + 2] === b[i + 2]) continue;
    sum += ciede2000(lab(a, i), lab(b, i));
  }
  return sum / count;
}
