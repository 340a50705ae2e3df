/**
 * The look's two full-size per-pixel passes in WebAssembly (`kernels.wat`):
 * the curves + vibrance pass of `colour/apply.ts` and the sharpening's
 * blur + detail pass of `image/sharpen.ts`; and planning's costliest loop,
 * grey-edge's sums on the analysis copy (`greyEdgeSums12`). The same arithmetic as the JavaScript
 * loops they replaced (the same float64 operations in the same order, the
 * same rounding as Math.round), so the pixels are identical; about twice as
 * fast as that JavaScript (CPU, 12 MP photos), since V8 could not drop the
 * loop's bounds checks and number conversions. Vibrance works on two
 * channels at a time (f64x2); the look-up tables are gathers, which
 * WebAssembly SIMD does not have, so they stay scalar.
 *
 * The module's memory is small: the curves pass takes images through it in
 * strips of {@link STRIP} pixels, the blur row by row (a copy in and a copy
 * out each, cache-sized, so they cost little next to the arithmetic); it
 * grows only to hold the blur's rows of a wide image. The calls are
 * synchronous, so one instance serves the whole thread.
 */
import { KERNELS_WASM_BASE64 } from './kernels-wasm';

/** Pixels per strip (the .wat's buffers hold this many, RGBA). */
const STRIP = 16384;
/** Byte offsets of the .wat's memory layout (see its header). */
const LUTS = 0;
const FACTORS = 1024;
const INPUT = 8192;
const OUTPUT = 73728;
const LUMA = 139264;
const DETAIL_TABLE = 172032;
const TAPS = 237568;
const SOURCE_ROWS = 237632;
/** The curves pass's cache of results by colour (65536 slots of 8 bytes; see kernels.wat). */
const CACHE = 262144;
const CACHE_BYTES = 524288;
/** Start of the blur's rows; the memory grows past it to fit the image's width. */
const ROWS = 786432;
/** Most taps of a Gaussian the .wat holds. */
const MAX_TAPS = 16;

interface KernelExports {
  memory: WebAssembly.Memory;
  curves(n: number, channels: number, vibrance: number): void;
  detailRow(luma: number, blurred: number, px: number, n: number, channels: number): void;
  hblur(src: number, dst: number, n: number, taps: number, scale: number): void;
  vblur(dst: number, n: number, taps: number, scale: number): void;
  edgePlane(px: number, ch: number, c: number, lut: number, dst: number, n: number): void;
  smooth(src: number, tmp: number, dst: number, w: number, h: number): void;
  edgeSum(a: number, px: number, ch: number, clip: number, w: number, h: number): number;
  histogram(px: number, ch: number, n: number, kind: number, dst: number): void;
}

let kernels: KernelExports | undefined;

function instance(): KernelExports {
  kernels ??= new WebAssembly.Instance(new WebAssembly.Module(Buffer.from(KERNELS_WASM_BASE64, 'base64'))).exports as unknown as KernelExports;
  return kernels;
}

/** Pixels to process, channels 3 or 4, interleaved. */
interface Pixels {
  data: Uint8Array;
  channels: 3 | 4;
}

/**
 * Three 8-bit look-up tables, then (with `factors`, 2 × 256 chroma factors
 * by max − min, plain then skin-like) vibrance, into a new buffer; with
 * `luma`, each output pixel's 16-bit luma (77 R + 150 G + 29 B) is written
 * there. Alpha is copied. Returns `out` (a new buffer unless one is given).
 */
export function curvesPass(
  img: Pixels,
  luts: readonly [Uint8Array, Uint8Array, Uint8Array],
  factors: Float64Array | undefined,
  luma?: Uint16Array,
  out: Uint8Array = new Uint8Array(img.data.length),
): Uint8Array {
  const k = instance();
  const mem = new Uint8Array(k.memory.buffer);
  luts.forEach((lut, c) => mem.set(lut, LUTS + 256 * c));
  if (factors) {
    new Float64Array(k.memory.buffer, FACTORS, 512).set(factors);
    // The cached results belong to the previous call's tables and factors.
    mem.fill(0, CACHE, CACHE + CACHE_BYTES);
  }
  const { data, channels: ch } = img;
  const lumaOut = new Uint16Array(k.memory.buffer, LUMA, STRIP);
  const pixels = data.length / ch;
  for (let start = 0; start < pixels; start += STRIP) {
    const n = Math.min(STRIP, pixels - start);
    mem.set(data.subarray(start * ch, (start + n) * ch), INPUT);
    k.curves(n, ch, factors ? 1 : 0);
    out.set(mem.subarray(OUTPUT, OUTPUT + n * ch), start * ch);
    if (luma) luma.set(lumaOut.subarray(0, n), start);
  }
  return out;
}

