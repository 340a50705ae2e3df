/**
 * Background removal and replacement (Web API rule 2): the subject (a person
 * mask) kept, the background made transparent, or replaced by a colour, an
 * image or a generated backdrop, with an optional synthetic shadow in the
 * colour and image modes.
 */
import sharp from 'sharp';
import type { BackgroundMode } from '@pfc/core';
import type { Raster } from '../image/raster';
import { generateBackground } from './generate';
import { SHADOW_OPACITY, shadowPlane, type Plane8, type ShadowKind } from './shadow';

/** Options of {@link composeBackground}. */
export interface BackgroundOptions {
  mode: BackgroundMode;
  /** `colour` mode: `#rrggbb`. */
  colour?: string;
  /** `image` mode: the background image's bytes (JPEG/PNG); scaled to cover the frame. */
  image?: Uint8Array;
  /** `generative` mode: the prompt. */
  prompt?: string;
  /** Shadow under the subject; the colour and image modes only (as documented). */
  shadow?: ShadowKind;
}

/**
 * Composite the subject over its new background. `mask` is one channel,
 * 255 = subject, any size (scaled to the image). The result is RGBA for
 * `transparent` (alpha = mask) and RGB otherwise; the image's own alpha, if
 * any, also limits the subject.
 */
export async function composeBackground(image: Raster, mask: Plane8, options: BackgroundOptions): Promise<Raster> {
  const { width: w, height: h } = image;
  const m = await fitMask(mask, w, h);
  if (image.channels === 4) for (let i = 0; i < w * h; i++) m.data[i] = Math.round((m.data[i]! * image.data[i * 4 + 3]!) / 255);
  const rgb = image.channels === 3 ? image.data : dropAlpha(image.data);

  if (options.mode === 'transparent') {
    const out = new Uint8Array(w * h * 4);
    for (let i = 0; i < w * h; i++) {
      out[i * 4] = rgb[i * 3]!;
      out[i * 4 + 1] = rgb[i * 3 + 1]!;
      out[i * 4 + 2] = rgb[i * 3 + 2]!;
      out[i * 4 + 3] = m.data[i]!;
    }
    return { data: out, width: w, height: h, channels: 4 };
  }

  const bg = await backgroundFor(options, w, h);
  const shadow = options.shadow && (options.mode === 'colour' || options.mode === 'image') ? await shadowPlane(m, options.shadow) : undefined;
  const opacity = options.shadow ? SHADOW_OPACITY[options.shadow] : 0;
  const out = new Uint8Array(w * h * 3);
  for (let i = 0; i < w * h; i++) {
    const a = m.data[i]! / 255;
    const dim = shadow ? 1 - (opacity * shadow.data[i]!) / 255 : 1;
    for (let c = 0; c < 3; c++) out[i * 3 + c] = Math.round(rgb[i * 3 + c]! * a + bg[i * 3 + c]! * dim * (1 - a));
  }
  return { data: out, width: w, height: h, channels: 3 };
}

async function backgroundFor(options: BackgroundOptions, w: number, h: number): Promise<Uint8Array> {
  switch (options.mode) {
    case 'colour': {
      const hex = options.colour ?? '#ffffff';
      const data = await sharp({ create: { width: w, height: h, channels: 3, background: hex } }).raw().toBuffer();
      return new Uint8Array(data.buffer, data.byteOffset, data.length);
    }
    case 'image': {
      if (!options.image) throw new Error('composeBackground: image mode needs the background image');
      const data = await sharp(options.image, { failOn: 'error' }).autoOrient().resize(w, h, { fit: 'cover' }).removeAlpha().toColourspace('srgb').raw().toBuffer();
      return new Uint8Array(data.buffer, data.byteOffset, data.length);
    }
    case 'generative':
      return (await generateBackground(options.prompt ?? '', w, h)).data;
    case 'transparent':
      throw new Error('composeBackground: transparent mode has no background');
  }
}

async function fitMask(mask: Plane8, w: number, h: number): Promise<Plane8> {
  if (mask.width === w && mask.height === h) return { data: Uint8Array.from(mask.data), width: w, height: h };
  const data = await sharp(Buffer.from(mask.data), { raw: { width: mask.width, height: mask.height, channels: 1 } })
    .resize(w, h, { fit: 'fill' })
    .extractChannel(0)
    .raw()
    .toBuffer();
  return { data: new Uint8Array(data), width: w, height: h };
}

function dropAlpha(rgba: Uint8Array): Uint8Array {
  const out = new Uint8Array((rgba.length / 4) * 3);
  for (let i = 0, j = 0; i < rgba.length; i += 4, j += 3) {
    out[j] = rgba[i]!;
    out[j + 1] = rgba[i + 1]!;
    out[j + 2] = rgba[i + 2]!;
  }
  return out;
}
