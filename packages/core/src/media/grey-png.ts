/**
 * A greyscale PNG as an RGB(A) one, losslessly: the PNG sibling of
 * greyJpegAsYcc. The Web API reads PNG in RGB or RGBA only, and hosts
 * without an image library (browser iframe, UXP) cannot convert otherwise.
 * Every grey sample becomes three equal R, G, B samples (alpha kept), so
 * every decoder shows the same pixels; the chunks that describe samples
 * (tRNS, sBIT, bKGD) are rewritten to match, the others copied verbatim.
 *
 * Hand-written rather than a PNG library (fast-png, pngjs): those decode the
 * whole image into memory and drop most ancillary chunks. This is a
 * chunk-level transcode that keeps metadata verbatim and holds only two rows
 * of pixels (the current one and the previous one the filters predict from)
 * on the input side and two on the output side (plus two to try filters in),
 * so memory does not grow with the image. Inflate and deflate are the web
 * platform's DecompressionStream and CompressionStream, whose 'deflate' is
 * the zlib format IDAT holds [10.1]; when a runtime lacks them the function
 * does not apply. Chunks, CRCs and row filters are `./png`'s.
 *
 * References in brackets are to the PNG specification, third edition (W3C, 2025).
 */

import { PfcError } from '../errors';
import { CRC_START, crc32, crcValue, paeth, PNG_FILTER, PNG_SIGNATURE, pngChunk, unfilterPngRow } from './png';

/**
 * The same image as an RGB (colour type 2) or RGBA (type 6) PNG whose decoded
 * pixels are exactly R = G = B = the decoded grey samples, alpha and
 * transparency kept; 1-, 2- and 4-bit samples become 8-bit ones as decoders
 * scale them [13.12], 8- and 16-bit ones keep their depth, interlaced images
 * stay interlaced. Metadata chunks (text, EXIF, gamma, physical size…) are
 * kept in place; unknown ones only when marked safe to copy [14.2].
 *
 * Reads the input up to the first IDAT chunk and decides there. Undefined —
 * never a throw, never a different image — for anything else, the input then
 * cancelled: not a PNG, not grey (colour type 0 or 4), an embedded ICC
 * profile (a grey profile cannot describe RGB pixels, so the tones would
 * change without a colour conversion), an animation (APNG), a palette or an
 * unknown critical chunk, anything malformed or truncated before the image
 * data, an input that fails to read, a runtime without CompressionStream.
 * Data errors found later (a bad CRC, a truncated file, corrupt image data)
 * make the returned stream error (a PfcError named PngDataError) with a
 * message saying what is wrong.
 *
 * @example
 * const rgb = sniffMedia(head)?.grey ? await greyPngAsRgb(file.stream()) : undefined;
 * const upload = rgb ?? (await reencode(file));
 */
export async function greyPngAsRgb(png: ReadableStream<Uint8Array>): Promise<ReadableStream<Uint8Array> | undefined> {
  if (typeof CompressionStream !== 'function' || typeof DecompressionStream !== 'function') {
    await png.cancel().catch(ignore);
    return undefined;
  }
  let input: ByteReader;
  try {
    input = new ByteReader(png.getReader());
  } catch {
    return undefined; // already locked by another reader: not ours to cancel
  }
  const header = await readHeader(input).catch(() => undefined);
  if (!header) {
    await input.cancel();
    return undefined;
  }
  return rgbPng(input, header);
}

/** Corrupt data found once the output has begun: the error of the returned stream. */
class PngDataError extends PfcError {
  override name = 'PngDataError';
  constructor(problem: string, options?: { cause?: unknown }) {
    super(`corrupt PNG: ${problem}`, options);
  }
}

