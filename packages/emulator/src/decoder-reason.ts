/**
 * A failed decode's reason, when sharp lost the decoder's: shared by the Web API, the colour container and the BGR
 * container, and by the batch's RGB copy of a grey photo (any sharp use while other images are worked on).
 */
import sharp from 'sharp';

/**
 * sharp's message when libvips's error buffer was empty. libvips keeps one buffer for the whole process and sharp
 * clears it after every operation (`vips_error_clear` in sharp's src/pipeline.cc), so while other jobs run a failing
 * one can find it emptied: a truncated JPEG beside three good ones failed "Unknown error" about one time in seven.
 */
const SHARP_EMPTY_ERROR = 'Unknown error';

/** How many times the input is decoded again, alone, to learn what the emptied buffer held. */
const REASON_ATTEMPTS = 3;

/** The size of that decode: every byte of the file is read (a JPEG shrinks on load), no full-size copy is made. */
const PROBE_SIDE = 16;

/**
 * `err`, or, when sharp lost libvips's reason, the reason a fresh decode of `input` (its bytes, or a file's path) gives
 * (a damaged file's "premature end of JPEG image").
 */
export async function withDecoderReason(err: unknown, input: Buffer | string): Promise<unknown> {
  if (!(err instanceof Error) || err.message !== SHARP_EMPTY_ERROR) return err;
  for (let attempt = 0; attempt < REASON_ATTEMPTS; attempt++) {
    const reason = await sharp(input, { failOn: 'error' }).resize(PROBE_SIDE, PROBE_SIDE, { fit: 'inside' }).raw().toBuffer().then(() => undefined, (e: unknown) => (e instanceof Error ? e.message : undefined));
    // It decodes: what failed was a later step.
    if (reason === undefined) return new Error('processing failed (libvips gave no reason)', { cause: err });
    if (reason !== SHARP_EMPTY_ERROR) return new Error(reason, { cause: err });
  }
  return new Error('the image could not be decoded (libvips gave no reason)', { cause: err });
}
