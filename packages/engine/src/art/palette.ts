/**
 * Style reference (`aiArtReferenceFileKey`): the reference image's colour
 * palette is transferred by matching means and standard deviations in CIE
 * Lab (Reinhard et al. 2001, "Color Transfer between Images").
 */
import type { Raster } from '../image/raster';

/** Mean and standard deviation of L*, a*, b*. */
export interface LabStats {
  mean: [number, number, number];
  sd: [number, number, number];
}

const LINEAR = (() => {
  const t = new Float64Array(256);
  for (let i = 0; i < 256; i++) {
    const v = i / 255;
    t[i] = v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  }
  return t;
})();

// D65 white of sRGB.
const XN = 0.95047;
const ZN = 1.08883;

function f(t: number): number {
  return t > 0.008856 ? Math.cbrt(t) : 7.787 * t + 16 / 116;
}

function fInv(t: number): number {
  return t > 0.206893 ? t * t * t : (t - 16 / 116) / 7.787;
}

/** sRGB bytes → Lab into `out`. */
function toLab(r: number, g: number, b: number, out: Float64Array): void {
  const R = LINEAR[r]!;
  const G = LINEAR[g]!;
  const B = LINEAR[b]!;
  const fx = f((0.4124 * R + 0.3576 * G + 0.1805 * B) / XN);
  const fy = f(0.2126 * R + 0.7152 * G + 0.0722 * B);
  const fz = f((0.0193 * R + 0.1192 * G + 0.9505 * B) / ZN);
  out[0] = 116 * fy - 16;
  out[1] = 500 * (fx - fy);
  out[2] = 200 * (fy - fz);
}

function encode(v: number): number {
  const c = v <= 0 ? 0 : v >= 1 ? 1 : v;
  const e = c <= 0.0031308 ? c * 12.92 : 1.055 * c ** (1 / 2.4) - 0.055;
  return Math.round(e * 255);
}

/** Lab → sRGB bytes, written at `data[o..o+2]` (out-of-gamut values clamped). */
function fromLab(L: number, a: number, bb: number, data: Uint8Array, o: number): void {
  const fy = (L + 16) / 116;
  const X = XN * fInv(fy + a / 500);
  const Y = fInv(fy);
  const Z = ZN * fInv(fy - bb / 200);
  data[o] = encode(3.2406 * X - 1.5372 * Y - 0.4986 * Z);
  data[o + 1] = encode(-0.9689 * X + 1.8758 * Y + 0.0415 * Z);
  data[o + 2] = encode(0.0557 * X - 0.204 * Y + 1.057 * Z);
}

/** Lab statistics of a raster (every `stride`-th pixel, for speed on large images). */
export function labStats(img: Raster, stride = 1): LabStats {
  const lab = new Float64Array(3);
  const s = [0, 0, 0];
  const s2 = [0, 0, 0];
  let n = 0;
  const ch = img.channels;
  for (let o = 0; o < img.data.length; o += ch * stride) {
    toLab(img.data[o]!, img.data[o + 1]!, img.data[o + 2]!, lab);
    for (let c = 0; c < 3; c++) {
      s[c]! += lab[c]!;
      s2[c]! += lab[c]! * lab[c]!;
    }
    n++;
  }
  const mean = s.map((v) => v / n) as [number, number, number];
  const sd = s2.map((v, c) => Math.sqrt(Math.max(0, v / n - mean[c]! ** 2))) as [number, number, number];
  return { mean, sd };
}

/**
 * Move a raster's colours to the reference's Lab statistics, in place.
 * Chroma (a*, b*) is matched fully; lightness only halfway, so that the
 * style's own tonal drawing (lines, highlights) survives. The scale factors
 * are limited to 0.5..3 so a near-grey image (a pencil sketch) is tinted,
 * not blown up.
 *
 * @param reference statistics of the reference image (see {@link labStats}).
 */
export function transferPalette(img: Raster, reference: LabStats): Raster {
  const source = labStats(img, Math.max(1, Math.floor((img.width * img.height) / 250_000)));
  const weight = [0.5, 1, 1];
  const scale = [0, 1, 2].map((c) => {
    const k = Math.min(3, Math.max(0.5, reference.sd[c]! / Math.max(1e-6, source.sd[c]!)));
    return 1 + (k - 1) * weight[c]!;
  });
  // Per channel: out = in·scale + offset (the mean moves by `weight` of the way to the reference's).
  const offset = [0, 1, 2].map((c) => source.mean[c]! * (1 - scale[c]!) + (reference.mean[c]! - source.mean[c]!) * weight[c]!);
  const [k0, k1, k2] = scale as [number, number, number];
  const [o0, o1, o2] = offset as [number, number, number];
  const lab = new Float64Array(3);
  const ch = img.channels;
  const { data } = img;
  for (let o = 0; o < data.length; o += ch) {
    toLab(data[o]!, data[o + 1]!, data[o + 2]!, lab);
    const L = lab[0]! * k0 + o0;
    fromLab(L < 0 ? 0 : L > 100 ? 100 : L, lab[1]! * k1 + o1, lab[2]! * k2 + o2, data, o);
  }
  return img;
}
