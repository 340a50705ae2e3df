/**
 * A damaged grey photo's RGB copy fails with the decoder's reason, also while other files are copied: libvips keeps
 * one error buffer per process and sharp clears it after each operation, so without a fresh decode the reason read
 * "Unknown error" about two times in five (`rgb.ts`).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { expect, test } from 'vitest';
import { rgbCopy } from '../src/rgb';
import { tempDir } from './helpers';

/** An 800×600 grey image of fine texture, as a JPEG and a PNG: enough work for copies beside it to overlap. */
async function greyPhotos(): Promise<{ jpeg: Buffer; png: Buffer }> {
  const grey = Buffer.alloc(800 * 600);
  for (let i = 0; i < grey.length; i++) grey[i] = (i * 7919) % 251;
  const raw = { raw: { width: 800, height: 600, channels: 1 as const } };
  return { jpeg: await sharp(grey, raw).jpeg().toBuffer(), png: await sharp(grey, raw).png().toBuffer() };
}

test('a truncated grey JPEG copied beside good ones fails naming the cut, every time', async () => {
  const dir = tempDir();
  const { jpeg, png } = await greyPhotos();
  // Its headers whole, its image data cut short, as an interrupted copy leaves it.
  writeFileSync(join(dir, 'cut.jpg'), jpeg.subarray(0, jpeg.length >> 1));
  writeFileSync(join(dir, 'good.png'), png);
  const reasons = new Set<string>();
  for (let round = 0; round < 30; round++) {
    const [failure] = await Promise.all([
      rgbCopy(join(dir, 'cut.jpg'), 'jpeg', join(dir, `cut-${round}.jpg`)).then(() => 'copied', (err: unknown) => (err as Error).message),
      ...Array.from({ length: 4 }, (_, i) => rgbCopy(join(dir, 'good.png'), 'png', join(dir, `good-${round}-${i}.png`))),
    ]);
    reasons.add(failure);
  }
  expect([...reasons]).toEqual(['VipsJpeg: premature end of JPEG image']);
}, 120_000);
