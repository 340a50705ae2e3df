/**
 * Raw 8-bit rasters: the shape every pixel-level module of the engine works on.
 */
import sharp, { type Metadata, type Sharp } from 'sharp';

/** An 8-bit interleaved raster (RGB or RGBA, row-major). */
export interface Raster {
  data: Uint8Array;
  width: number;
  height: number;
  /** 3 (RGB) or 4 (RGBA). */
  channels: 3 | 4;
}

/**
 * Decode an image to an 8-bit raster with EXIF orientation applied.
 * Grey images become RGB; alpha is kept when present.
 */
export async function decodeRaster(input: Buffer): Promise<Raster> {
  const img = sharp(input, { failOn: 'error' }).autoOrient();
  const meta = await img.metadata();
  const hasAlpha = meta.hasAlpha === true;
  const srgb = decodedToSrgb(img, meta);
  const { data, info } = await (hasAlpha ? srgb.ensureAlpha() : srgb.removeAlpha()).raw({ depth: 'uchar' }).toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.length), width: info.width, height: info.height, channels: hasAlpha ? 4 : 3 };
}

/**
 * A decoding pipeline whose raw output is sRGB numbers. sharp converts a
 * source with an embedded profile into its processing space as it decodes:
 * sRGB, but Display P3 for 16-bit RGB (`processingProfile` in sharp's
 * src/pipeline.cc), whose numbers a raw read would take for sRGB. Such a
 * source is converted on from P3 at the end. One without a profile was not
 * converted, so nothing is undone.
 */
export function decodedToSrgb(pipeline: Sharp, source: Pick<Metadata, 'space' | 'icc'>): Sharp {
  const srgb = pipeline.toColourspace('srgb');
  return source.space === 'rgb16' && source.icc ? srgb.withIccProfile('srgb') : srgb;
}

/** A downscaled RGB copy whose long side is at most `maxSide` pixels (analysis only; alpha dropped). */
export async function thumbnailRaster(input: Buffer | Raster, maxSide: number): Promise<Raster> {
  const img = Buffer.isBuffer(input)
    ? sharp(input).autoOrient()
    : sharp(input.data, { raw: { width: input.width, height: input.height, channels: input.channels } });
  const small = img.resize(maxSide, maxSide, { fit: 'inside', withoutEnlargement: true }).removeAlpha();
  const { data, info } = await (Buffer.isBuffer(input) ? decodedToSrgb(small, await img.metadata()) : small.toColourspace('srgb'))
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.length), width: info.width, height: info.height, channels: 3 };
}

/**
 * An RGB point sample of `img` whose long side is at most `maxSide` pixels:
 * whole pixels of the image, one at the centre of each cell of a
 * `maxSide` grid (alpha dropped). Its values are the photo's own, so its
 * extreme percentiles are the photo's, where a resampled copy's are not: a
 * resampling kernel overshoots past a sharp edge (lanczos3 by about 7 % of
 * the step: a −1 EV copy whose whites sit at code 188 reads 200) and
 * averages small highlights away. A strided read, not a pass over the image.
 */
export function pointSample(img: Raster, maxSide: number): Raster {
  const scale = Math.min(1, maxSide / Math.max(img.width, img.height));
  const width = Math.max(1, Math.round(img.width * scale));
  const height = Math.max(1, Math.round(img.height * scale));
  const ch = img.channels;
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    const row = Math.min(img.height - 1, Math.floor(((y + 0.5) * img.height) / height)) * img.width;
    for (let x = 0; x < width; x++) {
      const from = (row + Math.min(img.width - 1, Math.floor(((x + 0.5) * img.width) / width))) * ch;
      const to = (y * width + x) * 3;
      data[to] = img.data[from]!;
      data[to + 1] = img.data[from + 1]!;
      data[to + 2] = img.data[from + 2]!;
    }
  }
  return { data, width, height, channels: 3 };
}

/** A sharp pipeline reading a raster. */
export function rasterToSharp(r: Raster): Sharp {
  return sharp(r.data, { raw: { width: r.width, height: r.height, channels: r.channels } });
}
