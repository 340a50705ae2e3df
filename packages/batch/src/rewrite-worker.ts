/**
 * The worker thread of `jpeg-rewrite.ts`: core's JPEG rewrites, one task at a
 * time, the result's buffer moved back to the caller.
 */
import { greyJpegAsYcc, yccJpegAsGrey } from '@pfc/core';
import { serveTasks } from '@pfc/node-io';
import type { JpegRewriteResult, JpegRewriteTask } from './jpeg-rewrite';

serveTasks<JpegRewriteTask, JpegRewriteResult>(
  async (task) => (task.kind === 'grey-as-ycc' ? greyJpegAsYcc(task.bytes, task.options) : yccJpegAsGrey(task.bytes)) ?? null,
  (result) => (result && result.byteOffset === 0 && result.byteLength === result.buffer.byteLength ? [result.buffer as ArrayBuffer] : []),
);
