/**
 * The chunk-level streaming rewrite of one PNG into another that
 * `greyPngAsRgb` (grey-png.ts) and `rgbPngAsGrey` (rgb-png-grey.ts) share:
 * the chunks up to the image data read and each kept, rewritten, dropped or
 * refused as the rewrite says (an ICC profile converted by it), then the
 * image data inflated, converted row by row (png-rows), deflated and cut into
 * IDAT chunks, then the chunks after it and IEND. Memory holds a few pieces
 * and rows, whatever the image's size. Inflate and deflate are the web
 * platform's DecompressionStream and CompressionStream, whose 'deflate' is
 * the zlib format IDAT and iCCP hold [10.1, 10.3].
 *
 * References in brackets are to the PNG specification, third edition (W3C, 2025).
 */

import { u32be } from './bytes';
import { ByteReader, Gathered, ignore, messageOf, ownBuffer, Pump, transformed } from './byte-streams';
import { CRC_START, crc32, crcValue, PNG_SIGNATURE, PngDataError, pngChunk } from './png';
import { RowTranscoder, type RowShape } from './png-rows';

/** What the rewrite needs of an image's header: the rows' geometry. */
export interface ImageHeader {
  width: number;
  height: number;
  interlaced: boolean;
}

/** What one direction of the rewrite decides. */
export interface PngRewrite<I extends ImageHeader> {
  /** IHDR's data as this rewrite takes it; undefined for an image it does not take. */
  readIhdr(data: Uint8Array): I | undefined;
  /** The output's IHDR data. */
  outputIhdr(ihdr: I): Uint8Array;
  /** What the output has for a chunk other than IHDR, IDAT, IEND and (before the image) iCCP. */
  chunk(chunk: Chunk, ihdr: I, beforeImage: boolean): Outcome;
  /** The output's ICC profile for the input's; undefined refuses the rewrite. */
  profile(icc: Uint8Array): Uint8Array | undefined;
  /** How the rows are converted. */
  rows(ihdr: I): RowShape;
}

export type Outcome = Uint8Array<ArrayBuffer> | 'drop' | 'refuse';

export interface Chunk {
  type: string;
  data: Uint8Array;
}

/**
 * `png` rewritten, or undefined — never a throw — when it is not the
 * rewrite's input or anything before the image data refuses it (the input
 * then cancelled; also a runtime without CompressionStream). Data errors
 * found later make the returned stream error (PngDataError); so does a
 * row's conversion throwing.
 */
export async function rewritePng<I extends ImageHeader>(png: ReadableStream<Uint8Array>, rewrite: PngRewrite<I>, options: { profiles?: boolean } = {}): Promise<ReadableStream<Uint8Array> | undefined> {
  if (typeof CompressionStream !== 'function' || typeof DecompressionStream !== 'function') {
    await png.cancel().catch(ignore);
    return undefined;
  }
  let input: ByteReader;
  try {
    input = new ByteReader(png.getReader(), (error) => new PngDataError(`the file could not be read (${messageOf(error)})`, { cause: error }));
  } catch {
    return undefined; // already locked by another reader: not ours to cancel
  }
  const header = await readHeader(input, rewrite, options).catch(() => undefined);
  if (!header) {
    await input.cancel();
    return undefined;
  }
  return outputPng(input, header, rewrite);
}

const IHDR_LENGTH = 13;
/** A chunk's data is at most 2^31 − 1 bytes [5.3]. */
export const MAX_CHUNK_LENGTH = 0x7fffffff;
/** How much of an IDAT's data to hand the inflater at a time: what one piece inflates to is held at once (deflate expands at most ~1000×). */
const PIECE_BYTES = 8 * 1024;
/** Compressed bytes gathered per output IDAT: large enough that chunk overhead is negligible. */
const IDAT_BYTES = 64 * 1024;

/** Chunks that do not depend on the colour type, copied verbatim wherever they are. */
const COPIED = new Set([
  'gAMA', 'cHRM', 'sRGB', 'cICP', 'mDCV', 'cLLI', 'pHYs', 'sPLT', 'tEXt', 'zTXt', 'iTXt', 'tIME', 'eXIf',
  'oFFs', 'pCAL', 'sCAL', 'sTER', 'gIFg', 'gIFx', 'gIFt',
]);
/**
 * Chunks the output cannot carry as they are: an animation's frames [11.3.6]
 * would still hold the input's kind of data; an ICC profile describes the
 * input's samples [11.3.2.3] (before the image, readHeader swaps it and it
 * never gets here). Before the image they refuse the rewrite; after it they
 * are out of place [5.6], ignored by decoders, and dropped.
 */
const REFUSED = new Set(['iCCP', 'acTL', 'fcTL', 'fdAT']);

/**
 * What the output has for a chunk, given the chunks the direction rewrites
 * (`converted`: their contents depend on the colour type and bit depth;
 * undefined when malformed; before the image only, dropped after it). The
 * others are copied when they do not depend on the colour type or, unknown,
 * are marked safe to copy: the rewrite changes IHDR, a critical chunk, so
 * editors drop unknown unsafe ones [14.2]. A critical chunk refuses: a
 * second IHDR, IEND before the image, or one unknown [5.4].
 */
