/**
 * PNG in and out, on fflate's zlib only. fast-png (through iobuffer) built a
 * `TextDecoder('latin1')` and a `TextEncoder` when the bundle loaded; neither is
 * among UXP's globals (`@adobe/cc-ext-uxp-types/uxp/index.d.ts` declares no
 * TextDecoder/TextEncoder; the global-member index of AdobeDocs/uxp-photoshop,
 * `src/pages/uxp-api/reference-js/global-members/index.md`, lists none), so the
 * panel stayed blank. fflate only uses them when present (`typeof` guards).
 *
 * Encodes 8- and 16-bit RGB/RGBA; decodes every non-interlaced PNG (grey,
 * grey+alpha, RGB, RGBA, palette; 1–16 bits) to 8-bit straight RGBA. Chunks,
 * CRCs and row filters are core's (`@pfc/core`'s PNG mechanics).
 */
import { PNG_FILTER, PNG_SIGNATURE, pngChunk, unfilterPngRow } from '@pfc/core';
import { unzlibSync, Zlib } from 'fflate';

export interface PngInput {
  width: number;
  height: number;
  /** Chunky samples, row by row: 8-bit in a Uint8Array, 16-bit (0–65535) in a Uint16Array. */
  data: Uint8Array | Uint16Array;
  channels: 3 | 4;
}

/** Encode RGB or RGBA samples as PNG; the sample type sets the bit depth (8 or 16). */
export function encodePng(input: PngInput): Uint8Array {
  return encodePngWithin(input, Infinity)!;
}

/**
 * {@link encodePng}, or undefined as soon as the file is known to exceed
 * `maxBytes`: the rows are compressed as they are filtered, so a file that
 * cannot fit a limit (a background removal's upload) costs only the part
 * encoded before it passed it, and no filtered copy of the whole image is made.
 */
export function encodePngWithin(input: PngInput, maxBytes: number): Uint8Array | undefined {
  const { width, height, data, channels } = input;
  const depth = data instanceof Uint16Array ? 16 : 8;
  if (data.length !== width * height * channels) throw new Error(`PNG encoder: ${data.length} samples for ${width}×${height}×${channels}`);
  const head = [Uint8Array.from(PNG_SIGNATURE), pngChunk('IHDR', header(width, height, depth, channels)), pngChunk('sRGB', Uint8Array.of(0))];
  const tail = pngChunk('IEND', new Uint8Array(0));
  const framing = head.reduce((n, p) => n + p.length, 0) + tail.length + 12;
  const idat = deflateRows(input, depth, maxBytes - framing);
  return idat && concat([...head, pngChunk('IDAT', idat), tail]);
}

/** The IHDR chunk's data. */
function header(width: number, height: number, depth: number, channels: 3 | 4): Uint8Array {
  const ihdr = new Uint8Array(13);
  const v = new DataView(ihdr.buffer);
  v.setUint32(0, width);
  v.setUint32(4, height);
  ihdr[8] = depth;
  // Colour type 6 (RGBA) or 2 (RGB); the sRGB chunk says the pixels are sRGB, as asked of getPixels.
  ihdr[9] = channels === 4 ? 6 : 2;
  return ihdr;
}

/**
 * The zlib stream of the filtered rows, or undefined once it passes
 * `maxBytes`. Each row takes filter type 1 (Sub), which shrinks photos well at
 * almost no cost.
 */
function deflateRows({ width, height, data, channels }: PngInput, depth: number, maxBytes: number): Uint8Array | undefined {
  const bpp = channels * (depth / 8);
  const stride = width * bpp;
  const parts: Uint8Array[] = [];
  let size = 0;
  const zlib = new Zlib({ level: 6 }, (part) => {
    parts.push(part);
    size += part.length;
  });
  const row = new Uint8Array(stride);
  const filtered = new Uint8Array(stride + 1);
  filtered[0] = PNG_FILTER.sub;
  for (let y = 0; y < height; y++) {
    if (depth === 8) row.set((data as Uint8Array).subarray(y * stride, (y + 1) * stride));
    else {
      const base = y * width * channels;
      for (let i = 0; i < width * channels; i++) {
        const v = (data as Uint16Array)[base + i]!;
        row[i * 2] = v >> 8;
        row[i * 2 + 1] = v & 0xff;
      }
    }
    for (let i = 0; i < stride; i++) filtered[1 + i] = (row[i]! - (i >= bpp ? row[i - bpp]! : 0)) & 0xff;
    // fflate copies what it is given into its own window, so one row buffer serves every row.
    zlib.push(filtered, y === height - 1);
    if (size > maxBytes) return undefined;
  }
  return concat(parts);
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

export interface DecodedPng {
  width: number;
  height: number;
  /** 8-bit straight RGBA. */
  data: Uint8Array;
  /** Bits per sample in the file (16 when the file had more precision than the result keeps). */
  depth: number;
}

const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };

