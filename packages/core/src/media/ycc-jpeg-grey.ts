/**
 * The reverse of greyJpegAsYcc (grey-jpeg.ts), for what comes back: a
 * greyscale photo is sent to the Web API as colour (it takes RGB only), and
 * its corrected result is a colour JPEG whose every pixel is R = G = B — its
 * Cb and Cr blocks hold no coefficient at all. Written as the one-component
 * JPEG it is, the user's black-and-white photo stays a greyscale file,
 * without a re-encode: the luma blocks' coefficients are kept as they are
 * (ycc-jpeg-luma), the empty chroma blocks left out, an RGB ICC profile
 * swapped for the grey one that shows the same tones (grey-icc-from-rgb).
 * Here: the segments before the scan, read and checked, and the output put
 * together. Pure: bytes in, bytes out (ITU T.81 references in brackets).
 */

import { u16be } from './bytes';
import { greyProfileForRgb } from './grey-icc-from-rgb';
import { JpegWriter, segmentOf } from './grey-jpeg-progressive';
import { acKey, dcKey, EntropyReader, type HuffmanTable, type ScanTables } from './grey-jpeg-sequential';
import { STANDARD_LUMA_DC, writeLumaScan } from './ycc-jpeg-luma';
import { isIccChunk, setIccChunkAside, withConvertedProfile } from './jpeg-icc';
import { APP0, APP14, APP2, COM, DHT, DQT, DRI, EOI, isApp, readHuffmanTables, type Segment, segmentAt, SOI, SOS, startsWith } from './jpeg-segments';

/**
 * The same image as a one-component greyscale JPEG, when `bytes` is a
 * three-component YCbCr JPEG, sequential and Huffman-coded (SOF0/SOF1), 8-bit,
 * Cb and Cr sampled 1×1 under any luma sampling (4:4:4, 4:2:2, 4:2:0…), in
 * one interleaved scan, whose Cb and Cr blocks are all empty (DC difference
 * 0, end of block at once): every pixel is R = G = B, and the decoded grey
 * samples are exactly the decoded luma. Its restart interval is not kept. Metadata segments (EXIF, XMP, comments) are kept; an RGB ICC profile
 * becomes the grey profile {@link greyProfileForRgb} derives from it.
 * Undefined — never a throw, never a different image — for anything else:
 * any colour at all (one coefficient of Cb or Cr), chroma sampled other than
 * 1×1, progressive, arithmetic-coded, 12-bit, several scans, components stored as
 * RGB (an Adobe segment saying so, or ids 'R', 'G', 'B' without JFIF), a
 * profile that cannot become a grey one, malformed or truncated data.
 *
 * @example
 * const written = media.grey ? (yccJpegAsGrey(result) ?? result) : result;
 */
export function yccJpegAsGrey(bytes: Uint8Array): Uint8Array | undefined {
  try {
    // An RGB profile becomes the grey one showing the same tones, in its place.
    const headers = withConvertedProfile(readHeaders(bytes), greyProfileForRgb);
    return headers && writeGreyJpeg(bytes, headers);
  } catch {
    // Colour in a chroma block (a Refusal), or truncated or corrupt data: the caller keeps the colour JPEG.
    return undefined;
  }
}

/** Huffman-coded sequential DCT frames [B.1.1.3]: baseline and extended. */
const SEQUENTIAL_FRAMES = new Set([0xc0, 0xc1]);
/** Every other frame type: progressive, lossless, hierarchical, arithmetic-coded. */
const OTHER_FRAMES = new Set([0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf]);

interface Component {
  id: number;
  /** H << 4 | V [B.2.2]. */
  sampling: number;
  quantTable: number;
}

interface Frame {
  marker: number;
  width: number;
  height: number;
  /** Y, Cb, Cr in frame order. */
  components: [Component, Component, Component];
}

interface Headers {
  /** Segments to copy, in order, the frame header already rewritten for one component. */
  segments: Uint8Array[];
  frame?: Frame;
  tables: Map<number, HuffmanTable>;
  restartInterval: number;
  icc?: { at: number; chunks: Uint8Array[] };
  jfif: boolean;
  /** The Adobe segment's colour transform (0: the components are R, G, B). */
  adobeTransform?: number;
}

interface ScanHeaders extends Headers {
  frame: Frame;
  /** Each component's Huffman tables, in frame order. */
  scan: [ScanTables, ScanTables, ScanTables];
  dataStart: number;
}

function readHeaders(b: Uint8Array): ScanHeaders | undefined {
  if (b[0] !== 0xff || b[1] !== SOI) return undefined;
  const headers: Headers = { segments: [], tables: new Map(), restartInterval: 0, jfif: false };
  for (let at = 2; ; ) {
    const segment = segmentAt(b, at);
    if (!segment) return undefined;
    if (segment.marker === SOS) return withScan(headers, segment);
    if (!takeSegment(headers, segment)) return undefined;
    at = segment.end;
  }
}

/** Record one segment before the scan; false for one the output cannot carry. */
function takeSegment(headers: Headers, { marker, bytes, body }: Segment): boolean {
  if (SEQUENTIAL_FRAMES.has(marker)) return takeFrame(headers, marker, body);
  if (OTHER_FRAMES.has(marker)) return false;
  if (marker === DHT) return keepIf(headers, bytes, readHuffmanTables(body, headers.tables));
  // Read, not kept: the output's blocks run in another order (ycc-jpeg-luma).
  if (marker === DRI) {
    headers.restartInterval = u16be(body, 0);
    return body.length === 2;
  }
  if (marker === DQT || marker === COM) return keepIf(headers, bytes, true);
  if (isApp(marker)) return takeApp(headers, marker, bytes, body);
  return false;
}

