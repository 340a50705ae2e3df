/**
 * Marker segments of a JPEG as the lossless grey ⇄ colour rewrites read
 * them (grey-jpeg.ts, ycc-jpeg-grey.ts): one segment at a time, and the
 * Huffman tables of DHT segments. ITU T.81 references in brackets.
 */

import { u16be } from './bytes';
import { markerAt } from './grey-jpeg-progressive';
import { acKey, dcKey, huffmanTable, type HuffmanTable } from './grey-jpeg-sequential';

export const SOI = 0xd8;
export const EOI = 0xd9;
export const SOS = 0xda;
export const DHT = 0xc4;
export const DQT = 0xdb;
export const DRI = 0xdd;
export const COM = 0xfe;
export const APP0 = 0xe0;
export const APP2 = 0xe2;
export const APP14 = 0xee;

export interface Segment {
  marker: number;
  start: number;
  /** The whole segment, marker included. */
  bytes: Uint8Array;
  /** What follows the length field. */
  body: Uint8Array;
  end: number;
}

/** The marker segment at `at` [B.1.1.4]; undefined when there is none or its length runs past the data. */
export function segmentAt(b: Uint8Array, at: number): Segment | undefined {
  const marker = markerAt(b, at);
  if (!marker) return undefined;
  const length = u16be(b, marker.end);
  const end = marker.end + length;
  if (length < 2 || end > b.length) return undefined;
  return { marker: marker.code, start: marker.start, bytes: b.subarray(marker.start, end), body: b.subarray(marker.end + 2, end), end };
}

/** Every table of a DHT segment into `tables` (class × 4 + id) [B.2.4.2]; false when malformed. */
export function readHuffmanTables(body: Uint8Array, tables: Map<number, HuffmanTable>): boolean {
  for (let at = 0; at < body.length; ) {
    const tableClass = body[at]! >> 4;
    const id = body[at]! & 0x0f;
    const counts = body.subarray(at + 1, at + 17);
    const total = counts.reduce((sum, n) => sum + n, 0);
    const symbols = body.subarray(at + 17, at + 17 + total);
    const table = counts.length === 16 && symbols.length === total ? huffmanTable(counts, symbols) : undefined;
    if (tableClass > 1 || id > 3 || !table) return false;
    tables.set(tableClass === 0 ? dcKey(id) : acKey(id), table);
    at += 17 + total;
  }
  return true;
}

/** Application segments APPn [B.2.4.6]. */
export function isApp(marker: number): boolean {
  return marker >= APP0 && marker <= APP0 + 15;
}

export function startsWith(b: Uint8Array, text: string): boolean {
  return b.length >= text.length && [...text].every((c, i) => b[i] === c.charCodeAt(0));
}