export function chunkOutcome<I>({ type, data }: Chunk, ihdr: I, beforeImage: boolean, converted: ReadonlyMap<string, (data: Uint8Array, ihdr: I) => Uint8Array | undefined>): Outcome {
  if (isCritical(type)) return 'refuse';
  if (REFUSED.has(type)) return beforeImage ? 'refuse' : 'drop';
  const convert = converted.get(type);
  if (convert) {
    if (!beforeImage) return 'drop';
    const output = convert(data, ihdr);
    return output ? pngChunk(type, output) : 'refuse';
  }
  return COPIED.has(type) || isSafeToCopy(type) ? pngChunk(type, data) : 'drop';
}

/** Everything before the image data, read and checked. */
interface Header<I> {
  ihdr: I;
  /** Signature, IHDR and the chunks before the image data, as the output has them. */
  head: Uint8Array<ArrayBuffer>[];
  /** Data length of the first IDAT chunk, whose data is next in the input. */
  firstIdatLength: number;
}

/** Walk the chunks up to the first IDAT [5.6], collecting what the output needs; undefined for what it cannot handle. Throws on malformed data. */
async function readHeader<I extends ImageHeader>(input: ByteReader, rewrite: PngRewrite<I>, options: { profiles?: boolean }): Promise<Header<I> | undefined> {
  const signature = await input.exactly(PNG_SIGNATURE.length);
  if (!signature || PNG_SIGNATURE.some((v, i) => signature[i] !== v)) return undefined;
  const first = await readChunkStart(input);
  if (first.type !== 'IHDR' || first.length !== IHDR_LENGTH) return undefined;
  const ihdr = rewrite.readIhdr((await readChunk(input, first)).data);
  if (!ihdr) return undefined;
  const head = [Uint8Array.from(PNG_SIGNATURE), pngChunk('IHDR', rewrite.outputIhdr(ihdr))];
  let profiled = false;
  for (;;) {
    const start = await readChunkStart(input);
    if (start.type === 'IDAT') return { ihdr, head, firstIdatLength: start.length };
    if (start.type === 'iCCP') {
      if (profiled || options.profiles === false) return undefined; // at most one profile [11.3.2.3]; none when asked
      profiled = true;
    }
    const chunk = await readChunk(input, start);
    const outcome = chunk.type === 'iCCP' ? await profileChunk(chunk.data, (icc) => rewrite.profile(icc)) : rewrite.chunk(chunk, ihdr, true);
    if (outcome === 'refuse') return undefined;
    if (outcome !== 'drop') head.push(outcome);
  }
}

/** The image's size and interlacing from IHDR's data [11.2.1], when its compression and filter methods are the only ones and its interlace method one of the two. */
export function imageHeaderOf(d: Uint8Array): (ImageHeader & { depth: number; colourType: number }) | undefined {
  const [depth, colourType, compression, filter, interlace] = d.subarray(8);
  const header = { width: u32be(d, 0), height: u32be(d, 4), depth: depth!, colourType: colourType!, interlaced: interlace === 1 };
  const size = [header.width, header.height].every((n) => n > 0 && n <= MAX_CHUNK_LENGTH);
  const methods = compression === 0 && filter === 0 && (interlace === 0 || interlace === 1);
  return size && methods ? header : undefined;
}

/** IHDR's data for an image of `colourType` at `depth` bits, size and interlacing as `header`'s. */
export function ihdrData(header: ImageHeader, depth: number, colourType: number): Uint8Array {
  const d = new Uint8Array(IHDR_LENGTH);
  const view = new DataView(d.buffer);
  view.setUint32(0, header.width);
  view.setUint32(4, header.height);
  d.set([depth, colourType, 0, 0, header.interlaced ? 1 : 0], 8);
  return d;
}

/** Profile names are 1–79 bytes [11.3.2.3], then a NUL. */
const MAX_NAME_BYTES = 79;
/** Compression method 0, zlib [10.3]: the only one defined. */
const ZLIB = 0;
/**
 * The largest profile taken, inflated: a matrix/TRC profile is a few
 * kilobytes (a 4096-entry curve is 8 KB); the cap bounds what a small chunk that inflates
 * hugely (deflate expands up to ~1000×) can make the conversion hold.
 */
const MAX_PROFILE_BYTES = 16 * 1024 * 1024;
/** The output profile's name when the input's is not a valid keyword (it is only a label [11.3.2.3]). */
const FALLBACK_PROFILE_NAME = 'ICC profile';

/**
 * The iCCP chunk [11.3.2.3] of the output: the input's profile inflated,
 * `convert`ed, deflated, under the same name. Refuses a profile `convert`
 * cannot convert, one over MAX_PROFILE_BYTES inflated, and a malformed
 * chunk: an empty name or none within 79 bytes, a compression method other
 * than zlib, data that does not inflate (a truncated stream, a bad checksum)
 * or inflates to less than the profile.
 */
