/**
 * The progressive half of greyJpegAsYcc (grey-jpeg.ts), and what both
 * halves (the sequential one: grey-jpeg-sequential.ts) use: the output
 * writer, marker segments, the marker reader. A progressive grey JPEG codes
 * its one component in several scans, each a band of coefficients Ss..Se,
 * possibly in successive approximation (Ah, Al) [G.1.1]. All its scans are
 * non-interleaved (one component), so they code the component's own block
 * grid whatever the frame's other components: they stay as they are, byte
 * for byte — their headers and restart markers checked, their data not
 * decoded. The frame gains Cb and Cr, and scans appended before EOI give
 * these their coefficients, all zero. ITU T.81 references in brackets.
 */

export const SOF2 = 0xc2;
const DHT = 0xc4;
const DRI = 0xdd;
const SOS = 0xda;
const RST0 = 0xd0;
/** The longest run of empty blocks one EOBn code gives: EOB14 and 14 bits [G.1.2.2, Table G.1]. */
const MAX_EOBRUN = 0x7fff;
/** Successive approximation of 8-bit samples' coefficients: Al at most 13 [Table B.3]. */
const MAX_AL = 13;

/** What one grey scan needs: the Huffman table it decodes with, as class (0 DC, 1 AC) × 4 + id; none for a DC refinement. */
export interface GreyScan {
  table?: number;
}

/**
 * A progressive scan header [B.2.3, G.1.1.1] of the grey component alone,
 * its band and successive approximation valid (as libjpeg checks them), the
 * Huffman table it needs defined (`hasTable`, by class × 4 + id).
 */
export function readProgressiveScan(body: Uint8Array, componentId: number, hasTable: (key: number) => boolean): GreyScan | undefined {
  if (body.length !== 6 || body[0] !== 1 || body[1] !== componentId) return undefined;
  const [tables, ss, se, approximation] = [body[2]!, body[3]!, body[4]!, body[5]!];
  const ah = approximation >> 4;
  const al = approximation & 0x0f;
  const band = ss === 0 ? se === 0 : ss <= se && se <= 63;
  if (!band || al > MAX_AL || (ah !== 0 && ah !== al + 1)) return undefined;
  if (ss === 0 && ah > 0) return {}; // a DC refinement is one raw bit per block [G.1.2.1]
  const table = ss === 0 ? tables >> 4 : 4 + (tables & 0x0f);
  return hasTable(table) ? { table } : undefined;
}

/**
 * Where a scan's entropy-coded data ends: at the marker after it (its fill
 * bytes included). The data is not decoded, only walked over stuffed bytes
 * [F.1.2.3]; the restart markers in it must be RST0, RST1, … in turn [B.2.1],
 * `restarts` of them, each interval not empty. Undefined otherwise, or when
 * the bytes end first.
 */
export function scanDataEnd(b: Uint8Array, at: number, restarts: number): number | undefined {
  let seen = 0;
  for (let interval = at; ; ) {
    const ff = b.indexOf(0xff, at);
    const code = b[ff + 1];
    if (ff < 0 || code === undefined) return undefined;
    if (code === 0x00 || code === 0xff) {
      at = code === 0x00 ? ff + 2 : ff + 1; // a stuffed 0xFF, or a fill byte before a marker
      continue;
    }
    let start = ff;
    while (start > interval && b[start - 1] === 0xff) start--; // a data 0xFF is always stuffed: these are fill bytes
    if (start === interval) return undefined;
    const isRestart = code >= RST0 && code < RST0 + 8;
    if (!isRestart) return seen === restarts ? start : undefined;
    if (code !== RST0 + (seen & 7) || ++seen > restarts) return undefined;
    interval = at = ff + 2;
  }
}

/** Restart markers a non-interleaved scan of `blocks` blocks has at `interval` MCUs (here blocks) each, none after the last [B.2.1]. */
export function restartsIn(blocks: number, interval: number): number {
  return interval > 0 ? Math.ceil(blocks / interval) - 1 : 0;
}

/**
 * Component ids for Cb and Cr that do not clash with the grey's: the next
 * two (JFIF's 1, 2, 3 for the usual grey 1; never Adobe's 'R', 'G', 'B',
 * which decoders read as RGB), or the two below at the top of the range.
 */
export function chromaIds(greyId: number): [number, number] {
  return greyId <= 253 ? [greyId + 1, greyId + 2] : [greyId - 2, greyId - 1];
}

/** The grey frame as the appended scans need it. */
export interface ProgressiveGrey {
  width: number;
  height: number;
  /** Sampling factors H << 4 | V, each 1–4: as the only component it has the largest, Hmax and Vmax. */
  sampling: number;
}

/**
 * Blocks of a 1×1 component in the three-component frame: its size is the
 * image's over Hmax and Vmax, the grey's factors [A.1.1], in 8×8 blocks. The
 * grey's own grid, ⌈X·H/Hmax / 8⌉ × ⌈Y·V/Vmax / 8⌉, is ⌈X/8⌉ × ⌈Y/8⌉ before
 * and after: with Cb and Cr at 1×1 the grey keeps the largest factors, so
 * its scans code the blocks they did, whatever its factors.
 */
export function chromaBlocks(grey: ProgressiveGrey): number {
  return Math.ceil(grey.width / (8 * (grey.sampling >> 4))) * Math.ceil(grey.height / (8 * (grey.sampling & 0x0f)));
}

