/**
 * A greyscale PNG as an RGB(A) one, losslessly: the PNG sibling of
 * greyJpegAsYcc. The Web API reads PNG in RGB or RGBA only, and hosts
 * without an image library (browser iframe, UXP) cannot convert otherwise.
 * Every grey sample becomes three equal R, G, B samples (alpha kept), so
 * every decoder shows the same pixels; the chunks that describe samples
 * (tRNS, sBIT, bKGD) are rewritten to match, the others copied verbatim. A
 * grey ICC profile (iCCP) is swapped for the RGB one under which R = G = B
 * shows as the grey showed (grey-icc), so colour-managed viewers show the
 * same tones; the chunks that describe colour without a profile (gAMA, cHRM,
 * sRGB, cICP) mean the same for R = G = B as for grey and are copied.
 *
 * Hand-written rather than a PNG library (fast-png, pngjs): those decode the
 * whole image into memory and drop most ancillary chunks. This is a
 * chunk-level transcode that keeps metadata verbatim and holds only two rows
 * of pixels (the current one and the previous one the filters predict from)
 * on the input side and two on the output side (plus two to try filters in),
 * so memory does not grow with the image. The streaming rewrite is
 * `./png-rewrite`'s (shared with rgbPngAsGrey, the way back), the rows'
 * conversion `./png-rows`', the RGB profile `./grey-icc`'s; here, what is
 * particular to grey → RGB.
 *
 * References in brackets are to the PNG specification, third edition (W3C, 2025).
 */

import { u16be } from './bytes';
import { rgbProfileForGrey } from './grey-icc';
import { GREY, GREY_ALPHA, greyToRgb, type Ihdr, maxSample, outputDepth, sampleScale } from './png-rows';
import { chunkOutcome, ihdrData, imageHeaderOf, type PngRewrite, rewritePng } from './png-rewrite';

/**
 * The same image as an RGB (colour type 2) or RGBA (type 6) PNG whose decoded
 * pixels are exactly R = G = B = the decoded grey samples, alpha and
 * transparency kept; 1-, 2- and 4-bit samples become 8-bit ones as decoders
 * scale them [13.12], 8- and 16-bit ones keep their depth, interlaced images
 * stay interlaced. Metadata chunks (text, EXIF, gamma, sRGB, physical
 * size…) are kept in place; unknown ones only when marked safe to copy
 * [14.2]. An embedded grey ICC profile (iCCP, as Photoshop writes: Dot Gain
 * 20 %, Gray Gamma 2.2) is replaced, in its place and under its name, by the
 * RGB profile {@link rgbProfileForGrey} derives from it, under which the RGB
 * pixels show the grey's tones exactly.
 *
 * Reads the input up to the first IDAT chunk and decides there. Undefined —
 * never a throw, never a different image — for anything else, the input then
 * cancelled: not a PNG, not grey (colour type 0 or 4), an ICC profile it
 * cannot convert (not grey — an RGB profile cannot describe grey samples —,
 * a Lab connection space, a grey LUT, over 16 MB inflated, a second iCCP, a
 * malformed chunk: no name or one over 79 bytes, a compression method other
 * than zlib, data that does not inflate to a whole profile), any profile
 * with `{ profiles: false }`, an animation (APNG), a palette or an unknown
 * critical chunk, anything malformed or truncated before the image data, an
 * input that fails to read, a runtime without CompressionStream.
 * Data errors found later (a bad CRC, a truncated file, corrupt image data)
 * make the returned stream error (a PfcError named PngDataError) with a
 * message saying what is wrong.
 *
 * @example
 * const rgb = sniffMedia(head)?.grey ? await greyPngAsRgb(file.stream()) : undefined;
 * const upload = rgb ?? (await reencode(file));
 */
export async function greyPngAsRgb(png: ReadableStream<Uint8Array>, options: GreyPngOptions = {}): Promise<ReadableStream<Uint8Array> | undefined> {
  return rewritePng(png, GREY_TO_RGB, options);
}

