import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { scanJpegFrame, sniffMedia, sniffType } from '../src/index';
import { sniffImageType } from '../src/selfhosted/input';

const rgb = (width: number, height: number) => ({ raw: { width, height, channels: 3 as const } });
const pixels = (width: number, height: number) => Buffer.alloc(width * height * 3, 120);

/** A PNG with an `acTL` chunk inserted after IHDR: what makes it an APNG (CRCs are not the sniffer's business). */
function asApng(png: Buffer): Buffer {
  const ihdrEnd = 8 + 12 + png.readUInt32BE(8);
  const actl = Buffer.alloc(20);
  actl.writeUInt32BE(8, 0);
  actl.write('acTL', 4, 'latin1');
  actl.writeUInt32BE(2, 8); // frames
  return Buffer.concat([png.subarray(0, ihdrEnd), actl, png.subarray(ihdrEnd)]);
}

describe('sniffMedia', () => {
  it('reads format, size and components of a JPEG, and size of a PNG (not animated)', async () => {
    const jpeg = await sharp(pixels(33, 17), rgb(33, 17)).jpeg().toBuffer();
    expect(sniffMedia(jpeg)).toMatchObject({ format: 'jpeg', kind: 'image', mimeType: 'image/jpeg', supported: true, width: 33, height: 17, components: 3 });
    const png = await sharp(pixels(40, 30), rgb(40, 30)).png().toBuffer();
    expect(sniffMedia(png)).toMatchObject({ format: 'png', supported: true, width: 40, height: 30, animated: false });
  });

  it('tells greyscale JPEG and PNG (with and without alpha) from colour ones; a palette PNG is colour', async () => {
    const grey = (channels: 1 | 2) => sharp(Buffer.alloc(16 * 8 * channels, 90), { raw: { width: 16, height: 8, channels } }).toColourspace('b-w');
    expect(sniffMedia(await grey(1).jpeg().toBuffer())).toMatchObject({ format: 'jpeg', components: 1, grey: true });
    expect(sniffMedia(await grey(1).png().toBuffer())).toMatchObject({ format: 'png', grey: true });
    expect(sniffMedia(await grey(2).png().toBuffer())).toMatchObject({ format: 'png', grey: true });
    expect(sniffMedia(await sharp(pixels(16, 8), rgb(16, 8)).jpeg().toBuffer())).toMatchObject({ components: 3, grey: false });
    expect(sniffMedia(await sharp(pixels(16, 8), rgb(16, 8)).png().toBuffer())).toMatchObject({ grey: false });
    expect(sniffMedia(await sharp(pixels(16, 8), rgb(16, 8)).png({ palette: true }).toBuffer())).toMatchObject({ grey: false });
  });

  it('tells an APNG, an animated GIF and an animated WebP from still ones', async () => {
    const png = await sharp(pixels(8, 8), rgb(8, 8)).png().toBuffer();
    expect(sniffMedia(asApng(png))).toMatchObject({ format: 'png', supported: true, width: 8, height: 8, animated: true });
    const pages = await sharp(Buffer.concat([pixels(8, 8), Buffer.alloc(8 * 8 * 3, 10)]), { raw: { width: 8, height: 16, channels: 3, pageHeight: 8 } as never })
      .gif({ loop: 0, delay: [100, 100] })
      .toBuffer();
    expect(sniffMedia(pages)).toMatchObject({ format: 'gif', kind: 'image', supported: false, mimeType: 'image/gif', width: 8, height: 8, animated: true });
    const still = await sharp(pixels(9, 7), rgb(9, 7)).gif().toBuffer();
    expect(sniffMedia(still)).toMatchObject({ format: 'gif', width: 9, height: 7, animated: false });
    const webpAnim = await sharp(Buffer.concat([pixels(8, 8), Buffer.alloc(8 * 8 * 3, 10)]), { raw: { width: 8, height: 16, channels: 3, pageHeight: 8 } as never })
      .webp({ loop: 0, delay: [100, 100] })
      .toBuffer();
    expect(sniffMedia(webpAnim)).toMatchObject({ format: 'webp', supported: false, animated: true, width: 8, height: 8 });
    const webpStill = await sharp(pixels(8, 8), rgb(8, 8)).webp().toBuffer();
    expect(sniffMedia(webpStill)).toMatchObject({ format: 'webp', animated: false });
  });

  it('knows videos and other formats, and refuses audio and random bytes', () => {
    const ftyp = (brand: string) => Buffer.concat([Buffer.from([0, 0, 0, 24]), Buffer.from(`ftyp${brand}`, 'latin1'), Buffer.alloc(12)]);
    expect(sniffMedia(ftyp('isom'))).toMatchObject({ format: 'mp4', kind: 'video', supported: true });
    expect(sniffMedia(ftyp('qt  '))).toMatchObject({ format: 'mov', mimeType: 'video/quicktime', supported: true });
    expect(sniffMedia(ftyp('heic'))).toMatchObject({ format: 'heif', kind: 'image', supported: false });
    expect(sniffMedia(ftyp('avif'))).toMatchObject({ format: 'avif', supported: false });
    expect(sniffMedia(ftyp('M4A '))).toBeUndefined();
    expect(sniffMedia(Buffer.from('II*\0 tiff....', 'latin1'))).toMatchObject({ format: 'tiff', supported: false });
    expect(sniffMedia(Buffer.from('hello world, not media'))).toBeUndefined();
    expect(sniffMedia(new Uint8Array(0))).toBeUndefined();
  });

  it('points past the bytes given when a JPEG frame header lies further in, and scanJpegFrame finds it there', async () => {
    const jpeg = await sharp(pixels(21, 13), rgb(21, 13)).withExif({ IFD0: { ImageDescription: 'x'.repeat(30_000) } }).jpeg().toBuffer();
    const head = jpeg.subarray(0, 16 * 1024);
    const media = sniffMedia(head);
    expect(media).toMatchObject({ format: 'jpeg' });
    expect(media?.width).toBeUndefined();
    let pos = media!.jpegScanFrom!;
    expect(pos).toBeGreaterThan(head.length - 10);
    for (;;) {
      const scan = scanJpegFrame(jpeg.subarray(pos, pos + 10), pos, pos);
      if ('width' in scan) {
        expect(scan).toEqual({ width: 21, height: 13, components: 3 });
        break;
      }
      expect(scan.continueAt).toBeGreaterThan(pos);
      pos = scan.continueAt!;
    }
  });

  it('drives the clients’ MIME helpers', async () => {
    const png = await sharp(pixels(2, 2), rgb(2, 2)).png().toBuffer();
    expect(sniffType(png)).toBe('image/png');
    expect(sniffImageType(png)).toBe('image/png');
    expect(sniffImageType(Buffer.concat([Buffer.from([0, 0, 0, 24]), Buffer.from('ftypisom'), Buffer.alloc(12)]))).toBeUndefined();
  });
});
