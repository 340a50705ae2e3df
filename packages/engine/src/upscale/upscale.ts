/**
 * AI upscaling (`resize` auto / general / smallDetails when the output is
 * larger than the input): ESRGAN-slim ×2 or ×4 on tiles spread over the
 * upscale workers, then Lanczos to the exact size asked for.
 */
import sharp from 'sharp';
import type { Dimensions } from '@pfc/core';
import type { Raster } from '../image/raster';
import { rasterToSharp } from '../image/raster';
import { resizeTo } from '../image/resize';
import { upscaleTile } from './pool';

export type UpscaleMode = 'auto' | 'general' | 'smallDetails';

/**
 * Inputs above this many pixels are enlarged with Lanczos instead: ESRGAN on
 * two WASM threads takes about 0.15 s per 128×128 tile, so 1.2 MP (≈ 75
 * tiles) is about 6 s.
 */
export const AI_UPSCALE_MAX_INPUT_PIXELS = 1_200_000;
/** Tile side (input pixels) and the margin each tile overlaps its neighbours by, so seams do not show. */
const TILE = 128;
const MARGIN = 8;

/** What {@link upscaleRaster} used. */
export type UpscaleMethod = 'esrgan-x2' | 'esrgan-x4' | 'lanczos';

/**
 * Enlarge a raster to `target`. The model: `general` uses ×4 when more than
 * ×2 is asked for, else ×2; `smallDetails` always the ×2 model (less invented
 * texture on small faces), the rest by Lanczos; `auto` as `general`.
 * Shrinking, or inputs above {@link AI_UPSCALE_MAX_INPUT_PIXELS}, use Lanczos.
 * Alpha, if any, is enlarged with Lanczos.
 */
export async function upscaleRaster(img: Raster, target: Dimensions, mode: UpscaleMode = 'auto'): Promise<{ raster: Raster; method: UpscaleMethod }> {
  const need = Math.max(target.width / img.width, target.height / img.height);
  if (need <= 1 || img.width * img.height > AI_UPSCALE_MAX_INPUT_PIXELS) return { raster: await resizeTo(img, target), method: 'lanczos' };
  const factor: 2 | 4 = mode !== 'smallDetails' && need > 2 ? 4 : 2;
  const rgb = img.channels === 4 ? await withoutAlpha(img) : img;
  const big = await esrgan(rgb, factor);
  let out = big.width === target.width && big.height === target.height ? big : await resizeTo(big, target);
  if (img.channels === 4) {
    // Two pipelines: sharp resizes before it extracts a channel, whatever the call order.
    const alphaPlane = await rasterToSharp(img).extractChannel(3).raw().toBuffer();
    const alpha = await sharp(alphaPlane, { raw: { width: img.width, height: img.height, channels: 1 } })
      .resize(target.width, target.height, { fit: 'fill', kernel: 'lanczos3' })
      .extractChannel(0)
      .raw()
      .toBuffer();
    const joined = await rasterToSharp(out).joinChannel(alpha, { raw: { width: target.width, height: target.height, channels: 1 } }).raw().toBuffer();
    out = { data: new Uint8Array(joined.buffer, joined.byteOffset, joined.length), width: target.width, height: target.height, channels: 4 };
  }
  return { raster: out, method: factor === 4 ? 'esrgan-x4' : 'esrgan-x2' };
}

/** ESRGAN over the whole image, tile by tile (each with an overlapping margin that is cut off again). */
async function esrgan(img: Raster, factor: 2 | 4): Promise<Raster> {
  const { width: w, height: h } = img;
  const out = new Uint8Array(w * factor * h * factor * 3);
  const tiles: Promise<void>[] = [];
  for (let ty = 0; ty < h; ty += TILE) {
    for (let tx = 0; tx < w; tx += TILE) {
      const tw = Math.min(TILE, w - tx);
      const th = Math.min(TILE, h - ty);
      const x0 = Math.max(0, tx - MARGIN);
      const y0 = Math.max(0, ty - MARGIN);
      const x1 = Math.min(w, tx + tw + MARGIN);
      const y1 = Math.min(h, ty + th + MARGIN);
      const pw = x1 - x0;
      const ph = y1 - y0;
      const patch = new Uint8Array(pw * ph * 3);
      for (let y = 0; y < ph; y++) patch.set(img.data.subarray(((y0 + y) * w + x0) * 3, ((y0 + y) * w + x1) * 3), y * pw * 3);
      tiles.push(
        upscaleTile({ factor, data: patch.buffer, width: pw, height: ph }).then((r) => {
          const ox = (tx - x0) * factor;
          const oy = (ty - y0) * factor;
          for (let y = 0; y < th * factor; y++) {
            const src = ((oy + y) * r.width + ox) * 3;
            out.set(r.data.subarray(src, src + tw * factor * 3), ((ty * factor + y) * w * factor + tx * factor) * 3);
          }
        }),
      );
    }
  }
  await Promise.all(tiles);
  return { data: out, width: w * factor, height: h * factor, channels: 3 };
}

async function withoutAlpha(img: Raster): Promise<Raster> {
  const data = await rasterToSharp(img).removeAlpha().raw().toBuffer();
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.length), width: img.width, height: img.height, channels: 3 };
}
