/** Real photos for the vision tests (samples/, see samples/LICENSES.md), as raw pixels. */
import { fileURLToPath } from 'node:url';
import sharp, { type Sharp } from 'sharp';
import type { VisionImage } from '../src/vision';

const samples = fileURLToPath(new URL('../../../samples/', import.meta.url));
export const ASTRONAUT = `${samples}portraits/astronaut.jpg`;
export const GRACE_HOPPER = `${samples}portraits/grace_hopper.jpg`;
export const COFFEE = `${samples}objects/coffee.jpg`;

/** Decodes a pipeline (or a file) to the engine's raw image shape. */
export async function rawImage(src: string | Sharp): Promise<VisionImage & { data: Buffer }> {
  const s = typeof src === 'string' ? sharp(src) : src;
  const { data, info } = await s.raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: info.channels as 1 | 3 | 4 };
}
