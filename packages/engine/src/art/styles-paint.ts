/**
 * Painted styles: oil, watercolour, soft pastel and Van Gogh-like strokes.
 * Lengths are fractions of the short side; textures are seeded by the style's
 * name, so a given photo always gives the same painting.
 */
import { addSwirls, edgeFlow, type Flow, licScaled, relief } from './flow';
import { kuwahara, saturate } from './filters';
import { diagonalBlur, gaussian, luma, mapRgb, noise, normalise, scaled, seedOf, type Plane, type Rgb } from './planes';

/**
 * Oil painting: two passes of the Kuwahara filter (flat, sharp-edged patches
 * of paint), richer colour, and an impasto relief: bristle noise smeared
 * along the image's edges, lit from the top left.
 */
export function oilPainting(img: Rgb): Rgb {
  const { width: w, height: h } = img;
  const r = scaled(w, h, 1 / 150, 3);
  const paint = saturate(kuwahara(kuwahara(img, r), Math.ceil(r / 2)), 1.15);
  const flow = (g: Plane, fw: number, fh: number): Flow => edgeFlow(g, fw, fh, scaled(fw, fh, 1 / 200, 2));
  const [bristles] = licScaled([noise(w, h, 0.7, seedOf('oil-bristles'))], luma(paint), w, h, flow, scaled(w, h, 1 / 100, 4));
  const bump = normalise(relief(gaussian(bristles!, w, h, 0.8), w, h));
  return shade(paint, bump, 0.07, 6);
}

/**
 * Watercolour: softened patches whose colour bleeds irregularly across edges
 * (sampling displaced by low-frequency noise), darker "wet edges" where
 * pigment pools, a lighter palette letting the paper show, pigment
 * granulation and a warm paper texture.
 */
export function watercolor(img: Rgb): Rgb {
  const { width: w, height: h } = img;
  const base = kuwahara(img, scaled(w, h, 1 / 250, 2));
  const amp = scaled(w, h, 1 / 130, 2);
  const nx = noise(w, h, scaled(w, h, 1 / 45, 3), seedOf('wc-bleed-x'));
  const ny = noise(w, h, scaled(w, h, 1 / 45, 3), seedOf('wc-bleed-y'));
  const bled = displace(base, nx, ny, amp);
  const soft = mapRgb(bled, (p) => gaussian(p, w, h, scaled(w, h, 1 / 700, 1)));
  const l = luma(soft);
  const wide = gaussian(l, w, h, scaled(w, h, 1 / 160, 2));
  const grain = noise(w, h, 0.8, seedOf('wc-grain'));
  const blotch = noise(w, h, scaled(w, h, 1 / 25, 4), seedOf('wc-blotch'));
  const paper: readonly [number, number, number] = [252, 248, 238];
  const planes = [soft.r, soft.g, soft.b] as const;
  const out = planes.map(() => new Float32Array(w * h)) as [Plane, Plane, Plane];
  for (let i = 0; i < l.length; i++) {
    // Pigment pools on the edge of a wash: darken where the local tone departs from its surround.
    const edge = Math.min(0.45, Math.abs(l[i]! - wide[i]!) * 0.02);
    const texture = 1 + 0.06 * grain[i]! + 0.12 * blotch[i]!;
    for (let c = 0; c < 3; c++) {
      // Lighter palette: pigment is diluted to 70 % over the paper colour.
      const pigment = (255 - planes[c]![i]!) * 0.7 * texture * (1 + edge);
      out[c]![i] = paper[c]! * (1 - pigment / 255);
    }
  }
  return saturate({ r: out[0], g: out[1], b: out[2], width: w, height: h }, 1.15);
}

/**
 * Soft pastel: blended, low-contrast, high-key colour (tones pulled towards a
 * light paper, chroma softened) and chalk: diagonal streaks and grain where
 * the pastel skips over the paper's tooth.
 */
