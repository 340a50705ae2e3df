/**
 * Animated PNG (APNG) inputs: the service corrects still images, so an APNG
 * would come back as its first frame only. Planning leaves such files out with
 * a reason instead of flattening them silently. (GIF is not an accepted input.)
 */
import { openInput } from '@pfc/node-io';

/** Bytes read from the start of a PNG: the `acTL` chunk of an APNG comes before the first `IDAT`. */
const HEAD_BYTES = 64 * 1024;

/** Whether the PNG at `path` is animated (has an `acTL` chunk before its image data). */
export async function isAnimatedPng(path: string): Promise<boolean> {
  const fh = await openInput(path).catch(() => undefined);
  if (!fh) return false;
  try {
    const buf = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await fh.read(buf, 0, HEAD_BYTES, 0);
    return hasAnimationChunk(buf.subarray(0, bytesRead));
  } finally {
    await fh.close();
  }
}

/** Walk the PNG chunks after the 8-byte signature until `IDAT`: `acTL` there marks an APNG. */
export function hasAnimationChunk(png: Uint8Array): boolean {
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  let at = 8;
  while (at + 8 <= png.length) {
    const length = view.getUint32(at);
    const type = String.fromCharCode(png[at + 4]!, png[at + 5]!, png[at + 6]!, png[at + 7]!);
    if (type === 'acTL') return true;
    if (type === 'IDAT' || type === 'IEND') return false;
    at += 12 + length;
  }
  return false;
}
