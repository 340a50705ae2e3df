/** A last look at a result before it is renamed into place: is it the kind of file we asked for? */
import { open } from 'node:fs/promises';
import { type MediaFormat, sniffBytes } from './sniff';

/** The service answered something that is not the expected kind of file (e.g. an HTML error page). */
export class OutputCheckError extends Error {
  override name = 'OutputCheckError';
}

/**
 * Throw `OutputCheckError` unless the file at `path` is an image (for an image)
 * or a video (for a video). Returns the format found, which may differ from
 * `expected` within its kind (a PNG for an expected JPEG).
 */
export async function verifyOutput(path: string, expected: MediaFormat): Promise<MediaFormat> {
  const fh = await open(path, 'r');
  let head: Buffer;
  try {
    head = Buffer.alloc(32);
    const { bytesRead } = await fh.read(head, 0, 32, 0);
    head = head.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
  const got = sniffBytes(head);
  const isImage = (f: MediaFormat | undefined) => f === 'jpeg' || f === 'png';
  const isVideo = (f: MediaFormat | undefined) => f === 'mp4' || f === 'mov';
  if (got && (isImage(expected) ? isImage(got) : isVideo(got))) return got;
  const preview = head.toString('latin1').replace(/[^\x20-\x7e]/g, '.').slice(0, 16);
  throw new OutputCheckError(`the service returned ${head.length === 0 ? 'an empty file' : `a file that is not ${isImage(expected) ? 'an image' : 'a video'} (starts "${preview}")`}`);
}