/** Decode a PNG file to 8-bit straight RGBA. */
export function decodePng(bytes: Uint8Array): DecodedPng {
  for (let i = 0; i < 8; i++) if (bytes[i] !== PNG_SIGNATURE[i]) throw new Error('not a PNG file');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let width = 0, height = 0, depth = 0, colourType = 0, interlace = 0;
  let palette: Uint8Array | undefined;
  let transparency: Uint8Array | undefined;
  const idat: Uint8Array[] = [];
  for (let at = 8; at + 8 <= bytes.length;) {
    const length = view.getUint32(at);
    const type = String.fromCharCode(bytes[at + 4]!, bytes[at + 5]!, bytes[at + 6]!, bytes[at + 7]!);
    const body = bytes.subarray(at + 8, at + 8 + length);
    if (type === 'IHDR') {
      width = view.getUint32(at + 8);
      height = view.getUint32(at + 12);
      depth = body[8]!;
      colourType = body[9]!;
      interlace = body[12]!;
    } else if (type === 'PLTE') palette = body;
    else if (type === 'tRNS') transparency = body;
    else if (type === 'IDAT') idat.push(body);
    else if (type === 'IEND') break;
    at += 12 + length;
  }
  const channels = CHANNELS[colourType];
  if (!width || !height || !channels) throw new Error('the PNG result has no valid header');
  if (interlace !== 0) throw new Error('the PNG result is interlaced, which the panel does not decode');
  const joined = new Uint8Array(idat.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of idat) {
    joined.set(c, at);
    at += c.length;
  }
  const raw = unzlibSync(joined);
  const bitsPerPixel = channels * depth;
  const stride = Math.ceil((width * bitsPerPixel) / 8);
  const bpp = Math.max(1, bitsPerPixel / 8);
  const rows = unfilter(raw, height, stride, bpp);
  return { width, height, data: toRgba(rows, { width, height, depth, colourType, channels, stride, palette, transparency }), depth };
}

/** The rows of `raw` (filter type byte first) unfiltered, one after another. */
function unfilter(raw: Uint8Array, height: number, stride: number, bpp: number): Uint8Array {
  if (raw.length < height * (stride + 1)) throw new Error('the PNG result is truncated');
  const out = new Uint8Array(height * stride);
  const none = new Uint8Array(stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    if (filter > PNG_FILTER.paeth) throw new Error(`the PNG result has an unknown row filter ${filter}`);
    const row = out.subarray(y * stride, (y + 1) * stride);
    row.set(raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1)));
    unfilterPngRow(filter, row, y > 0 ? out.subarray((y - 1) * stride, y * stride) : none, bpp);
  }
  return out;
}

interface Layout {
  width: number;
  height: number;
  depth: number;
  colourType: number;
  channels: number;
  stride: number;
  palette: Uint8Array | undefined;
  transparency: Uint8Array | undefined;
}

function toRgba(rows: Uint8Array, l: Layout): Uint8Array {
  const out = new Uint8Array(l.width * l.height * 4);
  const max = (1 << Math.min(l.depth, 8)) - 1;
  const sample = (y: number, index: number): number => {
    const row = y * l.stride;
    if (l.depth === 16) return rows[row + index * 2]!; // the high byte: 16 → 8 bits
    if (l.depth === 8) return rows[row + index]!;
    const bit = index * l.depth;
    return (rows[row + (bit >> 3)]! >> (8 - l.depth - (bit & 7))) & max;
  };
  const scale = l.depth < 8 && l.colourType !== 3 ? 255 / max : 1;
  for (let y = 0; y < l.height; y++) {
    for (let x = 0; x < l.width; x++) {
      const o = (y * l.width + x) * 4;
      const s = x * l.channels;
      if (l.colourType === 3) {
        const i = sample(y, s);
        out[o] = l.palette?.[i * 3] ?? 0;
        out[o + 1] = l.palette?.[i * 3 + 1] ?? 0;
        out[o + 2] = l.palette?.[i * 3 + 2] ?? 0;
        out[o + 3] = l.transparency?.[i] ?? 255;
      } else if (l.channels >= 3) {
        out[o] = sample(y, s) * scale;
        out[o + 1] = sample(y, s + 1) * scale;
        out[o + 2] = sample(y, s + 2) * scale;
        out[o + 3] = l.channels === 4 ? sample(y, s + 3) * scale : 255;
      } else {
        const g = sample(y, s) * scale;
        out[o] = g;
        out[o + 1] = g;
        out[o + 2] = g;
        out[o + 3] = l.channels === 2 ? sample(y, s + 1) * scale : 255;
      }
    }
  }
  return out;
}
