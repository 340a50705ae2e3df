/**
 * What an attempt uploads. The Web API takes RGB or RGBA images only
 * (web-api-v2.md, Limits), so there a greyscale JPEG or PNG goes as a colour
 * copy (see `colourCopy`); the self-hosted containers take it as it is. The copy is a temporary
 * file beside the output, where a killed run's leftovers are removed by the
 * next run (`removePartials`). The user's file is read once, through the hash:
 * the hash recorded is the original's, not the copy's, so a rerun finds the
 * file up to date and in place the original kept is the user's grey file.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type BackendKind, type FileInput, greyPngAsRgb, type PfcParams } from '@pfc/core';
import { tempPathFor } from '@pfc/node-io';
import type SharpModule from 'sharp';
import { InputUnsupportedError } from './errors';
import { greyJpegAsYccOffThread, greyPngAsRgbFile } from './grey-rewrites';
import { fileInputFromPath, readFileStream } from './files';
import { limitViolation } from './limits';
import type { MediaInfo } from './sniff';

export interface Upload {
  input: FileInput;
  /** Bytes sent. */
  size: number;
  /** Removes the RGB copy, when one was made. */
  discard: () => Promise<void>;
  /** A greyscale file sent as colour: its result is made greyscale again where that loses nothing (`greyResult`). */
  sentAsColour?: true;
}

export interface UploadTarget {
  backend: BackendKind;
  params: PfcParams;
  /** The output path: an RGB copy is made beside it. */
  output: string;
  /** Makes the RGB copy; a host without one (no native image library) refuses greyscale for the Web API. */
  rgbCopy: RgbCopy | undefined;
  /** The run's cancel: it stops a rewrite on a worker thread too. */
  signal?: AbortSignal | undefined;
}

/** Writes an RGB(A) copy of the greyscale image in the file `read`, in its own `format`, to `copy`; returns its size in bytes. */
export type RgbCopy = (read: string, format: 'jpeg' | 'png', copy: string) => Promise<number>;

/**
 * The upload of `source` (`size` bytes, holding `media`) to `target.backend`.
 * `onRead` gets the hash of the user's file as read for this upload.
 */
export async function uploadFor(source: string, size: number, media: MediaInfo, target: UploadTarget, onRead: (hash: string) => void): Promise<Upload> {
  if (!(media.grey && target.backend === 'web')) return { input: fileInputFromPath(source, onRead), size, discard: async () => undefined };
  const copy = tempPathFor(target.output);
  try {
    await mkdir(dirname(copy), { recursive: true });
    const copySize = await colourCopy(source, media.format as 'jpeg' | 'png', onRead, copy, target);
    // The limits that depend on the upload's size hold for what is sent.
    const violation = limitViolation(media, copySize, target.params, target.backend);
    if (violation) throw new InputUnsupportedError(`${source}: greyscale, sent to the Web API as RGB (it takes RGB or RGBA only), where ${violation}`);
    return { input: fileInputFromPath(copy), size: copySize, discard: () => rm(copy, { force: true }), sentAsColour: true };
  } catch (err) {
    await rm(copy, { force: true });
    throw err;
  }
}

/**
 * Writes the colour copy of the grey `format` image in `source` to `copy`, reading `source` once (through
 * `onRead`'s hash); returns its size. A JPEG's coded data in colour where core can (`greyJpegAsYcc`:
 * lossless, cheaper than any re-encode). A PNG by core's `greyPngAsRgb` where the host has no `rgbCopy`, or
 * where it is 16-bit (sharp keeps 16 bits only without a profile, core with one too); any other by the
 * host's `rgbCopy` (libvips, off the event loop, about 4× faster than core's PNG transcode: bench `grey`);
 * else refused, saying so. `profiles`: whether a grey profile may go as the RGB one derived from it (not when
 * the result is to come back without metadata). A failed conversion is said as the file's.
 */
async function colourCopy(source: string, format: 'jpeg' | 'png', onRead: (hash: string) => void, copy: string, { params, rgbCopy, signal }: UploadTarget): Promise<number> {
  const read = tempPathFor(copy);
  try {
    // Without metadata in the result, a profile sent would not come back, and its numbers would be shown as sRGB.
    const profiles = !('preserveMetadata' in params && params.preserveMetadata === false);
    const ycc = format === 'jpeg' ? await yccCopy(source, onRead, read, copy, profiles, signal) : await readInto(source, onRead, read);
    if (ycc !== undefined) return ycc;
    const rgb = format === 'png' && (!rgbCopy || (await pngBitDepth(read)) === 16) ? await rgbPngCopy(read, source, copy, profiles, signal) : undefined;
    if (rgb !== undefined) return rgb;
    if (rgbCopy) return await hostCopy(rgbCopy, read, format, source, copy);
    if (!profiles && (await convertsWithProfile(read, format))) {
      throw new InputUnsupportedError(`${source}: greyscale with a colour profile, which the Web API does not take (RGB or RGBA only); with preserveMetadata=false the result would lose the profile, so it cannot go as the RGB one that keeps its tones, and this installation cannot convert it to sRGB (no image library): leave preserveMetadata at true, or correct it with the pfc CLI`);
    }
    throw new InputUnsupportedError(`${source}: greyscale, which the Web API does not take (RGB or RGBA only), and this installation cannot convert it (no image library): convert it to RGB, or correct it with the pfc CLI`);
  } finally {
    await rm(read, { force: true });
  }
}

