/**
 * The degradations of the quality benchmark: colour casts (von Kries gains on
 * linear light, as a wrong camera white balance makes them), exposure errors
 * (linear gains, clipped), veiling haze and flat contrast, each in two
 * strengths, and two combinations. `kind` groups them in the report.
 */

const toLin = (v) => (v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
const toEnc = (v) => {
  const c = Math.min(1, Math.max(0, v));
  return c <= 0.0031308 ? c * 12.92 : 1.055 * c ** (1 / 2.4) - 0.055;
};
const LIN = Float64Array.from({ length: 256 }, (_, i) => toLin(i / 255));
const byte = (v) => Math.round(Math.min(1, Math.max(0, v)) * 255);

/** Per-channel map in linear light, through one 256-entry table per channel. */
const linearMap = (f) => {
  const luts = [0, 1, 2].map((c) => Uint8Array.from({ length: 256 }, (_, i) => byte(toEnc(f(LIN[i], c)))));
  return (src) => {
    const out = new Uint8Array(src.length);
    for (let i = 0; i < src.length; i += 3) {
      out[i] = luts[0][src[i]];
      out[i + 1] = luts[1][src[i + 1]];
      out[i + 2] = luts[2][src[i + 2]];
    }
    return out;
  };
};
/** Same map on every channel, on encoded values 0..1. */
const encodedMap = (f) => {
  const lut = Uint8Array.from({ length: 256 }, (_, i) => byte(f(i / 255)));
  return (src) => src.map((v) => lut[v]);
};
const gains = (g) => linearMap((x, c) => x * g[c]);
const chain = (...fs) => (src) => fs.reduce((acc, f) => f(acc), src);

/** @type {{ kind: string, name: string, apply: (rgb: Uint8Array) => Uint8Array }[]} */
export const DEGRADATIONS = [
  { kind: 'warm cast', name: 'warm mild (tungsten-ish)', apply: gains([1.15, 1.0, 0.8]) },
  { kind: 'warm cast', name: 'warm strong', apply: gains([1.3, 1.0, 0.65]) },
  { kind: 'cool cast', name: 'cool mild (shade)', apply: gains([0.87, 0.97, 1.15]) },
  { kind: 'cool cast', name: 'cool strong', apply: gains([0.75, 0.95, 1.3]) },
  { kind: 'green cast', name: 'green mild (fluorescent)', apply: gains([0.92, 1.08, 0.92]) },
  { kind: 'green cast', name: 'green strong', apply: gains([0.85, 1.15, 0.85]) },
  { kind: 'magenta cast', name: 'magenta mild', apply: gains([1.08, 0.92, 1.05]) },
  { kind: 'magenta cast', name: 'magenta strong', apply: gains([1.15, 0.85, 1.1]) },
  { kind: 'dark', name: 'under-exposed -1 EV', apply: gains([0.5, 0.5, 0.5]) },
  { kind: 'dark', name: 'under-exposed -2 EV', apply: gains([0.25, 0.25, 0.25]) },
  { kind: 'bright', name: 'over-exposed +0.7 EV (clipped)', apply: gains([1.6, 1.6, 1.6]) },
  { kind: 'bright', name: 'washed out (lifted blacks +0.5 EV)', apply: encodedMap((v) => toEnc(0.05 + 0.95 * Math.min(1, toLin(v) * 1.4))) },
  { kind: 'haze', name: 'haze 15%', apply: linearMap((x) => 0.85 * x + 0.15 * 0.7) },
  { kind: 'haze', name: 'haze 30%', apply: linearMap((x) => 0.7 * x + 0.3 * 0.7) },
  { kind: 'low contrast', name: 'contrast -30%', apply: encodedMap((v) => 0.15 + 0.7 * v) },
  { kind: 'low contrast', name: 'contrast -50%', apply: encodedMap((v) => 0.25 + 0.5 * v) },
  { kind: 'combined', name: 'warm + under-exposed', apply: gains([0.6, 0.45, 0.3]) },
  { kind: 'combined', name: 'cool + low contrast', apply: chain(gains([0.8, 0.95, 1.25]), encodedMap((v) => 0.2 + 0.6 * v)) },
];

/** Kinds in report order. */
export const KINDS = [...new Set(DEGRADATIONS.map((d) => d.kind))];
