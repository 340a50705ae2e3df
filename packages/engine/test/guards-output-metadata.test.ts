/**
 * Output guarantees on the metadata and the colour encoding of the file
 * correctImage writes, for inputs cameras and editors write: XMP or IPTC
 * alone (no EXIF, no profile), greyscale, CMYK and 16-bit files. Checked
 * on the output bytes with sharp.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { correctImage } from '../src/correct';
import { iptc, segment } from './camera-photo';
import { sample } from './colour-helpers';

const COFFEE = sample('objects/coffee.jpg');
const NO_FACES = { findFaces: null } as const;
const W = 160;
const H = 120;

const XMP_CREATOR = 'Guard Photographer';
const XMP =
  '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">' +
  `<rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:creator><rdf:Seq><rdf:li>${XMP_CREATOR}</rdf:li></rdf:Seq></dc:creator>` +
  '</rdf:Description></rdf:RDF></x:xmpmeta>';
const IPTC_CAPTION = 'Guarded caption';

/** A plain JPEG of the photo (no EXIF, no profile) with `segments` inserted after SOI. */
async function jpegWith(...segments: Buffer[]): Promise<Buffer> {
  const plain = await sharp(COFFEE).resize(W, H, { fit: 'fill' }).jpeg({ quality: 90 }).toBuffer();
  return Buffer.concat([plain.subarray(0, 2), ...segments, plain.subarray(2)]);
}

async function rawRgb(file: Buffer): Promise<{ data: Buffer; width: number; height: number; channels: number }> {
  const { data, info } = await sharp(file).raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: info.channels };
}

/** Mean absolute difference per sample. */
function meanDiff(a: Uint8Array, b: Uint8Array): number {
  expect(a.length).toBe(b.length);
  let d = 0;
  for (let i = 0; i < a.length; i++) d += Math.abs(a[i]! - b[i]!);
  return d / a.length;
}

describe('metadata of a source with XMP or IPTC but no EXIF and no profile', () => {
  it('XMP alone is kept by default and dropped with preserveMetadata=false', async () => {
    const input = await jpegWith(segment(0xe1, Buffer.from(`http://ns.adobe.com/xap/1.0/\0${XMP}`, 'latin1')));
    expect((await sharp(input).metadata()).exif).toBeUndefined();
    for (const outputType of ['jpg', 'png'] as const) {
      const kept = await sharp((await correctImage(input, { preset: 'none', outputType }, NO_FACES)).output).metadata();
      expect(kept.xmp?.toString('utf8'), outputType).toContain(XMP_CREATOR);
      const stripped = await sharp((await correctImage(input, { preset: 'none', outputType, preserveMetadata: false }, NO_FACES)).output).metadata();
      expect(stripped.xmp, outputType).toBeUndefined();
    }
  });

  it('IPTC alone is kept by default (JPEG out) and dropped with preserveMetadata=false', async () => {
    const input = await jpegWith(segment(0xed, iptc(IPTC_CAPTION)));
    expect((await sharp(input).metadata()).iptc).toBeDefined();
    const kept = await sharp((await correctImage(input, { preset: 'none' }, NO_FACES)).output).metadata();
    expect(kept.iptc?.toString('latin1')).toContain(IPTC_CAPTION);
    const stripped = await sharp((await correctImage(input, { preset: 'none', preserveMetadata: false }, NO_FACES)).output).metadata();
    expect(stripped.iptc).toBeUndefined();
  });
});

