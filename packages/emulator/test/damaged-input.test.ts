/**
 * A damaged photo fails with the decoder's reason, also while other jobs run.
 * libvips keeps one error buffer for the whole process and sharp clears it
 * after every operation, so a failing job beside others could read it empty
 * and fail "Unknown error" (`process.ts` `withDecoderReason`).
 */
import { expect, test } from 'vitest';
import { DEFAULT_LIMITS } from '../src/options';
import { withDecoderReason } from '../src/decoder-reason';
import { processImage } from '../src/webapi/process';
import { ASTRONAUT, closeAll, COFFEE, emulator, runJob } from './helpers';

/** The first 5,000 bytes of a photo: its headers whole, its image data cut short, as a copy interrupted midway leaves it. */
const TRUNCATED = COFFEE.subarray(0, 5000);

test('a truncated JPEG corrected beside good ones fails naming the cut, every time', async () => {
  const reasons = new Set<string>();
  for (let round = 0; round < 40; round++) {
    const [failure] = await Promise.all([
      processImage(TRUNCATED, {}, { limits: DEFAULT_LIMITS }).then(() => 'corrected', (err: unknown) => (err as Error).message),
      ...Array.from({ length: 4 }, () => processImage(ASTRONAUT, {}, { limits: DEFAULT_LIMITS })),
    ]);
    reasons.add(failure);
  }
  expect([...reasons]).toEqual(['VipsJpeg: premature end of JPEG image']);
}, 120_000);

test("the job record's statusText says why: a damaged upload's job is FAILED with the decoder's reason", async () => {
  try {
    const e = await emulator();
    const record = await runJob(e.web, new Uint8Array(TRUNCATED));
    expect(record).toMatchObject({ status: 'FAILED', statusText: 'VipsJpeg: premature end of JPEG image' });
  } finally {
    await closeAll();
  }
});

test('sharp\'s "Unknown error" is replaced by what a fresh decode says; any other error is kept as it is', async () => {
  const lost = new Error('Unknown error');
  expect(((await withDecoderReason(lost, TRUNCATED)) as Error).message).toBe('VipsJpeg: premature end of JPEG image');
  // The photo decodes: a later step failed, and nothing is invented about the file.
  expect(((await withDecoderReason(lost, COFFEE)) as Error).message).toBe('processing failed (libvips gave no reason)');
  const other = new Error('the engine ran out of memory');
  expect(await withDecoderReason(other, TRUNCATED)).toBe(other);
});