/**
 * A grey JPEG as the same coded data in colour (core's `greyJpegAsYcc`, on a worker thread: no re-encoding, pixels
 * identical, EXIF kept, a grey profile swapped for the RGB one showing the same tones unless not `profiles`)
 * in `copy`, its size. Read into memory whole: a JPEG's coded data (a few MB), never its pixels. Where that
 * does not apply, the bytes read go to `read` for another copy.
 */
async function yccCopy(source: string, onRead: (hash: string) => void, read: string, copy: string, profiles: boolean, signal: AbortSignal | undefined): Promise<number | undefined> {
  const bytes = Buffer.concat(await (await readFileStream(source, onRead)).toArray());
  const ycc = await greyJpegAsYccOffThread(bytes, { profiles }, signal);
  if (ycc.rewritten) return writeFile(copy, ycc.bytes).then(() => ycc.bytes.length);
  await writeFile(read, ycc.bytes);
  return undefined;
}

/** `source` read once into `read` (the bytes hashed are the bytes converted; a file, so memory does not grow with the image's size). */
async function readInto(source: string, onRead: (hash: string) => void, read: string): Promise<undefined> {
  await pipeline(await readFileStream(source, onRead), createWriteStream(read));
  return undefined;
}

async function hostCopy(rgbCopy: RgbCopy, read: string, format: 'jpeg' | 'png', source: string, copy: string): Promise<number> {
  try {
    return await rgbCopy(read, format, copy);
  } catch (err) {
    throw new InputUnsupportedError(`${source}: greyscale, and could not be converted to RGB for the Web API (it takes RGB or RGBA only): ${(err as Error).message}`);
  }
}

/**
 * The grey PNG in `read` as RGB(A) in `copy` (core's `greyPngAsRgb` on a worker thread: same samples, same
 * depth, metadata kept, a grey profile swapped for the RGB one showing the same tones unless not `profiles`;
 * streamed row by row), its size; undefined where that does not apply.
 */
async function rgbPngCopy(read: string, source: string, copy: string, profiles: boolean, signal: AbortSignal | undefined): Promise<number | undefined> {
  try {
    return (await greyPngAsRgbFile(read, copy, { profiles }, signal))?.bytes;
  } catch (err) {
    // A cancel is not the file's fault.
    if (signal?.aborted) throw err;
    throw new InputUnsupportedError(`${source}: greyscale, and its PNG data could not be converted to RGB for the Web API (it takes RGB or RGBA only): ${(err as Error).message}`);
  }
}

/** Whether core would convert the grey file in `read` if its colour profile could go with it (the refusal's reason then). */
async function convertsWithProfile(read: string, format: 'jpeg' | 'png'): Promise<boolean> {
  if (format === 'jpeg') return (await greyJpegAsYccOffThread(await readFile(read), {})).rewritten;
  const rgb = await greyPngAsRgb(Readable.toWeb(createReadStream(read)) as ReadableStream<Uint8Array>);
  await rgb?.cancel();
  return rgb !== undefined;
}

/** The bit depth in a PNG's IHDR (PNG specification, 11.2.1: byte 24 of the file). */
async function pngBitDepth(png: string): Promise<number | undefined> {
  const file = await open(png);
  try {
    const { buffer, bytesRead } = await file.read(Buffer.alloc(25), 0, 25, 0);
    return bytesRead === 25 ? buffer[24] : undefined;
  } finally {
    await file.close();
  }
}

/**
 * The {@link RgbCopy} made with `sharp`, which the host loads (a native module:
 * not every host can). JPEG at quality 100 without chroma subsampling (the
 * service re-encodes its output anyway); PNG lossless, 16-bit kept. EXIF
 * (orientation included: the pixels are not turned), XMP and IPTC are kept; a
 * grey profile's tones are converted to sRGB, which the copy then names (an
 * untagged image stays untagged, its samples copied exactly). A
 * 16-bit grey image with a profile becomes 8-bit: sharp applies an embedded
 * profile to 16-bit grey only in an 8-bit pipeline (kept at 16 bits, its
 * numbers were sent unconverted under an sRGB name: a mid grey 128 under Gray
 * Gamma 1.8 that shows as 146 went as 128). The right tones matter more than
 * the last 8 bits.
 */
export function sharpRgbCopy(sharp: typeof SharpModule): RgbCopy {
  return async (read, format, copy) => {
    // failOn 'error': minor decoder warnings (common in real-world JPEGs) do not stop the copy.
    const image = sharp(read, { failOn: 'error' });
    const { depth, icc } = await image.metadata();
    const profiled16 = depth === 'ushort' && icc !== undefined;
    if (profiled16) image.pipelineColourspace('b-w');
    const rgb = image.keepMetadata().toColourspace(depth === 'ushort' && !profiled16 ? 'rgb16' : 'srgb');
    // Only a profiled image is converted and then named sRGB: on an untagged one the sRGB-to-sRGB transform
    // moved 16-bit samples by one.
    if (icc) rgb.withIccProfile('srgb');
    const written = await (format === 'jpeg' ? rgb.jpeg({ quality: 100, chromaSubsampling: '4:4:4' }) : rgb.png()).toFile(copy);
    return written.size;
  };
}