const GREY = 0;
const GREY_ALPHA = 4;
const RGB = 2;
const RGBA = 6;
/** Bit depths allowed per colour type [11.2.1]. */
const DEPTHS = new Map([
  [GREY, [1, 2, 4, 8, 16]],
  [GREY_ALPHA, [8, 16]],
]);
const IHDR_LENGTH = 13;
/** A chunk's data is at most 2^31 − 1 bytes [5.3]. */
const MAX_CHUNK_LENGTH = 0x7fffffff;
/** How much of an IDAT's data to hand the inflater at a time: what one piece inflates to is held at once (deflate expands at most ~1000×). */
const PIECE_BYTES = 8 * 1024;
/** Compressed bytes gathered per output IDAT: large enough that chunk overhead is negligible. */
const IDAT_BYTES = 64 * 1024;
/** Filtered rows gathered per write to the compressor: one write per tiny row would cost more than the row. */
const BATCH_BYTES = 64 * 1024;

/** Chunks that do not depend on the colour type, copied verbatim wherever they are. */
const COPIED = new Set([
  'gAMA', 'cHRM', 'sRGB', 'cICP', 'mDCV', 'cLLI', 'pHYs', 'sPLT', 'tEXt', 'zTXt', 'iTXt', 'tIME', 'eXIf',
  'oFFs', 'pCAL', 'sCAL', 'sTER', 'gIFg', 'gIFx', 'gIFt',
]);
/**
 * Chunks the output cannot carry: an ICC profile describes grey samples
 * [11.3.2.3]; an animation's frames [11.3.6] would still hold grey data.
 * Before the image they refuse the conversion; after it they are out of
 * place [5.6], ignored by decoders, and dropped.
 */
const REFUSED = new Set(['iCCP', 'acTL', 'fcTL', 'fdAT']);

interface Ihdr {
  width: number;
  height: number;
  depth: number;
  colourType: typeof GREY | typeof GREY_ALPHA;
  interlaced: boolean;
}

/** Everything before the image data, read and checked. */
interface Header {
  ihdr: Ihdr;
  /** Signature, IHDR and the chunks before the image data, as the output has them. */
  head: Uint8Array<ArrayBuffer>[];
  /** Data length of the first IDAT chunk, whose data is next in the input. */
  firstIdatLength: number;
}

/** Walk the chunks up to the first IDAT [5.6], collecting what the output needs; undefined for what it cannot handle. Throws on malformed data. */
async function readHeader(input: ByteReader): Promise<Header | undefined> {
  const signature = await input.exactly(PNG_SIGNATURE.length);
  if (!signature || PNG_SIGNATURE.some((v, i) => signature[i] !== v)) return undefined;
  const first = await readChunkStart(input);
  if (first.type !== 'IHDR' || first.length !== IHDR_LENGTH) return undefined;
  const ihdr = readIhdr((await readChunk(input, first)).data);
  if (!ihdr) return undefined;
  const head = [Uint8Array.from(PNG_SIGNATURE), pngChunk('IHDR', rgbIhdr(ihdr))];
  for (;;) {
    const start = await readChunkStart(input);
    if (start.type === 'IDAT') return { ihdr, head, firstIdatLength: start.length };
    const outcome = chunkOutcome(await readChunk(input, start), ihdr, true);
    if (outcome === 'refuse') return undefined;
    if (outcome !== 'drop') head.push(outcome);
  }
}

/** A grey image the output can describe [11.2.1]: width, height, a bit depth allowed for its colour type, the only compression and filter methods, no or Adam7 interlacing. */
function readIhdr(d: Uint8Array): Ihdr | undefined {
  const [depth, colourType, compression, filter, interlace] = d.subarray(8);
  const ihdr = { width: u32be(d, 0), height: u32be(d, 4), depth: depth!, colourType: colourType as Ihdr['colourType'], interlaced: interlace === 1 };
  const size = [ihdr.width, ihdr.height].every((n) => n > 0 && n <= MAX_CHUNK_LENGTH);
  const methods = compression === 0 && filter === 0 && (interlace === 0 || interlace === 1);
  return size && methods && DEPTHS.get(ihdr.colourType)?.includes(ihdr.depth) ? ihdr : undefined;
}

/** Colour type 2 or 6; 1-, 2- and 4-bit samples widened to 8 bits, the rest as they were. */
function rgbIhdr(ihdr: Ihdr): Uint8Array {
  const d = new Uint8Array(IHDR_LENGTH);
  const view = new DataView(d.buffer);
  view.setUint32(0, ihdr.width);
  view.setUint32(4, ihdr.height);
  d.set([outputDepth(ihdr), ihdr.colourType === GREY ? RGB : RGBA, 0, 0, ihdr.interlaced ? 1 : 0], 8);
  return d;
}

