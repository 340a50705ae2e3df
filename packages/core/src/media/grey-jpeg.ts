/**
 * A greyscale JPEG as a colour (YCbCr) one, losslessly. The Web API reads
 * JPEG in RGB only; re-encoding a grey JPEG loses quality, and hosts without
 * an image library (browser iframe, UXP) cannot re-encode at all. In the DCT
 * domain no re-encoding is needed: the grey component becomes the luma
 * component bit for bit, and each block gains a Cb and a Cr block with no
 * coefficients, which every decoder turns into R = G = B = the grey sample.
 * A sequential JPEG's one scan is rewritten with the chroma blocks
 * interleaved (grey-jpeg-sequential); a progressive one's scans are kept as
 * they are and scans for Cb and Cr appended (grey-jpeg-progressive). A grey
 * ICC profile is swapped for the RGB one that shows R = G = B as it showed
 * the grey (grey-icc), so colour-managed viewers show the same tones. Here:
 * the segments before, between and after the scans, read and checked, and
 * the output put together. Pure: bytes in, bytes out (ITU T.81 references
 * in brackets).
 */

import { u16be } from './bytes';
import { isIccChunk, setIccChunkAside, withConvertedProfile } from './jpeg-icc';
import { rgbProfileForGrey } from './grey-icc';
import { chromaBlocks, chromaIds, JpegWriter, markerAt, readProgressiveScan, restartsIn, scanDataEnd, segmentOf, SOF2, writeChromaScans } from './grey-jpeg-progressive';
import { CB_ID, CR_ID, readScan, writeYccScan, Y_ID, type HuffmanTable, type ScanTables } from './grey-jpeg-sequential';
import { APP14, APP2, COM, DHT, DQT, DRI, EOI, isApp, readHuffmanTables, type Segment, segmentAt, SOI, SOS, startsWith } from './jpeg-segments';

/**
 * The same image as a three-component YCbCr JPEG of the same process —
 * sequential (SOF0/SOF1) or progressive (SOF2), Huffman-coded — whose decoded
 * pixels are exactly R = G = B = the decoded grey samples; metadata segments
 * (EXIF, XMP, comments) are kept. An embedded grey ICC profile (as
 * Photoshop writes: Dot Gain 20 %, Gray Gamma 2.2) is replaced, where the
 * first of its APP2 segments was, by the RGB profile {@link rgbProfileForGrey}
 * derives from it, under which the RGB pixels show the grey's tones exactly.
 * A sequential JPEG's coded data is decoded as it is rewritten, so corrupt
 * data is refused. A progressive one's is not decoded: its scan headers,
 * restart markers and the EOI after the last scan are checked, the data of
 * its scans copied as it is — corrupt data inside a scan goes out as it came
 * in, and a decoder reads it as it would have read the original.
 * Undefined — never a throw, never a different image — for anything else:
 * not a JPEG, not one component, not 8-bit Huffman-coded sequential or
 * progressive (lossless, hierarchical, arithmetic-coded, 12-bit), a
 * sequential JPEG of more than one scan, a progressive scan of another
 * component or of an invalid band, a height defined by DNL, an ICC profile
 * it cannot convert (not grey — an RGB or CMYK profile cannot describe a
 * grey JPEG —, a Lab connection space, a grey LUT, an incomplete or
 * malformed set of segments or profile), a profile or Adobe segment between
 * progressive scans, malformed or truncated data. Multi-picture (MPF) images
 * after the first are dropped.
 *
 * @example
 * const upload = sniffMedia(bytes)?.grey ? (greyJpegAsYcc(bytes) ?? reencode(bytes)) : bytes;
 */
export function greyJpegAsYcc(bytes: Uint8Array, options: GreyJpegOptions = {}): Uint8Array | undefined {
  try {
    const headers = readHeaders(bytes);
    if (headers?.icc && options.profiles === false) return undefined;
    if (!headers) return undefined;
    return 'scans' in headers ? writeProgressiveJpeg(bytes, headers) : writeYccJpeg(bytes, headers);
  } catch {
    // Truncated or corrupt entropy data: the caller converts another way.
    return undefined;
  }
}

export interface GreyJpegOptions {
  /**
   * Whether a JPEG with a grey ICC profile may be converted, carrying the RGB profile derived from it
   * (default true). False refuses any profile: for a service asked to leave profiles out of its result
   * (`preserveMetadata: false`), whose output numbers would then be shown as sRGB, not as the profile's.
   */
  profiles?: boolean;
}

/** Huffman-coded DCT frames [B.1.1.3]: baseline and extended sequential, progressive; the rest are lossless, hierarchical or arithmetic-coded. */
const HUFFMAN_FRAMES = new Set([0xc0, 0xc1, SOF2]);

