/**
 * A small, visible imaging engine for the emulator in these tests: without
 * one the emulator leaves colours as they are, and a test could not tell a
 * corrected layer from a copy. The "look" lifts contrast and brightness; the
 * "segment" keeps a centred ellipse as the subject.
 */
import { createWebBackend } from '@pfc/core';
import { startEmulator, type EmulatorHandle, type ImagingEngine, type RawImage } from '@pfc/emulator';
import sharp from 'sharp';
import { afterAll, beforeAll } from 'vitest';

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

/**
 * The emulator with {@link testEngine} for the calling test file (started before its tests, closed after them), and
 * Web API clients on it that poll quickly.
 */
export function emulatorForFile(): { handle(): EmulatorHandle; backend(): ReturnType<typeof createWebBackend> } {
  let emu: EmulatorHandle | undefined;
  beforeAll(async () => {
    emu = await startEmulator({ webPort: 0, engine: testEngine });
  });
  afterAll(async () => {
    await emu?.close();
  });
  const handle = (): EmulatorHandle => {
    if (!emu) throw new Error('the emulator starts before the tests');
    return emu;
  };
  return { handle, backend: () => createWebBackend({ baseURL: handle().web, apiKey: 'test-key', poll: { initialDelayMs: 20, maxDelayMs: 100 } }) };
}