/** Rows `from` (inclusive) to `to` (exclusive) of an image. */
export interface RowRange {
  from: number;
  to: number;
}

/** A separable integer Gaussian as libvips makes it: taps (odd count) summing to `scale`. */
export interface IntegerMask {
  taps: Int32Array;
  scale: number;
}

/**
 * The unsharp mask's blur and detail in one pass over the rows, in place:
 * `luma` blurred with `mask` (see {@link blurRows}), then
 * `table[((luma − blurred) >> 3) + 8192]` (16384 entries) added to R, G and
 * B of every pixel, clamped to 0..255; alpha is kept. The blurred plane is
 * never made whole, so the work stays in cache and needs no full-size
 * buffer.
 */
export function blurDetailPass(
  img: Pixels & { width: number; height: number },
  luma: Uint16Array,
  mask: IntegerMask,
  table: Int16Array,
  rows: RowRange = { from: 0, to: img.height },
): void {
  const { width: w, data, channels: ch } = img;
  new Int16Array(instance().memory.buffer, DETAIL_TABLE, 16384).set(table);
  blurRows(luma, w, img.height, mask, ch * w, rows, (k, y, blurredAt, lumaAt, pixAt) => {
    const mem = new Uint8Array(k.memory.buffer);
    new Uint16Array(k.memory.buffer, lumaAt, w).set(luma.subarray(y * w, y * w + w));
    const pixels = data.subarray(y * w * ch, (y + 1) * w * ch);
    mem.set(pixels, pixAt);
    k.detailRow(lumaAt, blurredAt, pixAt, w, ch);
    pixels.set(mem.subarray(pixAt, pixAt + w * ch));
  });
}

/** `luma` (width × height, u16) blurred with `mask` as {@link blurRows} does it, as a new plane. */
export function blurPlane(luma: Uint16Array, width: number, height: number, mask: IntegerMask): Uint16Array {
  const out = new Uint16Array(width * height);
  blurRows(luma, width, height, mask, 0, { from: 0, to: height }, (k, y, blurredAt) => out.set(new Uint16Array(k.memory.buffer, blurredAt, width), y * width));
  return out;
}

/**
 * A u16 plane blurred with a separable integer mask exactly as libvips'
 * integer convolution does it (`gaussblur` with precision integer, the C
 * path of convi.c for 16-bit images): a horizontal then a vertical pass,
 * each out = (Σ tap × value + scale / 2) / scale in integers, the image's
 * edges repeated. Row by row: the horizontal pass keeps as many rows as
 * the mask is tall; for each output row, `row` gets the byte addresses of
 * its blurred values and of room for one row of luma and `extra` bytes.
 * Only the output rows in `rows` are made; each reads the luma rows within
 * the mask's reach, edges repeated as for the whole image, so bands of rows
 * made apart (on several threads) are the whole image's rows to the bit.
 */
function blurRows(
  luma: Uint16Array,
  w: number,
  h: number,
  mask: IntegerMask,
  extra: number,
  rows: RowRange,
  row: (k: KernelExports, y: number, blurredAt: number, lumaAt: number, extraAt: number) => void,
): void {
  const n = mask.taps.length;
  const r = (n - 1) / 2;
  // The .wat divides in float32: exact while every sum stays below 2^24 and the scale below 256.
  if (n > MAX_TAPS || n % 2 !== 1 || !(mask.scale > 0 && mask.scale < 256)) throw new Error(`blur: unsupported mask (${n} taps, scale ${mask.scale})`);
  // Row stride in u16, a multiple of 8 so the eight-wide passes' overrun stays inside the row.
  const stride = (w + 8) & ~7;
  const padAt = ROWS;
  const ringAt = padAt + 2 * (stride + 2 * r + 8);
  const blurredAt = ringAt + 2 * stride * n;
  const lumaAt = blurredAt + 2 * stride;
  const extraAt = lumaAt + 2 * stride;
  const k = instance();
  const need = extraAt + extra + 64;
  if (need > k.memory.buffer.byteLength) k.memory.grow(Math.ceil((need - k.memory.buffer.byteLength) / 65536));
  const buffer = k.memory.buffer;
  new Int32Array(buffer, TAPS, n).set(mask.taps);
  const pad = new Uint16Array(buffer, padAt, stride + 2 * r + 8);
  const sources = new Int32Array(buffer, SOURCE_ROWS, n);
  const slot = (j: number) => ringAt + 2 * stride * (j % n);
  let next = Math.max(0, rows.from - r);
  for (let y = rows.from; y < rows.to; y++) {
    // The horizontal pass on every row the vertical one needs, each once: the ring holds the last n.
    for (const last = Math.min(h - 1, y + r); next <= last; next++) {
      const src = luma.subarray(next * w, next * w + w);
      pad.set(src, r);
      pad.fill(src[0]!, 0, r);
      pad.fill(src[w - 1]!, r + w, 2 * r + w);
      k.hblur(padAt, slot(next), w, n, mask.scale);
    }
    for (let t = 0; t < n; t++) sources[t] = slot(Math.min(h - 1, Math.max(0, y - r + t)));
    k.vblur(blurredAt, w, n, mask.scale);
    row(k, y, blurredAt, lumaAt, extraAt);
  }
}

