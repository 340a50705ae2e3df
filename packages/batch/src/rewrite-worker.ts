/**
 * The worker thread of `grey-rewrites.ts`: core's rewrites of a greyscale
 * photo, one task at a time; a JPEG's result buffer moved back to the caller,
 * a PNG streamed file to file.
 */
import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { greyJpegAsYcc, greyPngAsRgb, rgbPngAsGrey, yccJpegAsGrey } from '@pfc/core';
import { serveTasks, streamIntoNewFile, type WrittenFile } from '@pfc/node-io';
import type { GreyRewriteResult, GreyRewriteTask } from './grey-rewrites';

const read = (path: string) => Readable.toWeb(createReadStream(path)) as ReadableStream<Uint8Array>;

async function rewrite(task: GreyRewriteTask): Promise<GreyRewriteResult> {
  switch (task.kind) {
    case 'jpeg-grey-as-ycc':
      return greyJpegAsYcc(task.bytes, task.options) ?? null;
    case 'jpeg-ycc-as-grey':
      return yccJpegAsGrey(task.bytes) ?? null;
    case 'png-grey-as-rgb': {
      const rgb = await greyPngAsRgb(read(task.from), task.options);
      return rgb ? streamIntoNewFile(rgb, task.to) : null;
    }
    case 'png-rgb-as-grey':
      return greyPngOrNull(task.from, task.to);
  }
}

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

serveTasks<GreyRewriteTask, GreyRewriteResult>(rewrite, (result) =>
  result instanceof Uint8Array && result.byteOffset === 0 && result.byteLength === result.buffer.byteLength ? [result.buffer as ArrayBuffer] : [],
);