async function profileChunk(data: Uint8Array, convert: (profile: Uint8Array) => Uint8Array | undefined): Promise<Outcome> {
  const nameLength = data.subarray(0, MAX_NAME_BYTES + 1).indexOf(0);
  if (nameLength < 1 || data[nameLength + 1] !== ZLIB) return 'refuse';
  const profile = await transformed(data.subarray(nameLength + 2), new DecompressionStream('deflate'), { maxBytes: MAX_PROFILE_BYTES }).catch(() => undefined);
  const converted = profile && convert(profile);
  if (!converted) return 'refuse';
  const compressed = (await transformed(converted, new CompressionStream('deflate')))!; // no cap: undefined only past one
  const name = data.subarray(0, nameLength);
  const keyword = isKeyword(name) ? name : Uint8Array.from(FALLBACK_PROFILE_NAME, (c) => c.charCodeAt(0));
  const chunk = new Uint8Array(keyword.length + 2 + compressed.length);
  chunk.set(keyword);
  chunk.set([0, ZLIB], keyword.length);
  chunk.set(compressed, keyword.length + 2);
  return pngChunk('iCCP', chunk);
}

/** A keyword as PNG defines one [11.3.3.1]: printable Latin-1 and spaces (no NBSP), no leading, trailing or consecutive spaces. */
function isKeyword(name: Uint8Array): boolean {
  const printable = name.every((c) => (c >= 0x20 && c <= 0x7e) || c >= 0xa1);
  const spaced = name[0] !== 0x20 && name[name.length - 1] !== 0x20 && !name.some((c, i) => c === 0x20 && name[i + 1] === 0x20);
  return printable && spaced;
}

/**
 * The output stream: the header's chunks, then the image data taken from the
 * input IDAT by IDAT, inflated, row by row converted and re-filtered,
 * deflated and cut into IDAT chunks, then the chunks after the image and IEND.
 * Each stage asks the one before it for more only when it needs it, so what
 * is held at any time is a few pieces and rows, whatever the image's size.
 */
function outputPng<I extends ImageHeader>(input: ByteReader, header: Header<I>, rewrite: PngRewrite<I>): ReadableStream<Uint8Array> {
  const tail: Uint8Array<ArrayBuffer>[] = [];
  const inflated = new Pump(new DecompressionStream('deflate'), imageData(input, header, rewrite, tail), (error) => asDataError(error, 'the image data does not inflate'));
  const deflated = new Pump(new CompressionStream('deflate'), convertedRows(inflated, rewrite.rows(header.ihdr)), (error) => asDataError(error, 'the image data could not be compressed'));
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
function imageData<I extends ImageHeader>(input: ByteReader, header: Header<I>, rewrite: PngRewrite<I>, tail: Uint8Array<ArrayBuffer>[]): () => Promise<Uint8Array<ArrayBuffer> | undefined> {
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
        await readTail(input, next, (chunk) => rewrite.chunk(chunk, header.ihdr, false), tail);
        ended = true;
      }
    }
    return undefined;
  };
}

/** The chunks after the image data up to IEND [5.6], converted as those before it; a critical one other than IEND is corrupt (IDATs must be consecutive). */
async function readTail(input: ByteReader, start: ChunkStart, outcomeOf: (chunk: Chunk) => Outcome, tail: Uint8Array<ArrayBuffer>[]): Promise<void> {
  for (;;) {
    const chunk = await readChunk(input, start);
    if (chunk.type === 'IEND') return input.cancel();
    const outcome = outcomeOf(chunk);
    if (outcome === 'refuse') throw new PngDataError(`unexpected ${chunk.type} chunk after the image data`);
    if (outcome !== 'drop') tail.push(outcome);
    start = await readChunkStart(input);
  }
}

/** The inflated image data as batches of filtered, converted rows for the compressor; undefined after the last. */
function convertedRows(inflated: Pump, shape: RowShape): () => Promise<Uint8Array<ArrayBuffer> | undefined> {
  let rows: RowTranscoder | undefined;
  let ready: Uint8Array<ArrayBuffer>[] = [];
  let ended = false;
  return async () => {
    rows ??= new RowTranscoder(shape); // here rather than before: a row too large to allocate fails the stream, not the call
    while (ready.length === 0 && !ended) {
      const part = await inflated.read();
      ready = part ? rows.push(part) : rows.finish();
      ended = !part;
    }
    return ready.shift();
  };
}

function asDataError(error: unknown, problem: string): Error {
  return error instanceof PngDataError || error instanceof RowRefusal ? error : new PngDataError(`${problem} (${messageOf(error)})`, { cause: error });
}

/** Thrown by a row shape's `convert` for an image the rewrite cannot carry; the output stream fails with it as it is. */
export class RowRefusal extends Error {}

interface ChunkStart {
  length: number;
  type: string;
  /** The type's four bytes, where the CRC starts [5.3]. */
  typeBytes: Uint8Array;
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
