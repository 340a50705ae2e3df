/**
 * The sequential half of greyJpegAsYcc (grey-jpeg.ts): the one scan of a
 * sequential grey JPEG (SOF0/SOF1), checked and rewritten as one scan
 * interleaving Y, Cb and Cr. Its entropy-coded data is decoded only as far
 * as each Huffman code's length and symbol: every grey block's codes and
 * bits are copied as they are, then an empty Cb and an empty Cr block, so
 * the grey's coefficients stay bit for bit. Data no decoder would read as
 * this image is refused (a Refusal, caught by greyJpegAsYcc). Also the
 * Huffman tables as DHT segments define them (grey-jpeg.ts reads those of
 * either process; only this half decodes with them). ITU T.81 references
 * in brackets.
 */

import { type JpegWriter, markerAt, segmentOf } from './grey-jpeg-progressive';

const EOI = 0xd9;
const SOS = 0xda;
const DHT = 0xc4;
const RST0 = 0xd0;
/** Output component ids of a sequential JPEG: JFIF names 1, 2, 3 as Y, Cb, Cr. */
export const Y_ID = 1;
export const CB_ID = 2;
export const CR_ID = 3;
/** 8-bit samples: DC differences use categories 0–11, AC coefficients sizes 1–10 [F.1.2]. */
export const MAX_DC_CATEGORY = 11;
export const MAX_AC_SIZE = 10;

/** Thrown by the entropy reader on data no decoder would read as this image (or the reverse rewrite cannot carry); caught at the top. */
export class Refusal extends Error {}

export interface ScanTables {
  dcTable: number;
  acTable: number;
}

/** What the scan's re-coding needs of the headers read before it (ScanHeaders, grey-jpeg.ts). */
export interface SequentialScan {
  scan: ScanTables;
  /** Huffman tables by class (0 DC, 1 AC) × 4 + id, as defined when the scan starts. */
  tables: Map<number, HuffmanTable>;
  restartInterval: number;
  /** Where the entropy-coded data starts. */
  dataStart: number;
}

/** A single, sequential scan of the grey component whose Huffman tables are defined. */
export function readScan(body: Uint8Array, componentId: number, tables: Map<number, HuffmanTable>): ScanTables | undefined {
  if (body.length !== 6 || body[0] !== 1 || body[1] !== componentId) return undefined;
  const scan = { dcTable: body[2]! >> 4, acTable: body[2]! & 0x0f };
  const fullSpectrum = body[3] === 0 && body[4] === 63 && body[5] === 0;
  return fullSpectrum && tables.has(dcKey(scan.dcTable)) && tables.has(acKey(scan.acTable)) ? scan : undefined;
}

/**
 * The output's scan, after its other segments: the chroma Huffman tables,
 * the three-component scan header and its data, re-coded from the grey
 * scan's, which must end at EOI (the caller writes it).
 */
export function writeYccScan(b: Uint8Array, out: JpegWriter, headers: SequentialScan, blocks: number): void {
  const chroma = { dcTable: otherTable(headers.scan.dcTable), acTable: otherTable(headers.scan.acTable) };
  out.bytes(chromaHuffmanSegment(chroma));
  out.bytes(yccScanSegment(headers.scan, chroma));
  transcodeBlocks(new EntropyReader(b, headers.dataStart), out, headers, blocks);
}

/** A table id the grey scan does not use (baseline allows ids 0 and 1 only). */
function otherTable(id: number): number {
  return id === 0 ? 1 : 0;
}

/**
 * Chroma blocks carry one symbol per table: DC category 0 (difference 0) and
 * AC 0x00 (end of block), each coded as the single one-bit code "0".
 */
function chromaHuffmanSegment(chroma: ScanTables): Uint8Array {
  const oneCode = [1, ...new Array<number>(15).fill(0), 0x00];
  return segmentOf(DHT, [chroma.dcTable, ...oneCode, 0x10 | chroma.acTable, ...oneCode]);
}

function yccScanSegment(grey: ScanTables, chroma: ScanTables): Uint8Array {
  const tables = (scan: ScanTables) => (scan.dcTable << 4) | scan.acTable;
  return segmentOf(SOS, [3, Y_ID, tables(grey), CB_ID, tables(chroma), CR_ID, tables(chroma), 0, 63, 0]);
}

/** The chroma DC code "0" and AC end-of-block code "0" of {@link chromaHuffmanSegment}. */
const EMPTY_CHROMA_BLOCK = { code: 0b00, length: 2 };

/**
 * Every grey block's bits, copied as they are, then an empty Cb and Cr block;
 * restart markers where the grey data has them (the interval counts MCUs, and
 * one grey block becomes one three-block MCU).
 */
