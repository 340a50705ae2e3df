/**
 * Encoding a finished raster to JPEG or PNG, with or without the source's
 * metadata.
 */
import sharp, { type Metadata, type Sharp } from 'sharp';
import { rasterToSharp, type Raster } from './raster';
import { metadataStandIn } from './source-header';
import { encodeSrgbJpeg, encodeSrgbPng, type HeaderFrom, type JpegOptions } from './srgb-tag';

const PNG = { compressionLevel: 6 };

/** Output formats the engine writes. */
export type OutputFormat = 'jpeg' | 'png';

/** Options of {@link encodeRaster}. */
export interface EncodeOptions {
  format: OutputFormat;
  /** JPEG quality 40..100 (default 90); ignored for PNG. */
  quality?: number;
  /**
   * JPEG chroma subsampling (default 4:4:4, every colour edge kept); 4:2:0 for
   * a source that was 4:2:0 itself (see {@link keptSubsampling}). Ignored for PNG.
   */
  chromaSubsampling?: '4:4:4' | '4:2:0';
  /**
   * The source image whose EXIF, XMP and IPTC are carried over (default: none,
   * so the output has no metadata and no colour profile). Pixels are always
   * sRGB; with metadata they are tagged with an sRGB profile rather than the
   * source's own. The EXIF orientation becomes 1 because the pixels are upright.
   */
  metadataFrom?: Buffer;
  /** `sharp(metadataFrom).metadata()` when the caller already read it (saves a header parse). */
  sourceMetadata?: Metadata;
}

/** Encode a raster. */
export async function encodeRaster(img: Raster, options: EncodeOptions): Promise<Buffer> {
  const source = options.metadataFrom ? (options.sourceMetadata ?? (await sharp(options.metadataFrom).metadata())) : undefined;
  // Huffman tables are the standard ones, not optimised per image: the same pixels in 2–9 % more
  // bytes, for 2.5 times less encoding CPU (see README "Performance").
  const jpeg = { quality: options.quality ?? 90, chromaSubsampling: options.chromaSubsampling ?? '4:4:4', optimiseCoding: false };
  if (!options.metadataFrom || !source) return plainEncode(rasterToSharp(img), options.format, jpeg);
  const keeps = carriesMetadata(source);
  // The pixels are sRGB already (converted from the source's profile on decoding), so the file
  // sharp's withMetadata writes is its header in front of a plain encode of them: without its
  // sRGB-to-sRGB transform over every pixel (see image/srgb-tag.ts), the same bytes.
  if (!keeps || copiesExactly(img, source) || convertsFromP3(source)) {
    const from: HeaderFrom = keeps ? { standIn: await metadataStandIn(options.metadataFrom, source.format) } : { density: source.density };
    const tagged = await taggedEncode(img, options.format, jpeg, from);
    if (tagged) return tagged;
  }
  return encodeWithSharpMetadata(img, options.format, jpeg, options.metadataFrom, source);
}

/**
 * The file sharp writes for the raster with the source's metadata, its own
 * way (`withMetadata()`, transform and all): where the tagged encode cannot
 * be had, and the reference its tests compare it with.
 *
 * @internal
 */
export function encodeWithSharpMetadata(img: Raster, format: OutputFormat, jpeg: JpegOptions, input: Buffer, source: Metadata): Promise<Buffer> {
  const pipeline = carriesMetadata(source) ? overSource(input, source, img).withMetadata() : rasterToSharp(img).withMetadata(source.density ? { density: source.density } : {});
  return plainEncode(pipeline, format, jpeg);
}

/** JPEG (flattened on white) or PNG of `pipeline`. */
function plainEncode(pipeline: Sharp, format: OutputFormat, jpeg: JpegOptions): Promise<Buffer> {
  return format === 'jpeg' ? pipeline.flatten({ background: '#ffffff' }).jpeg(jpeg).toBuffer() : pipeline.png(PNG).toBuffer();
}

/** {@link plainEncode} of the raster with the header sharp writes for `from`; `undefined` where that header has another shape. */
function taggedEncode(img: Raster, format: OutputFormat, jpeg: JpegOptions, from: HeaderFrom): Promise<Buffer | undefined> {
  const pipeline = rasterToSharp(img);
  return format === 'jpeg' ? encodeSrgbJpeg(pipeline.flatten({ background: '#ffffff' }), img, jpeg, from) : encodeSrgbPng(pipeline, img, PNG, from);
}