describe('inputs in other colour encodings come out as the photo they show', () => {
  it('a greyscale PNG comes out with the same grey in every pixel (R = G = B = the source grey)', async () => {
    const grey = await sharp(COFFEE).resize(W, H, { fit: 'fill' }).greyscale().toColourspace('b-w').png().toBuffer();
    expect((await sharp(grey).metadata()).channels).toBe(1);
    const source = { data: await sharp(grey).extractChannel(0).raw().toBuffer() };
    expect(source.data.length).toBe(W * H);
    for (const preserveMetadata of [true, false]) {
      const out = await rawRgb((await correctImage(grey, { preset: 'none', preserveMetadata }, NO_FACES)).output);
      expect([out.width, out.height]).toEqual([W, H]);
      let off = 0;
      for (let p = 0; p < W * H; p++) {
        for (let k = 0; k < out.channels && k < 3; k++) off = Math.max(off, Math.abs(out.data[p * out.channels + k]! - source.data[p]!));
      }
      expect(off, `preserveMetadata ${preserveMetadata}`).toBeLessThanOrEqual(1);
    }
  });

  it('a greyscale JPEG with EXIF keeps its EXIF and its greys', async () => {
    const grey = await sharp(COFFEE)
      .resize(W, H, { fit: 'fill' })
      .greyscale()
      .toColourspace('b-w')
      .withExif({ IFD0: { Copyright: 'Grey guard' } })
      .jpeg({ quality: 95 })
      .toBuffer();
    expect((await sharp(grey).metadata()).channels).toBe(1);
    const want = await sharp(grey).extractChannel(0).raw().toBuffer();
    const file = (await correctImage(grey, { preset: 'none', outputType: 'png' }, NO_FACES)).output;
    expect((await sharp(file).metadata()).exif?.toString('latin1')).toContain('Grey guard');
    const out = await rawRgb(file);
    expect([out.width, out.height]).toEqual([W, H]);
    let off = 0;
    for (let p = 0; p < W * H; p++) for (let k = 0; k < Math.min(3, out.channels); k++) off = Math.max(off, Math.abs(out.data[p * out.channels + k]! - want[p]!));
    expect(off).toBeLessThanOrEqual(1);
  });

  it('a greyscale JPEG is corrected without error and keeps its size and look', async () => {
    const grey = await sharp(COFFEE).resize(W, H, { fit: 'fill' }).greyscale().toColourspace('b-w').jpeg().toBuffer();
    const want = await sharp(grey).toColourspace('srgb').raw().toBuffer();
    const out = await rawRgb((await correctImage(grey, { preset: 'none', outputType: 'png' }, NO_FACES)).output);
    expect([out.width, out.height, out.channels]).toEqual([W, H, 3]);
    expect(meanDiff(out.data, want)).toBeLessThan(1);
  });

  it('a CMYK JPEG comes out as the RGB photo it shows', async () => {
    const cmyk = await sharp(COFFEE).resize(W, H, { fit: 'fill' }).toColourspace('cmyk').jpeg({ quality: 95 }).toBuffer();
    expect((await sharp(cmyk).metadata()).space).toBe('cmyk');
    const want = await sharp(cmyk).toColourspace('srgb').removeAlpha().raw().toBuffer();
    for (const preserveMetadata of [true, false]) {
      const out = await rawRgb((await correctImage(cmyk, { preset: 'none', outputType: 'png', preserveMetadata }, NO_FACES)).output);
      expect([out.width, out.height, out.channels]).toEqual([W, H, 3]);
      expect(meanDiff(out.data, want), `preserveMetadata ${preserveMetadata}`).toBeLessThan(2);
    }
  });

  it('a 16-bit PNG without a profile comes out as its 8-bit photo, at its size', async () => {
    const eight = await sharp(COFFEE).resize(W, H, { fit: 'fill' }).removeAlpha().raw().toBuffer();
    const sixteen = new Uint16Array(W * H * 3);
    for (let i = 0; i < eight.length; i++) sixteen[i] = eight[i]! * 257;
    const png16 = await sharp(sixteen, { raw: { width: W, height: H, channels: 3 } })
      .toColourspace('rgb16')
      .png()
      .toBuffer();
    const meta = await sharp(png16).metadata();
    expect(meta.depth).toBe('ushort');
    for (const preserveMetadata of [true, false]) {
      const out = await rawRgb((await correctImage(png16, { preset: 'none', preserveMetadata }, NO_FACES)).output);
      expect([out.width, out.height, out.channels]).toEqual([W, H, 3]);
      expect(meanDiff(out.data, eight), `preserveMetadata ${preserveMetadata}`).toBeLessThan(1);
    }
  });
});

describe('transparent inputs in other encodings keep their transparency', () => {
  it('16-bit RGBA, grey + alpha and palette PNGs (with and without EXIF) come out as RGBA PNGs showing the same pixels', async () => {
    const w = 96;
    const h = 64;
    const rgba = await sharp(COFFEE).resize(w, h, { fit: 'fill' }).ensureAlpha().raw().toBuffer();
    for (let p = 0; p < w * h; p++) rgba[4 * p + 3] = p % w < w / 2 ? 255 : 60;
    const raw = () => sharp(rgba, { raw: { width: w, height: h, channels: 4 } });
    const u16 = new Uint16Array(rgba.length);
    for (let i = 0; i < rgba.length; i++) u16[i] = rgba[i]! * 257;
    const raw16 = () => sharp(u16, { raw: { width: w, height: h, channels: 4 } }).toColourspace('rgb16');
    const exif = { IFD0: { Copyright: 'Alpha guard' } };
    const inputs: [string, Buffer][] = [
      ['16-bit RGBA', await raw16().png().toBuffer()],
      ['16-bit RGBA + EXIF', await raw16().withExif(exif).png().toBuffer()],
      ['grey + alpha', await raw().toColourspace('b-w').png().toBuffer()],
      ['grey + alpha + EXIF', await raw().toColourspace('b-w').withExif(exif).png().toBuffer()],
      ['palette', await raw().png({ palette: true }).toBuffer()],
    ];
    for (const [name, file] of inputs) {
      const want = await sharp(file).ensureAlpha().toColourspace('srgb').raw({ depth: 'uchar' }).toBuffer();
      for (const preserveMetadata of [true, false]) {
        const out = (await correctImage(file, { preset: 'none', preserveMetadata }, NO_FACES)).output;
        const meta = await sharp(out).metadata();
        expect([meta.format, meta.hasAlpha, meta.width, meta.height], name).toEqual(['png', true, w, h]);
        const got = await sharp(out).ensureAlpha().toColourspace('srgb').raw({ depth: 'uchar' }).toBuffer();
        let off = 0;
        for (let i = 0; i < got.length; i++) off = Math.max(off, Math.abs(got[i]! - want[i]!));
        expect(off, `${name}, preserveMetadata ${preserveMetadata}`).toBeLessThanOrEqual(1);
      }
    }
  });
});
