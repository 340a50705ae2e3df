/**
 * File type by content (magic bytes), never by what the client claims: the
 * upload's Content-Type and the `fileType` parameter are only compared with it.
 */

export type Sniffed =
  | { kind: 'image'; format: 'jpeg' | 'png'; supported: true }
  | { kind: 'image'; format: 'gif' | 'webp' | 'tiff' | 'bmp' | 'heif' | 'avif'; supported: false }
  | { kind: 'video'; format: 'mp4' | 'mov'; supported: true }
  | { kind: 'video'; format: 'avi' | 'webm' | 'mkv'; supported: false }
  | { kind: 'unknown' };

const ascii = (b: Buffer, start: number, end: number): string => b.subarray(start, end).toString('latin1');

/** ISO-BMFF brands that are still images rather than video. */
const HEIF_BRANDS = new Set(['heic', 'heix', 'heim', 'heis', 'mif1', 'msf1']);
const AVIF_BRANDS = new Set(['avif', 'avis']);

/** Identifies a file from its first bytes (64 are plenty). */
export function sniff(head: Buffer): Sniffed {
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return { kind: 'image', format: 'jpeg', supported: true };
  if (head.length >= 8 && head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) {
    return { kind: 'image', format: 'png', supported: true };
  }
  if (ascii(head, 0, 4) === 'GIF8') return { kind: 'image', format: 'gif', supported: false };
  if (ascii(head, 0, 4) === 'RIFF' && ascii(head, 8, 12) === 'WEBP') return { kind: 'image', format: 'webp', supported: false };
  if (ascii(head, 0, 4) === 'RIFF' && ascii(head, 8, 12) === 'AVI ') return { kind: 'video', format: 'avi', supported: false };
  if (ascii(head, 0, 4) === 'II*\0' || ascii(head, 0, 4) === 'MM\0*') return { kind: 'image', format: 'tiff', supported: false };
  if (ascii(head, 0, 2) === 'BM' && head.length >= 14) return { kind: 'image', format: 'bmp', supported: false };
  if (head.length >= 4 && head.readUInt32BE(0) === 0x1a45dfa3) {
    return { kind: 'video', format: head.includes(Buffer.from('webm')) ? 'webm' : 'mkv', supported: false };
  }
  const box = ascii(head, 4, 8);
  if (box === 'ftyp' && head.length >= 12) {
    const brand = ascii(head, 8, 12);
    if (HEIF_BRANDS.has(brand)) return { kind: 'image', format: 'heif', supported: false };
    if (AVIF_BRANDS.has(brand)) return { kind: 'image', format: 'avif', supported: false };
    return { kind: 'video', format: brand === 'qt  ' ? 'mov' : 'mp4', supported: true };
  }
  // Old QuickTime files may start with another atom.
  if (['moov', 'mdat', 'wide', 'free', 'skip', 'pnot'].includes(box)) return { kind: 'video', format: 'mov', supported: true };
  return { kind: 'unknown' };
}

/** How a sniffed type is named in status texts. */
export function describeSniffed(s: Sniffed): string {
  return s.kind === 'unknown' ? 'not an image or video this service reads' : `${s.format.toUpperCase()} ${s.kind}`;
}
