/**
 * The entropy-coded half of yccJpegAsGrey (ycc-jpeg-grey.ts): the one
 * interleaved scan of a YCbCr JPEG read MCU by MCU, its chroma blocks
 * checked empty, its luma blocks written out as the one-component scan of a
 * greyscale JPEG. A one-component scan codes its blocks in raster order
 * [A.2.2], where an interleaved one codes each MCU's H × V luma blocks
 * together [A.2.3]: one MCU row of luma blocks is held, then written row by
 * row. Each block's AC codes and bits are copied as they are; its DC is
 * coded again, as a difference from the block now before it, with the
 * standard luminance DC table [K.3], which has a code for every difference
 * (a table made for the image may lack the new ones). The blocks that only
 * pad the last MCU column or row are left out, as a one-component scan has
 * none. Restart markers are read, not written (the output has no interval).
 * ITU T.81 references in brackets.
 */

import type { JpegWriter } from './grey-jpeg-progressive';
import { type EntropyReader, type HuffmanTable, MAX_AC_SIZE, MAX_DC_CATEGORY, readCode, Refusal } from './grey-jpeg-sequential';

const EOI = 0xd9;
const RST0 = 0xd0;

/** What the luma re-coding needs of the frame and scan. */
export interface LumaScan {
  width: number;
  height: number;
  /** The luma component's sampling factors; Cb and Cr are 1 × 1. */
  h: number;
  v: number;
  restartInterval: number;
  luma: { dc: HuffmanTable; ac: HuffmanTable };
  chroma: [{ dc: HuffmanTable; ac: HuffmanTable }, { dc: HuffmanTable; ac: HuffmanTable }];
}

/**
 * The standard luminance DC table [K.3, Table K.3]: code lengths of the
 * categories 0–11, as a DHT segment gives them (count per length, symbols).
 */
export const STANDARD_LUMA_DC = {
  counts: [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0],
  symbols: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
} as const;

/** Each category's code and length under {@link STANDARD_LUMA_DC} (canonical codes [C.2]). */
const DC_CODES = canonicalCodes(STANDARD_LUMA_DC.counts, STANDARD_LUMA_DC.symbols);

/**
 * Read the scan from `input` (its data start) to EOI and write the luma
 * blocks' data to `out`; throws a Refusal for a chroma block with any
 * coefficient, or for data no decoder would read as this image.
 */
export function writeLumaScan(input: EntropyReader, out: JpegWriter, scan: LumaScan): void {
  const mcuColumns = Math.ceil(scan.width / (8 * scan.h));
  const mcuRows = Math.ceil(scan.height / (8 * scan.v));
  const row = new McuRow(mcuColumns * scan.h, scan.v);
  const reader = new LumaReader(input, scan);
  let outputDc = 0;
  for (let r = 0; r < mcuRows; r++) {
    row.clear();
    for (let c = 0; c < mcuColumns; c++) reader.readMcu(row, c);
    outputDc = row.write(out, scan, r, outputDc);
  }
  input.expectMarker(EOI);
}

/**
 * One MCU row of luma blocks, in block rows: each block's DC value and its AC
 * codes and bits, each as value << 5 | length (a length is at most 16), in
 * one buffer kept from row to row.
 */
class McuRow {
  readonly dc: Int32Array;
  private readonly acStart: Int32Array;
  private readonly acEnd: Int32Array;
  private ac = new Int32Array(1 << 16);
  private acLength = 0;

  constructor(
    readonly columns: number,
    rows: number,
  ) {
    this.dc = new Int32Array(columns * rows);
    this.acStart = new Int32Array(columns * rows);
    this.acEnd = new Int32Array(columns * rows);
  }

  clear(): void {
    this.acLength = 0;
  }

  beginAc(block: number): void {
    this.acStart[block] = this.acLength;
  }

  pushAc(value: number, length: number): void {
    if (this.acLength === this.ac.length) {
      const grown = new Int32Array(this.ac.length * 2);
      grown.set(this.ac);
      this.ac = grown;
    }
    this.ac[this.acLength++] = (value << 5) | length;
  }

  endAc(block: number): void {
    this.acEnd[block] = this.acLength;
  }