/**
 * Grey-edge's Minkowski sums at p = 12 for R, G and B of a small image (the
 * analysis copy), as `greyEdgeIlluminant` of colour/estimate.ts once
 * computed them in JavaScript (test/grey-edge-fast.test.ts keeps that loop): each channel to linear light through `linearOfByte`, [1 2 1]/4
 * smoothed twice (edges repeated), then Σ (dx² + dy²)⁶ of central
 * differences over inner pixels with no channel at or above `clipAt`. The
 * same float64 operations in the same order, so the same sums to the bit;
 * in WebAssembly because V8 needed several photos to optimise those loops
 * and then still ran them at about half this speed.
 */
export function greyEdgeSums12(img: Pixels & { width: number; height: number }, linearOfByte: Float64Array, clipAt: number): [number, number, number] {
  const { data, width: w, height: h, channels: ch } = img;
  const n = w * h;
  // In the blur's scratch room (calls are synchronous, so the two never overlap).
  const lutAt = ROWS;
  const pxAt = lutAt + 2048;
  const planeAt = pxAt + ((n * ch + 7) & ~7);
  const tmpAt = planeAt + 8 * n;
  const outAt = tmpAt + 8 * n;
  const k = instance();
  const need = outAt + 8 * n;
  if (need > k.memory.buffer.byteLength) k.memory.grow(Math.ceil((need - k.memory.buffer.byteLength) / 65536));
  new Float64Array(k.memory.buffer, lutAt, 256).set(linearOfByte);
  new Uint8Array(k.memory.buffer, pxAt, n * ch).set(data.subarray(0, n * ch));
  const sum = (c: number) => {
    k.edgePlane(pxAt, ch, c, lutAt, planeAt, n);
    k.smooth(planeAt, tmpAt, outAt, w, h);
    k.smooth(outAt, tmpAt, planeAt, w, h);
    return k.edgeSum(planeAt, pxAt, ch, clipAt, w, h);
  };
  return [sum(0), sum(1), sum(2)];
}

/** What {@link pixelHistogram} counts per pixel. */
export type HistogramKind = 'max' | 'min' | 'luma';

/**
 * A 256-bin histogram of each pixel's max(R, G, B), min(R, G, B) or luma
 * (`luma8` of colour/apply.ts, rounded as Math.round, at most 255): the
 * counts `maxHistogram`, `minHistogram` and `lumaHistogram` of
 * colour/histograms.ts give, for analysis copies (their loops in JavaScript
 * cost planning more than any other step once grey-edge moved here).
 */
export function pixelHistogram(img: Pixels, kind: HistogramKind): Uint32Array {
  const { data, channels: ch } = img;
  const n = Math.floor(data.length / ch);
  const histAt = ROWS;
  const pxAt = ROWS + 1024;
  const k = instance();
  const need = pxAt + n * ch + 64;
  if (need > k.memory.buffer.byteLength) k.memory.grow(Math.ceil((need - k.memory.buffer.byteLength) / 65536));
  new Uint8Array(k.memory.buffer, pxAt, n * ch).set(data.subarray(0, n * ch));
  k.histogram(pxAt, ch, n, kind === 'max' ? 0 : kind === 'min' ? 1 : 2, histAt);
  return new Uint32Array(k.memory.buffer.slice(histAt, histAt + 1024));
}