function outputDepth(ihdr: Ihdr): number {
  return Math.max(8, ihdr.depth);
}

type Outcome = Uint8Array<ArrayBuffer> | 'drop' | 'refuse';

/**
 * What the output has for a chunk other than IHDR, IDAT and IEND. The chunks
 * that describe samples are rewritten, the others copied when they do not
 * depend on the colour type or, unknown, are marked safe to copy: the
 * conversion changes IHDR, a critical chunk, so editors drop unknown unsafe
 * ones [14.2]. A critical chunk refuses: PLTE (grey images have none
 * [11.2.2]), a second IHDR, IEND before the image, or one unknown [5.4].
 */
function chunkOutcome({ type, data }: Chunk, ihdr: Ihdr, beforeImage: boolean): Outcome {
  if (isCritical(type)) return 'refuse';
  if (REFUSED.has(type)) return beforeImage ? 'refuse' : 'drop';
  const convert = CONVERTED.get(type);
  if (convert) return beforeImage ? convertedChunk(type, convert(data, ihdr)) : 'drop';
  return COPIED.has(type) || isSafeToCopy(type) ? pngChunk(type, data) : 'drop';
}

function convertedChunk(type: string, data: Uint8Array | undefined): Outcome {
  return data ? pngChunk(type, data) : 'refuse';
}

/**
 * The chunks whose contents depend on the colour type and bit depth, as the
 * output needs them; undefined when malformed (decoders would ignore them,
 * the output would change what they mean). They must precede the image data;
 * after it they are out of place and dropped.
 */
const CONVERTED = new Map<string, (data: Uint8Array, ihdr: Ihdr) => Uint8Array | undefined>([
  ['tRNS', rgbTransparency],
  ['sBIT', rgbSignificantBits],
  ['bKGD', rgbBackground],
]);

/** The single transparent grey [11.3.1.1] as the RGB colour whose samples are all that grey, scaled as the samples are. */
function rgbTransparency(data: Uint8Array, ihdr: Ihdr): Uint8Array | undefined {
  return ihdr.colourType === GREY ? rgbOfGreyValue(data, ihdr) : undefined; // colour types with alpha have no tRNS
}

/** A background grey [11.3.4.1] (both grey colour types) as the RGB colour of that grey. */
function rgbBackground(data: Uint8Array, ihdr: Ihdr): Uint8Array | undefined {
  return rgbOfGreyValue(data, ihdr);
}

/** Two bytes of grey, at most the largest sample, as three two-byte samples at the output depth. */
function rgbOfGreyValue(data: Uint8Array, ihdr: Ihdr): Uint8Array | undefined {
  const grey = u16be(data, 0);
  if (data.length !== 2 || grey > maxSample(ihdr.depth)) return undefined;
  const scaled = ihdr.depth < 8 ? grey * sampleScale(ihdr.depth) : grey;
  const rgb = new Uint8Array(6);
  for (let i = 0; i < 6; i += 2) rgb.set([scaled >> 8, scaled & 0xff], i);
  return rgb;
}

/**
 * Significant bits [11.3.2.4]: the grey's for each of R, G, B, then alpha's.
 * Unchanged by widening to 8 bits: bit replication puts the original sample
 * in the top bits.
 */
function rgbSignificantBits(data: Uint8Array, ihdr: Ihdr): Uint8Array | undefined {
  const [grey, alpha] = data;
  const channels = ihdr.colourType === GREY ? 1 : 2;
  const valid = data.length === channels && data.every((bits) => bits > 0 && bits <= ihdr.depth);
  if (!valid) return undefined;
  return Uint8Array.from(ihdr.colourType === GREY ? [grey!, grey!, grey!] : [grey!, grey!, grey!, alpha!]);
}

function maxSample(depth: number): number {
  return 2 ** depth - 1;
}

/** 1-, 2- and 4-bit samples to 8 bits as decoders do [13.12]: × 255 / (2^depth − 1), exactly left bit replication for these depths. */
function sampleScale(depth: number): number {
  return 255 / maxSample(depth);
}