export function softPastel(img: Rgb): Rgb {
  const { width: w, height: h } = img;
  const blended = mapRgb(kuwahara(img, scaled(w, h, 1 / 300, 2)), (p) => gaussian(p, w, h, scaled(w, h, 1 / 500, 1)));
  saturate(blended, 0.8);
  const streak = normalise(diagonalBlur(noise(w, h, 0.7, seedOf('pastel-streaks')), w, h, scaled(w, h, 1 / 60, 5), -1));
  const tooth = noise(w, h, 0.6, seedOf('pastel-tooth'));
  const paper: readonly [number, number, number] = [246, 240, 232];
  const planes = [blended.r, blended.g, blended.b] as const;
  const out = planes.map(() => new Float32Array(w * h)) as [Plane, Plane, Plane];
  for (let i = 0; i < w * h; i++) {
    // Paper showing through the chalk: strongest where streak and tooth are both high.
    const skip = Math.max(0, Math.min(0.55, 0.18 * (streak[i]! + tooth[i]!) - 0.05));
    for (let c = 0; c < 3; c++) {
      const pastel = 0.55 * planes[c]![i]! + 0.45 * 238;
      out[c]![i] = pastel * (1 - skip) + paper[c]! * skip;
    }
  }
  return { r: out[0], g: out[1], b: out[2], width: w, height: h };
}

/**
 * After Van Gogh: vivid colour split-toned towards ultramarine shadows and
 * chrome-yellow lights, then swirling strokes: colour and a stroke texture
 * smeared (line integral convolution) along a field that follows the image's
 * edges and curls into vortices where the image is flat (sky, walls).
 */
export function vanGogh(img: Rgb): Rgb {
  const { width: w, height: h } = img;
  const base = saturate(kuwahara(img, scaled(w, h, 1 / 220, 2)), 1.35);
  const l = luma(base);
  for (let i = 0; i < l.length; i++) {
    const t = l[i]! / 255;
    const shadow = (1 - t) * (1 - t) * 40;
    const light = t * t * 32;
    base.r[i] = base.r[i]! - shadow * 0.6 + light;
    base.g[i] = base.g[i]! - shadow * 0.2 + light * 0.75;
    base.b[i] = base.b[i]! + shadow - light * 0.8;
  }
  const flow = (g: Plane, fw: number, fh: number): Flow =>
    addSwirls(edgeFlow(g, fw, fh, scaled(fw, fh, 1 / 120, 2)), scaled(fw, fh, 1 / 7, 16), seedOf('vangogh-swirls'));
  const strokesNoise = noise(w, h, scaled(w, h, 1 / 900, 1), seedOf('vangogh-strokes'));
  const [r, g, b, tex] = licScaled([base.r, base.g, base.b, strokesNoise], l, w, h, flow, scaled(w, h, 1 / 90, 4), 2);
  const rgb: Rgb = { r: r!, g: g!, b: b!, width: w, height: h };
  const texture = normalise(tex!);
  const bump = normalise(relief(texture, w, h));
  // Strokes read as alternating light and dark ridges along the field.
  for (let i = 0; i < texture.length; i++) {
    const k = 1 + 0.16 * texture[i]!;
    rgb.r[i] = rgb.r[i]! * k;
    rgb.g[i] = rgb.g[i]! * k;
    rgb.b[i] = rgb.b[i]! * k;
  }
  return shade(rgb, bump, 0.05, 5);
}

/** Light a relief onto colour: multiplicative (`gain`) plus additive highlights (`lift` levels). */
function shade(img: Rgb, bump: Plane, gain: number, lift: number): Rgb {
  for (let i = 0; i < bump.length; i++) {
    const b = Math.max(-2.5, Math.min(2.5, bump[i]!));
    const k = 1 + gain * b;
    const a = lift * b;
    img.r[i] = img.r[i]! * k + a;
    img.g[i] = img.g[i]! * k + a;
    img.b[i] = img.b[i]! * k + a;
  }
  return img;
}

/** Sample `img` at positions displaced by `amp`·(dx, dy) pixels (nearest neighbour, edges clamped). */
function displace(img: Rgb, dx: Plane, dy: Plane, amp: number): Rgb {
  const { width: w, height: h } = img;
  const out: Rgb = { r: new Float32Array(w * h), g: new Float32Array(w * h), b: new Float32Array(w * h), width: w, height: h };
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      const sx = Math.min(w - 1, Math.max(0, Math.round(x + amp * dx[i]!)));
      const sy = Math.min(h - 1, Math.max(0, Math.round(y + amp * dy[i]!)));
      const j = sy * w + sx;
      out.r[i] = img.r[j]!;
      out.g[i] = img.g[j]!;
      out.b[i] = img.b[j]!;
    }
  }
  return out;
}
