/**
 * Styles drawn with ink and flat colour: pencil sketch, cartoon, comics and
 * pop art. Every length is a fraction of the image's short side, so the look
 * is the same at any output size.
 */
import { dilate, inkLines, kuwahara, paint, quantise, saturate } from './filters';
import { diagonalBlur, gaussian, luma, noise, normalise, scaled, seedOf, type Plane, type Rgb } from './planes';

const INK: readonly [number, number, number] = [18, 16, 22];

/**
 * Pencil sketch in greys: colour dodge of the luma by its blurred inverse
 * (flat areas go white, edges leave graphite lines), lines deepened by a
 * power curve, diagonal hatching in the darker tones and a faint paper grain.
 */
export function pencilBw(img: Rgb): Rgb {
  const { width: w, height: h } = img;
  const l = luma(img);
  const inv = new Float32Array(l.length);
  for (let i = 0; i < l.length; i++) inv[i] = 255 - l[i]!;
  const blurred = gaussian(inv, w, h, scaled(w, h, 1 / 110, 2));
  const tone = gaussian(l, w, h, scaled(w, h, 1 / 80, 2));
  const hatch = normalise(diagonalBlur(noise(w, h, 0.6, seedOf('pencil-hatch')), w, h, scaled(w, h, 1 / 70, 4), -1));
  const grain = noise(w, h, 0.5, seedOf('pencil-paper'));
  const out = new Float32Array(l.length);
  for (let i = 0; i < l.length; i++) {
    const dodge = Math.min(255, (l[i]! * 255) / Math.max(1, 255 - blurred[i]!));
    let v = 255 * (dodge / 255) ** 2.2;
    // Hatching: strokes only where the surrounding tone is dark.
    const dark = Math.max(0, 1 - tone[i]! / 160);
    const stroke = Math.max(0, hatch[i]!);
    v *= 1 - Math.min(0.55, dark * dark * stroke * 0.35);
    out[i] = v + grain[i]! * 3;
  }
  return { r: out, g: out.slice(), b: out.slice(), width: w, height: h };
}

/**
 * Cartoon / cel look: two passes of edge-preserving smoothing, a dozen flat
 * colours (libimagequant may round the palette up to 16), and dark outlines
 * from a difference of Gaussians.
 */
export async function cartoon(img: Rgb): Promise<Rgb> {
  const { width: w, height: h } = img;
  const r = scaled(w, h, 1 / 220, 2);
  const smooth = saturate(kuwahara(kuwahara(img, r), r), 1.2);
  const flat = await quantise(smooth, 12);
  const lines = dilate(inkLines(luma(img), w, h, scaled(w, h, 1 / 700, 1), 3), w, h, scaled(w, h, 1 / 1200, 0));
  return paint(flat, lines, INK);
}

/** Halftone dot pitch (cell size, pixels) of {@link comics} for an image size. */
export function comicsDotPitch(w: number, h: number): number {
  return scaled(w, h, 1 / 90, 5);
}

/**
 * Comic-book print: saturated flat inks (8 colours), Ben-Day halftone dots on
 * a 45° screen whose size follows the tone, solid blacks in the shadows and
 * heavy outlines.
 */
export async function comics(img: Rgb): Promise<Rgb> {
  const { width: w, height: h } = img;
  const smooth = saturate(kuwahara(img, scaled(w, h, 1 / 260, 2)), 1.45);
  const flat = await quantise(smooth, 8);
  const tone = gaussian(luma(smooth), w, h, scaled(w, h, 1 / 400, 1));
  const pitch = comicsDotPitch(w, h);
  const lines = dilate(inkLines(luma(img), w, h, scaled(w, h, 1 / 500, 1), 2.5), w, h, scaled(w, h, 1 / 700, 1));
  const s = Math.SQRT1_2;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      const t = tone[i]!;
      if (t < 42) {
        // Spotted blacks: deep shadows are filled with ink.
        flat.r[i] = INK[0];
        flat.g[i] = INK[1];
        flat.b[i] = INK[2];
        continue;
      }
      const u = ((x + y) * s) % pitch;
      const v = (((x - y) * s) % pitch + pitch) % pitch;
      const du = u - pitch / 2;
      const dv = v - pitch / 2;
      // Dot area proportional to darkness, as in print.
      const radius = pitch * 0.62 * Math.sqrt(Math.max(0, 1 - t / 255));
      const k = du * du + dv * dv < radius * radius ? 0.5 : 1.12;
      flat.r[i] = flat.r[i]! * k + (k > 1 ? 14 : 0);
      flat.g[i] = flat.g[i]! * k + (k > 1 ? 14 : 0);
      flat.b[i] = flat.b[i]! * k + (k > 1 ? 14 : 0);
    }
  }
  return paint(flat, lines, INK);
}

/** The pop-art screen-print palette, darkest tone first. */
export const POP_ART_PALETTE: readonly (readonly [number, number, number])[] = [
  [28, 20, 70], // ink navy
  [228, 0, 124], // hot pink
  [0, 166, 214], // cyan
  [255, 122, 0], // orange
  [255, 221, 0], // yellow
];

/**
 * Warhol-like screen print: smoothed, posterised into five tones by the
 * image's own luma quantiles (so every photo uses the whole palette), each
 * tone printed in one flat, loud colour, with ink outlines.
 */
export function popArt(img: Rgb): Rgb {
  const { width: w, height: h } = img;
  const smooth = kuwahara(img, scaled(w, h, 1 / 200, 3));
  const tone = gaussian(luma(smooth), w, h, scaled(w, h, 1 / 600, 1));
  const cuts = quantiles(tone, [0.18, 0.4, 0.62, 0.82]);
  const out: Rgb = { r: new Float32Array(w * h), g: new Float32Array(w * h), b: new Float32Array(w * h), width: w, height: h };
  for (let i = 0; i < tone.length; i++) {
    const t = tone[i]!;
    let level = 0;
    while (level < cuts.length && t > cuts[level]!) level++;
    const c = POP_ART_PALETTE[level]!;
    out.r[i] = c[0];
    out.g[i] = c[1];
    out.b[i] = c[2];
  }
  const lines = dilate(inkLines(luma(img), w, h, scaled(w, h, 1 / 500, 1), 3.5), w, h, scaled(w, h, 1 / 900, 0));
  return paint(out, lines, INK);
}

/** Values below which the given fractions of a plane lie (256-bin histogram). */
function quantiles(p: Plane, qs: readonly number[]): number[] {
  const hist = new Uint32Array(256);
  for (const v of p) hist[v <= 0 ? 0 : v >= 255 ? 255 : v | 0]!++;
  return qs.map((q) => {
    let acc = 0;
    const target = q * p.length;
    for (let v = 0; v < 256; v++) {
      acc += hist[v]!;
      if (acc >= target) return v;
    }
    return 255;
  });
}