/**
 * The output stream: the header's chunks, then the image data taken from the
 * input IDAT by IDAT, inflated, row by row widened to RGB(A) and re-filtered,
 * deflated and cut into IDAT chunks, then the chunks after the image and IEND.
 * Each stage asks the one before it for more only when it needs it, so what
 * is held at any time is a few pieces and rows, whatever the image's size.
 */
function rgbPng(input: ByteReader, header: Header): ReadableStream<Uint8Array> {
  const tail: Uint8Array<ArrayBuffer>[] = [];
  const inflated = new Pump(new DecompressionStream('deflate'), imageData(input, header, tail), 'the image data does not inflate');
  const deflated = new Pump(new CompressionStream('deflate'), rgbRows(inflated, header.ihdr), 'the image data could not be compressed');
  const stop = (reason: unknown) => Promise.all([input.cancel(reason), inflated.cancel(reason), deflated.cancel(reason)]).then(ignore);
  const gathered = new Gathered();
  return new ReadableStream<Uint8Array>({
    start(controller) {
      header.head.forEach((chunk) => controller.enqueue(chunk));
    },
    async pull(controller) {
      try {
        for (;;) {
          const compressed = await deflated.read();
          if (!compressed) {
            controller.enqueue(pngChunk('IDAT', gathered.take()));
            tail.forEach((chunk) => controller.enqueue(chunk));
            controller.enqueue(pngChunk('IEND', new Uint8Array(0)));
            controller.close();
            return;
          }
          gathered.add(compressed);
          if (gathered.length >= IDAT_BYTES) {
            controller.enqueue(pngChunk('IDAT', gathered.take()));
            return;
          }
        }
      } catch (error) {
        await stop(error);
        throw asDataError(error, 'the image could not be converted');
      }
    },
    cancel: stop,
  });
}

/**
 * The zlib stream of the image, from each IDAT chunk [11.2.3] as it arrives,
 * each chunk's CRC checked at its end; undefined after the last. Then the
 * chunks up to IEND go to `tail` (as the output has them), and the input is
 * released: anything after IEND is not part of the PNG.
 */
function imageData(input: ByteReader, header: Header, tail: Uint8Array<ArrayBuffer>[]): () => Promise<Uint8Array<ArrayBuffer> | undefined> {
  let left = header.firstIdatLength;
  let crc = crc32(CRC_START, IDAT_TYPE);
  let ended = false;
  return async () => {
    while (!ended) {
      if (left > 0) {
        const piece = await input.upTo(Math.min(left, PIECE_BYTES));
        if (!piece) throw new PngDataError('the file ends inside the IDAT chunk');
        crc = crc32(crc, piece);
        left -= piece.length;
        return ownBuffer(piece);
      }
      await checkCrc(input, 'IDAT', crc);
      const next = await readChunkStart(input);
      if (next.type === 'IDAT') {
        left = next.length;
        crc = crc32(CRC_START, IDAT_TYPE);
      } else {
        await readTail(input, next, header.ihdr, tail);
        ended = true;
      }
    }
    return undefined;
  };
}

/** The chunks after the image data up to IEND [5.6], converted as those before it; a critical one other than IEND is corrupt (IDATs must be consecutive). */
async function readTail(input: ByteReader, start: ChunkStart, ihdr: Ihdr, tail: Uint8Array<ArrayBuffer>[]): Promise<void> {
  for (;;) {
    const chunk = await readChunk(input, start);
    if (chunk.type === 'IEND') return input.cancel();
    const outcome = chunkOutcome(chunk, ihdr, false);
    if (outcome === 'refuse') throw new PngDataError(`unexpected ${chunk.type} chunk after the image data`);
    if (outcome !== 'drop') tail.push(outcome);
    start = await readChunkStart(input);
  }
}