/**
 * Whether sharp's pipeline over the source ({@link overSource}) writes the
 * raster's pixels exactly: 8-bit RGB raster and source. Alpha, grey and
 * 16-bit sources are laid under the pixels with a blend that moves some
 * half-transparent ones by a level, so they keep that way.
 */
function copiesExactly(img: Raster, source: Metadata): boolean {
  return img.channels === 3 && source.channels === 3 && source.depth === 'uchar' && source.space === 'srgb' && source.hasAlpha !== true;
}

/**
 * Whether sharp's `withMetadata()` way over the source would convert the
 * output from Display P3 (its processing profile for 16-bit RGB, profile or
 * none), while the raster's pixels are sRGB already: they are written with
 * the tagged encode only.
 */
function convertsFromP3(source: Metadata): boolean {
  return source.space === 'rgb16';
}

/**
 * A pipeline whose input is the source (sharp keeps metadata only from a
 * pipeline's own input) and whose pixels are exactly `img` (upright, at
 * `img`'s size).
 */
function overSource(input: Buffer, source: Metadata, img: Raster): Sharp {
  const raw = { width: img.width, height: img.height, channels: img.channels };
  const pixels = Buffer.from(img.data.buffer, img.data.byteOffset, img.data.length);
  const upright = sharp(input).autoOrient();
  if (copiesExactly(img, source)) {
    // 8-bit RGB like the raster: none of the source's pixels are needed. Its
    // top-left pixel (a JPEG is decoded only as far as its first rows) is
    // extended to the output size, set to 0 and OR-ed with the pixels: exact
    // integer work, no second full decode and no floating-point blend.
    return upright
      .extract({ left: 0, top: 0, width: 1, height: 1 })
      .extend({ right: img.width - 1, bottom: img.height - 1, background: '#000000' })
      .linear([0, 0, 0], [0, 0, 0])
      .boolean(pixels, 'or', { raw });
  }
  // Alpha, grey, 16-bit or other colour spaces: decode the source and lay the
  // pixels over it with blend "source", which replaces every pixel exactly.
  const base = upright.resize(img.width, img.height, { fit: 'fill' });
  return (img.channels === 4 ? base.ensureAlpha() : base.removeAlpha()).composite([{ input: pixels, raw, blend: 'source' }]);
}

/** Whether a source has metadata of its own to keep: EXIF, XMP, IPTC or a colour profile. */
function carriesMetadata(m: Metadata): boolean {
  return m.exif !== undefined || m.xmp !== undefined || m.iptc !== undefined || m.icc !== undefined;
}

/**
 * The chroma subsampling a JPEG output keeps from its source: 4:2:0 only
 * when the source is a JPEG at 4:2:0 (its colour was already stored at half
 * resolution, so writing it so again loses little more: see README
 * "Performance"); 4:4:4 for everything else (4:4:4 and 4:2:2 JPEGs, PNG),
 * so colour edges a source has are kept. sharp's `chromaSubsampling` says
 * 4:2:0 for every subsampled JPEG, 4:2:2 (many cameras') included, so the
 * frame header is read for a JPEG source.
 */
export function keptSubsampling(source: Pick<Metadata, 'format' | 'chromaSubsampling'>, input: Uint8Array): '4:4:4' | '4:2:0' {
  return source.format === 'jpeg' && source.chromaSubsampling === '4:2:0' && lumaSampling(input) === '2x2' ? '4:2:0' : '4:4:4';
}

/** Start-of-frame markers (baseline, extended, progressive, lossless; Huffman and arithmetic), which hold the components' sampling factors. */
const SOF_MARKERS = new Set([0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf]);

/**
 * The first component's (luma's) horizontal × vertical sampling factors in a
 * JPEG's frame header, relative to chroma's 1×1: `2x2` is 4:2:0, `2x1` 4:2:2,
 * `1x1` 4:4:4; undefined when no frame header is found.
 */
export function lumaSampling(jpeg: Uint8Array): string | undefined {
  let at = 2;
  while (at + 4 <= jpeg.length && jpeg[at] === 0xff) {
    const marker = jpeg[at + 1]!;
    const length = (jpeg[at + 2]! << 8) | jpeg[at + 3]!;
    if (SOF_MARKERS.has(marker)) {
      // Length, precision, height, width, component count, then per component: id, H<<4|V, table.
      const factors = jpeg[at + 11];
      return factors === undefined ? undefined : `${factors >> 4}x${factors & 0x0f}`;
    }
    if (marker === 0xda) return undefined;
    at += 2 + length;
  }
  return undefined;
}