function transcodeBlocks(input: EntropyReader, out: JpegWriter, headers: SequentialScan, blocks: number): void {
  const dc = headers.tables.get(dcKey(headers.scan.dcTable))!;
  const ac = headers.tables.get(acKey(headers.scan.acTable))!;
  const interval = headers.restartInterval;
  for (let n = 0; n < blocks; n++) {
    if (interval > 0 && n > 0 && n % interval === 0) copyRestart(input, out, RST0 + ((n / interval - 1) & 7));
    copyBlock(input, out, dc, ac);
    out.bits(EMPTY_CHROMA_BLOCK.code, EMPTY_CHROMA_BLOCK.length);
    out.bits(EMPTY_CHROMA_BLOCK.code, EMPTY_CHROMA_BLOCK.length);
  }
  input.expectMarker(EOI);
}

export function copyRestart(input: EntropyReader, out: JpegWriter, marker: number): void {
  input.expectMarker(marker);
  out.marker(marker);
}

/** One block [F.2.2]: a DC category and its bits, then AC run/size codes and bits up to end of block or the 63rd coefficient. */
export function copyBlock(input: EntropyReader, out: JpegWriter, dc: HuffmanTable, ac: HuffmanTable): void {
  const category = copyCode(input, out, dc);
  if (category > MAX_DC_CATEGORY) throw new Refusal('DC category');
  copyBits(input, out, category);
  for (let k = 1; k < 64; k++) {
    const runSize = copyCode(input, out, ac);
    const run = runSize >> 4;
    const size = runSize & 0x0f;
    if (size === 0 && run !== 15) return; // end of block
    if (size > MAX_AC_SIZE) throw new Refusal('AC size');
    k += run; // a ZRL (run 15, size 0) skips 16 zeros: 15 here, one by the loop
    if (k > 63 && size !== 0) throw new Refusal('coefficient past the block');
    copyBits(input, out, size);
  }
}

/** Decode one Huffman code only to learn its length and symbol [F.2.2.3]; write it unchanged. */
function copyCode(input: EntropyReader, out: JpegWriter, table: HuffmanTable): number {
  const { code, length, symbol } = readCode(input, table);
  out.bits(code, length);
  return symbol;
}

/** One Huffman code [F.2.2.3]: its bits, their count and the symbol they stand for. */
export function readCode(input: EntropyReader, table: HuffmanTable): { code: number; length: number; symbol: number } {
  let code = 0;
  for (let length = 1; length <= 16; length++) {
    code = (code << 1) | input.bit();
    if (code <= table.maxCode[length]!) return { code, length, symbol: table.symbols[table.offset[length]! + code]! };
  }
  throw new Refusal('no such Huffman code');
}

function copyBits(input: EntropyReader, out: JpegWriter, count: number): void {
  out.bits(input.bits(count), count);
}

/** A canonical Huffman table [C.2, F.2.2.3]: per code length, the largest code and where its symbols start. */
export interface HuffmanTable {
  maxCode: Int32Array;
  offset: Int32Array;
  symbols: Uint8Array;
}

export function dcKey(id: number): number {
  return id;
}

export function acKey(id: number): number {
  return 4 + id;
}

/** Canonical codes from the count of codes per length; undefined for an overfull table (as libjpeg refuses it). */
export function huffmanTable(counts: Uint8Array, symbols: Uint8Array): HuffmanTable | undefined {
  const maxCode = new Int32Array(17).fill(-1);
  const offset = new Int32Array(17);
  let code = 0;
  let index = 0;
  for (let length = 1; length <= 16; length++) {
    const n = counts[length - 1]!;
    offset[length] = index - code;
    code += n;
    index += n;
    if (n > 0) maxCode[length] = code - 1;
    if (code >= 1 << length) return undefined;
    code <<= 1;
  }
  return index <= 256 ? { maxCode, offset, symbols } : undefined;
}

/** Reads entropy-coded bits, removing the stuffed zero after each 0xFF [F.1.2.3]; a marker inside a block is corrupt data. */
export class EntropyReader {
  private byte = 0;
  private left = 0;

  constructor(
    private readonly b: Uint8Array,
    private at: number,
  ) {}

  bit(): number {
    if (this.left === 0) this.nextByte();
    this.left--;
    return (this.byte >> this.left) & 1;
  }

  /** The next `count` (≤ 16) bits as a number, most significant first. */
  bits(count: number): number {
    let value = 0;
    for (let i = 0; i < count; i++) value = (value << 1) | this.bit();
    return value;
  }

  /** Skip the 1-bit padding of the last byte [F.1.2.3] and read `marker`, after any fill bytes. */
  expectMarker(marker: number): void {
    this.left = 0;
    const found = markerAt(this.b, this.at);
    if (found?.code !== marker) throw new Refusal('marker expected');
    this.at = found.end;
  }

  private nextByte(): void {
    const byte = this.b[this.at];
    if (byte === undefined) throw new Refusal('data ends');
    if (byte === 0xff && this.b[this.at + 1] !== 0x00) throw new Refusal('marker inside a block');
    this.byte = byte;
    this.left = 8;
    this.at += byte === 0xff ? 2 : 1;
  }
}
