/**
 * A small, visible imaging engine for the emulator in these tests: without
 * one the emulator leaves colours as they are, and a test could not tell a
 * corrected layer from a copy. The "look" lifts contrast and brightness; the
 * "segment" keeps a centred ellipse as the subject.
 */
import sharp from 'sharp';
import type { ImagingEngine, RawImage } from '@pfc/emulator';

export const testEngine: ImagingEngine = {
  async look(img: RawImage): Promise<RawImage> {
    const { data, info } = await sharp(img.data, { raw: { width: img.width, height: img.height, channels: img.channels as 3 | 4 } })
      .linear(1.15, 12)
      .raw()
      .toBuffer({ resolveWithObject: true });
    return { data, width: info.width, height: info.height, channels: info.channels as 3 | 4 };
  },
  async segment(img: RawImage): Promise<RawImage> {
    const mask = Buffer.alloc(img.width * img.height);
    const cx = img.width / 2, cy = img.height / 2, rx = img.width * 0.35, ry = img.height * 0.45;
    for (let y = 0; y < img.height; y++) {
      for (let x = 0; x < img.width; x++) {
        const d = ((x - cx) / rx) ** 2 + ((y - cy) / ry) ** 2;
        mask[y * img.width + x] = d <= 1 ? 255 : 0;
      }
    }
    return { data: mask, width: img.width, height: img.height, channels: 1 };
  },
};
