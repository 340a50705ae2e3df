/**
 * Grey-edge at p = 12 in WebAssembly (`greyEdgeIlluminant12`, what
 * `greyEdgeIlluminant` runs for p = 12) gives the JavaScript's illuminant to
 * the last bit: the JavaScript below is the loop it replaced, verbatim. On
 * analysis copies of the samples, degraded copies (casts, darker, clipped
 * highlights), RGBA, and sizes down to one pixel.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { greyEdgeIlluminant } from '../src/colour/estimate';
import { greyEdgeIlluminant12 } from '../src/colour/grey-edge-fast';
import { LINEAR_OF_BYTE } from '../src/colour/srgb';
import { thumbnailRaster, type Raster } from '../src/image/raster';
import { linearGains, rgb, sample } from './colour-helpers';

const CLIP = 250;

/** greyEdgeIlluminant's JavaScript for p = 12 as it was before the WebAssembly sums. */
function greyEdgeJs(img: Raster): [number, number, number] {
  const { data, width: w, height: h, channels: ch } = img;
  const n = w * h;
  const smooth = (src: Float64Array) => {
    const tmp = new Float64Array(src.length);
    for (let y = 0; y < h; y++) {
      const row = y * w;
      for (let x = 0; x < w; x++) tmp[row + x] = (src[row + Math.max(0, x - 1)]! + 2 * src[row + x]! + src[row + Math.min(w - 1, x + 1)]!) / 4;
    }
    const out = new Float64Array(src.length);
    for (let y = 0; y < h; y++) {
      const up = Math.max(0, y - 1) * w;
      const down = Math.min(h - 1, y + 1) * w;
      for (let x = 0; x < w; x++) out[y * w + x] = (tmp[up + x]! + 2 * tmp[y * w + x]! + tmp[down + x]!) / 4;
    }
    return out;
  };
  const planes = [0, 1, 2].map((c) => {
    const plane = new Float64Array(n);
    for (let i = 0; i < n; i++) plane[i] = LINEAR_OF_BYTE[data[i * ch + c]!]!;
    return smooth(smooth(plane));
  });
  const clipped = new Uint8Array(n);
  for (let i = 0, o = 0; i < n; i++, o += ch) clipped[i] = data[o]! >= CLIP || data[o + 1]! >= CLIP || data[o + 2]! >= CLIP ? 1 : 0;
  const acc = planes.map((a) => {
    let sum = 0;
    for (let y = 1; y < h - 1; y++) {
      for (let i = y * w + 1, end = y * w + w - 1; i < end; i++) {
        if (clipped[i] === 1) continue;
        const dx = a[i + 1]! - a[i - 1]!;
        const dy = a[i + w]! - a[i - w]!;
        const s = dx * dx + dy * dy;
        const s3 = s * s * s;
        sum += s3 * s3;
      }
    }
    return sum;
  });
  const e = acc.map((v) => v ** (1 / 12));
  const mean = (e[0]! + e[1]! + e[2]!) / 3;
  if (!(mean > 0)) return [1, 1, 1];
  return [e[0]! / mean, e[1]! / mean, e[2]! / mean];
}

async function copies(): Promise<Raster[]> {
  const out: Raster[] = [];
  for (const name of ['objects/coffee.jpg', 'outdoors/rocket.jpg', 'portraits/astronaut.jpg', 'portraits/grace_hopper.jpg', 'objects/chelsea.png']) {
    const img = await rgb(sample(name));
    for (const g of [[1, 1, 1], [1.3, 1, 0.7], [0.4, 0.45, 0.5], [2.5, 2.2, 2]] as const) out.push(await thumbnailRaster({ ...linearGains(img, g), channels: 3 }, 400));
  }
  return out;
}

describe('grey-edge in WebAssembly', () => {
  it('equals the JavaScript to the bit on analysis copies (20 photos and degradations)', async () => {
    for (const t of await copies()) {
      const js = greyEdgeJs(t);
      expect(greyEdgeIlluminant12(t, LINEAR_OF_BYTE, CLIP)).toEqual(js);
      expect(greyEdgeIlluminant(t)).toEqual(js);
    }
  });

  it('equals the JavaScript on RGBA, odd and tiny sizes (1×1, 1×5, 5×1, 2×2, 3×3, 37×23)', async () => {
    for (const [w, h] of [[1, 1], [1, 5], [5, 1], [2, 2], [3, 3], [37, 23]] as const) {
      for (const ch of [3, 4] as const) {
        const { data } = await sharp(sample('outdoors/rocket.jpg')).resize(w, h, { fit: 'fill' }).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
        const px = ch === 4 ? new Uint8Array(data) : Uint8Array.from({ length: w * h * 3 }, (_, i) => data[Math.floor(i / 3) * 4 + (i % 3)]!);
        const img: Raster = { data: px, width: w, height: h, channels: ch };
        expect(greyEdgeIlluminant12(img, LINEAR_OF_BYTE, CLIP)).toEqual(greyEdgeJs(img));
      }
    }
  });
});
