/**
 * A greyscale photo comes back from the Web API in colour (it was sent as
 * colour: upload.ts), every pixel R = G = B. Written as it came, a folder of
 * black-and-white photos would turn into colour files: larger, and no longer
 * greyscale to the tools that read the colour mode (Lightroom, Photoshop,
 * print workflows). A JPEG result is written greyscale again where core's
 * `yccJpegAsGrey` can do it without a re-encode (sequential, any sampling, no
 * colour at all, as the emulator returns it); anything else — a result with
 * colour in it, a progressive one, a PNG — is written as it came.
 */
import { Readable } from 'node:stream';
import { yccJpegAsGrey } from '@pfc/core';
import type { MediaFormat } from './sniff';

/**
 * The result `body` of a greyscale file sent as colour, to be written: the
 * greyscale JPEG where one loses nothing, else the bytes as they came. It is
 * read whole (a JPEG result, as its grey upload was: upload.ts `yccCopy`).
 */
export async function greyResult(body: ReadableStream<Uint8Array>, format: MediaFormat): Promise<ReadableStream<Uint8Array> | Readable> {
  if (format !== 'jpeg') return body;
  const bytes = new Uint8Array(await new Response(body).arrayBuffer());
  return Readable.from([yccJpegAsGrey(bytes) ?? bytes]);
}
