/** Greyscale images as users place them in Figma, made with sharp, and a way to compare what images show (the unit and e2e tests share them). */
import sharp from 'sharp';

/**
 * Grey pixels, dark on the left half and light on the right so a turn
 * shows, with grain so a lossy re-encode shows too.
 */
function halves(width: number, height: number, channels: 1 | 2): Buffer {
  const raw = Buffer.alloc(width * height * channels);
  for (let i = 0; i < width * height; i++) {
    raw[i * channels] = (i % width < width / 2 ? 30 : 200) + ((i * 7919) % 41);
    if (channels === 2) raw[i * channels + 1] = i % 3 === 0 ? 128 : 255;
  }
  return raw;
}

/**
 * `jpeg` with an EXIF APP1 segment saying "rotate 90° clockwise to show"
 * (orientation 6), as a camera writes it (sharp's own orientation option
 * turns the image into sRGB, and this one must stay greyscale).
 */
function withOrientation6(jpeg: Uint8Array): Uint8Array {
  const tiff = [0x4d, 0x4d, 0, 0x2a, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0, 0];
  const body = [0x45, 0x78, 0x69, 0x66, 0, 0, ...tiff];
  const app1 = [0xff, 0xe1, (body.length + 2) >> 8, (body.length + 2) & 0xff, ...body];
  return Uint8Array.from([0xff, 0xd8, ...app1, ...jpeg.subarray(2)]);
}

/**
 * A one-component JPEG of `width`×`height` stored pixels, tagged to be shown turned (so `height`×`width`);
 * `progressive`: coded progressively (not transcoded losslessly: redrawn).
 */
export async function greyJpeg(width: number, height: number, progressive = false): Promise<Uint8Array> {
  const jpeg = await sharp(halves(width, height, 1), { raw: { width, height, channels: 1 } }).toColourspace('b-w').jpeg({ quality: 95, progressive }).toBuffer();
  return withOrientation6(new Uint8Array(jpeg));
}

/** A PNG of colour type 4 (grey with alpha, a third of its pixels half transparent), or of type 0 (grey) without `alpha`. */
export async function greyPng(width: number, height: number, alpha: boolean): Promise<Uint8Array> {
  const channels = alpha ? 2 : 1;
  return new Uint8Array(await sharp(halves(width, height, channels), { raw: { width, height, channels } }).toColourspace('b-w').png().toBuffer());
}

/** RGBA pixels of the image as it is shown (orientation applied, in sRGB). */
export async function shownPixels(bytes: Uint8Array): Promise<Buffer> {
  return sharp(bytes).autoOrient().toColourspace('srgb').ensureAlpha().raw().toBuffer();
}

/** Mean absolute difference of two byte arrays of one length (Infinity when the lengths differ). */
export function meanDifference(a: Buffer, b: Buffer): number {
  if (a.length !== b.length) return Number.POSITIVE_INFINITY;
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs((a[i] ?? 0) - (b[i] ?? 0));
  return sum / a.length;
}
