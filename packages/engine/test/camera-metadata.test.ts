/**
 * Camera and phone JPEGs keep their metadata without sharp's pipeline over
 * the source (`image/source-header.ts`, `image/srgb-tag.ts`): the files must
 * be the very bytes sharp's `withMetadata()` way writes
 * (`encodeWithSharpMetadata`), for every orientation and profile, and that
 * way must not be taken for them.
 */
import sharp from 'sharp';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { correctImage } from '../src/correct';
import { encodeRaster, encodeWithSharpMetadata, type OutputFormat } from '../src/image/encode';
import { decodeRaster, type Raster } from '../src/image/raster';
import { metadataStandIn } from '../src/image/source-header';
import { CAMERA, cameraJpeg, profileBytes, type CameraOptions } from './camera-photo';
import { noiseBytes } from './noise';

const W = 300;
const H = 200;

/** Saturated, smooth colours (far outside sRGB when read as P3 or Adobe RGB) with some noise. */
function pixels(): Buffer {
  const noise = noiseBytes(W * H * 3, 11);
  const out = Buffer.alloc(W * H * 3);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const i = 3 * (y * W + x);
      out[i] = Math.min(255, (x * 255) / W + (noise[i]! >> 5));
      out[i + 1] = Math.min(255, (y * 255) / H + (noise[i + 1]! >> 5));
      out[i + 2] = x < W / 2 ? 20 : 235;
    }
  }
  return out;
}

const PIXELS = pixels();

/** What the engine encodes from `input`: its upright sRGB pixels, slightly changed as a correction would. */
async function corrected(input: Buffer): Promise<Raster> {
  const raster = await decodeRaster(input);
  for (let i = 0; i < raster.data.length; i += 7) raster.data[i] = 255 - raster.data[i]!;
  return raster;
}

const JPEG = { quality: 90, chromaSubsampling: '4:2:0', optimiseCoding: false } as const;

async function both(input: Buffer, format: OutputFormat): Promise<{ ours: Buffer; sharps: Buffer; raster: Raster }> {
  const raster = await corrected(input);
  const source = await sharp(input).metadata();
  const ours = await encodeRaster(raster, { format, ...JPEG, metadataFrom: input, sourceMetadata: source });
  const sharps = await encodeWithSharpMetadata(raster, format, JPEG, input, source);
  return { ours, sharps, raster };
}

/** Counts pipelines that lay the pixels over the source (sharp's way, see `overSource` in image/encode.ts). */
function overSourceCalls() {
  return vi.spyOn(sharp.prototype, 'boolean');
}

afterEach(() => {
  vi.restoreAllMocks();
});

const CASES: [string, CameraOptions][] = [
  ['no profile, upright', {}],
  ['sRGB profile, orientation 6 (portrait)', { profile: 'srgb', orientation: 6 }],
  ['sRGB profile, orientation 3, LONG dimensions', { profile: 'srgb', orientation: 3, dimensionType: 4 }],
  ['no profile, orientation 8, JFIF at 300 dpi', { orientation: 8, jfif: true }],
  ['Display P3, orientation 6', { profile: 'p3', orientation: 6 }],
  ['Adobe RGB (1998)', { profile: 'adobe-rgb' }],
  ['sRGB with XMP, IPTC and a comment, orientation 5', { profile: 'srgb', xmp: true, iptc: true, comment: true, orientation: 5 }],
  ['Adobe APP14 marker (its own stand-in), orientation 6', { profile: 'srgb', adobe: true, orientation: 6 }],
];

describe('a camera JPEG’s metadata kept without sharp’s pipeline over the source', () => {
  it.each(CASES)('%s: JPEG and PNG, the bytes of sharp’s withMetadata way', async (_name, options) => {
    const input = await cameraJpeg(PIXELS, W, H, options);
    const calls = overSourceCalls();
    for (const format of ['jpeg', 'png'] as const) {
      const { ours, sharps } = await both(input, format);
      expect(ours.equals(sharps), format).toBe(true);
    }
    // Only the reference laid the pixels over the source: once per format.
    expect(calls).toHaveBeenCalledTimes(2);
  });

  it('a PNG source with EXIF: the same bytes', async () => {
    const png = await sharp(PIXELS, { raw: { width: W, height: H, channels: 3 } })
      .withExif({ IFD0: { Make: CAMERA.make, Model: CAMERA.model, DateTime: CAMERA.dateTime } })
      .withIccProfile('srgb')
      .png()
      .toBuffer();
    for (const format of ['jpeg', 'png'] as const) {
      const { ours, sharps } = await both(png, format);
      expect(ours.equals(sharps), format).toBe(true);
    }
  });

  it('keeps what the camera wrote, upright: dimensions turned, orientation 1, EXIF fields and thumbnail', async () => {
    const input = await cameraJpeg(PIXELS, W, H, { profile: 'srgb', orientation: 6, xmp: true });
    const { ours, raster } = await both(input, 'jpeg');
    const meta = await sharp(ours).metadata();
    expect([meta.width, meta.height, meta.orientation ?? 1]).toEqual([H, W, 1]);
    expect([raster.width, raster.height]).toEqual([H, W]);
    const exif = meta.exif!.toString('latin1');
    // (libexif drops a maker note of a kind it does not know, as sharp's way does: the bytes are the same.)
    for (const field of [CAMERA.make, CAMERA.model, CAMERA.dateTime]) expect(exif).toContain(field);
    expect(meta.xmp?.toString()).toContain('A. Photographer');
    expect(pixelDimensions(meta.exif!)).toEqual([H, W]);
    // IFD1's thumbnail is still there (regenerated only with updateThumbnail).
    expect(exif).toContain('\xff\xd8\xff');
  });

  it('an alpha source keeps sharp’s way: its blend moves half-transparent pixels, and the bytes stay as they were', async () => {
    const rgba = await sharp(PIXELS, { raw: { width: W, height: H, channels: 3 } }).ensureAlpha(0.5).withExif({ IFD0: { Model: CAMERA.model } }).png().toBuffer();
    const raster = await decodeRaster(rgba);
    const source = await sharp(rgba).metadata();
    const out = await encodeRaster(raster, { format: 'png', metadataFrom: rgba });
    expect(out.equals(await encodeWithSharpMetadata(raster, 'png', JPEG, rgba, source))).toBe(true);
    expect((await sharp(out).metadata()).exif?.toString('latin1')).toContain(CAMERA.model);
  });
});