/** Huffman tables of the appended scans: DC category 0 as the code "0"; AC EOB0…EOB14 (run/size r/0) as 4-bit codes 0…14 [C.2]. */
const CHROMA_DC_TABLE = [1, ...new Array<number>(15).fill(0), 0x00];
const CHROMA_AC_TABLE = [0, 0, 0, 15, ...new Array<number>(12).fill(0), ...Array.from({ length: 15 }, (_, r) => r << 4)];

/**
 * Cb and Cr's scans, after the grey ones: for each, a DC first scan (Ss = Se
 * = 0, Ah = Al = 0: difference category 0 in every block) and an AC first
 * scan (Ss = 1, Se = 63, Ah = Al = 0: every block empty, in EOB runs)
 * [G.1.2.1, G.1.2.2], first DC scans before AC ones [G.1.1.1.1]. Each scan
 * is non-interleaved, as AC scans must be and DC scans may be [G.1.1.1.1]:
 * it codes the component's own grid, without the MCU of interleaved scans
 * to get wrong (decoders see the one form in the AC scans of every
 * progressive JPEG). Their Huffman tables take ids no grey scan uses (or
 * 0 if none is free: the grey scans are done, so redefining one is legal
 * [B.2.4.2]). A restart interval in force is set to 0 first (DRI between
 * scans [B.2.4.4]): no restart markers, and EOB runs need not stop at them.
 */
export function writeChromaScans(out: JpegWriter, grey: ProgressiveGrey, ids: [number, number], restartInterval: number, usedTables: Set<number>): void {
  if (restartInterval > 0) out.bytes(segmentOf(DRI, [0, 0]));
  const dc = freeTable(usedTables, 0);
  const ac = freeTable(usedTables, 4);
  out.bytes(segmentOf(DHT, [dc, ...CHROMA_DC_TABLE, 0x10 | ac, ...CHROMA_AC_TABLE]));
  const blocks = chromaBlocks(grey);
  for (const id of ids) {
    out.bytes(segmentOf(SOS, [1, id, dc << 4, 0, 0, 0x00]));
    out.bytes(new Uint8Array(blocks >> 3)); // one "0" bit a block
    out.bits(0, blocks & 7);
    out.align();
  }
  for (const id of ids) {
    out.bytes(segmentOf(SOS, [1, id, ac, 1, 63, 0x00]));
    for (let left = blocks; left > 0; ) {
      const run = Math.min(left, MAX_EOBRUN);
      const r = 31 - Math.clz32(run); // EOBr: a run of 2^r plus r more bits
      out.bits(r, 4);
      out.bits(run - (1 << r), r);
      left -= run;
    }
    out.align();
  }
}

/** The lowest id of a table class (`base` 0 DC, 4 AC) that no grey scan decodes with, else 0. */
function freeTable(used: Set<number>, base: number): number {
  return [0, 1, 2, 3].find((id) => !used.has(base + id)) ?? 0;
}

/** Output bytes, growing as needed; entropy-coded bits with 0xFF stuffing. */
export class JpegWriter {
  private out: Uint8Array;
  private length = 0;
  private pending = 0;
  private pendingBits = 0;

  constructor(capacity: number) {
    this.out = new Uint8Array(capacity);
  }

  /** Bytes as they are (marker segments, copied data): only on a byte boundary. */
  bytes(chunk: ArrayLike<number>): void {
    this.reserve(chunk.length);
    this.out.set(chunk, this.length);
    this.length += chunk.length;
  }

  /** The low `count` (≤ 16) bits of `value`, most significant first. */
  bits(value: number, count: number): void {
    this.pending = (this.pending << count) | value;
    this.pendingBits += count;
    while (this.pendingBits >= 8) {
      this.pendingBits -= 8;
      this.stuffedByte((this.pending >> this.pendingBits) & 0xff);
    }
    this.pending &= (1 << this.pendingBits) - 1;
  }

  /** Pad to a byte with 1-bits [F.1.2.3], as before a marker. */
  align(): void {
    if (this.pendingBits > 0) this.bits((1 << (8 - this.pendingBits)) - 1, 8 - this.pendingBits);
  }

  /** Pad to a byte, then the marker. */
  marker(code: number): void {
    this.align();
    this.bytes([0xff, code]);
  }

  result(): Uint8Array {
    return this.out.slice(0, this.length);
  }

  private stuffedByte(byte: number): void {
    this.reserve(2);
    this.out[this.length++] = byte;
    if (byte === 0xff) this.out[this.length++] = 0x00;
  }

  private reserve(extra: number): void {
    if (this.length + extra <= this.out.length) return;
    const grown = new Uint8Array(Math.max(this.out.length * 2, this.length + extra));
    grown.set(this.out.subarray(0, this.length));
    this.out = grown;
  }
}

/** A marker segment: marker, length (counting itself), body. */
export function segmentOf(marker: number, body: number[]): Uint8Array {
  const length = body.length + 2;
  return Uint8Array.from([0xff, marker, length >> 8, length & 0xff, ...body]);
}

/** The marker at `at` (after any 0xFF fill bytes [B.1.1.2]): its code, where it starts and where its segment length is. */
export function markerAt(b: Uint8Array, at: number): { code: number; start: number; end: number } | undefined {
  if (b[at] !== 0xff) return undefined;
  while (b[at + 1] === 0xff) at++;
  const code = b[at + 1];
  return code === undefined ? undefined : { code, start: at, end: at + 2 };
}
