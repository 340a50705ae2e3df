/** The simulated host's codec in Chromium: the browser's own JPEG/PNG codecs. */
import { native } from './native';
import type { SimCodec } from './codec';

export const browserCodec: SimCodec = {
  async encodeJpeg(rgb, width, height) {
    const rgba = new Uint8ClampedArray(width * height * 4);
    for (let i = 0; i < width * height; i++) {
      rgba[i * 4] = rgb[i * 3]!;
      rgba[i * 4 + 1] = rgb[i * 3 + 1]!;
      rgba[i * 4 + 2] = rgb[i * 3 + 2]!;
      rgba[i * 4 + 3] = 255;
    }
    const canvas = new native.OffscreenCanvas(width, height);
    canvas.getContext('2d')!.putImageData(new native.ImageData(rgba, width, height), 0, 0);
    const blob = await canvas.convertToBlob({ type: 'image/jpeg', quality: 0.92 });
    return new Uint8Array(await blob.arrayBuffer());
  },
  async decode(bytes) {
    const bitmap = await native.createImageBitmap(new native.Blob([bytes.slice()]), { premultiplyAlpha: 'none', colorSpaceConversion: 'none' });
    const canvas = new native.OffscreenCanvas(bitmap.width, bitmap.height);
    const ctx = canvas.getContext('2d')!;
    ctx.drawImage(bitmap, 0, 0);
    const { data } = ctx.getImageData(0, 0, bitmap.width, bitmap.height);
    return { width: bitmap.width, height: bitmap.height, data: new Uint8Array(data.buffer) };
  },
};
