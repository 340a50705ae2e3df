/**
 * Minimal ICC v2 display profiles for tests: a description, a D50 white
 * point, and per colour space the tone curves (and primaries) that decide
 * how a colour-managed viewer shows the pixels. Enough for lcms (sharp,
 * libvips) to convert with; not a calibrated profile.
 */

import { crc32, deflateSync } from 'node:zlib';

/** The D50 white point every ICC profile's connection space uses. */
export const D50: XYZ = [0.9642, 1, 0.8249];

type XYZ = [number, number, number];

/** sRGB's primaries adapted to D50 (the connection space), for {@link rgbProfile}. */
export const SRGB_D50: { r: XYZ; g: XYZ; b: XYZ } = { r: [0.4361, 0.2225, 0.0139], g: [0.3851, 0.7169, 0.0971], b: [0.1431, 0.0606, 0.7141] };

/** An RGB profile: primaries (adapted to D50) and one pure gamma for the three channels. */
export function rgbProfile(name: string, primaries: { r: XYZ; g: XYZ; b: XYZ }, gamma: number): Buffer {
  const curve = gammaCurve(gamma);
  return profile('RGB ', name, [
    ['rXYZ', xyzTag(primaries.r)],
    ['gXYZ', xyzTag(primaries.g)],
    ['bXYZ', xyzTag(primaries.b)],
    ['rTRC', curve],
    ['gTRC', curve],
    ['bTRC', curve],
  ]);
}

/** A grey profile with a pure gamma tone curve (Photoshop's "Gray Gamma 2.2" for 2.2). */
export function greyProfile(name: string, gamma: number): Buffer {
  return profile('GRAY', name, [['kTRC', gammaCurve(gamma)]]);
}

/** A JPEG with `profile` in an APP2 ICC_PROFILE segment right after SOI (as a camera or Photoshop writes it). */
export function jpegWithIcc(jpeg: Buffer, profile: Buffer): Buffer<ArrayBuffer> {
  const data = Buffer.concat([Buffer.from('ICC_PROFILE\0', 'latin1'), Buffer.from([1, 1]), profile]);
  const head = Buffer.alloc(4);
  head.writeUInt16BE(0xffe2, 0);
  head.writeUInt16BE(data.length + 2, 2);
  return Buffer.concat([jpeg.subarray(0, 2), head, data, jpeg.subarray(2)]) as Buffer<ArrayBuffer>;
}

/** A PNG with `profile` in an iCCP chunk right after IHDR (PNG specification, 11.3.2.3), as Photoshop writes a grey one. */
export function pngWithIcc(png: Buffer, profile: Buffer): Buffer<ArrayBuffer> {
  const data = Buffer.concat([Buffer.from('test profile\0\0', 'latin1'), deflateSync(profile)]);
  const chunk = Buffer.alloc(12 + data.length);
  chunk.writeUInt32BE(data.length, 0);
  chunk.write('iCCP', 4, 'latin1');
  data.copy(chunk, 8);
  chunk.writeUInt32BE(crc32(chunk.subarray(4, 8 + data.length)), 8 + data.length);
  const afterIhdr = 8 + 12 + png.readUInt32BE(8);
  return Buffer.concat([png.subarray(0, afterIhdr), chunk, png.subarray(afterIhdr)]) as Buffer<ArrayBuffer>;
}

/** ICC's D50 as encoded in every profile header (s15Fixed16). */
export const D50_ENCODED: XYZ = [0xf6d6, 0x10000, 0xd32d];

export interface ProfileSpec {
  /** Header version field: 0x02100000 (v2.1) or 0x04300000 (v4.3). */
  version: number;
  cls?: string;
  space?: string;
  pcs?: string;
  intent?: number;
  /** s15Fixed16 as encoded; D50 unless given. */
  illuminant?: XYZ;
  tags: [string, Uint8Array][];
}

/** A profile of header and tags, each tag's data 4-byte aligned, the size field right. */
export function iccProfile(spec: ProfileSpec): Buffer {
  const table = Buffer.alloc(4 + 12 * spec.tags.length);
  table.writeUInt32BE(spec.tags.length);
  const bodies: Buffer[] = [];
  let at = 128 + table.length;
  spec.tags.forEach(([sig, body], k) => {
    table.write(sig, 4 + 12 * k, 'latin1');
    table.writeUInt32BE(at, 8 + 12 * k);
    table.writeUInt32BE(body.length, 12 + 12 * k);
    const padded = Buffer.concat([body, Buffer.alloc((4 - (body.length % 4)) % 4)]);
    bodies.push(padded);
    at += padded.length;
  });
  const header = Buffer.alloc(128);
  header.writeUInt32BE(at, 0);
  header.write('lcms', 4, 'latin1');
  header.writeUInt32BE(spec.version, 8);
  header.write(`${spec.cls ?? 'mntr'}${spec.space ?? 'GRAY'}${spec.pcs ?? 'XYZ '}`, 12, 'latin1');
  [2025, 3, 14, 9, 26, 53].forEach((v, k) => header.writeUInt16BE(v, 24 + 2 * k));
  header.write('acspAPPL', 36, 'latin1');
  header.writeUInt32BE(spec.intent ?? 0, 64);
  (spec.illuminant ?? D50_ENCODED).forEach((v, k) => header.writeInt32BE(v, 68 + 4 * k));
  header.write('test', 80, 'latin1');
  return Buffer.concat([header, table, ...bodies]);
}

/** A v2 display profile of `space`: description, copyright, white point, then `tags`. */
function profile(space: 'RGB ' | 'GRAY', name: string, tags: [string, Buffer][]): Buffer {
  const all: [string, Buffer][] = [['desc', description(name)], ['cprt', Buffer.from('text\0\0\0\0No copyright, test data\0', 'latin1')], ['wtpt', xyzTag(D50)], ...tags];
  return iccProfile({ version: 0x02100000, space, tags: all });
}

function s15(v: number): number {
  return Math.round(v * 65536);
}

function xyzTag([x, y, z]: XYZ): Buffer {
  const b = Buffer.alloc(20);
  b.write('XYZ ', 0, 'latin1');
  [x, y, z].forEach((v, k) => b.writeInt32BE(s15(v), 8 + 4 * k));
  return b;
}

/** A `curv` tag with one entry: a pure gamma (u8.8 fixed point). */
function gammaCurve(gamma: number): Buffer {
  const curve = Buffer.alloc(16);
  curve.write('curv', 0, 'latin1');
  curve.writeUInt32BE(1, 8);
  curve.writeUInt16BE(Math.round(gamma * 256), 12);
  return curve;
}

/** A v2 `desc` tag: the ASCII name, empty Unicode and ScriptCode parts. */
function description(name: string): Buffer {
  const desc = Buffer.alloc(12 + name.length + 1 + 4 + 4 + 3 + 67);
  desc.write('desc', 0, 'latin1');
  desc.writeUInt32BE(name.length + 1, 8);
  desc.write(name, 12, 'latin1');
  return desc;
}
