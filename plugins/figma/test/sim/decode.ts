/**
 * What `figma.createImage` checks, worked out by decoding the image, not by
 * reading its header. Typings `PluginAPI.createImage`: "The `data` passed in
 * must be encoded as a PNG, JPEG, or GIF. Images have a maximum size of 4096
 * pixels (4K) in width and height. Invalid images will throw an error."
 *
 * The plugin refuses what Figma would refuse with its own header reader
 * (`src/shared/image-header.ts`, core's sniffer). Were the simulator to use
 * that reader too, the two would agree by construction and a bug in it could
 * never show; so the simulator decodes every pixel with decoders of its own,
 * and an image whose header is fine but whose data is cut short or corrupt
 * (a JPEG ending after its header, a PNG with a broken IDAT) is refused, as
 * "invalid" says. The sizes are those of the decoded image.
 *
 * The decoders are pure JavaScript, because the simulator also runs bundled
 * in the e2e test's Chromium page: jpeg-js (the JPEG decoder of the Node
 * image tools, already used by plugins/photoshop; baseline and progressive),
 * fast-png (image-js's PNG codec, ESM, with CRC checking) and omggif (the GIF
 * codec jimp uses). Figma's own decoder is not known; where these may be
 * stricter than a browser's (a bad CRC, a JPEG without its end marker), the
 * simulator is stricter, as a simulated host must be when unsure.
 */
import { decode as decodePng } from 'fast-png';
import { decode as decodeJpeg } from 'jpeg-js';
import { GifReader } from 'omggif';

export interface DecodedSize {
  width: number;
  height: number;
}

/** Figma's limit on each side (typings `PluginAPI.createImage`: "a maximum size of 4096 pixels (4K)"), kept apart from the plugin's own constant. */
export const CREATE_IMAGE_MAX_SIDE = 4096;

/**
 * Decoding is the slow part of a simulated `createImage` (a 4096 px JPEG
 * takes about a second): sizes already worked out, by SHA-1 of the bytes.
 * The same bytes decode the same way, so this refuses nothing less.
 */
const decodedByHash = new Map<string, DecodedSize>();

/** `createImage`'s checks: the image decodes as PNG, JPEG or GIF, each side 1–4096 px; else throws as Figma does. */
export function checkCreateImage(data: Uint8Array, hash: string): DecodedSize {
  const known = decodedByHash.get(hash);
  if (known) return { ...known };
  const size = decode(data);
  if (size.width < 1 || size.height < 1) throw new Error('Image is too small');
  if (size.width > CREATE_IMAGE_MAX_SIDE || size.height > CREATE_IMAGE_MAX_SIDE) throw new Error('Image is too large');
  decodedByHash.set(hash, size);
  return { ...size };
}

type Format = 'png' | 'jpeg' | 'gif';

/** The format by its signature (PNG's 8 bytes, JPEG's SOI and a marker, GIF87a/GIF89a): the decoders name what they take. */
function formatOf(data: Uint8Array): Format | undefined {
  const starts = (bytes: readonly number[]) => bytes.every((b, i) => data[i] === b);
  if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png';
  if (starts([0xff, 0xd8, 0xff])) return 'jpeg';
  if (starts([0x47, 0x49, 0x46, 0x38]) && (data[4] === 0x37 || data[4] === 0x39) && data[5] === 0x61) return 'gif';
  return undefined;
}

function decode(data: Uint8Array): DecodedSize {
  const format = formatOf(data);
  if (!format) throw new Error('Image type is unsupported');
  try {
    return DECODERS[format](data);
  } catch (err) {
    throw new Error(`Image is invalid (${format}: ${err instanceof Error ? err.message : String(err)})`);
  }
}

const DECODERS: Record<Format, (data: Uint8Array) => DecodedSize> = {
  // Not tolerant: a scan that ends early, or data without its end marker, throws instead of decoding as grey.
  // jpeg-js's resource limits (100 MP, 512 MB by default) stop a huge image before it is decoded; it throws then too.
  jpeg: (data) => {
    const { width, height } = decodeJpeg(data, { useTArray: true, tolerantDecoding: false, formatAsRGBA: false });
    return { width, height };
  },
  // fast-png skips chunk CRCs unless asked; a corrupt IDAT often still inflates, so the CRC is what catches it.
  png: (data) => {
    const { width, height, data: pixels, channels, depth } = decodePng(data, { checkCrc: true });
    if (pixels.length * (pixels.BYTES_PER_ELEMENT * 8) < width * height * channels * depth) throw new Error('image data shorter than its size');
    return { width, height };
  },
  // omggif reads the block structure when constructed and decodes a frame's LZW data only when asked: every frame
  // is decoded. It accepts a file with no frame at all, which is no image.
  gif: (data) => {
    const reader = new GifReader(data);
    if (reader.numFrames() === 0) throw new Error('no image in the file');
    const pixels = new Uint8Array(reader.width * reader.height * 4);
    for (let frame = 0; frame < reader.numFrames(); frame++) reader.decodeAndBlitFrameRGBA(frame, pixels);
    return { width: reader.width, height: reader.height };
  },
};