interface GreyFrame {
  marker: number;
  width: number;
  height: number;
  componentId: number;
  /** H << 4 | V, each 1–4 [B.2.2]. */
  sampling: number;
  quantTable: number;
}

/** Everything before the entropy-coded data, read and checked. */
interface Headers {
  /** Segments to copy to the output, in order, the frame header already rewritten for three components. */
  segments: Uint8Array[];
  frame?: GreyFrame;
  /** Huffman tables by class (0 DC, 1 AC) × 4 + id, as defined when the scan starts. */
  tables: Map<number, HuffmanTable>;
  /** As defined when the scan starts (progressive: after the last scan). */
  restartInterval: number;
  /** The ICC profile's APP2 segment bodies, in file order, and where in `segments` the first one was. */
  icc?: { at: number; chunks: Uint8Array[] };
}

/** Sequential, once the scan header is read: the frame and scan are known, the entropy-coded data starts at `dataStart`. */
interface ScanHeaders extends Headers {
  frame: GreyFrame;
  scan: ScanTables;
  dataStart: number;
}

/** Progressive, once every scan is read: their bytes, from the first SOS to EOI, and the Huffman tables (class × 4 + id) they decode with. */
interface ProgressiveHeaders extends Headers {
  frame: GreyFrame;
  scans: { start: number; end: number; tables: Set<number> };
}

/** Walk the segments up to the (sequential: only) scan, collecting what the output needs; undefined for what it cannot handle. */
function readHeaders(b: Uint8Array): ScanHeaders | ProgressiveHeaders | undefined {
  if (b[0] !== 0xff || b[1] !== SOI) return undefined;
  const headers: Headers = { segments: [], tables: new Map(), restartInterval: 0 };
  for (let at = 2; ; ) {
    const segment = segmentAt(b, at);
    if (!segment) return undefined;
    // The grey profile becomes the RGB one in its place: the grey one on RGB pixels would be ignored or misread.
    if (segment.marker === SOS) return withConvertedProfile(headers.frame?.marker === SOF2 ? withScans(b, headers, segment) : withScan(headers, segment), rgbProfileForGrey);
    if (!takeSegment(headers, segment)) return undefined;
    at = segment.end;
  }
}

/** Record one segment before the scan; false for one the output cannot carry. */
function takeSegment(headers: Headers, { marker, bytes, body }: Segment): boolean {
  if (HUFFMAN_FRAMES.has(marker)) return takeFrame(headers, marker, body);
  if (marker === APP2 && isIccChunk(body)) {
    setIccChunkAside(headers, body);
    return true;
  }
  const decision = segmentDecision(headers, marker, body);
  if (decision === 'keep') headers.segments.push(bytes);
  return decision !== 'refuse';
}

function takeFrame(headers: Headers, marker: number, body: Uint8Array): boolean {
  if (headers.frame) return false;
  headers.frame = readFrame(marker, body);
  if (headers.frame) headers.segments.push(yccFrameSegment(headers.frame));
  return headers.frame !== undefined;
}

/** Tables, restart intervals, comments and application data pass through; other frame types, arithmetic conditioning, DNL or EOI before the scan do not. */
function segmentDecision(headers: Headers, marker: number, body: Uint8Array): Decision {
  if (marker === DHT) return readHuffmanTables(body, headers.tables) ? 'keep' : 'refuse';
  if (marker === DRI) return readRestartInterval(body, headers);
  if (marker === DQT || marker === COM) return 'keep';
  if (isApp(marker)) return appDecision(marker, body);
  return 'refuse';
}

type Decision = 'keep' | 'drop' | 'refuse';

function readRestartInterval(body: Uint8Array, headers: Headers): Decision {
  headers.restartInterval = u16be(body, 0);
  return body.length === 2 ? 'keep' : 'refuse';
}

function withScan(headers: Headers, segment: Segment): ScanHeaders | undefined {
  const frame = headers.frame;
  const scan = frame && readScan(segment.body, frame.componentId, headers.tables);
  return scan && { ...headers, frame: frame!, scan, dataStart: segment.end };
}

/**
 * Progressive: the grey component's scans up to EOI, each header checked
 * and its data walked over to the next marker, its restart markers counted
 * (non-interleaved, a scan's MCU is one block). Between scans, what may be
 * before the first, except what the output would have to change, as these
 * segments are copied as they are: an ICC profile, an MPF or Adobe segment.
 */
