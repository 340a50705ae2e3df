/**
 * JPEGs laid out as cameras and phones write them: an EXIF block made by
 * hand (maker, model, dates, exposure, a maker note, the orientation, pixel
 * dimensions as SHORT or LONG, a JPEG thumbnail in IFD1), optionally an ICC
 * profile (none, sharp's sRGB or Display P3, or an Adobe RGB (1998) profile
 * built here), XMP, IPTC, a comment or an Adobe APP14 marker, in front of
 * a plain sharp encode of the given pixels.
 */
import sharp from 'sharp';
import { rgbProfile } from '../../../test/support/icc';

/** The colour profile a camera JPEG embeds. */
export type CameraProfile = 'none' | 'srgb' | 'p3' | 'adobe-rgb';

/** Options of {@link cameraJpeg}. */
export interface CameraOptions {
  /** EXIF orientation (default 1). */
  orientation?: number;
  profile?: CameraProfile;
  /** EXIF type of PixelXDimension and PixelYDimension: 3 SHORT (default), 4 LONG. */
  dimensionType?: 3 | 4;
  /** A JFIF APP0 segment in front (default: none, as most cameras write). */
  jfif?: boolean;
  xmp?: boolean;
  iptc?: boolean;
  comment?: boolean;
  /** An Adobe APP14 segment (as Photoshop writes), which the encoder does not move into a stand-in. */
  adobe?: boolean;
}

/** What {@link cameraJpeg}'s EXIF says, for tests to look for in an output. */
export const CAMERA = { make: 'Canon', model: 'Canon EOS 5D Mark IV', dateTime: '2024:06:01 12:34:56' };

const TYPE_SIZE: Record<number, number> = { 2: 1, 3: 2, 4: 4, 5: 8, 7: 1 };
type Entry = [tag: number, type: number, value: Buffer];

/** A camera JPEG of raw RGB `pixels` (stored as given: the orientation says how to turn them). */
export async function cameraJpeg(pixels: Buffer, width: number, height: number, options: CameraOptions = {}): Promise<Buffer> {
  const raw = { width, height, channels: 3 as const };
  const plain = await sharp(pixels, { raw }).jpeg({ quality: 90 }).toBuffer();
  const thumbnail = await sharp(pixels, { raw }).resize(160, 120, { fit: 'inside' }).jpeg({ quality: 70 }).toBuffer();
  const segments = [
    ...(options.jfif ? [jfif()] : []),
    segment(0xe1, Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), cameraExif(width, height, options.orientation ?? 1, options.dimensionType ?? 3, thumbnail)])),
    ...(options.xmp ? [segment(0xe1, Buffer.from(`http://ns.adobe.com/xap/1.0/\0${XMP}`, 'latin1'))] : []),
    ...(options.profile && options.profile !== 'none' ? [iccSegment(await profileBytes(options.profile))] : []),
    ...(options.iptc ? [segment(0xed, iptc('Sunset over the bay'))] : []),
    ...(options.comment ? [segment(0xfe, Buffer.from('Shot on a tripod', 'latin1'))] : []),
    ...(options.adobe ? [segment(0xee, Buffer.from([0x41, 0x64, 0x6f, 0x62, 0x65, 0, 100, 0, 0, 0, 0, 1]))] : []),
  ];
  return Buffer.concat([plain.subarray(0, 2), ...segments, plain.subarray(afterAppSegments(plain))]);
}

/** The ICC profile bytes of a {@link CameraProfile} (not `none`). */
export async function profileBytes(profile: Exclude<CameraProfile, 'none'>): Promise<Buffer> {
  if (profile === 'adobe-rgb') return adobeRgbProfile();
  const one = await sharp(Buffer.alloc(3), { raw: { width: 1, height: 1, channels: 3 } }).withIccProfile(profile).jpeg().toBuffer();
  return (await sharp(one).metadata()).icc!;
}

const XMP =
  '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">' +
  '<rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:creator><rdf:Seq><rdf:li>A. Photographer</rdf:li></rdf:Seq></dc:creator>' +
  '</rdf:Description></rdf:RDF></x:xmpmeta>';

/** A JPEG marker segment: marker, length, `data`. */
export function segment(marker: number, data: Buffer): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt16BE(0xff00 | marker, 0);
  head.writeUInt16BE(data.length + 2, 2);
  return Buffer.concat([head, data]);
}

function jfif(): Buffer {
  // Version 1.01, dots per inch, 300 × 300, no thumbnail.
  return segment(0xe0, Buffer.from([0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 1, 0x01, 0x2c, 0x01, 0x2c, 0, 0]));
}

function iccSegment(profile: Buffer): Buffer {
  return segment(0xe2, Buffer.concat([Buffer.from('ICC_PROFILE\0', 'latin1'), Buffer.from([1, 1]), profile]));
}

