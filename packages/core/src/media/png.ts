/**
 * The PNG mechanics every PNG reader and writer of the product shares (core's
 * `greyPngAsRgb`, the Photoshop panel's codec): the signature, chunks and
 * their CRC-32, and the row filters. Pure, so they run in Node, a browser
 * iframe and UXP alike; inflate and deflate are the caller's (the platform's
 * compression streams, or fflate where there are none).
 *
 * References in brackets are to the PNG specification, third edition (W3C, 2025).
 */

import { PfcError } from '../errors';

/** Corrupt data found once the output has begun: the error of the returned stream. */
export class PngDataError extends PfcError {
  override name = 'PngDataError';
  constructor(problem: string, options?: { cause?: unknown }) {
    super(`corrupt PNG: ${problem}`, options);
  }
}

/** The eight bytes every PNG starts with [5.2]. */
export const PNG_SIGNATURE: readonly number[] = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** Filter types of filter method 0 [9.2]. */
export const PNG_FILTER = { none: 0, sub: 1, up: 2, average: 3, paeth: 4 } as const;

/**
 * Undo a row's filter in place [9.2]: `previous` is the row above, unfiltered
 * (zeros for an image's, or an Adam7 pass's, first row); `bpp` bytes back is
 * the pixel to the left (at least 1). The filter type byte is not part of
 * `row`; a type PNG does not define is the caller's to refuse.
 */
export function unfilterPngRow(type: number, row: Uint8Array, previous: Uint8Array, bpp: number): void {
  const n = row.length;
  switch (type) {
    case PNG_FILTER.sub:
      for (let i = bpp; i < n; i++) row[i] = row[i]! + row[i - bpp]!;
      break;
    case PNG_FILTER.up:
      for (let i = 0; i < n; i++) row[i] = row[i]! + previous[i]!;
      break;
    case PNG_FILTER.average:
      for (let i = 0; i < n; i++) row[i] = row[i]! + ((left(row, i, bpp) + previous[i]!) >> 1);
      break;
    case PNG_FILTER.paeth:
      for (let i = 0; i < n; i++) row[i] = row[i]! + paeth(left(row, i, bpp), previous[i]!, left(previous, i, bpp));
      break;
  }
}

/** The byte of the pixel to the left, zero for the first pixel [9.2]. */
function left(row: Uint8Array, i: number, bpp: number): number {
  return i >= bpp ? row[i - bpp]! : 0;
}

/** The Paeth predictor [9.4]: of left, above and upper left, the one nearest to left + above − upper left, ties in that order. */
export function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  if (pa <= pb && pa <= pc) return a;
  return pb <= pc ? b : c;
}

/** A whole chunk: length, type, data, CRC [5.3]. */
export function pngChunk(type: string, data: Uint8Array): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(12 + data.length);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, data.length);
  for (let i = 0; i < 4; i++) bytes[4 + i] = type.charCodeAt(i);
  bytes.set(data, 8);
  view.setUint32(8 + data.length, crcValue(crc32(CRC_START, bytes.subarray(4, 8 + data.length))));
  return bytes;
}

/** Where a running CRC-32 starts. */
export const CRC_START = 0xffffffff;
let crcTable: Uint32Array | undefined;

/** The running CRC-32 [5.5] (ISO 3309, polynomial 0xEDB88320 reflected) after `bytes`; start from {@link CRC_START}, finish with {@link crcValue}. */
export function crc32(crc: number, bytes: Uint8Array): number {
  const table = (crcTable ??= makeCrcTable());
  let c = crc;
  for (let i = 0; i < bytes.length; i++) c = table[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return c;
}

/** The CRC a chunk stores, from a running one. */
export function crcValue(crc: number): number {
  return (crc ^ 0xffffffff) >>> 0;
}

function makeCrcTable(): Uint32Array {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c;
  }
  return table;
}
