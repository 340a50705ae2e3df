/**
 * A greyscale PNG as an RGB(A) one, losslessly: the PNG sibling of
 * greyJpegAsYcc. The Web API reads PNG in RGB or RGBA only, and hosts
 * without an image library (browser iframe, UXP) cannot convert otherwise.
 * Every grey sample becomes three equal R, G, B samples (alpha kept), so
 * every decoder shows the same pixels; the chunks that describe samples
 * (tRNS, sBIT, bKGD) are rewritten to match, the others copied verbatim. A
 * grey ICC profile (iCCP) is swapped for the RGB one under which R = G = B
 * shows as the grey showed (grey-icc), so colour-managed viewers show the
 * same tones; the chunks that describe colour without a profile (gAMA, cHRM,
 * sRGB, cICP) mean the same for R = G = B as for grey and are copied.
 *
 * Hand-written rather than a PNG library (fast-png, pngjs): those decode the
 * whole image into memory and drop most ancillary chunks. This is a
 * chunk-level transcode that keeps metadata verbatim and holds only two rows
 * of pixels (the current one and the previous one the filters predict from)
 * on the input side and two on the output side (plus two to try filters in),
 * so memory does not grow with the image. Inflate and deflate are the web
 * platform's DecompressionStream and CompressionStream, whose 'deflate' is
 * the zlib format IDAT and iCCP hold [10.1, 10.3]; when a runtime lacks them
 * the function does not apply. Chunks, CRCs and row filters are `./png`'s,
 * the rows' conversion `./png-rows`', the stream plumbing `./byte-streams`',
 * the RGB profile `./grey-icc`'s.
 *
 * References in brackets are to the PNG specification, third edition (W3C, 2025).
 */

import { u16be, u32be } from './bytes';
import { ByteReader, Gathered, ignore, messageOf, ownBuffer, Pump, transformed } from './byte-streams';
import { rgbProfileForGrey } from './grey-icc';
import { CRC_START, crc32, crcValue, PNG_SIGNATURE, PngDataError, pngChunk } from './png';
import { GREY, GREY_ALPHA, type Ihdr, maxSample, outputDepth, RowTranscoder, sampleScale } from './png-rows';

/**
 * The same image as an RGB (colour type 2) or RGBA (type 6) PNG whose decoded
 * pixels are exactly R = G = B = the decoded grey samples, alpha and
 * transparency kept; 1-, 2- and 4-bit samples become 8-bit ones as decoders
 * scale them [13.12], 8- and 16-bit ones keep their depth, interlaced images
 * stay interlaced. Metadata chunks (text, EXIF, gamma, sRGB, physical
 * size…) are kept in place; unknown ones only when marked safe to copy
 * [14.2]. An embedded grey ICC profile (iCCP, as Photoshop writes: Dot Gain
 * 20 %, Gray Gamma 2.2) is replaced, in its place and under its name, by the
 * RGB profile {@link rgbProfileForGrey} derives from it, under which the RGB
 * pixels show the grey's tones exactly.
 *
 * Reads the input up to the first IDAT chunk and decides there. Undefined —
 * never a throw, never a different image — for anything else, the input then
 * cancelled: not a PNG, not grey (colour type 0 or 4), an ICC profile it
 * cannot convert (not grey — an RGB profile cannot describe grey samples —,
 * a Lab connection space, a grey LUT, over 16 MB inflated, a second iCCP, a
 * malformed chunk: no name or one over 79 bytes, a compression method other
 * than zlib, data that does not inflate to a whole profile), any profile
 * with `{ profiles: false }`, an animation (APNG), a palette or an unknown
 * critical chunk, anything malformed or truncated before the image data, an
 * input that fails to read, a runtime without CompressionStream.
 * Data errors found later (a bad CRC, a truncated file, corrupt image data)
 * make the returned stream error (a PfcError named PngDataError) with a
 * message saying what is wrong.
 *
 * @example
 * const rgb = sniffMedia(head)?.grey ? await greyPngAsRgb(file.stream()) : undefined;
 * const upload = rgb ?? (await reencode(file));
 */
export async function greyPngAsRgb(png: ReadableStream<Uint8Array>, options: GreyPngOptions = {}): Promise<ReadableStream<Uint8Array> | undefined> {
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
  const header = await readHeader(input, options).catch(() => undefined);
  if (!header) {
    await input.cancel();
    return undefined;
  }
  return rgbPng(input, header);
}

export interface GreyPngOptions {
  /**
   * Whether a PNG with a grey ICC profile may be converted, carrying the RGB profile derived from it
   * (default true). False refuses any profile: for a service asked to leave profiles out of its result
   * (`preserveMetadata: false`), whose output numbers would then be shown as sRGB, not as the profile's.
   */
  profiles?: boolean;
}

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