function keepIf(headers: Headers, bytes: Uint8Array, ok: boolean): boolean {
  if (ok) headers.segments.push(bytes);
  return ok;
}

/**
 * JFIF and Adobe say how to read three components (libjpeg's rule, jdapimin.c):
 * noted, the Adobe segment dropped (a grey JPEG needs no transform flag). The
 * ICC profile's chunks set aside to be swapped; MPF dropped (its offsets point
 * past this image's end, which the output moves). Other application data kept.
 */
function takeApp(headers: Headers, marker: number, bytes: Uint8Array, body: Uint8Array): boolean {
  if (marker === APP2 && isIccChunk(body)) {
    setIccChunkAside(headers, body);
    return true;
  }
  if (marker === APP14 && startsWith(body, 'Adobe')) {
    headers.adobeTransform = body[11];
    return true;
  }
  if (marker === APP2 && startsWith(body, 'MPF\0')) return true;
  if (marker === APP0 && startsWith(body, 'JFIF\0')) headers.jfif = true;
  headers.segments.push(bytes);
  return true;
}

/** Three 8-bit components of known height: luma at 1–4 × 1–4, at most 8 blocks an MCU with the two chroma ones [B.2.2, B.2.3], Cb and Cr at 1×1. */
function takeFrame(headers: Headers, marker: number, body: Uint8Array): boolean {
  if (headers.frame || body.length !== 6 + 3 * 3 || body[0] !== 8 || body[5] !== 3) return false;
  const component = (k: number): Component | undefined => {
    const at = 6 + 3 * k;
    return body[at + 2]! <= 3 ? { id: body[at]!, sampling: body[at + 1]!, quantTable: body[at + 2]! } : undefined;
  };
  const [y, cb, cr] = [component(0), component(1), component(2)];
  const frame = { marker, height: u16be(body, 1), width: u16be(body, 3) };
  if (!y || !cb || !cr || frame.width === 0 || frame.height === 0 || cb.sampling !== 0x11 || cr.sampling !== 0x11) return false;
  const [h, v] = [y.sampling >> 4, y.sampling & 0x0f];
  if (h < 1 || h > 4 || v < 1 || v > 4 || h * v > 8) return false;
  headers.frame = { ...frame, components: [y, cb, cr] };
  headers.segments.push(greyFrameSegment(headers.frame));
  return true;
}

/** The one scan: all three components in frame order [B.2.3], full spectrum, no successive approximation, its tables defined. */
function withScan(headers: Headers, segment: Segment): ScanHeaders | undefined {
  const { frame } = headers;
  const b = segment.body;
  if (!frame || !isYcc(headers, frame) || b.length !== 1 + 2 * 3 + 3 || b[0] !== 3) return undefined;
  const scan = frame.components.map((c, k) => (b[1 + 2 * k] === c.id ? { dcTable: b[2 + 2 * k]! >> 4, acTable: b[2 + 2 * k]! & 0x0f } : undefined));
  const defined = scan.every((t) => t && headers.tables.has(dcKey(t.dcTable)) && headers.tables.has(acKey(t.acTable)));
  const fullSpectrum = b[7] === 0 && b[8] === 63 && b[9] === 0;
  return defined && fullSpectrum ? { ...headers, frame, scan: scan as ScanHeaders['scan'], dataStart: segment.end } : undefined;
}

/** YCbCr, not RGB, as libjpeg decides: JFIF says YCbCr; else an Adobe segment's transform; else ids 'R', 'G', 'B' mean RGB. */
function isYcc(headers: Headers, frame: Frame): boolean {
  if (headers.jfif) return true;
  if (headers.adobeTransform !== undefined) return headers.adobeTransform !== 0;
  return frame.components.map((c) => String.fromCharCode(c.id)).join('') !== 'RGB';
}

/** The frame header of the output: the luma component alone, its id and quantisation table kept. */
function greyFrameSegment(frame: Frame): Uint8Array {
  const y = frame.components[0];
  return segmentOf(frame.marker, [8, frame.height >> 8, frame.height & 0xff, frame.width >> 8, frame.width & 0xff, 1, y.id, 0x11, y.quantTable]);
}

/** Segments, the standard DC table under the luma's DC table id (its differences are coded again), the one-component scan and its data. */
function writeGreyJpeg(b: Uint8Array, headers: ScanHeaders): Uint8Array {
  const [y, cb, cr] = headers.scan;
  const out = new JpegWriter(b.length);
  out.bytes([0xff, SOI]);
  headers.segments.forEach((segment) => out.bytes(segment));
  out.bytes(segmentOf(DHT, [y.dcTable, ...STANDARD_LUMA_DC.counts, ...STANDARD_LUMA_DC.symbols]));
  out.bytes(segmentOf(SOS, [1, headers.frame.components[0].id, (y.dcTable << 4) | y.acTable, 0, 63, 0]));
  const tables = (t: ScanTables) => ({ dc: headers.tables.get(dcKey(t.dcTable))!, ac: headers.tables.get(acKey(t.acTable))! });
  const { width, height, components } = headers.frame;
  writeLumaScan(new EntropyReader(b, headers.dataStart), out, {
    width, height, h: components[0].sampling >> 4, v: components[0].sampling & 0x0f, restartInterval: headers.restartInterval,
    luma: tables(y), chroma: [tables(cb), tables(cr)],
  });
  out.marker(EOI);
  return out.result();
}
