/** The simulated host's codec under Node: sharp. */
import sharp from 'sharp';
import type { SimCodec } from './codec';

export const nodeCodec: SimCodec = {
  async encodeJpeg(rgb, width, height) {
    return new Uint8Array(await sharp(rgb, { raw: { width, height, channels: 3 } }).jpeg({ quality: 92 }).toBuffer());
  },
  async decode(bytes) {
    const { data, info } = await sharp(bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    return { width: info.width, height: info.height, data: new Uint8Array(data) };
  },
};
