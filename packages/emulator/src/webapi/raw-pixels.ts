/**
 * Raw-pixel steps of the image pipeline (`process.ts`): sharp pipelines to and
 * from {@link RawImage}, for the steps an imaging engine hook runs on pixels.
 */
import sharp, { type Sharp } from 'sharp';
import type { RawImage } from '../engine';

/** Runs a pipeline to 8-bit sRGB raw pixels. */
export async function toRaw(s: Sharp): Promise<RawImage> {
  const { data, info } = await s.toColourspace('srgb').raw({ depth: 'uchar' }).toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: info.channels as 1 | 3 | 4 };
}

/** The image's RGB with the (resized, single-channel) mask as its alpha. */
export async function withMask(img: RawImage, mask: RawImage): Promise<RawImage> {
  const rgb = img.channels === 4 ? await toRaw(sharp(img.data, { raw: img }).removeAlpha()) : img;
  let m = mask;
  if (m.width !== img.width || m.height !== img.height || m.channels !== 1) {
    const data = await sharp(mask.data, { raw: mask }).resize(img.width, img.height, { fit: 'fill' }).extractChannel(0).raw().toBuffer();
    m = { data, width: img.width, height: img.height, channels: 1 };
  }
  return toRaw(sharp(rgb.data, { raw: rgb }).joinChannel(m.data, { raw: { width: m.width, height: m.height, channels: 1 } }));
}

/** Flattens onto a colour, or (colour undefined) adds an opaque alpha channel. */
export async function flatten(img: RawImage, hex: string | undefined): Promise<RawImage> {
  const s = sharp(img.data, { raw: img });
  return toRaw(hex === undefined ? s.ensureAlpha() : s.flatten({ background: hex }));
}

/** Composes the image over the background image, covered to its size; the result is opaque. */
export async function overBackground(img: RawImage, background: Buffer): Promise<RawImage> {
  const bg = await toRaw(sharp(background, { failOn: 'error' }).autoOrient().resize(img.width, img.height, { fit: 'cover' }).removeAlpha());
  const over = await toRaw(sharp(bg.data, { raw: bg }).composite([{ input: img.data, raw: img }]));
  // composite keeps the overlay's alpha channel; the result is opaque, so drop it (a second pipeline: removeAlpha runs last).
  return over.channels === 4 ? toRaw(sharp(over.data, { raw: over }).removeAlpha()) : over;
}