  /** Its block rows that are inside the image, each block inside it, in raster order; returns the last DC written. */
  write(out: JpegWriter, scan: LumaScan, mcuRow: number, previousDc: number): number {
    const blockColumns = Math.ceil(scan.width / 8);
    const blockRows = Math.ceil(scan.height / 8);
    let dc = previousDc;
    for (let y = 0; y < scan.v && mcuRow * scan.v + y < blockRows; y++) {
      for (let x = 0; x < blockColumns; x++) {
        const block = y * this.columns + x;
        writeDcDifference(out, this.dc[block]! - dc);
        dc = this.dc[block]!;
        for (let k = this.acStart[block]!; k < this.acEnd[block]!; k++) out.bits(this.ac[k]! >>> 5, this.ac[k]! & 0x1f);
      }
    }
    return dc;
  }
}

/** Reads MCUs in order, with their restart markers and DC predictions [F.2.1.3, F.2.2.1]. */
class LumaReader {
  private mcus = 0;
  private restarts = 0;
  private dc = 0;

  constructor(
    private readonly input: EntropyReader,
    private readonly scan: LumaScan,
  ) {}

  /** MCU `column` of the current row: its H × V luma blocks into `row`, then its empty Cb and Cr blocks. */
  readMcu(row: McuRow, column: number): void {
    this.restartIfDue();
    for (let y = 0; y < this.scan.v; y++) {
      for (let x = 0; x < this.scan.h; x++) this.readLumaBlock(row, y * row.columns + column * this.scan.h + x);
    }
    for (const { dc, ac } of this.scan.chroma) skipEmptyBlock(this.input, dc, ac);
    this.mcus++;
  }

  private restartIfDue(): void {
    const interval = this.scan.restartInterval;
    if (interval === 0 || this.mcus === 0 || this.mcus % interval !== 0) return;
    this.input.expectMarker(RST0 + (this.restarts++ & 7));
    this.dc = 0;
  }

  /** One luma block [F.2.2]: its DC value (the prediction plus the coded difference) and its AC codes and bits as they are. */
  private readLumaBlock(row: McuRow, block: number): void {
    const { dc, ac } = this.scan.luma;
    const category = readCode(this.input, dc).symbol;
    if (category > MAX_DC_CATEGORY) throw new Refusal('DC category');
    this.dc += extend(this.input.bits(category), category);
    row.dc[block] = this.dc;
    row.beginAc(block);
    for (let k = 1; k < 64; k++) {
      const code = readCode(this.input, ac);
      row.pushAc(code.code, code.length);
      const run = code.symbol >> 4;
      const size = code.symbol & 0x0f;
      if (size === 0 && run !== 15) break; // end of block
      if (size > MAX_AC_SIZE) throw new Refusal('AC size');
      k += run;
      if (k > 63 && size !== 0) throw new Refusal('coefficient past the block');
      row.pushAc(this.input.bits(size), size);
    }
    row.endAc(block);
  }
}

/** A chroma block with no coefficient: DC difference 0 (its prediction starts at 0 and stays there) and end of block at once [F.1.2]. */
function skipEmptyBlock(input: EntropyReader, dc: HuffmanTable, ac: HuffmanTable): void {
  if (readCode(input, dc).symbol !== 0 || readCode(input, ac).symbol !== 0x00) throw new Refusal('colour');
}

/** The value of `bits` read for a difference of `category` [F.2.2.1, EXTEND]. */
function extend(bits: number, category: number): number {
  return category === 0 ? 0 : bits < 1 << (category - 1) ? bits - (1 << category) + 1 : bits;
}

/** A DC difference: its category's code under the standard table, then its bits (a negative one as its ones' complement) [F.1.2.1]. */
function writeDcDifference(out: JpegWriter, difference: number): void {
  const magnitude = Math.abs(difference);
  const category = magnitude === 0 ? 0 : 32 - Math.clz32(magnitude);
  const code = DC_CODES.get(category)!;
  out.bits(code.code, code.length);
  if (category > 0) out.bits(difference < 0 ? (difference - 1) & ((1 << category) - 1) : difference, category);
}

/** Symbol → canonical code [C.2]. */
function canonicalCodes(counts: readonly number[], symbols: readonly number[]): Map<number, { code: number; length: number }> {
  const codes = new Map<number, { code: number; length: number }>();
  let code = 0;
  let k = 0;
  for (let length = 1; length <= 16; length++) {
    for (let n = 0; n < counts[length - 1]!; n++) codes.set(symbols[k++]!, { code: code++, length });
    code <<= 1;
  }
  return codes;
}
