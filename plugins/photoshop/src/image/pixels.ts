/**
 * Pixel operations on 8-bit RGBA between the service's result and
 * `imaging.putPixels`: fitting a result to the source's rectangle, keeping a
 * layer's shape, mixing it with the source, and widening to the document's
 * bit depth.
 */
import type { Rgba } from './codec';

/**
 * Resample to `width`×`height`. A result comes back at another size when the
 * service caps it (background removal: 5000 px) or renders at its own tier
 * (AI Art 2k/4k); the layer must still cover the source exactly. Separable
 * triangle filter whose support widens when shrinking (so it averages instead
 * of skipping pixels), on premultiplied alpha (no dark fringes at cut-out edges).
 */
export function resample(src: Rgba, width: number, height: number): Rgba {
  if (src.width === width && src.height === height) return src;
  const data = new Uint8Array(width * height * 4);
  const rowOf = fittedRows(src, width, height);
  for (let y = 0; y < height; y++) data.set(rowOf(y), y * width * 4);
  return { width, height, data };
}

/**
 * The rows of `src` fitted to `width`×`height` (the pixels of {@link resample}), one at a time and top to
 * bottom: a caller that uses each row once (a cut-out built from two resampled images) needs no full-size
 * copy. Each source row is premultiplied and resampled across once, and kept only while the filter's
 * window of rows still covers it. A row is valid until the next call; rows of an image that already has
 * the size are views into it.
 */
export function fittedRows(src: Rgba, width: number, height: number): (y: number) => Uint8Array {
  const stride = width * 4;
  if (src.width === width && src.height === height) return (y) => src.data.subarray(y * stride, (y + 1) * stride);
  const across = filterTaps(src.width, width);
  const down = filterTaps(src.height, height);
  // The rows the vertical filter can need at once; both ends of its window only move down.
  let window = 1;
  for (let d = 0; d < height; d++) window = Math.max(window, down.count[d]!);
  const kept = Array.from({ length: window }, () => ({ row: -1, data: new Float32Array(stride) }));
  const premultiplied = new Float32Array(src.width * 4);
  const sum = new Float64Array(stride);
  const out = new Uint8Array(stride);
  const acrossRow = (row: number): Float32Array => {
    const slot = kept[row % window]!;
    if (slot.row !== row) {
      premultiplyRow(src.data, row * src.width * 4, premultiplied);
      resampleRow(premultiplied, across, slot.data);
      slot.row = row;
    }
    return slot.data;
  };
  return (y) => {
    const first = down.first[y]!;
    const last = down.count[y]! - 1;
    let w = down.offset[y]!;
    // The weighted sum of the window's rows, in the order of the taps; the first tap starts it.
    for (let k = 0; k <= last; k++, w++) {
      const line = acrossRow(first + k);
      const weight = down.weights[w]!;
      if (k === 0) for (let i = 0; i < stride; i++) sum[i] = line[i]! * weight;
      else for (let i = 0; i < stride; i++) sum[i] = sum[i]! + line[i]! * weight;
    }
    unpremultiplyRow(sum, down.scale[y]!, out);
    return out;
  };
}

/** The triangle filter of one axis: for each output pixel, its first source pixel, weights and normalisation. */
interface Taps {
  first: Int32Array;
  count: Int32Array;
  /** Where each output pixel's weights start in `weights`. */
  offset: Int32Array;
  weights: Float64Array;
  /** 1 / (sum of the pixel's weights), or 0 when they sum to 0. */
  scale: Float64Array;
}

function filterTaps(srcLen: number, dstLen: number): Taps {
  const ratio = srcLen / dstLen;
  const support = Math.max(1, ratio);
  const first = new Int32Array(dstLen);
  const count = new Int32Array(dstLen);
  const offset = new Int32Array(dstLen);
  const scale = new Float64Array(dstLen);
  const weights: number[] = [];
  for (let d = 0; d < dstLen; d++) {
    const centre = (d + 0.5) * ratio - 0.5;
    let from = Math.max(0, Math.floor(centre - support));
    let to = Math.min(srcLen - 1, Math.ceil(centre + support));
    const weight = (s: number) => Math.max(0, 1 - Math.abs(s - centre) / support);
    // Pixels at the ends of the window that get no weight add nothing to the sums: left out (half the
    // taps when enlarging, where the window spans four pixels and the triangle covers two).
    while (from < to && weight(from) === 0) from++;
    while (to > from && weight(to) === 0) to--;
    let sum = 0;
    first[d] = from;
    offset[d] = weights.length;
    for (let s = from; s <= to; s++) {
      const w = weight(s);
      weights.push(w);
      sum += w;
    }
    count[d] = to - from + 1;
    scale[d] = sum > 0 ? 1 / sum : 0;
  }
  return { first, count, offset, weights: Float64Array.from(weights), scale };
}

