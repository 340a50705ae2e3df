/**
 * PNG files for the grey-png tests. Inputs sharp cannot write (1-, 2- and
 * 4-bit grey, Adam7 at every depth, chosen filter types, odd chunks, corrupt
 * data) come from the small PNG writer below (node:zlib deflate and CRC-32);
 * sharp (libspng) decodes every input and output, so the writer is checked
 * too. Also: chunk readers and rewriters, input streams cut as told, and the
 * pixel comparison of a grey PNG with its RGB transcode.
 */

import { crc32, deflateSync, inflateSync } from 'node:zlib';
import sharp from 'sharp';
import { expect } from 'vitest';
import { greyPngAsRgb, type GreyPngOptions } from '../../src/index';

export const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const ADAM7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
] as const;

/** A whole chunk: length, type, data, CRC. */
export function chunk(type: string, data: Uint8Array | string = new Uint8Array(0)): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), typeof data === 'string' ? Buffer.from(data, 'latin1') : data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(body.length - 4);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

export interface PngChunk {
  type: string;
  data: Buffer;
  /** The whole chunk, length to CRC, and where it starts. */
  bytes: Buffer;
  offset: number;
}

export function chunksOf(png: Uint8Array): PngChunk[] {
  const b = Buffer.from(png.buffer, png.byteOffset, png.length);
  const chunks: PngChunk[] = [];
  for (let at = 8; at + 12 <= b.length; ) {
    const length = b.readUInt32BE(at);
    chunks.push({ type: b.toString('latin1', at + 4, at + 8), data: b.subarray(at + 8, at + 8 + length), bytes: b.subarray(at, at + 12 + length), offset: at });
    at += 12 + length;
  }
  return chunks;
}

/** A PNG of the signature and the chunks `change` makes of `png`'s. */
export function rebuilt(png: Uint8Array, change: (chunks: PngChunk[]) => Buffer[]): Buffer {
  return Buffer.concat([SIGNATURE, ...change(chunksOf(png))]);
}

/** Its IDAT chunks replaced by one holding `data`. */
export function withIdatData(png: Uint8Array, data: Buffer): Buffer {
  return rebuilt(png, (chunks) => chunks.flatMap((c, i) => (c.type !== 'IDAT' ? [c.bytes] : chunks[i - 1]?.type === 'IDAT' ? [] : [chunk('IDAT', data)])));
}

/** A tEXt chunk between its first and second IDAT. */
export function withTextBetweenIdats(png: Uint8Array): Buffer {
  return rebuilt(png, (chunks) => chunks.flatMap((c, i) => (c.type === 'IDAT' && i === chunks.findIndex((d) => d.type === 'IDAT') ? [c.bytes, chunk('tEXt', 'a\0b')] : [c.bytes])));
}

export function withByteFlipped(png: Uint8Array, at: number): Buffer {
  const copy = Buffer.from(png);
  copy[at]! ^= 0x01;
  return copy;
}

export const typesOf = (png: Uint8Array) => chunksOf(png).map((c) => c.type);
export const firstChunk = (png: Uint8Array, type: string) => chunksOf(png).find((c) => c.type === type)!;

/** An iCCP chunk: profile name, NUL, compression method, the compressed profile (PNG 11.3.2.3). */
export function iccpChunk(profile: Uint8Array, { name = 'Gray Gamma 2.2', method = 0, compressed = deflateSync(profile) }: { name?: string; method?: number; compressed?: Uint8Array } = {}): Buffer {
  return chunk('iCCP', Buffer.concat([Buffer.from(name, 'latin1'), Buffer.from([0, method]), compressed]));
}

/** The iCCP chunk's name, compression method and inflated profile. */
export function embeddedProfile(png: Uint8Array): { name: string; method: number; profile: Buffer } {
  const data = firstChunk(png, 'iCCP').data;
  const nul = data.indexOf(0);
  return { name: data.toString('latin1', 0, nul), method: data[nul + 1]!, profile: inflateSync(data.subarray(nul + 2)) };
}

/** The PNG without its iCCP chunk. */
export const withoutIccp = (png: Uint8Array) => rebuilt(png, (chunks) => chunks.filter((c) => c.type !== 'iCCP').map((c) => c.bytes));

