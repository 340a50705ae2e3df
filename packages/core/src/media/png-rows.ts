/**
 * The pixel half of `greyPngAsRgb` and `rgbPngAsGrey`: scanlines of one PNG
 * in, filtered scanlines of another out, one row at a time, Adam7 passes
 * included; what each pixel becomes is the row shape's (grey to RGB here,
 * RGB to grey in rgb-png-grey.ts). Holds two input rows, two output rows and
 * two rows to try filters in, whatever the image's size.
 *
 * References in brackets are to the PNG specification, third edition (W3C, 2025).
 */
import { paeth, PNG_FILTER, PngDataError, unfilterPngRow } from './png';

/** The colour types in [11.2.1]: grey, grey with alpha. */
export const GREY = 0;
export const GREY_ALPHA = 4;

/** Filtered rows gathered per write to the compressor: one write per tiny row would cost more than the row. */
const BATCH_BYTES = 64 * 1024;

/** The header of a grey image [11.2.1], as read. */
export interface Ihdr {
  width: number;
  height: number;
  depth: number;
  colourType: typeof GREY | typeof GREY_ALPHA;
  interlaced: boolean;
}

/** The output's bit depth: 1-, 2- and 4-bit samples widened to 8 bits, the rest as they were. */
export function outputDepth(ihdr: Ihdr): number {
  return Math.max(8, ihdr.depth);
}

/** The largest sample at `depth` bits. */
export function maxSample(depth: number): number {
  return 2 ** depth - 1;
}

/** 1-, 2- and 4-bit samples to 8 bits as decoders do [13.12]: × 255 / (2^depth − 1), exactly left bit replication for these depths. */
export function sampleScale(depth: number): number {
  return 255 / maxSample(depth);
}

/**
 * What the rows are: the image's size and interlacing, the bits of one input
 * pixel, the bytes of one output pixel, and how an unfiltered input row
 * becomes an output row (throwing to stop the conversion).
 */
export interface RowShape {
  width: number;
  height: number;
  interlaced: boolean;
  inBitsPerPixel: number;
  outBytesPerPixel: number;
  convert(samples: Uint8Array, out: Uint8Array): void;
}

/** Grey rows as R = G = B (then alpha), 1-, 2- and 4-bit samples widened to 8 bits. */
export function greyToRgb(ihdr: Ihdr): RowShape {
  const channels = ihdr.colourType === GREY ? 1 : 2;
  const sampleBytes = outputDepth(ihdr) / 8;
  const { depth } = ihdr;
  const convert = depth < 8
    ? (samples: Uint8Array, rgb: Uint8Array) => widenPacked(samples, rgb, depth)
    : channels === 1 && depth === 8 ? widenGrey8 : (samples: Uint8Array, rgb: Uint8Array) => widenWhole(samples, rgb, sampleBytes, channels === 2);
  return { ...ihdr, inBitsPerPixel: depth * channels, outBytesPerPixel: (channels + 2) * sampleBytes, convert };
}

/** The size of one pass of the image: all of it, or one of the seven reduced images of Adam7 [8.1]. */
interface Pass {
  width: number;
  height: number;
}

/** Adam7 passes [8.1]: first column and row, column and row steps. */
const ADAM7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
] as const;

/** The passes that have pixels: an empty pass has no rows, not even filter type bytes [8.1]. */
function passesOf(ihdr: Pick<RowShape, 'width' | 'height' | 'interlaced'>): Pass[] {
  if (!ihdr.interlaced) return [{ width: ihdr.width, height: ihdr.height }];
  const count = (size: number, first: number, step: number) => Math.max(0, Math.ceil((size - first) / step));
  return ADAM7.map(([x, y, dx, dy]) => ({ width: count(ihdr.width, x, dx), height: count(ihdr.height, y, dy) })).filter((p) => p.width > 0 && p.height > 0);
}

/**
 * Scanlines in, filtered scanlines out, one row at a time [6.2]: each input
 * row is unfiltered against the previous one [9.2], converted, then filtered
 * against the previous output row. Each pass is an image of its own: its
 * first row has no previous row (zeros) [8.1].
 */