/** Chunks that do not depend on the colour type, copied verbatim wherever they are. */
const COPIED = new Set([
  'gAMA', 'cHRM', 'sRGB', 'cICP', 'mDCV', 'cLLI', 'pHYs', 'sPLT', 'tEXt', 'zTXt', 'iTXt', 'tIME', 'eXIf',
  'oFFs', 'pCAL', 'sCAL', 'sTER', 'gIFg', 'gIFx', 'gIFt',
]);
/**
 * Chunks the output cannot carry as they are: an animation's frames [11.3.6]
 * would still hold grey data; an ICC profile describes grey samples
 * [11.3.2.3] (before the image, readHeader swaps it for an RGB one and it
 * never gets here). Before the image they refuse the conversion; after it
 * they are out of place [5.6], ignored by decoders, and dropped.
 */
const REFUSED = new Set(['iCCP', 'acTL', 'fcTL', 'fdAT']);

/** Everything before the image data, read and checked. */
interface Header {
  ihdr: Ihdr;
  /** Signature, IHDR and the chunks before the image data, as the output has them. */
  head: Uint8Array<ArrayBuffer>[];
  /** Data length of the first IDAT chunk, whose data is next in the input. */
  firstIdatLength: number;
}

/** Walk the chunks up to the first IDAT [5.6], collecting what the output needs; undefined for what it cannot handle. Throws on malformed data. */
async function readHeader(input: ByteReader, options: GreyPngOptions): Promise<Header | undefined> {
  const signature = await input.exactly(PNG_SIGNATURE.length);
  if (!signature || PNG_SIGNATURE.some((v, i) => signature[i] !== v)) return undefined;
  const first = await readChunkStart(input);
  if (first.type !== 'IHDR' || first.length !== IHDR_LENGTH) return undefined;
  const ihdr = readIhdr((await readChunk(input, first)).data);
  if (!ihdr) return undefined;
  const head = [Uint8Array.from(PNG_SIGNATURE), pngChunk('IHDR', rgbIhdr(ihdr))];
  let profiled = false;
  for (;;) {
    const start = await readChunkStart(input);
    if (start.type === 'IDAT') return { ihdr, head, firstIdatLength: start.length };
    if (start.type === 'iCCP') {
      if (profiled || options.profiles === false) return undefined; // at most one profile [11.3.2.3]; none when asked
      profiled = true;
    }
    const chunk = await readChunk(input, start);
    const outcome = chunk.type === 'iCCP' ? await rgbProfileChunk(chunk.data) : chunkOutcome(chunk, ihdr, true);
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

/** Profile names are 1–79 bytes [11.3.2.3], then a NUL. */
const MAX_NAME_BYTES = 79;
/** Compression method 0, zlib [10.3]: the only one defined. */
const ZLIB = 0;
/**
 * The largest profile taken, inflated: a grey profile is a few kilobytes (a
 * 4096-entry curve is 8 KB); the cap bounds what a small chunk that inflates
 * hugely (deflate expands up to ~1000×) can make the conversion hold.
 */
const MAX_PROFILE_BYTES = 16 * 1024 * 1024;
/** The output profile's name when the input's is not a valid keyword (it is only a label [11.3.2.3]). */
const FALLBACK_PROFILE_NAME = 'ICC profile';

/**
 * The iCCP chunk [11.3.2.3] of the output: the grey profile inflated, the RGB
 * profile rgbProfileForGrey derives from it deflated, under the same name.
 * Refuses a profile it cannot convert (see rgbProfileForGrey; an RGB or CMYK
 * profile is not valid on grey samples anyway), one over MAX_PROFILE_BYTES
 * inflated, and a malformed chunk: an empty name or none within 79 bytes, a
 * compression method other than zlib, data that does not inflate (a
 * truncated stream, a bad checksum) or inflates to less than the profile.
 */
async function rgbProfileChunk(data: Uint8Array): Promise<Outcome> {
  const nameLength = data.subarray(0, MAX_NAME_BYTES + 1).indexOf(0);
  if (nameLength < 1 || data[nameLength + 1] !== ZLIB) return 'refuse';
  const grey = await transformed(data.subarray(nameLength + 2), new DecompressionStream('deflate'), { maxBytes: MAX_PROFILE_BYTES }).catch(() => undefined);
  const rgb = grey && rgbProfileForGrey(grey);
  if (!rgb) return 'refuse';
  const compressed = (await transformed(rgb, new CompressionStream('deflate')))!; // no cap: undefined only past one
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
 * input IDAT by IDAT, inflated, row by row widened to RGB(A) and re-filtered,
 * deflated and cut into IDAT chunks, then the chunks after the image and IEND.
 * Each stage asks the one before it for more only when it needs it, so what
 * is held at any time is a few pieces and rows, whatever the image's size.
 */
function rgbPng(input: ByteReader, header: Header): ReadableStream<Uint8Array> {
  const tail: Uint8Array<ArrayBuffer>[] = [];
  const inflated = new Pump(new DecompressionStream('deflate'), imageData(input, header, tail), (error) => asDataError(error, 'the image data does not inflate'));
  const deflated = new Pump(new CompressionStream('deflate'), rgbRows(inflated, header.ihdr), (error) => asDataError(error, 'the image data could not be compressed'));
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

function asDataError(error: unknown, problem: string): PngDataError {
  return error instanceof PngDataError ? error : new PngDataError(`${problem} (${messageOf(error)})`, { cause: error });
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


