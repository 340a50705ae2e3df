/**
 * JPEG and PNG in and out of 8-bit RGBA, in plain JavaScript: UXP has no
 * canvas decoder, and Photoshop's own encoder (`imaging.encodeImageData`)
 * writes JPEG only, which has no alpha and 8 bits, at a quality its
 * documentation does not give.
 */
import { sniffMedia } from '@pfc/core';
import decodeJpeg from 'jpeg-js/lib/decoder.js';
import encodeJpegFile from 'jpeg-js/lib/encoder.js';
import { decodePng, encodePng as encodePngFile, encodePngWithin as encodePngFileWithin } from './png';

/** Straight (not premultiplied) 8-bit RGBA, row by row, top row first. */
export interface Rgba {
  width: number;
  height: number;
  data: Uint8Array;
}

export type ImageFormat = 'jpeg' | 'png';

/** The format of an encoded image, from its first bytes (core's one sniffer); undefined when neither. */
export function sniffFormat(bytes: Uint8Array): ImageFormat | undefined {
  const format = sniffMedia(bytes)?.format;
  return format === 'jpeg' || format === 'png' ? format : undefined;
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
  if (format === 'png') {
    const { width, height, data } = decodePng(bytes);
    return { width, height, data };
  }
  throw new Error('the result is neither JPEG nor PNG');
}

/** Encode RGB (3 channels) or RGBA (4 channels) pixels as PNG: 8-bit from a Uint8Array, 16-bit from a Uint16Array. */
export function encodePng(width: number, height: number, data: Uint8Array | Uint16Array, channels: 3 | 4): Uint8Array {
  return encodePngFile({ width, height, data, channels });
}

/** {@link encodePng}, or undefined (found out part-way, without finishing the encode) when the file would exceed `maxBytes`. */
export function encodePngWithin(width: number, height: number, data: Uint8Array | Uint16Array, channels: 3 | 4, maxBytes: number): Uint8Array | undefined {
  return encodePngFileWithin({ width, height, data, channels }, maxBytes);
}

/** Encode 8-bit RGBA as a baseline JPEG at `quality` (1–100); the alpha is dropped, so the image must be opaque. */
export function encodeJpeg(image: Rgba, quality: number): Uint8Array {
  return encodeJpegFile(image, quality).data;
}

/** Whether any pixel of chunky RGBA data is less than fully opaque. */
export function hasTransparency(data: Uint8Array, channels: number): boolean {
  if (channels !== 4) return false;
  for (let i = 3; i < data.length; i += 4) if (data[i] !== 255) return true;
  return false;
}