/** One RGBA row of 8-bit samples from `start`, premultiplied by its alpha into `out`. */
function premultiplyRow(data: Uint8Array, start: number, out: Float32Array): void {
  for (let i = 0; i < out.length; i += 4) {
    const a = data[start + i + 3]! / 255;
    out[i] = data[start + i]! * a;
    out[i + 1] = data[start + i + 1]! * a;
    out[i + 2] = data[start + i + 2]! * a;
    out[i + 3] = data[start + i + 3]!;
  }
}

/** One premultiplied row resampled across with `taps` into `out`. */
function resampleRow(src: Float32Array, taps: Taps, out: Float32Array): void {
  const { first, count, offset, weights, scale } = taps;
  for (let d = 0; d < first.length; d++) {
    let r = 0, g = 0, b = 0, a = 0;
    for (let k = 0, i = first[d]! * 4, w = offset[d]!; k < count[d]!; k++, i += 4, w++) {
      const weight = weights[w]!;
      r += src[i]! * weight;
      g += src[i + 1]! * weight;
      b += src[i + 2]! * weight;
      a += src[i + 3]! * weight;
    }
    const o = d * 4;
    const k = scale[d]!;
    out[o] = r * k;
    out[o + 1] = g * k;
    out[o + 2] = b * k;
    out[o + 3] = a * k;
  }
}

/**
 * A row of premultiplied sums, times `scale`, as straight 8-bit RGBA into `out`. Each value is rounded to a
 * 32-bit float first, as a whole-image pass stores it between the passes. Rounded by `+ 0.5` and the
 * Uint8Array's truncation, without branches (the same as `Math.round` here): every value is at least 0, and
 * premultiplied colours never exceed their alpha (same weights, monotonic rounding), so nothing exceeds 255.
 */
function unpremultiplyRow(sum: Float64Array, scale: number, out: Uint8Array): void {
  for (let i = 0; i < sum.length; i += 4) {
    const a = Math.fround(sum[i + 3]! * scale);
    const k = a > 0 ? 255 / a : 0;
    out[i] = Math.min(255, Math.fround(sum[i]! * scale) * k) + 0.5;
    out[i + 1] = Math.min(255, Math.fround(sum[i + 1]! * scale) * k) + 0.5;
    out[i + 2] = Math.min(255, Math.fround(sum[i + 2]! * scale) * k) + 0.5;
    out[i + 3] = a + 0.5;
  }
}

function clamp(v: number): number {
  return v <= 0 ? 0 : v >= 255 ? 255 : Math.round(v);
}

/**
 * Keep the source layer's shape: a colour correction of a cut-out layer
 * must not fill its transparent areas, nor thin its soft edges. The result's
 * alpha becomes the source's (both at the same size): a result that came
 * back with that alpha already (a PNG round trip) would otherwise have it
 * twice, and a half-transparent edge would show the uncorrected source
 * through a quarter-transparent one.
 */
export function applyShape(result: Rgba, sourceAlpha: Uint8Array): Rgba {
  const data = new Uint8Array(result.data);
  for (let i = 0; i < sourceAlpha.length; i++) data[i * 4 + 3] = sourceAlpha[i]!;
  return { ...result, data };
}

/** `from` moved towards `to` by `t` (0..1), alpha from `to` (both the same size). */
export function mix(from: Rgba, to: Rgba, t: number): Rgba {
  if (from.width !== to.width || from.height !== to.height) throw new Error(`the source is ${from.width}×${from.height} px and the result ${to.width}×${to.height}`);
  const data = new Uint8Array(to.data);
  for (let i = 0; i < data.length; i++) if ((i & 3) !== 3) data[i] = Math.round(from.data[i]! + (to.data[i]! - from.data[i]!) * t);
  return { ...to, data };
}