describe('profiles other than sRGB are converted, not re-tagged', () => {
  it.each(['p3', 'adobe-rgb'] as const)('%s: sRGB pixels and sRGB profile out', async (profile) => {
    const input = await cameraJpeg(PIXELS, W, H, { profile });
    const raster = await decodeRaster(input);
    const out = await encodeRaster(raster, { format: 'png', metadataFrom: input });
    const meta = await sharp(out).metadata();
    expect(meta.icc?.equals(await profileBytes('srgb'))).toBe(true);
    const written = await sharp(out, { ignoreIcc: true }).raw().toBuffer();
    const untouched = await sharp(input, { ignoreIcc: true }).raw().toBuffer();
    // The pixels written are the decoded sRGB ones, far from the source's own numbers on these colours.
    expect(Buffer.from(raster.data).equals(written)).toBe(true);
    expect(meanDifference(written, untouched)).toBeGreaterThan(3);
  });
});

describe('metadataStandIn', () => {
  it('a camera JPEG: its metadata segments over a 1×1 scan, read by sharp as the source', async () => {
    const input = await cameraJpeg(PIXELS, W, H, { profile: 'p3', orientation: 6, xmp: true, iptc: true, comment: true, jfif: true });
    const standIn = await metadataStandIn(input, 'jpeg');
    expect(standIn.length).toBeLessThan(input.length / 2);
    const [a, b] = await Promise.all([sharp(input).metadata(), sharp(standIn).metadata()]);
    expect([b.width, b.height]).toEqual([1, 1]);
    for (const key of ['exif', 'icc', 'xmp', 'iptc', 'comments', 'density', 'orientation'] as const) expect(b[key], key).toEqual(a[key]);
  });

  it('segments it does not know, or metadata after the tables, and PNG: the source itself', async () => {
    const adobe = await cameraJpeg(PIXELS, W, H, { adobe: true });
    expect(await metadataStandIn(adobe, 'jpeg')).toBe(adobe);
    const plain = await cameraJpeg(PIXELS, W, H);
    const dqt = plain.indexOf(Buffer.from([0xff, 0xdb]));
    const late = Buffer.concat([plain.subarray(0, dqt + 2 + plain.readUInt16BE(dqt + 2)), Buffer.from([0xff, 0xfe, 0, 4, 0x68, 0x69]), plain.subarray(dqt + 2 + plain.readUInt16BE(dqt + 2))]);
    expect(await metadataStandIn(late, 'jpeg')).toBe(late);
    const png = await sharp(PIXELS, { raw: { width: W, height: H, channels: 3 } }).png().toBuffer();
    expect(await metadataStandIn(png, 'png')).toBe(png);
  });
});

describe('correctImage of a camera JPEG', () => {
  it('keeps the EXIF, upright with orientation 1, sRGB profile, without sharp’s pipeline over the source', async () => {
    const input = await cameraJpeg(PIXELS, W, H, { profile: 'srgb', orientation: 6 });
    const calls = overSourceCalls();
    const r = await correctImage(input, {}, { findFaces: null });
    expect(calls).not.toHaveBeenCalled();
    const meta = await sharp(r.output).metadata();
    expect([meta.width, meta.height, meta.orientation ?? 1]).toEqual([H, W, 1]);
    expect(meta.exif?.toString('latin1')).toContain(CAMERA.model);
    expect(meta.icc?.equals(await profileBytes('srgb'))).toBe(true);
  });
});

/** PixelXDimension and PixelYDimension of a little- or big-endian EXIF block ("Exif\0\0" and a TIFF header). */
function pixelDimensions(exif: Buffer): [number, number] {
  const tiff = exif.subarray(6);
  const le = tiff.toString('latin1', 0, 2) === 'II';
  const u16 = (o: number) => (le ? tiff.readUInt16LE(o) : tiff.readUInt16BE(o));
  const u32 = (o: number) => (le ? tiff.readUInt32LE(o) : tiff.readUInt32BE(o));
  const find = (ifd: number, tag: number): number => {
    for (let k = 0; k < u16(ifd); k++) {
      const e = ifd + 2 + 12 * k;
      if (u16(e) === tag) return u16(e + 2) === 3 ? u16(e + 8) : u32(e + 8);
    }
    throw new Error(`tag ${tag} not found`);
  };
  const exifIfd = find(u32(4), 0x8769);
  return [find(exifIfd, 0xa002), find(exifIfd, 0xa003)];
}

function meanDifference(a: Buffer, b: Buffer): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i]! - b[i]!);
  return sum / a.length;
}
