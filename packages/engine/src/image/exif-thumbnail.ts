/**
 * The JPEG thumbnail embedded in EXIF (IFD1), as `updateThumbnail` regenerates
 * it. sharp keeps a source's EXIF, thumbnail included, so after a correction
 * the old thumbnail shows the uncorrected photo; these functions put a new one
 * in by editing the EXIF segment's bytes: the new IFD1 and thumbnail are
 * appended to the TIFF block and IFD0's "next IFD" pointer is moved to them,
 * so every other offset in the block stays valid.
 */
import sharp from 'sharp';

/** Long side of regenerated thumbnails, pixels (the EXIF convention is 160×120). */
export const EXIF_THUMBNAIL_SIDE = 160;
/** An APP1 segment holds at most this many bytes after its length field. */
const APP1_MAX = 65533;
const EXIF_ID = Buffer.from('Exif\0\0', 'latin1');

/** Replace (or add) the EXIF thumbnail of a JPEG with `thumbnail` (JPEG bytes). */
export function setExifThumbnail(jpeg: Buffer, thumbnail: Buffer): Buffer {
  if (jpeg[0] !== 0xff || jpeg[1] !== 0xd8) throw new Error('setExifThumbnail: not a JPEG');
  const seg = findExif(jpeg);
  const tiff = seg ? jpeg.subarray(seg.start + 4 + EXIF_ID.length, seg.end) : emptyTiff();
  const patched = withIfd1(tiff, thumbnail);
  const payload = Buffer.concat([EXIF_ID, patched]);
  if (payload.length + 2 > APP1_MAX + 2) throw new Error(`setExifThumbnail: the EXIF block would be ${payload.length} bytes; at most ${APP1_MAX} fit`);
  const header = Buffer.from([0xff, 0xe1, (payload.length + 2) >> 8, (payload.length + 2) & 0xff]);
  if (seg) return Buffer.concat([jpeg.subarray(0, seg.start), header, payload, jpeg.subarray(seg.end)]);
  // No EXIF yet: after SOI and a JFIF APP0 if there is one.
  let at = 2;
  if (jpeg[2] === 0xff && jpeg[3] === 0xe0) at = 4 + jpeg.readUInt16BE(4);
  return Buffer.concat([jpeg.subarray(0, at), header, payload, jpeg.subarray(at)]);
}

/** Regenerate a JPEG's EXIF thumbnail from its own pixels. */
export async function updateExifThumbnail(jpeg: Buffer): Promise<Buffer> {
  for (const quality of [80, 60, 40]) {
    const thumb = await sharp(jpeg).resize(EXIF_THUMBNAIL_SIDE, EXIF_THUMBNAIL_SIDE, { fit: 'inside' }).jpeg({ quality }).toBuffer();
    try {
      return setExifThumbnail(jpeg, thumb);
    } catch (err) {
      // A large EXIF block leaves little room: try a smaller thumbnail.
      if (quality === 40) throw err;
    }
  }
  return jpeg;
}

/** The EXIF thumbnail of a JPEG (JPEG bytes), or undefined. */
export function readExifThumbnail(jpeg: Buffer): Buffer | undefined {
  const seg = findExif(jpeg);
  if (!seg) return undefined;
  const tiff = jpeg.subarray(seg.start + 4 + EXIF_ID.length, seg.end);
  const r = reader(tiff);
  const ifd1 = r.u32(ifd0NextPointer(tiff));
  if (ifd1 === 0 || ifd1 + 2 > tiff.length) return undefined;
  let offset = 0;
  let length = 0;
  const n = r.u16(ifd1);
  for (let k = 0; k < n; k++) {
    const e = ifd1 + 2 + k * 12;
    const tag = r.u16(e);
    if (tag === 0x0201) offset = r.u32(e + 8);
    if (tag === 0x0202) length = r.u32(e + 8);
  }
  return offset > 0 && length > 0 && offset + length <= tiff.length ? Buffer.from(tiff.subarray(offset, offset + length)) : undefined;
}

function findExif(jpeg: Buffer): { start: number; end: number } | undefined {
  let i = 2;
  while (i + 4 <= jpeg.length && jpeg[i] === 0xff) {
    const marker = jpeg[i + 1]!;
    if (marker === 0xda || marker === 0xd9) return undefined;
    const len = jpeg.readUInt16BE(i + 2);
    if (marker === 0xe1 && jpeg.subarray(i + 4, i + 4 + EXIF_ID.length).equals(EXIF_ID)) return { start: i, end: i + 2 + len };
    i += 2 + len;
  }
  return undefined;
}

function reader(tiff: Buffer) {
  const le = tiff[0] === 0x49;
  return {
    le,
    u16: (o: number) => (le ? tiff.readUInt16LE(o) : tiff.readUInt16BE(o)),
    u32: (o: number) => (le ? tiff.readUInt32LE(o) : tiff.readUInt32BE(o)),
  };
}

/** Byte offset (in the TIFF block) of IFD0's "next IFD" field. */
function ifd0NextPointer(tiff: Buffer): number {
  const r = reader(tiff);
  const ifd0 = r.u32(4);
  return ifd0 + 2 + r.u16(ifd0) * 12;
}

/** The TIFF block with a new IFD1 (JPEG thumbnail) appended and linked from IFD0. */
function withIfd1(tiff: Buffer, thumbnail: Buffer): Buffer {
  const { le } = reader(tiff);
  // Word-align the new IFD.
  const base = tiff.length + (tiff.length % 2);
  const entries = [
    [0x0103, 3, 1, 6], // Compression: JPEG
    [0x0201, 4, 1, 0], // JPEGInterchangeFormat (filled below)
    [0x0202, 4, 1, thumbnail.length], // JPEGInterchangeFormatLength
  ] as const;
  const ifdSize = 2 + entries.length * 12 + 4;
  const thumbAt = base + ifdSize;
  const ifd = Buffer.alloc(ifdSize);
  const w16 = (v: number, o: number) => (le ? ifd.writeUInt16LE(v, o) : ifd.writeUInt16BE(v, o));
  const w32 = (v: number, o: number) => (le ? ifd.writeUInt32LE(v, o) : ifd.writeUInt32BE(v, o));
  w16(entries.length, 0);
  entries.forEach(([tag, type, count, value], k) => {
    const e = 2 + k * 12;
    w16(tag, e);
    w16(type, e + 2);
    w32(count, e + 4);
    if (type === 3) w16(value, e + 8);
    else w32(tag === 0x0201 ? thumbAt : value, e + 8);
  });
  w32(0, ifdSize - 4);
  const out = Buffer.concat([tiff, Buffer.alloc(base - tiff.length), ifd, thumbnail]);
  const p = ifd0NextPointer(out);
  if (le) out.writeUInt32LE(base, p);
  else out.writeUInt32BE(base, p);
  return out;
}

/** A TIFF block with an empty IFD0 (little-endian), for JPEGs without EXIF. */
function emptyTiff(): Buffer {
  const t = Buffer.alloc(14);
  t.write('II', 0, 'latin1');
  t.writeUInt16LE(42, 2);
  t.writeUInt32LE(8, 4);
  t.writeUInt16LE(0, 8);
  t.writeUInt32LE(0, 10);
  return t;
}
