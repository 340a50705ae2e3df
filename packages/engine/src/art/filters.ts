/**
 * The building blocks the styles share: an edge-preserving smoother
 * (Kuwahara), ink lines (difference of Gaussians), colour quantisation
 * (libimagequant through sharp) and saturation.
 */
import sharp from 'sharp';
import { fromRgb, gaussian, luma, boxMean, type Plane, type Rgb, toRgb, clampI } from './planes';

/**
 * Generalised Kuwahara filter (Papari et al. 2007, with four square sectors):
 * each pixel takes the mean colour of the four (r+1)² quadrants around it,
 * weighted by the inverse 4th power of each quadrant's luma variance. Flat
 * areas become smooth patches while edges stay sharp — the look of paint.
 * O(N) for any radius: one set of box means serves every quadrant.
 *
 * @param r quadrant size in pixels (rounded up to even).
 */
export function kuwahara(img: Rgb, r: number): Rgb {
  const { width: w, height: h } = img;
  const half = Math.max(1, Math.ceil(r / 2));
  const l = luma(img);
  const l2 = new Float32Array(l.length);
  for (let i = 0; i < l.length; i++) l2[i] = l[i]! * l[i]!;
  const [mr, mg, mb, ml, ml2] = [img.r, img.g, img.b, l, l2].map((p) => boxMean(p, w, h, half)) as [Plane, Plane, Plane, Plane, Plane];
  const out = { r: new Float32Array(w * h), g: new Float32Array(w * h), b: new Float32Array(w * h), width: w, height: h };
  for (let y = 0; y < h; y++) {
    const ys = [clampI(y - half, 0, h - 1) * w, clampI(y + half, 0, h - 1) * w];
    for (let x = 0; x < w; x++) {
      const xs = [clampI(x - half, 0, w - 1), clampI(x + half, 0, w - 1)];
      let sw = 0;
      let sr = 0;
      let sg = 0;
      let sb = 0;
      for (let q = 0; q < 4; q++) {
        const j = ys[q >> 1]! + xs[q & 1]!;
        const m = ml[j]!;
        // +4: a floor so that perfectly flat quadrants do not take all the weight (no blocks).
        const v = Math.max(0, ml2[j]! - m * m) + 4;
        const wt = 1 / (v * v * v * v);
        sw += wt;
        sr += wt * mr[j]!;
        sg += wt * mg[j]!;
        sb += wt * mb[j]!;
      }
      const i = y * w + x;
      out.r[i] = sr / sw;
      out.g[i] = sg / sw;
      out.b[i] = sb / sw;
    }
  }
  return out;
}

/**
 * Ink lines by a thresholded difference of Gaussians of luma (the core of
 * XDoG, Winnemöller 2012): 1 where a dark line is, 0 elsewhere.
 *
 * @param sigma inner blur in pixels; the outer is 1.6× (approximates a Laplacian of Gaussian).
 * @param threshold how much darker than its surround (luma levels) a pixel must be.
 */
export function inkLines(l: Plane, w: number, h: number, sigma: number, threshold: number): Uint8Array {
  const a = gaussian(l, w, h, sigma);
  const b = gaussian(l, w, h, sigma * 1.6);
  const out = new Uint8Array(w * h);
  for (let i = 0; i < out.length; i++) out[i] = b[i]! - a[i]! > threshold ? 1 : 0;
  return out;
}

/** Grow a binary mask by `r` pixels (square structuring element; r = 0 returns a copy). */
export function dilate(mask: Uint8Array, w: number, h: number, r: number): Uint8Array {
  if (r <= 0) return mask.slice();
  const f = new Float32Array(mask.length);
  for (let i = 0; i < mask.length; i++) f[i] = mask[i]!;
  const m = boxMean(f, w, h, r);
  const out = new Uint8Array(mask.length);
  for (let i = 0; i < out.length; i++) out[i] = m[i]! > 1e-6 ? 1 : 0;
  return out;
}

/**
 * Reduce to at most `colours` colours without dithering (libimagequant via
 * sharp's palette PNG): large flat areas of a few colours, as in cel
 * animation and screen printing.
 */
export async function quantise(img: Rgb, colours: number): Promise<Rgb> {
  const flat = fromRgb(img);
  const png = await sharp(flat.data, { raw: { width: flat.width, height: flat.height, channels: 3 } })
    .png({ palette: true, colours, dither: 0, effort: 1 })
    .toBuffer();
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return toRgb({ data, width: info.width, height: info.height, channels: 3 });
}

/** Scale chroma (distance from luma) by `factor` in place; 1 = unchanged. */
export function saturate(img: Rgb, factor: number): Rgb {
  const l = luma(img);
  for (let i = 0; i < l.length; i++) {
    const y = l[i]!;
    img.r[i] = y + (img.r[i]! - y) * factor;
    img.g[i] = y + (img.g[i]! - y) * factor;
    img.b[i] = y + (img.b[i]! - y) * factor;
  }
  return img;
}

/** Paint pixels where `mask` is 1 with a colour, in place. */
export function paint(img: Rgb, mask: Uint8Array, colour: readonly [number, number, number]): Rgb {
  for (let i = 0; i < mask.length; i++) {
    if (mask[i] === 0) continue;
    img.r[i] = colour[0];
    img.g[i] = colour[1];
    img.b[i] = colour[2];
  }
  return img;
}
