/**
 * The way back of greyPngAsRgb (grey-png.ts), for what the service returns:
 * a greyscale photo goes to the Web API as RGB(A) and comes back as an RGB(A)
 * PNG whose every pixel is R = G = B. As the greyscale PNG it is, the user's
 * black-and-white image stays a greyscale file, sample for sample: each
 * pixel's one sample (then alpha), the rows re-filtered; the chunks that
 * describe samples (tRNS, sBIT, bKGD) rewritten to match, a suggested
 * palette (PLTE, meaningless for grey) dropped, an RGB ICC profile swapped for
 * the grey one that shows the same tones (grey-icc-from-rgb). Streamed by
 * png-rewrite, so memory does not grow with the image; whether every pixel
 * is grey is only known at the last row, so the caller keeps the RGB bytes
 * until then (batch writes them first, and this from them).
 *
 * References in brackets are to the PNG specification, third edition (W3C, 2025).
 */

import { u16be } from './bytes';
import { greyProfileForRgb } from './grey-icc-from-rgb';
import { GREY, GREY_ALPHA, type RowShape } from './png-rows';
import { chunkOutcome, ihdrData, type ImageHeader, imageHeaderOf, type PngRewrite, rewritePng, RowRefusal } from './png-rewrite';

/**
 * The same image as a grey (colour type 0) or grey-with-alpha (type 4) PNG,
 * when `png` is an 8- or 16-bit RGB (type 2) or RGBA (type 6) PNG, interlaced
 * or not: the decoded samples are exactly the decoded R (= G = B), alpha and
 * transparency kept, metadata kept as greyPngAsRgb keeps it. Undefined — the
 * input then cancelled — for anything else before the image data: not such
 * a PNG, a transparent or background colour that is not grey, a profile
 * that cannot become a grey one (see greyProfileForRgb), what greyPngAsRgb
 * also refuses (an animation, unknown critical chunks, malformed data). A
 * pixel with colour, found as the rows stream, makes the returned stream
 * fail with {@link NotGreyError}; corrupt data, with a PngDataError.
 *
 * @example
 * const grey = await rgbPngAsGrey(result.stream()); // then read it to the end, or keep the RGB bytes on an error
 */
export async function rgbPngAsGrey(png: ReadableStream<Uint8Array>): Promise<ReadableStream<Uint8Array> | undefined> {
  return rewritePng(png, RGB_TO_GREY);
}

/** A pixel of the RGB(A) PNG is not grey: the image cannot be written as a greyscale one. */
export class NotGreyError extends RowRefusal {
  override name = 'NotGreyError';
}

const RGB = 2;
const RGBA = 6;

interface RgbIhdr extends ImageHeader {
  depth: 8 | 16;
  colourType: typeof RGB | typeof RGBA;
}

const RGB_TO_GREY: PngRewrite<RgbIhdr> = {
  readIhdr(data) {
    const header = imageHeaderOf(data);
    if (!header || (header.colourType !== RGB && header.colourType !== RGBA) || (header.depth !== 8 && header.depth !== 16)) return undefined;
    return header as RgbIhdr;
  },
  outputIhdr: (ihdr) => ihdrData(ihdr, ihdr.depth, ihdr.colourType === RGB ? GREY : GREY_ALPHA),
  // An RGB image's suggested palette [11.2.2] names colours a grey image has no use for.
  chunk: (chunk, ihdr, beforeImage) => (chunk.type === 'PLTE' ? 'drop' : chunkOutcome(chunk, ihdr, beforeImage, CONVERTED)),
  profile: greyProfileForRgb,
  rows: rgbToGrey,
};

/** The chunks whose contents depend on the colour type, as a grey image has them; undefined when not grey or malformed. */
const CONVERTED = new Map<string, (data: Uint8Array, ihdr: RgbIhdr) => Uint8Array | undefined>([
  // The single transparent colour [11.3.1.1]: colour types with alpha have none.
  ['tRNS', (data, ihdr) => (ihdr.colourType === RGB ? greyOfColour(data) : undefined)],
  ['bKGD', (data) => greyOfColour(data)],
  ['sBIT', significantBits],
]);

/** An RGB colour of three two-byte samples [11.3.1.1, 11.3.4.1] as the grey it is when they are equal. */
function greyOfColour(data: Uint8Array): Uint8Array | undefined {
  if (data.length !== 6) return undefined;
  const [r, g, b] = [u16be(data, 0), u16be(data, 2), u16be(data, 4)];
  return r === g && g === b ? data.slice(0, 2) : undefined;
}

/** Significant bits [11.3.2.4]: the grey's is the most of R's, G's and B's (each is the grey), then alpha's. */
function significantBits(data: Uint8Array, ihdr: RgbIhdr): Uint8Array | undefined {
  const channels = ihdr.colourType === RGB ? 3 : 4;
  if (data.length !== channels || !data.every((bits) => bits > 0 && bits <= ihdr.depth)) return undefined;
  const grey = Math.max(data[0]!, data[1]!, data[2]!);
  return Uint8Array.from(channels === 3 ? [grey] : [grey, data[3]!]);
}

/** RGB(A) rows as grey (then alpha), each pixel checked: R = G = B, sample by sample, or {@link NotGreyError}. */
function rgbToGrey(ihdr: RgbIhdr): RowShape {
  const sampleBytes = ihdr.depth / 8;
  const alpha = ihdr.colourType === RGBA;
  const inPixel = sampleBytes * (alpha ? 4 : 3);
  const outPixel = sampleBytes * (alpha ? 2 : 1);
  const convert = (samples: Uint8Array, grey: Uint8Array): void => {
    for (let i = 0, o = 0; i < samples.length; i += inPixel, o += outPixel) {
      for (let b = 0; b < sampleBytes; b++) {
        const r = samples[i + b]!;
        if (samples[i + sampleBytes + b] !== r || samples[i + 2 * sampleBytes + b] !== r) throw new NotGreyError(`pixel ${i / inPixel} of a row has colour`);
        grey[o + b] = r;
      }
      if (alpha) for (let b = 0; b < sampleBytes; b++) grey[o + sampleBytes + b] = samples[i + 3 * sampleBytes + b]!;
    }
  };
  return { width: ihdr.width, height: ihdr.height, interlaced: ihdr.interlaced, inBitsPerPixel: 8 * inPixel, outBytesPerPixel: outPixel, convert };
}