export interface GreyPngOptions {
  /**
   * Whether a PNG with a grey ICC profile may be converted, carrying the RGB profile derived from it
   * (default true). False refuses any profile: for a service asked to leave profiles out of its result
   * (`preserveMetadata: false`), whose output numbers would then be shown as sRGB, not as the profile's.
   */
  profiles?: boolean;
}

const RGB = 2;
const RGBA = 6;
/** Bit depths allowed per colour type [11.2.1]. */
const DEPTHS = new Map([
  [GREY, [1, 2, 4, 8, 16]],
  [GREY_ALPHA, [8, 16]],
]);

/**
 * Grey → RGB: a grey image (colour type 0 or 4 at a depth allowed for it);
 * the samples that describe chunks rewritten; a palette refuses (grey images
 * have none [11.2.2]); the grey profile as rgbProfileForGrey's.
 */
const GREY_TO_RGB: PngRewrite<Ihdr> = {
  readIhdr(data) {
    const header = imageHeaderOf(data);
    const colourType = header?.colourType as Ihdr['colourType'] | undefined;
    return header && DEPTHS.get(colourType!)?.includes(header.depth) ? { ...header, colourType: colourType! } : undefined;
  },
  outputIhdr: (ihdr) => ihdrData(ihdr, outputDepth(ihdr), ihdr.colourType === GREY ? RGB : RGBA),
  chunk: (chunk, ihdr, beforeImage) => chunkOutcome(chunk, ihdr, beforeImage, CONVERTED),
  profile: rgbProfileForGrey,
  rows: greyToRgb,
};

/**
 * The chunks whose contents depend on the colour type and bit depth, as the
 * output needs them; undefined when malformed (decoders would ignore them,
 * the output would change what they mean).
 */
const CONVERTED = new Map<string, (data: Uint8Array, ihdr: Ihdr) => Uint8Array | undefined>([
  ['tRNS', rgbTransparency],
  ['sBIT', rgbSignificantBits],
  ['bKGD', rgbBackground],
]);

/** The single transparent grey [11.3.1.1] as the RGB colour whose samples are all that grey, scaled as the samples are. */
function rgbTransparency(data: Uint8Array, ihdr: Ihdr): Uint8Array | undefined {
  return ihdr.colourType === GREY ? rgbOfGreyValue(data, ihdr) : undefined; // colour types with alpha have no tRNS
}

/** A background grey [11.3.4.1] (both grey colour types) as the RGB colour of that grey. */
function rgbBackground(data: Uint8Array, ihdr: Ihdr): Uint8Array | undefined {
  return rgbOfGreyValue(data, ihdr);
}

/** Two bytes of grey, at most the largest sample, as three two-byte samples at the output depth. */
function rgbOfGreyValue(data: Uint8Array, ihdr: Ihdr): Uint8Array | undefined {
  const grey = u16be(data, 0);
  if (data.length !== 2 || grey > maxSample(ihdr.depth)) return undefined;
  const scaled = ihdr.depth < 8 ? grey * sampleScale(ihdr.depth) : grey;
  const rgb = new Uint8Array(6);
  for (let i = 0; i < 6; i += 2) rgb.set([scaled >> 8, scaled & 0xff], i);
  return rgb;
}

/**
 * Significant bits [11.3.2.4]: the grey's for each of R, G, B, then alpha's.
 * Unchanged by widening to 8 bits: bit replication puts the original sample
 * in the top bits.
 */
function rgbSignificantBits(data: Uint8Array, ihdr: Ihdr): Uint8Array | undefined {
  const [grey, alpha] = data;
  const channels = ihdr.colourType === GREY ? 1 : 2;
  const valid = data.length === channels && data.every((bits) => bits > 0 && bits <= ihdr.depth);
  if (!valid) return undefined;
  return Uint8Array.from(ihdr.colourType === GREY ? [grey!, grey!, grey!] : [grey!, grey!, grey!, alpha!]);
}
