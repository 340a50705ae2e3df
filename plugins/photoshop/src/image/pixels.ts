/**
 * Pixel operations on 8-bit RGBA between the service's result and
 * `imaging.putPixels`: fitting a result to the source's rectangle, keeping a
 * layer's shape, and widening to the document's bit depth.
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
  const pre = premultiply(src.data);
  const horizontal = resampleAxis(pre, src.width, src.height, width, true);
  const both = resampleAxis(horizontal, width, src.height, height, false);
  return { width, height, data: unpremultiply(both) };
}

function premultiply(data: Uint8Array): Float32Array {
  const out = new Float32Array(data.length);
  for (let i = 0; i < data.length; i += 4) {
    const a = data[i + 3]! / 255;
    out[i] = data[i]! * a;
    out[i + 1] = data[i + 1]! * a;
    out[i + 2] = data[i + 2]! * a;
    out[i + 3] = data[i + 3]!;
  }
  return out;
}

function unpremultiply(data: Float32Array): Uint8Array {
  const out = new Uint8Array(data.length);
  for (let i = 0; i < data.length; i += 4) {
    const a = data[i + 3]!;
    const k = a > 0 ? 255 / a : 0;
    out[i] = clamp(data[i]! * k);
    out[i + 1] = clamp(data[i + 1]! * k);
    out[i + 2] = clamp(data[i + 2]! * k);
    out[i + 3] = clamp(a);
  }
  return out;
}

function clamp(v: number): number {
  return v <= 0 ? 0 : v >= 255 ? 255 : Math.round(v);
}

/** Resample along one axis: `horizontal` maps width `srcW` to `dstLen`, else height `srcH` to `dstLen`. */
function resampleAxis(src: Float32Array, srcW: number, srcH: number, dstLen: number, horizontal: boolean): Float32Array {
  const srcLen = horizontal ? srcW : srcH;
  const outW = horizontal ? dstLen : srcW;
  const outH = horizontal ? srcH : dstLen;
  const out = new Float32Array(outW * outH * 4);
  const ratio = srcLen / dstLen;
  const support = Math.max(1, ratio);
  for (let d = 0; d < dstLen; d++) {
    const centre = (d + 0.5) * ratio - 0.5;
    const first = Math.max(0, Math.floor(centre - support));
    const last = Math.min(srcLen - 1, Math.ceil(centre + support));
    const weights: number[] = [];
    let total = 0;
    for (let s = first; s <= last; s++) {
      const w = Math.max(0, 1 - Math.abs(s - centre) / support);
      weights.push(w);
      total += w;
    }
    const lines = horizontal ? srcH : srcW;
    for (let line = 0; line < lines; line++) {
      let r = 0, g = 0, b = 0, a = 0;
      for (let k = 0; k < weights.length; k++) {
        const s = first + k;
        const i = (horizontal ? line * srcW + s : s * srcW + line) * 4;
        const w = weights[k]!;
        r += src[i]! * w;
        g += src[i + 1]! * w;
        b += src[i + 2]! * w;
        a += src[i + 3]! * w;
      }
      const o = (horizontal ? line * outW + d : d * outW + line) * 4;
      const k = total > 0 ? 1 / total : 0;
      out[o] = r * k;
      out[o + 1] = g * k;
      out[o + 2] = b * k;
      out[o + 3] = a * k;
    }
  }
  return out;
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
 * detail is not replaced by an enlarged result. All images are the same size
 * (`result` and `sent` fitted to the source).
 */
export function cutoutParts(result: Rgba, source: Rgba, sent: Rgba): { pixels: Rgba; mask: Uint8Array } {
  const n = result.width * result.height;
  const data = new Uint8Array(n * 4);
  const mask = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const o = i * 4;
    const a = result.data[o + 3]!;
    for (let c = 0; c < 3; c++) {
      const own = source.data[o + c]!;
      data[o + c] = a > 0 ? clamp(own + result.data[o + c]! - sent.data[o + c]!) : own;
    }
    data[o + 3] = source.data[o + 3]!;
    mask[i] = a;
  }
  return { pixels: { width: result.width, height: result.height, data }, mask };
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