export interface GreyImage {
  width: number;
  height: number;
  depth: 1 | 2 | 4 | 8 | 16;
  alpha?: boolean;
  interlaced?: boolean;
  /** Sample `c` (0 grey, 1 alpha) of pixel x, y, below 2^depth; a hash by default. */
  sample?: (x: number, y: number, c: number) => number;
  /** Chunks after IHDR, and after the image data. */
  before?: readonly Buffer[];
  after?: readonly Buffer[];
  /** Filter type of the nth row written (all passes counted): by default all five types in turn. */
  filterOf?: (n: number) => number;
  /** Compressed bytes per IDAT (the first IDAT is followed by an empty one). */
  idatBytes?: number;
  /** Change the filtered scanlines before compression (tests of corrupt data). */
  spoil?: (scanlines: Buffer) => Buffer;
}

function hashSample(x: number, y: number, c: number): number {
  return Math.imul((x * 73856093) ^ (y * 19349663) ^ (c * 83492791), 0x9e3779b1) >>> 7;
}

/** A grey PNG written the plain way: each pass's rows packed, filtered as told, deflated. */
export function greyPng(image: GreyImage): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(image.width, 0);
  ihdr.writeUInt32BE(image.height, 4);
  ihdr.set([image.depth, image.alpha ? 4 : 0, 0, 0, image.interlaced ? 1 : 0], 8);
  const scanlines = (image.spoil ?? ((s: Buffer) => s))(scanlinesOf(image));
  const compressed = deflateSync(scanlines);
  const size = image.idatBytes ?? compressed.length;
  const idats: Buffer[] = [];
  for (let at = 0; at < compressed.length; at += size) idats.push(chunk('IDAT', compressed.subarray(at, at + size)));
  if (image.idatBytes) idats.splice(1, 0, chunk('IDAT'));
  return Buffer.concat([SIGNATURE, chunk('IHDR', ihdr), ...(image.before ?? []), ...idats, ...(image.after ?? []), chunk('IEND')]);
}

export function scanlinesOf(image: GreyImage): Buffer {
  const channels = image.alpha ? 2 : 1;
  const bitsPerPixel = image.depth * channels;
  const bpp = Math.max(1, bitsPerPixel / 8);
  const sample = image.sample ?? hashSample;
  const filterOf = image.filterOf ?? ((n: number) => n % 5);
  const max = 2 ** image.depth - 1;
  const rows: Uint8Array[] = [];
  let n = 0;
  for (const [x0, y0, dx, dy] of image.interlaced ? ADAM7 : [[0, 0, 1, 1] as const]) {
    const width = Math.max(0, Math.ceil((image.width - x0) / dx));
    const height = Math.max(0, Math.ceil((image.height - y0) / dy));
    if (width === 0 || height === 0) continue;
    let prior: Buffer = Buffer.alloc(Math.ceil((width * bitsPerPixel) / 8));
    for (let r = 0; r < height; r++) {
      const values = Array.from({ length: width * channels }, (_, i) => sample(x0 + Math.floor(i / channels) * dx, y0 + r * dy, i % channels) & max);
      const raw = packed(values, image.depth, prior.length);
      const type = filterOf(n++);
      rows.push(Buffer.from([type]), filtered(type, raw, prior, bpp));
      prior = raw;
    }
  }
  return Buffer.concat(rows);
}

/** Samples as a scanline: most significant bits first below 8 bits, big-endian at 16. */
function packed(values: number[], depth: number, bytes: number): Buffer {
  const row = Buffer.alloc(bytes);
  values.forEach((v, i) => {
    if (depth === 16) row.writeUInt16BE(v, 2 * i);
    else row[(i * depth) >> 3]! |= v << (8 - depth - ((i * depth) & 7));
  });
  return row;
}

function filtered(type: number, raw: Buffer, prior: Buffer, bpp: number): Uint8Array {
  return raw.map((x, i) => {
    const a = i >= bpp ? raw[i - bpp]! : 0;
    const b = prior[i]!;
    const c = i >= bpp ? prior[i - bpp]! : 0;
    const p = a + b - c;
    const paeth = Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c) ? a : Math.abs(p - b) <= Math.abs(p - c) ? b : c;
    return (x - ([0, a, b, (a + b) >> 1, paeth][type] ?? 0)) & 0xff;
  });
}

/** `bytes` as a stream cut into pieces of the sizes `sizes` gives, in turn. */
export function streamOf(bytes: Uint8Array, sizes: () => number = () => bytes.length, onCancel?: () => void): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      const n = sizes();
      controller.enqueue(bytes.slice(at, at + n));
      at += n;
    },
    cancel: onCancel,
  });
}

export async function bytesOf(stream: ReadableStream<Uint8Array>): Promise<Buffer> {
  return Buffer.from(await new Response(stream).arrayBuffer());
}

