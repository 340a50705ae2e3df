/**
 * The Web API takes "JPEG and PNG in RGB or RGBA" (web-api-v2.md, Limits)
 * (greyscale is not among them), yet Figma holds whatever JPEG or PNG a user placed,
 * greyscale ones included. A grey JPEG, baseline or progressive, is made a colour one
 * losslessly (core's `greyJpegAsYcc`: the same coded data, EXIF orientation
 * included, a grey profile swapped for the RGB one showing the same tones),
 * and so is a grey PNG (core's `greyPngAsRgb`: the same samples in R, G and
 * B, 16-bit and metadata kept, a grey profile swapped likewise); any other
 * grey image (one whose profile is not a grey one) is redrawn here, in the
 * browser, at full size and in its own format, so the service receives
 * RGB(A). Any other image goes as it is, byte for byte.
 *
 * - Format: the service's default `outputType` ('original') follows the
 *   input, so a JPEG stays JPEG (quality 1.0: one more generation, close to
 *   lossless, and a fraction of the size a PNG would have against the
 *   upload limits, 30 MB for background removal) and a PNG stays PNG
 *   (lossless; a grey-with-alpha PNG becomes RGBA).
 * - Geometry: decoding applies the EXIF orientation and the canvas writes
 *   none, so the service gets the upright image it would have made itself
 *   (it auto-orients its input); its `originalDimensions` and `autoCrop`
 *   describe that upright image, as they would for the original.
 * - What is lost: metadata (EXIF, ICC; the browser decodes into sRGB, so the
 *   tones stay as shown) and the precision of a 16-bit PNG (canvas is 8-bit).
 */
import { greyJpegAsYcc, greyPngAsRgb, sniffMedia } from '@pfc/core/media';
import { redrawWithin, type Redraw } from './redraw';

/** JPEG quality of a greyscale JPEG redrawn as RGB (0–1). */
export const GREY_JPEG_QUALITY = 1;

export interface WebApiInput {
  bytes: Uint8Array;
  /** What was changed, for the user. */
  notes: string[];
}

/** `bytes` as the Web API takes them: a greyscale image redrawn as RGB(A), any other unchanged. */
export async function rgbForWebApi(bytes: Uint8Array, redraw: Redraw = redrawWithin): Promise<WebApiInput> {
  const media = sniffMedia(bytes);
  if (media?.grey !== true) return { bytes, notes: [] };
  const lossless = media.format === 'jpeg' ? greyJpegAsYcc(bytes) : await pngAsRgb(bytes);
  if (lossless) return { bytes: lossless, notes: [`converted from greyscale to RGB before upload, losslessly (the same ${media.format === 'jpeg' ? 'JPEG data' : 'samples'}): the Web API takes RGB or RGBA images only`] };
  const type = media.format === 'png' ? 'image/png' : 'image/jpeg';
  const { blob } = await redraw(bytes, Number.POSITIVE_INFINITY, type, GREY_JPEG_QUALITY);
  return {
    bytes: new Uint8Array(await blob.arrayBuffer()),
    notes: ['converted from greyscale to RGB before upload: the Web API takes RGB or RGBA images only'],
  };
}

/** A grey PNG as RGB(A), losslessly (a grey profile as the RGB one); undefined where `greyPngAsRgb` does not apply or the data is damaged (the redraw then decodes it, or says why not). */
async function pngAsRgb(bytes: Uint8Array): Promise<Uint8Array | undefined> {
  const rgb = await greyPngAsRgb(new ReadableStream({ start: (c) => (c.enqueue(bytes), c.close()) }));
  return rgb && new Response(rgb).arrayBuffer().then((b) => new Uint8Array(b), () => undefined);
}