export class RowTranscoder {
  private readonly passes: Pass[];
  /** Bytes per complete pixel, at least one: how far back the filters look [9.2]. */
  private readonly inBpp: number;
  private readonly outBpp: number;
  private readonly batches: Batches;
  private pass = -1;
  private rowsLeft = 0;
  /** The row being read, filter type byte first, and the one before it, unfiltered. */
  private row = new Uint8Array(0);
  private previous = new Uint8Array(0);
  private filled = 0;
  /** The current and previous output rows, unfiltered; two rows to try filters in. */
  private out = new Uint8Array(0);
  private previousOut = new Uint8Array(0);
  private trial = new Uint8Array(0);
  private best = new Uint8Array(0);

  constructor(private readonly shape: RowShape) {
    this.passes = passesOf(shape);
    this.inBpp = Math.max(1, shape.inBitsPerPixel / 8);
    this.outBpp = shape.outBytesPerPixel;
    this.batches = new Batches(Math.max(BATCH_BYTES, 1 + shape.width * this.outBpp));
    this.nextPass();
  }

  /** Take inflated bytes; the batches of output rows completed so far. */
  push(bytes: Uint8Array): Uint8Array<ArrayBuffer>[] {
    for (let at = 0; at < bytes.length; ) {
      if (this.pass === this.passes.length) throw new PngDataError('the image data holds more than the rows of the image');
      const n = Math.min(bytes.length - at, this.row.length - this.filled);
      this.row.set(bytes.subarray(at, at + n), this.filled);
      this.filled += n;
      at += n;
      if (this.filled === this.row.length) this.completeRow();
    }
    return this.batches.full();
  }

  /** At the end of the image data, which must hold every row: the last batches. */
  finish(): Uint8Array<ArrayBuffer>[] {
    if (this.pass < this.passes.length) throw new PngDataError('the image data ends before the last row');
    return this.batches.all();
  }

  private completeRow(): void {
    const type = this.row[0]!;
    if (type > PNG_FILTER.paeth) throw new PngDataError(`a row has filter type ${type}, which PNG does not define`);
    const samples = this.row.subarray(1);
    unfilterPngRow(type, samples, this.previous.subarray(1), this.inBpp);
    this.shape.convert(samples, this.out);
    this.filterOut();
    [this.row, this.previous] = [this.previous, this.row];
    [this.out, this.previousOut] = [this.previousOut, this.out];
    this.filled = 0;
    if (--this.rowsLeft === 0) this.nextPass();
  }

  /** Move to the next pass with rows: new row sizes, previous rows zero. */
  private nextPass(): void {
    const pass = this.passes[++this.pass];
    if (!pass) return;
    const inRowBytes = Math.ceil((pass.width * this.shape.inBitsPerPixel) / 8);
    const outRowBytes = pass.width * this.outBpp;
    this.rowsLeft = pass.height;
    this.row = new Uint8Array(1 + inRowBytes);
    this.previous = new Uint8Array(1 + inRowBytes);
    this.out = new Uint8Array(outRowBytes);
    this.previousOut = new Uint8Array(outRowBytes);
    this.trial = new Uint8Array(outRowBytes);
    this.best = new Uint8Array(outRowBytes);
  }

  /** The output row with the filter type whose bytes, read as signed, sum to the least magnitude (libpng's heuristic [12.7]). */
  private filterOut(): void {
    let bestType: number = PNG_FILTER.none;
    let bestCost = Infinity;
    for (let type: number = PNG_FILTER.none; type <= PNG_FILTER.paeth; type++) {
      const cost = filterRow(type, this.out, this.previousOut, this.outBpp, this.trial, bestCost);
      if (cost < bestCost) {
        [bestType, bestCost] = [type, cost];
        [this.trial, this.best] = [this.best, this.trial];
      }
    }
    const [batch, at] = this.batches.room(1 + this.best.length);
    batch[at] = bestType;
    batch.set(this.best, at + 1);
  }
}

/** Output rows written into buffers of a fixed size, each handed on once full. */
class Batches {
  private buffer: Uint8Array<ArrayBuffer>;
  private used = 0;
  private ready: Uint8Array<ArrayBuffer>[] = [];

  constructor(private readonly size: number) {
    this.buffer = new Uint8Array(size);
  }

  /** Room for `bytes` more: the buffer and where in it to write. */
  room(bytes: number): [Uint8Array, number] {
    if (this.used + bytes > this.size) this.handOn();
    const at = this.used;
    this.used += bytes;
    return [this.buffer, at];
  }

