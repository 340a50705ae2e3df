/**
 * Raw 8-bit rasters: the shape every pixel-level module of the engine works on.
 */
import sharp, { type Sharp } from 'sharp';

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
  const srgb = img.toColourspace('srgb');
  const { data, info } = await (hasAlpha ? srgb.ensureAlpha() : srgb.removeAlpha()).raw({ depth: 'uchar' }).toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.length), width: info.width, height: info.height, channels: hasAlpha ? 4 : 3 };
}

/**
 * A downscaled RGB copy whose long side is at most `maxSide` pixels (analysis only; alpha dropped).
 * With `points`, whole pixels of the input are taken (nearest neighbour) instead of resampled
 * ones: a sample of the photo's own values, whose extreme percentiles are the photo's. A
 * resampling kernel overshoots past a sharp edge (lanczos3 by about 7 % of the step: a −1 EV
 * copy whose whites sit at code 188 reads 200) and averages small highlights away.
 */
export async function thumbnailRaster(input: Buffer | Raster, maxSide: number, points = false): Promise<Raster> {
  const img = Buffer.isBuffer(input)
    ? sharp(input).autoOrient()
    : sharp(input.data, { raw: { width: input.width, height: input.height, channels: input.channels } });
  const { data, info } = await img
    .resize(maxSide, maxSide, { fit: 'inside', withoutEnlargement: true, ...(points ? { kernel: 'nearest' as const } : {}) })
    .removeAlpha()
    .toColourspace('srgb')
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.length), width: info.width, height: info.height, channels: 3 };
}

/** A sharp pipeline reading a raster. */
export function rasterToSharp(r: Raster): Sharp {
  return sharp(r.data, { raw: { width: r.width, height: r.height, channels: r.channels } });
}
