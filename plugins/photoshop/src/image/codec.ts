/**
 * JPEG and PNG in and out of 8-bit RGBA, in plain JavaScript: UXP has no
 * canvas decoder, and Photoshop's own encoder (`imaging.encodeImageData`)
 * writes JPEG only, which has no alpha.
 */
import decodeJpeg from 'jpeg-js/lib/decoder.js';
import { convertIndexedToRgb, decode as decodePngFile, encode as encodePngFile } from 'fast-png';

/** Straight (not premultiplied) 8-bit RGBA, row by row, top row first. */
export interface Rgba {
  width: number;
  height: number;
  data: Uint8Array;
}

export type ImageFormat = 'jpeg' | 'png';

/** The format of an encoded image, from its first bytes; undefined when neither. */
export function sniffFormat(bytes: Uint8Array): ImageFormat | undefined {
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  if (bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47) return 'png';
  return undefined;
}

/** Largest image decoded, in megapixels: the service's own input limit. */
const MAX_MEGAPIXELS = 200;

/** Decode a JPEG or PNG result into 8-bit RGBA. */
export function decodeImage(bytes: Uint8Array): Rgba {
  const format = sniffFormat(bytes);
  if (format === 'jpeg') {
    const { width, height, data } = decodeJpeg(bytes, {
      useTArray: true,
      formatAsRGBA: true,
      maxResolutionInMP: MAX_MEGAPIXELS,
      maxMemoryUsageInMB: 2048,
    });
    return { width, height, data };
  }
  if (format === 'png') return pngToRgba(decodePngFile(bytes));
  throw new Error('the result is neither JPEG nor PNG');
}

function pngToRgba(png: ReturnType<typeof decodePngFile>): Rgba {
  const { width, height } = png;
  const pixels = width * height;
  let channels = png.channels;
  let data: ArrayLike<number> = png.data;
  let max = png.depth === 16 ? 65535 : 255;
  if (png.palette) {
    data = convertIndexedToRgb(png);
    // Palette entries carry the tRNS alpha when there is one: RGB or RGBA.
    channels = png.palette[0]?.length ?? 3;
    max = 255;
  }
  const out = new Uint8Array(pixels * 4);
  const scale = 255 / max;
  for (let i = 0; i < pixels; i++) {
    const s = i * channels;
    const o = i * 4;
    if (channels >= 3) {
      out[o] = Math.round(data[s]! * scale);
      out[o + 1] = Math.round(data[s + 1]! * scale);
      out[o + 2] = Math.round(data[s + 2]! * scale);
      out[o + 3] = channels === 4 ? Math.round(data[s + 3]! * scale) : 255;
    } else {
      const g = Math.round(data[s]! * scale);
      out[o] = g;
      out[o + 1] = g;
      out[o + 2] = g;
      out[o + 3] = channels === 2 ? Math.round(data[s + 1]! * scale) : 255;
    }
  }
  return { width, height, data: out };
}

/** Encode 8-bit RGB (3 channels) or RGBA (4 channels) pixels as PNG. */
export function encodePng(width: number, height: number, data: Uint8Array, channels: 3 | 4): Uint8Array {
  return encodePngFile({ width, height, data, channels, depth: 8 });
}

/** Whether any pixel of chunky RGBA data is less than fully opaque. */
export function hasTransparency(data: Uint8Array, channels: number): boolean {
  if (channels !== 4) return false;
  for (let i = 3; i < data.length; i += 4) if (data[i] !== 255) return true;
  return false;
}

/** Chunky RGBA to RGB (drops alpha). */
export function stripAlpha(data: Uint8Array): Uint8Array {
  const pixels = data.length / 4;
  const out = new Uint8Array(pixels * 3);
  for (let i = 0; i < pixels; i++) {
    out[i * 3] = data[i * 4]!;
    out[i * 3 + 1] = data[i * 4 + 1]!;
    out[i * 3 + 2] = data[i * 4 + 2]!;
  }
  return out;
}