  /** The buffers filled since last asked. */
  full(): Uint8Array<ArrayBuffer>[] {
    const ready = this.ready;
    this.ready = [];
    return ready;
  }

  /** Every buffer, the last one as far as it is filled. */
  all(): Uint8Array<ArrayBuffer>[] {
    if (this.used > 0) this.handOn();
    return this.full();
  }

  private handOn(): void {
    this.ready.push(this.buffer.subarray(0, this.used));
    this.buffer = new Uint8Array(this.size);
    this.used = 0;
  }
}

/** 1-, 2- or 4-bit grey samples, most significant bits first [6.2], scaled to 8 bits [13.12], three times each. */
function widenPacked(samples: Uint8Array, rgb: Uint8Array, depth: number): void {
  const mask = maxSample(depth);
  const scale = sampleScale(depth);
  for (let x = 0, o = 0; o < rgb.length; x++, o += 3) {
    const bit = x * depth;
    const grey = ((samples[bit >> 3]! >> (8 - depth - (bit & 7))) & mask) * scale;
    rgb[o] = rgb[o + 1] = rgb[o + 2] = grey;
  }
}

/** The common case, 8-bit grey, without the general loop's per-byte bookkeeping. */
function widenGrey8(samples: Uint8Array, rgb: Uint8Array): void {
  for (let i = 0, o = 0; i < samples.length; i++, o += 3) rgb[o] = rgb[o + 1] = rgb[o + 2] = samples[i]!;
}

/** 8- or 16-bit samples: the grey's bytes three times, then the alpha's. */
function widenWhole(samples: Uint8Array, rgb: Uint8Array, sampleBytes: number, alpha: boolean): void {
  const inPixel = sampleBytes * (alpha ? 2 : 1);
  for (let i = 0, o = 0; i < samples.length; i += inPixel) {
    for (let copy = 0; copy < 3; copy++) for (let b = 0; b < sampleBytes; b++) rgb[o++] = samples[i + b]!;
    if (alpha) for (let b = sampleBytes; b < inPixel; b++) rgb[o++] = samples[i + b]!;
  }
}

/**
 * `row` filtered with `type` into `out` [9.2], returning the sum of the
 * filtered bytes' magnitudes read as signed; stops early, returning at least
 * `limit`, once that sum reaches `limit` (another type is already better).
 * One loop per type: this is where the time goes.
 */
function filterRow(type: number, row: Uint8Array, previous: Uint8Array, bpp: number, out: Uint8Array, limit: number): number {
  const n = row.length;
  const first = Math.min(bpp, n); // the first pixel has no left neighbour (nor upper left)
  let cost = 0;
  let i = 0;
  switch (type) {
    case PNG_FILTER.none:
      for (; i < n && cost < limit; i++) cost += magnitude((out[i] = row[i]!));
      break;
    case PNG_FILTER.sub:
      for (; i < first; i++) cost += magnitude((out[i] = row[i]!));
      for (; i < n && cost < limit; i++) cost += magnitude((out[i] = (row[i]! - row[i - bpp]!) & 0xff));
      break;
    case PNG_FILTER.up:
      for (; i < n && cost < limit; i++) cost += magnitude((out[i] = (row[i]! - previous[i]!) & 0xff));
      break;
    case PNG_FILTER.average:
      for (; i < first; i++) cost += magnitude((out[i] = (row[i]! - (previous[i]! >> 1)) & 0xff));
      for (; i < n && cost < limit; i++) cost += magnitude((out[i] = (row[i]! - ((row[i - bpp]! + previous[i]!) >> 1)) & 0xff));
      break;
    case PNG_FILTER.paeth:
      for (; i < first; i++) cost += magnitude((out[i] = (row[i]! - previous[i]!) & 0xff));
      for (; i < n && cost < limit; i++) cost += magnitude((out[i] = (row[i]! - paeth(row[i - bpp]!, previous[i]!, previous[i - bpp]!)) & 0xff));
      break;
  }
  return cost;
}

/** A filtered byte read as a signed difference, made positive. */
function magnitude(filtered: number): number {
  return filtered < 128 ? filtered : 256 - filtered;
}