/** The inflated image data as batches of filtered RGB(A) rows for the compressor; undefined after the last. */
function rgbRows(inflated: Pump, ihdr: Ihdr): () => Promise<Uint8Array<ArrayBuffer> | undefined> {
  let rows: RowTranscoder | undefined;
  let ready: Uint8Array<ArrayBuffer>[] = [];
  let ended = false;
  return async () => {
    rows ??= new RowTranscoder(ihdr); // here rather than before: a row too large to allocate fails the stream, not the call
    while (ready.length === 0 && !ended) {
      const part = await inflated.read();
      ready = part ? rows.push(part) : rows.finish();
      ended = !part;
    }
    return ready.shift();
  };
}

/**
 * A transform stream (inflate, deflate) driven from its output end: input,
 * from `next`, is written only when no output waits to be read, and a write
 * only once the transform took the one before (the next piece is made
 * meanwhile, so both sides work at once). Piping would do, but Node's
 * (De)CompressionStream applies no backpressure on its output side and would
 * queue the whole image.
 */
class Pump {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly writer: WritableStreamDefaultWriter<Uint8Array<ArrayBuffer>>;
  private reading: Promise<ReadableStreamReadResult<Uint8Array>> | undefined;
  private writing: Promise<void> | undefined;
  private upcoming: Promise<Uint8Array<ArrayBuffer> | undefined> | undefined;
  private inputEnded = false;

  constructor(
    transform: ReadableWritablePair<Uint8Array, Uint8Array<ArrayBuffer>>,
    private readonly next: () => Promise<Uint8Array<ArrayBuffer> | undefined>,
    /** What a failure of the transform itself means. */
    private readonly problem: string,
  ) {
    this.reader = transform.readable.getReader();
    this.writer = transform.writable.getWriter();
  }

  /** The next output bytes; undefined once the input has ended and the transform has given everything. */
  async read(): Promise<Uint8Array | undefined> {
    try {
      const reading = (this.reading ??= handled(this.reader.read()));
      while (!this.inputEnded && !(await isSettled(reading))) await this.feed(reading);
      this.reading = undefined;
      const { done, value } = await reading;
      return done ? undefined : value;
    } catch (error) {
      throw asDataError(error, this.problem);
    }
  }

  async cancel(reason: unknown): Promise<void> {
    await Promise.all([this.reader.cancel(reason).catch(ignore), this.writer.abort(reason).catch(ignore)]);
  }

  /** Nothing waits to be read: the next input, once the transform has taken the last (or output arrives meanwhile). */
  private async feed(reading: Promise<unknown>): Promise<void> {
    const upcoming = (this.upcoming ??= handled(this.next()));
    if (this.writing && !(await isSettled(this.writing))) {
      await Promise.race([reading, this.writing]);
      return;
    }
    await this.writing; // rethrows a failed write
    const piece = await upcoming;
    this.upcoming = undefined;
    this.inputEnded = !piece;
    this.writing = handled(piece ? this.writer.write(piece) : this.writer.close());
  }
}

/** `promise`, marked as handled: a rejection nobody awaits (the transform failed, the reader was cancelled) is not reported as unhandled. */
function handled<T>(promise: Promise<T>): Promise<T> {
  promise.catch(ignore);
  return promise;
}

const PENDING = Symbol('pending');

/** Whether `promise` has settled by now (a settled promise wins a race against one resolved after it). */
async function isSettled(promise: Promise<unknown>): Promise<boolean> {
  return Promise.race([promise, Promise.resolve(PENDING)]).then(
    (value) => value !== PENDING,
    () => true,
  );
}

function asDataError(error: unknown, problem: string): PngDataError {
  return error instanceof PngDataError ? error : new PngDataError(`${problem} (${messageOf(error)})`, { cause: error });
}

/** Byte arrays gathered until taken as one. */
class Gathered {
  private parts: Uint8Array[] = [];
  length = 0;

  add(part: Uint8Array): void {
    this.parts.push(part);
    this.length += part.length;
  }