function withScans(b: Uint8Array, headers: Headers, first: Segment): ProgressiveHeaders | undefined {
  const frame = headers.frame!;
  const tables = new Set<number>();
  for (let segment: Segment | undefined = first; segment; ) {
    let at = segment.end;
    if (segment.marker === SOS) {
      const scan = readProgressiveScan(segment.body, frame.componentId, (key) => headers.tables.has(key));
      const end = scan && scanDataEnd(b, segment.end, restartsIn(blockCount(frame), headers.restartInterval));
      if (!scan || end === undefined) return undefined;
      if (scan.table !== undefined) tables.add(scan.table);
      at = end;
    } else if (!keptBetweenScans(headers, segment)) return undefined;
    if (markerAt(b, at)?.code === EOI) return { ...headers, frame, scans: { start: first.start, end: at, tables } };
    segment = segmentAt(b, at);
  }
  return undefined;
}

/** A segment between progressive scans: as before the first, but no ICC profile (it is copied as it is, not swapped). */
function keptBetweenScans(headers: Headers, { marker, body }: Segment): boolean {
  return !(marker === APP2 && isIccChunk(body)) && segmentDecision(headers, marker, body) === 'keep';
}

/**
 * Adobe APP14: its transform flag could make decoders read the three
 * components as RGB. MPF: its offsets point at images after this one's end,
 * which the output drops. (ICC profiles are set aside before: setIccChunkAside.)
 */
function appDecision(marker: number, body: Uint8Array): Decision {
  if (marker === APP2 && startsWith(body, 'MPF\0')) return 'drop';
  if (marker === APP14 && startsWith(body, 'Adobe')) return 'drop';
  return 'keep';
}

/** A one-component, 8-bit frame of known height (zero means a DNL marker sets it later [B.2.5]), sampling factors 1–4 [B.2.2]. */
function readFrame(marker: number, body: Uint8Array): GreyFrame | undefined {
  if (body.length !== 9 || body[0] !== 8 || body[5] !== 1) return undefined;
  const frame = { marker, height: u16be(body, 1), width: u16be(body, 3), componentId: body[6]!, sampling: body[7]!, quantTable: body[8]! };
  const factors = [frame.sampling >> 4, frame.sampling & 0x0f].every((f) => f >= 1 && f <= 4);
  return frame.width > 0 && frame.height > 0 && factors && frame.quantTable <= 3 ? frame : undefined;
}

/**
 * The frame header of the output, Cb and Cr at 1×1 sharing the grey's
 * quantisation table (their coefficients are all zero). Sequential: the grey
 * component as Y, id 1 at 1×1, for the interleaved scan writeYccJpeg writes.
 * Progressive: the grey component as it was, id and sampling factors, which
 * its scans name and whose block grid they code (chromaBlocks).
 */
function yccFrameSegment(frame: GreyFrame): Uint8Array {
  const progressive = frame.marker === SOF2;
  const [cb, cr] = progressive ? chromaIds(frame.componentId) : [CB_ID, CR_ID];
  const grey = progressive ? [frame.componentId, frame.sampling] : [Y_ID, 0x11];
  const size = [frame.height >> 8, frame.height & 0xff, frame.width >> 8, frame.width & 0xff];
  return segmentOf(frame.marker, [8, ...size, 3, ...grey, frame.quantTable, cb, 0x11, frame.quantTable, cr, 0x11, frame.quantTable]);
}

/** The output from the headers read: segments, the chroma Huffman tables, the three-component scan and its data. */
function writeYccJpeg(b: Uint8Array, headers: ScanHeaders): Uint8Array {
  const blocks = blockCount(headers.frame);
  const out = new JpegWriter(b.length + blocks + 256);
  out.bytes([0xff, SOI]);
  headers.segments.forEach((segment) => out.bytes(segment));
  writeYccScan(b, out, headers, blocks);
  out.marker(EOI);
  return out.result();
}

/** The output of a progressive JPEG: segments, the grey scans as they were, then Cb and Cr's (writeChromaScans). */
function writeProgressiveJpeg(b: Uint8Array, headers: ProgressiveHeaders): Uint8Array {
  const { start, end, tables } = headers.scans;
  const out = new JpegWriter(b.length + (chromaBlocks(headers.frame) >> 2) + 512);
  out.bytes([0xff, SOI]);
  headers.segments.forEach((segment) => out.bytes(segment));
  out.bytes(b.subarray(start, end));
  writeChromaScans(out, headers.frame, chromaIds(headers.frame.componentId), headers.restartInterval, tables);
  out.marker(EOI);
  return out.result();
}

/** A one-component scan codes the component's own block grid, whatever its sampling factors [A.2.2]. */
function blockCount(frame: GreyFrame): number {
  return Math.ceil(frame.width / 8) * Math.ceil(frame.height / 8);
}
