/**
 * A greyscale photo comes back from the Web API in colour (it was sent as
 * colour: upload.ts), every pixel R = G = B. Written as it came, a folder of
 * black-and-white photos would turn into colour files: larger, and no longer
 * greyscale to the tools that read the colour mode (Lightroom, Photoshop,
 * print workflows). Its result is written greyscale again where core can do
 * it without changing a sample — a JPEG by `yccJpegAsGrey` (on a worker thread; sequential, any
 * sampling, no colour at all), a PNG by `rgbPngAsGrey` (8- or 16-bit RGB(A),
 * every pixel grey) — and as it came otherwise: a toned result keeps its
 * colour.
 */
import { rename, rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { type AtomicWriteOptions, streamIntoNewFile, tempPathFor, writeAtomic, writeStreamAtomic, type WrittenFile } from '@pfc/node-io';
import { rgbPngAsGreyFile, yccJpegAsGreyOffThread } from './grey-rewrites';
import type { MediaFormat } from './sniff';

/** Writes a result `body` atomically to `dest`, as `writeStreamAtomic` does. */
export type ResultWriter = (dest: string, body: ReadableStream<Uint8Array>, options: AtomicWriteOptions<WrittenFile>) => Promise<WrittenFile>;

/** How the `format` result of a greyscale file sent as colour is written (see above). */
export function greyResultWriter(format: MediaFormat): ResultWriter {
  if (format === 'jpeg') return writeGreyJpeg;
  if (format === 'png') return (dest, body, options) => writeAtomic(dest, (tmp) => greyPngOrAsItCame(body, tmp, options.signal), options);
  return writeStreamAtomic;
}

/**
 * A JPEG result is read whole, as its grey upload was (upload.ts `yccCopy`): the rewrite needs all of it.
 * It runs on a worker thread (grey-rewrites.ts), which hands the bytes back as they came where it does not apply.
 */
async function writeGreyJpeg(dest: string, body: ReadableStream<Uint8Array>, options: AtomicWriteOptions<WrittenFile>): Promise<WrittenFile> {
  const bytes = new Uint8Array(await new Response(body).arrayBuffer());
  const { bytes: written } = await yccJpegAsGreyOffThread(bytes, options.signal);
  return writeStreamAtomic(dest, Readable.from([written]), options);
}

/**
 * A PNG result, streamed: whether every pixel is grey is known only at its
 * last row, so it is first written as it came, to a temporary file of its
 * own beside `tmp`, then rewritten from there into `tmp` on a worker thread
 * (grey-rewrites.ts); on colour (or anything the rewrite cannot carry) that
 * file becomes `tmp` instead. Memory stays flat; the disk holds the result
 * twice for a moment. Returns what `tmp` holds.
 */
async function greyPngOrAsItCame(body: ReadableStream<Uint8Array>, tmp: string, signal: AbortSignal | undefined): Promise<WrittenFile> {
  const asItCame = tempPathFor(tmp);
  try {
    const written = await streamIntoNewFile(body, asItCame, signal);
    // A cancel stops the rewrite; its part-written `tmp` is left to the caller's clean-up.
    const grey = await rgbPngAsGreyFile(asItCame, tmp, signal);
    signal?.throwIfAborted();
    if (grey) return grey;
    await rename(asItCame, tmp);
    return written;
  } finally {
    await rm(asItCame, { force: true });
  }
}