/** A Photoshop APP13 block with one IPTC record: the caption (2:120). */
export function iptc(caption: string): Buffer {
  const text = Buffer.from(caption, 'latin1');
  const record = Buffer.concat([Buffer.from([0x1c, 2, 120, text.length >> 8, text.length & 0xff]), text]);
  const padded = record.length % 2 ? Buffer.concat([record, Buffer.alloc(1)]) : record;
  const size = Buffer.alloc(4);
  size.writeUInt32BE(record.length);
  return Buffer.concat([Buffer.from('Photoshop 3.0\0' + '8BIM', 'latin1'), Buffer.from([0x04, 0x04, 0, 0]), size, padded]);
}

/** Offset of the first segment after SOI that is not APPn or COM. */
function afterAppSegments(jpeg: Buffer): number {
  let at = 2;
  while (jpeg[at] === 0xff && ((jpeg[at + 1]! >= 0xe0 && jpeg[at + 1]! <= 0xef) || jpeg[at + 1] === 0xfe)) at += 2 + jpeg.readUInt16BE(at + 2);
  return at;
}

/** A little-endian TIFF block: IFD0, the EXIF IFD and IFD1 with the thumbnail, values after them. */
function cameraExif(width: number, height: number, orientation: number, dimensionType: 3 | 4, thumbnail: Buffer): Buffer {
  const ascii = (s: string) => Buffer.from(`${s}\0`, 'latin1');
  const num = (bytes: number, ...values: number[]) => {
    const b = Buffer.alloc(bytes * values.length);
    values.forEach((v, k) => (bytes === 2 ? b.writeUInt16LE(v, 2 * k) : b.writeUInt32LE(v, 4 * k)));
    return b;
  };
  const ifd0: Entry[] = [
    [0x010f, 2, ascii(CAMERA.make)],
    [0x0110, 2, ascii(CAMERA.model)],
    [0x0112, 3, num(2, orientation)],
    [0x011a, 5, num(4, 72, 1)],
    [0x011b, 5, num(4, 72, 1)],
    [0x0128, 3, num(2, 2)],
    [0x0132, 2, ascii(CAMERA.dateTime)],
    [0x8769, 4, num(4, 0)],
  ];
  const exif: Entry[] = [
    [0x829a, 5, num(4, 1, 250)],
    [0x9003, 2, ascii(CAMERA.dateTime)],
    [0x927c, 7, Buffer.from('maker note: lens 24-70 mm, serial 0042', 'latin1')],
    [0xa001, 3, num(2, 1)],
    [0xa002, dimensionType, num(dimensionType === 3 ? 2 : 4, width)],
    [0xa003, dimensionType, num(dimensionType === 3 ? 2 : 4, height)],
  ];
  const ifd1: Entry[] = [
    [0x0103, 3, num(2, 6)],
    [0x0201, 4, num(4, 0)],
    [0x0202, 4, num(4, thumbnail.length)],
  ];
  const ifdSize = (entries: Entry[]) => 2 + 12 * entries.length + 4;
  const at0 = 8;
  const atExif = at0 + ifdSize(ifd0);
  const at1 = atExif + ifdSize(exif);
  let data = at1 + ifdSize(ifd1);
  const out = Buffer.alloc(data + 1024 + thumbnail.length);
  out.write('II', 0, 'latin1');
  out.writeUInt16LE(42, 2);
  out.writeUInt32LE(at0, 4);
  const write = (at: number, entries: Entry[], next: number) => {
    out.writeUInt16LE(entries.length, at);
    entries.forEach(([tag, type, value], k) => {
      const e = at + 2 + 12 * k;
      out.writeUInt16LE(tag, e);
      out.writeUInt16LE(type, e + 2);
      out.writeUInt32LE(value.length / TYPE_SIZE[type]!, e + 4);
      if (value.length <= 4) value.copy(out, e + 8);
      else {
        out.writeUInt32LE(data, e + 8);
        value.copy(out, data);
        data += value.length + (value.length % 2);
      }
    });
    out.writeUInt32LE(next, at + 2 + 12 * entries.length);
  };
  ifd0[7]![2].writeUInt32LE(atExif);
  write(at0, ifd0, at1);
  write(atExif, exif, 0);
  const thumbAt = data + 64;
  ifd1[1]![2].writeUInt32LE(thumbAt);
  write(at1, ifd1, 0);
  thumbnail.copy(out, thumbAt);
  return out.subarray(0, thumbAt + thumbnail.length);
}

/**
 * An ICC v2 display profile for Adobe RGB (1998): its primaries adapted to
 * D50 and a pure gamma of 563/256, as Adobe's own profile has them.
 */
function adobeRgbProfile(): Buffer {
  return rgbProfile('Adobe RGB (1998) (test)', { r: [0.60974, 0.31111, 0.01947], g: [0.20528, 0.62567, 0.06087], b: [0.14919, 0.06322, 0.74457] }, 563 / 256);
}
