/**
 * The worker thread of `grey-rewrites.ts`: core's rewrites of a greyscale
 * photo, one task at a time; a JPEG's bytes moved back to the caller
 * (rewritten, or as they came), a PNG streamed file to file.
 */
import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { greyJpegAsYcc, greyPngAsRgb, rgbPngAsGrey, yccJpegAsGrey } from '@pfc/core';
import { serveTasks, streamIntoNewFile, type WrittenFile } from '@pfc/node-io';
import { type GreyRewriteResult, type GreyRewriteTask, type JpegRewrite, ownsItsBuffer } from './grey-rewrites';

const read = (path: string) => Readable.toWeb(createReadStream(path)) as ReadableStream<Uint8Array>;

async function rewrite(task: GreyRewriteTask): Promise<GreyRewriteResult> {
  switch (task.kind) {
    case 'jpeg-grey-as-ycc':
      return outcome(task.bytes, greyJpegAsYcc(task.bytes, task.options));
    case 'jpeg-ycc-as-grey':
      return outcome(task.bytes, yccJpegAsGrey(task.bytes));
    case 'png-grey-as-rgb': {
      const rgb = await greyPngAsRgb(read(task.from), task.options);
      return rgb ? streamIntoNewFile(rgb, task.to) : null;
    }
    case 'png-rgb-as-grey':
      return greyPngOrNull(task.from, task.to);
  }
}

const outcome = (given: Uint8Array, rewritten: Uint8Array | undefined): JpegRewrite => (rewritten ? { bytes: rewritten, rewritten: true } : { bytes: given, rewritten: false });

/** Colour in a pixel (`NotGreyError`) or data the rewrite refuses: no grey file, and none left half-written. */
async function greyPngOrNull(from: string, to: string): Promise<WrittenFile | null> {
  const grey = await rgbPngAsGrey(read(from));
  if (!grey) return null;
  try {
    return await streamIntoNewFile(grey, to);
  } catch {
    await rm(to, { force: true });
    return null;
  }
}

/** A JPEG's bytes go back moved where they own their buffer (core's output, or the bytes given), else copied. */
serveTasks<GreyRewriteTask, GreyRewriteResult>(rewrite, (result) => (result && 'rewritten' in result && ownsItsBuffer(result.bytes) ? [result.bytes.buffer as ArrayBuffer] : []));
