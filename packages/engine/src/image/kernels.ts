/**
 * The look's two full-size per-pixel passes in WebAssembly (`kernels.wat`):
 * the curves + vibrance pass of `colour/apply.ts` and the sharpening's
 * detail pass of `image/sharpen.ts`. The same arithmetic as the JavaScript
 * loops they replaced (the same float64 operations in the same order, the
 * same rounding as Math.round), so the pixels are identical; about twice as
 * fast as that JavaScript (CPU, 12 MP photos), since V8 could not drop the
 * loop's bounds checks and number conversions. Vibrance works on two
 * channels at a time (f64x2); the look-up tables are gathers, which
 * WebAssembly SIMD does not have, so they stay scalar.
 *
 * The module's memory is small and fixed; images pass through it in strips
 * of {@link STRIP} pixels (a copy in and a copy out per strip, cache-sized,
 * so they cost little next to the arithmetic). The calls are synchronous,
 * so one instance serves the whole thread.
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
const BLURRED = 204800;

interface KernelExports {
  memory: WebAssembly.Memory;
  curves(n: number, channels: number, vibrance: number): void;
  detail(n: number, channels: number): void;
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
  if (factors) new Float64Array(k.memory.buffer, FACTORS, 512).set(factors);
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

/**
 * Adds `table[((luma − blurred) >> 3) + 8192]` to R, G and B of every pixel,
 * clamped to 0..255, in place. `table` has 16384 entries.
 */
export function detailPass(img: Pixels, luma: Uint16Array, blurred: Uint16Array, table: Int16Array): void {
  const k = instance();
  const mem = new Uint8Array(k.memory.buffer);
  new Int16Array(k.memory.buffer, DETAIL_TABLE, 16384).set(table);
  const lumaIn = new Uint16Array(k.memory.buffer, LUMA, STRIP);
  const blurredIn = new Uint16Array(k.memory.buffer, BLURRED, STRIP);
  const { data, channels: ch } = img;
  for (let start = 0; start < luma.length; start += STRIP) {
    const n = Math.min(STRIP, luma.length - start);
    const strip = data.subarray(start * ch, (start + n) * ch);
    mem.set(strip, OUTPUT);
    lumaIn.set(luma.subarray(start, start + n));
    blurredIn.set(blurred.subarray(start, start + n));
    k.detail(n, ch);
    strip.set(mem.subarray(OUTPUT, OUTPUT + n * ch));
  }
}