/** The transcoded PNG, read whole; undefined when refused. */
export async function transcode(png: Uint8Array, sizes?: () => number, options?: GreyPngOptions): Promise<Buffer | undefined> {
  const rgb = await greyPngAsRgb(streamOf(png, sizes), options);
  return rgb && bytesOf(rgb);
}

export interface Decoded {
  samples: Uint8Array | Uint16Array;
  channels: number;
}

/** Samples as stored: grey as `b-w`/`grey16`, colour as `srgb`/`rgb16` (no conversion either way). */
export async function decoded(png: Uint8Array, space: 'b-w' | 'srgb' | 'grey16' | 'rgb16'): Promise<Decoded> {
  const sixteen = space.endsWith('16');
  const { data, info } = await sharp(png).toColourspace(space).raw(sixteen ? { depth: 'ushort' } : {}).toBuffer({ resolveWithObject: true });
  const samples = sixteen ? new Uint16Array(data.buffer, data.byteOffset, data.length / 2) : new Uint8Array(data);
  return { samples, channels: info.channels };
}

/** Grey samples as stored, then alpha (sharp drops alpha when asked for `b-w`; `grey16` keeps it). */
async function decodedGrey(png: Uint8Array, sixteen: boolean): Promise<Decoded> {
  if (sixteen) return decoded(png, 'grey16');
  const grey = await decoded(png, 'b-w');
  if (!(await sharp(png).metadata()).hasAlpha) return grey;
  const alpha = await sharp(png).extractChannel('alpha').raw().toBuffer();
  const samples = new Uint8Array(grey.samples.length * 2);
  grey.samples.forEach((v, i) => samples.set([v, alpha[i]!], 2 * i));
  return { samples, channels: 2 };
}

/** The RGB PNG decodes to the grey PNG's decoded samples, grey in R, G and B, alpha as it was, at the same depth, interlaced alike. */
export async function expectSamePixels(grey: Uint8Array, rgb: Uint8Array | undefined): Promise<void> {
  expect(rgb).toBeDefined();
  const [greyMeta, rgbMeta] = await Promise.all([sharp(grey).metadata(), sharp(rgb!).metadata()]);
  expect(rgbMeta).toMatchObject({ format: 'png', width: greyMeta.width, height: greyMeta.height, depth: greyMeta.depth, isProgressive: greyMeta.isProgressive });
  const sixteen = greyMeta.depth === 'ushort';
  const [g, c] = await Promise.all([decodedGrey(grey, sixteen), decoded(rgb!, sixteen ? 'rgb16' : 'srgb')]);
  expect(c.channels).toBe(g.channels + 2);
  const expected = new (sixteen ? Uint16Array : Uint8Array)((g.samples.length / g.channels) * c.channels);
  for (let i = 0, o = 0; i < g.samples.length; i += g.channels) {
    expected.fill(g.samples[i]!, o, o + 3);
    o += 3;
    if (g.channels === 2) expected[o++] = g.samples[i + 1]!;
  }
  expect(Buffer.from(c.samples.buffer, c.samples.byteOffset, c.samples.byteLength).equals(Buffer.from(expected.buffer))).toBe(true);
}

/** A gradient with noise, so rows are neither flat nor random; deterministic. */
function photoLike(width: number, height: number, channels: number, max: number): number[] {
  let seed = 12345;
  return Array.from({ length: width * height * channels }, (_, i) => {
    seed = (seed * 1103515245 + 12345) >>> 0;
    const x = Math.floor(i / channels) % width;
    const y = Math.floor(i / channels / width);
    return Math.min(max, Math.floor((((x + y) % 256) / 300) * max + (seed >>> 28) * (max / 255)));
  });
}

export async function sharpGrey(width: number, height: number, { alpha = false, sixteen = false } = {}): Promise<Buffer> {
  const channels = alpha ? 2 : 1;
  const values = photoLike(width, height, channels, sixteen ? 65535 : 255);
  const pixels = sixteen ? Uint16Array.from(values) : Uint8Array.from(values);
  const png = await sharp(pixels, { raw: { width, height, channels } }).toColourspace(sixteen ? 'grey16' : 'b-w').png().toBuffer();
  expect([png[24], png[25]]).toEqual([sixteen ? 16 : 8, alpha ? 4 : 0]);
  return png;
}

export const ihdrOf = (png: Uint8Array) => {
  const d = firstChunk(png, 'IHDR').data;
  return { width: d.readUInt32BE(0), height: d.readUInt32BE(4), depth: d[8], colourType: d[9], interlace: d[12] };
};