  take(): Uint8Array<ArrayBuffer> {
    const all = new Uint8Array(this.length);
    let at = 0;
    for (const part of this.parts) {
      all.set(part, at);
      at += part.length;
    }
    this.parts = [];
    this.length = 0;
    return all;
  }
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
function passesOf(ihdr: Ihdr): Pass[] {
  if (!ihdr.interlaced) return [{ width: ihdr.width, height: ihdr.height }];
  const count = (size: number, first: number, step: number) => Math.max(0, Math.ceil((size - first) / step));
  return ADAM7.map(([x, y, dx, dy]) => ({ width: count(ihdr.width, x, dx), height: count(ihdr.height, y, dy) })).filter((p) => p.width > 0 && p.height > 0);
}

/**
 * Scanlines in, filtered RGB(A) scanlines out, one row at a time [6.2]: each
 * input row is unfiltered against the previous one [9.2], widened, then
 * filtered against the previous output row. Each pass is an image of its own:
 * its first row has no previous row (zeros) [8.1].
 */
class RowTranscoder {
  private readonly passes: Pass[];
  private readonly sampleBytes: number;
  private readonly channels: number;
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
  private rgb = new Uint8Array(0);
  private previousRgb = new Uint8Array(0);
  private trial = new Uint8Array(0);
  private best = new Uint8Array(0);

  constructor(private readonly ihdr: Ihdr) {
    this.passes = passesOf(ihdr);
    this.channels = ihdr.colourType === GREY ? 1 : 2;
    this.sampleBytes = outputDepth(ihdr) / 8;
    this.inBpp = Math.max(1, (ihdr.depth * this.channels) / 8);
    this.outBpp = (this.channels + 2) * this.sampleBytes;
    this.batches = new Batches(Math.max(BATCH_BYTES, 1 + ihdr.width * this.outBpp));
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
    this.widen(samples);
    this.filterRgb();
    [this.row, this.previous] = [this.previous, this.row];
    [this.rgb, this.previousRgb] = [this.previousRgb, this.rgb];
    this.filled = 0;
    if (--this.rowsLeft === 0) this.nextPass();
  }

  /** Move to the next pass with rows: new row sizes, previous rows zero. */
  private nextPass(): void {
    const pass = this.passes[++this.pass];
    if (!pass) return;
    const inRowBytes = Math.ceil((pass.width * this.ihdr.depth * this.channels) / 8);
    const outRowBytes = pass.width * this.outBpp;
    this.rowsLeft = pass.height;
    this.row = new Uint8Array(1 + inRowBytes);
    this.previous = new Uint8Array(1 + inRowBytes);
    this.rgb = new Uint8Array(outRowBytes);
    this.previousRgb = new Uint8Array(outRowBytes);
    this.trial = new Uint8Array(outRowBytes);
    this.best = new Uint8Array(outRowBytes);
  }

  /** The unfiltered input row as R = G = B = grey (then alpha) in `rgb`. */
  private widen(samples: Uint8Array): void {
    const { depth } = this.ihdr;
    if (depth < 8) widenPacked(samples, this.rgb, depth);
    else if (this.channels === 1 && depth === 8) widenGrey8(samples, this.rgb);
    else widenWhole(samples, this.rgb, this.sampleBytes, this.channels === 2);
  }

