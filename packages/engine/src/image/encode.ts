/**
 * Encoding a finished raster to JPEG or PNG, with or without the source's
 * metadata.
 */
import sharp, { type Metadata, type Sharp } from 'sharp';
import type { Raster } from './raster';

/** Output formats the engine writes. */
export type OutputFormat = 'jpeg' | 'png';

/** Options of {@link encodeRaster}. */
export interface EncodeOptions {
  format: OutputFormat;
  /** JPEG quality 40..100 (default 90); ignored for PNG. */
  quality?: number;
  /**
   * The source image whose EXIF, XMP and IPTC are carried over (default: none,
   * so the output has no metadata and no colour profile). Pixels are always
   * sRGB; with metadata they are tagged with an sRGB profile rather than the
   * source's own. The EXIF orientation becomes 1 because the pixels are upright.
   */
  metadataFrom?: Buffer;
}

/** Encode a raster. */
export async function encodeRaster(img: Raster, options: EncodeOptions): Promise<Buffer> {
  const raw = { width: img.width, height: img.height, channels: img.channels };
  const pixels = Buffer.from(img.data.buffer, img.data.byteOffset, img.data.length);
  let pipeline: Sharp;
  const source = options.metadataFrom ? await sharp(options.metadataFrom).metadata() : undefined;
  if (options.metadataFrom && source && carriesMetadata(source)) {
    // sharp keeps metadata only from a pipeline's own input, so the corrected
    // pixels are laid over the (upright, resized) source with blend "source",
    // which replaces every pixel exactly, and the source's metadata is kept.
    // This decodes the source a second time and blends in floating point:
    // the price of keeping metadata.
    pipeline = sharp(options.metadataFrom).autoOrient().resize(img.width, img.height, { fit: 'fill' });
    pipeline = img.channels === 4 ? pipeline.ensureAlpha() : pipeline.removeAlpha();
    pipeline = pipeline.composite([{ input: pixels, raw, blend: 'source' }]).withMetadata();
  } else if (source) {
    // Nothing to carry over but the resolution: the same file as above (sRGB
    // profile, EXIF block with the resolution) straight from the pixels.
    pipeline = sharp(pixels, { raw }).withMetadata(source.density ? { density: source.density } : {});
  } else {
    pipeline = sharp(pixels, { raw });
  }
  if (options.format === 'jpeg') {
    return pipeline.flatten({ background: '#ffffff' }).jpeg({ quality: options.quality ?? 90, chromaSubsampling: '4:4:4' }).toBuffer();
  }
  return pipeline.png({ compressionLevel: 6 }).toBuffer();
}

/** Whether a source has metadata of its own to keep: EXIF, XMP, IPTC or a colour profile. */
function carriesMetadata(m: Metadata): boolean {
  return m.exif !== undefined || m.xmp !== undefined || m.iptc !== undefined || m.icc !== undefined;
}