/** The alpha channel of chunky RGBA data. */
export function alphaOf(data: Uint8Array): Uint8Array {
  const out = new Uint8Array(data.length / 4);
  for (let i = 0; i < out.length; i++) out[i] = data[i * 4 + 3]!;
  return out;
}

/**
 * Widen 8-bit RGBA to the document's depth for `putPixels`: 16-bit documents
 * take Photoshop's 0–32768 range, 32-bit documents linear-light floats.
 */
export function toDepth(data: Uint8Array, bits: 8 | 16 | 32): Uint8Array | Uint16Array | Float32Array {
  if (bits === 8) return data;
  if (bits === 16) {
    const out = new Uint16Array(data.length);
    for (let i = 0; i < data.length; i++) out[i] = Math.round((data[i]! * 32768) / 255);
    return out;
  }
  const lut = new Float32Array(256);
  for (let v = 0; v < 256; v++) {
    const c = v / 255;
    lut[v] = c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }
  const out = new Float32Array(data.length);
  for (let i = 0; i < data.length; i++) out[i] = (i & 3) === 3 ? data[i]! / 255 : lut[data[i]!]!;
  return out;
}

/**
 * A background removal made non-destructive, as Photoshop's own Remove
 * Background does: the layer holds the corrected pixels where the subject is
 * and the source's own pixels where the background was (nothing is lost), and
 * the result's alpha becomes a layer mask the user can paint on. The layer
 * keeps the source's alpha (its shape).
 *
 * The corrected pixels are the source's plus what the service changed in the
 * pixels it was `sent`: the result itself when the upload was the source
 * exactly, and otherwise (an upload scaled down to the service's 5000 px, or a
 * JPEG) the source's full-size pixels with the correction carried over, so its
 * detail is not replaced by an enlarged result. `result` and `sent` are fitted
 * to the source's size row by row (as {@link resample} would), so neither is
 * ever held at full size.
 */
export function cutoutParts(result: Rgba, source: Rgba, sent: Rgba): { pixels: Rgba; mask: Uint8Array } {
  const { width, height } = source;
  const resultRow = fittedRows(result, width, height);
  const sentRow = fittedRows(sent, width, height);
  const data = new Uint8Array(width * height * 4);
  const mask = new Uint8Array(width * height);
  const own = source.data;
  for (let y = 0; y < height; y++) {
    const got = resultRow(y);
    const was = sentRow(y);
    const start = y * width;
    // The source's own pixels everywhere, then the correction where the cut-out shows anything.
    data.set(own.subarray(start * 4, (start + width) * 4), start * 4);
    for (let x = 0; x < width; x++) {
      const i = x * 4;
      const a = got[i + 3]!;
      mask[start + x] = a;
      if (a === 0) continue;
      const o = (start + x) * 4;
      data[o] = clamp(own[o]! + got[i]! - was[i]!);
      data[o + 1] = clamp(own[o + 1]! + got[i + 1]! - was[i + 1]!);
      data[o + 2] = clamp(own[o + 2]! + got[i + 2]! - was[i + 2]!);
    }
  }
  return { pixels: { width, height, data }, mask };
}

/** 8-bit chunky RGB or RGBA samples as a new straight RGBA image (RGB made opaque). */
export function toRgba(width: number, height: number, data: Uint8Array, components: 3 | 4): Rgba {
  if (components === 4) return { width, height, data: data.slice() };
  const out = new Uint8Array(width * height * 4);
  for (let i = 0, o = 0; i < data.length; i += 3, o += 4) {
    out[o] = data[i]!;
    out[o + 1] = data[i + 1]!;
    out[o + 2] = data[i + 2]!;
    out[o + 3] = 255;
  }
  return { width, height, data: out };
}

/** An 8-bit grey mask at the document's depth for `putLayerMask` (16-bit: 0–32768; 32-bit: 0–1). */
export function maskToDepth(mask: Uint8Array, bits: 8 | 16 | 32): Uint8Array | Uint16Array | Float32Array {
  if (bits === 8) return mask;
  if (bits === 16) return Uint16Array.from(mask, (v) => Math.round((v * 32768) / 255));
  return Float32Array.from(mask, (v) => v / 255);
}