  /** The output row with the filter type whose bytes, read as signed, sum to the least magnitude (libpng's heuristic [12.7]). */
  private filterRgb(): void {
    let bestType: number = PNG_FILTER.none;
    let bestCost = Infinity;
    for (let type: number = PNG_FILTER.none; type <= PNG_FILTER.paeth; type++) {
      const cost = filterRow(type, this.rgb, this.previousRgb, this.outBpp, this.trial, bestCost);
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

interface ChunkStart {
  length: number;
  type: string;
  /** The type's four bytes, where the CRC starts [5.3]. */
  typeBytes: Uint8Array;
}

interface Chunk {
  type: string;
  data: Uint8Array;
}

/** A chunk's length and type [5.3]; the type must be four ASCII letters [5.4]. */
async function readChunkStart(input: ByteReader): Promise<ChunkStart> {
  const start = await input.exactly(8);
  if (!start) throw new PngDataError('the file ends before its IEND chunk');
  const typeBytes = start.slice(4, 8);
  const type = String.fromCharCode(...typeBytes);
  if (!/^[A-Za-z]{4}$/.test(type)) throw new PngDataError('a chunk type is not four letters');
  const length = u32be(start, 0);
  if (length > MAX_CHUNK_LENGTH) throw new PngDataError(`${type} chunk longer than PNG allows`);
  return { length, type, typeBytes };
}

/** The rest of a chunk: its data, its CRC checked [5.5]. */
async function readChunk(input: ByteReader, start: ChunkStart): Promise<Chunk> {
  const data = await input.exactly(start.length);
  if (!data) throw new PngDataError(`the file ends inside the ${start.type} chunk`);
  await checkCrc(input, start.type, crc32(crc32(CRC_START, start.typeBytes), data));
  return { type: start.type, data };
}

async function checkCrc(input: ByteReader, type: string, crc: number): Promise<void> {
  const stored = await input.exactly(4);
  if (!stored) throw new PngDataError(`the file ends inside the ${type} chunk`);
  if (u32be(stored, 0) !== crcValue(crc)) throw new PngDataError(`CRC mismatch in the ${type} chunk`);
}

/** Bit 5 of the first letter: 0 (uppercase) is critical [5.4]. */
function isCritical(type: string): boolean {
  return (type.charCodeAt(0) & 0x20) === 0;
}

/** Bit 5 of the fourth letter: 1 (lowercase) is safe to copy whatever else changed [5.4]. */
function isSafeToCopy(type: string): boolean {
  return (type.charCodeAt(3) & 0x20) !== 0;
}

const IDAT_TYPE = Uint8Array.from([0x49, 0x44, 0x41, 0x54]);

/** Bytes from a stream in the sizes asked for, however the stream happens to be cut. */
class ByteReader {
  private chunks: Uint8Array[] = [];
  private buffered = 0;

  constructor(private readonly reader: ReadableStreamDefaultReader<Uint8Array>) {}

  /** Exactly `n` bytes, or undefined when the stream ends first (nothing is allocated until they are all there). */
  async exactly(n: number): Promise<Uint8Array | undefined> {
    while (this.buffered < n) if (!(await this.fill())) return undefined;
    return this.take(n);
  }

  /** Between one and `max` bytes, as they arrive; undefined at the end of the stream. */
  async upTo(max: number): Promise<Uint8Array | undefined> {
    if (this.buffered === 0 && !(await this.fill())) return undefined;
    return this.take(Math.min(max, this.chunks[0]!.length));
  }

  /** Stop reading: the stream's source may let go of the rest. */
  async cancel(reason?: unknown): Promise<void> {
    this.chunks = [];
    this.buffered = 0;
    await this.reader.cancel(reason).catch(ignore);
  }

  private async fill(): Promise<boolean> {
    for (;;) {
      const { done, value } = await this.reader.read().catch((error: unknown) => {
        throw new PngDataError(`the file could not be read (${messageOf(error)})`, { cause: error });
      });
      if (done) return false;
      if (value.length === 0) continue;
      this.chunks.push(value);
      this.buffered += value.length;
      return true;
    }
  }

  private take(n: number): Uint8Array {
    const first = this.chunks[0];
    if (n === 0 || !first) return new Uint8Array(0);
    this.buffered -= n;
    if (first.length >= n) return this.takeFromFirst(n);
    const out = new Uint8Array(n);
    for (let at = 0; at < n; ) {
      const part = this.takeFromFirst(Math.min(n - at, this.chunks[0]!.length));
      out.set(part, at);
      at += part.length;
    }
    return out;
  }

  private takeFromFirst(n: number): Uint8Array {
    const first = this.chunks[0]!;
    if (n === first.length) this.chunks.shift();
    else this.chunks[0] = first.subarray(n);
    return first.subarray(0, n);
  }
}

/** The compressor takes bytes in an ArrayBuffer (not a shared one): a view of one as it is, else a copy. */
function ownBuffer(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  return bytes.buffer instanceof ArrayBuffer ? (bytes as Uint8Array<ArrayBuffer>) : bytes.slice();
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function ignore(): void {}

function u16be(b: Uint8Array, at: number): number {
  return ((b[at] ?? 0) << 8) | (b[at + 1] ?? 0);
}

function u32be(b: Uint8Array, at: number): number {
  return u16be(b, at) * 0x10000 + u16be(b, at + 2);
}
