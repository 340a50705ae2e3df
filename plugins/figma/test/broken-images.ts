/**
 * Images whose header reads well but whose data does not decode: what a
 * service, a proxy or a broken download can hand over. The plugin's header
 * reader (`src/shared/image-header.ts`) takes them; Figma's `createImage`
 * ("Invalid images will throw an error", typings) and the simulator do not.
 */

/** `jpeg` cut short at its first scan (SOS marker): the frame header and its size are there, no pixels. */
export function jpegCutAfterHeader(jpeg: Uint8Array): Uint8Array {
  for (let i = 2; i + 1 < jpeg.length; i++) if (jpeg[i] === 0xff && jpeg[i + 1] === 0xda) return jpeg.slice(0, i);
  throw new Error('no scan in this JPEG');
}

/** `png` with one byte of its first IDAT chunk's compressed data changed, so the chunk's CRC no longer matches. */
export function pngWithBrokenIdat(png: Uint8Array): Uint8Array {
  const out = png.slice();
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  for (let at = 8; at + 8 <= out.length; at += 12 + view.getUint32(at)) {
    if (String.fromCharCode(...out.subarray(at + 4, at + 8)) !== 'IDAT') continue;
    const middle = at + 8 + (view.getUint32(at) >> 1);
    out[middle] = (out[middle] ?? 0) ^ 0xff;
    return out;
  }
  throw new Error('no IDAT chunk in this PNG');
}
