/** The panel's own pixel code: decoding and encoding, resampling, bit depths. */
import { createContext, runInContext } from 'node:vm';
import { build } from 'esbuild';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { PANEL_BUNDLE } from '../scripts/bundle-options.mjs';
import { decodeImage, encodeJpeg, encodePng, encodePngWithin, hasTransparency, sniffFormat } from '../src/image/codec';
import type { Rgba } from '../src/image/codec';
import { cutoutParts, resample, toDepth } from '../src/image/pixels';
import { PANEL_DIR } from './e2e-page';
import { decodeWithSharp, loadSample, meanDiff, rgbToRgba } from './helpers';

describe('decodeImage', () => {
  it('decodes a JPEG to the same pixels libjpeg gives', async () => {
    const bytes = new Uint8Array(await sharp(`${(await import('./helpers')).SAMPLES}outdoors/rocket.jpg`).toBuffer());
    const mine = decodeImage(bytes);
    const ref = await decodeWithSharp(bytes);
    expect([mine.width, mine.height]).toEqual([ref.width, ref.height]);
    expect(meanDiff(mine.data, ref.data)).toBeLessThan(1.5);
  });

  it('decodes RGBA, 16-bit, grey+alpha and palette PNGs, with every row filter, to 8-bit RGBA exactly', async () => {
    const photo = await loadSample('objects/chelsea.png', 40);
    const rgba = rgbToRgba(photo.pixels);
    for (let i = 3; i < rgba.length; i += 8) rgba[i] = 77;
    const raw = { raw: { width: photo.width, height: photo.height, channels: 4 as const } };
    const variants = [
      await sharp(Buffer.from(rgba), raw).png().toBuffer(),
      await sharp(Buffer.from(rgba), raw).toColourspace('rgb16').png().toBuffer(),
      await sharp(Buffer.from(rgba), raw).toColourspace('b-w').png().toBuffer(),
      await sharp(Buffer.from(rgba), raw).png({ palette: true, colours: 64 }).toBuffer(),
      // libvips writes filter None unless asked; a service's encoder may pick any of the five per row.
      await sharp(Buffer.from(rgba), raw).png({ adaptiveFiltering: true }).toBuffer(),
      await sharp(Buffer.from(rgba), raw).toColourspace('rgb16').png({ adaptiveFiltering: true }).toBuffer(),
      await sharp(Buffer.from(rgba), raw).toColourspace('b-w').png({ adaptiveFiltering: true }).toBuffer(),
    ];
    for (const file of variants) {
      const bytes = new Uint8Array(file);
      expect(sniffFormat(bytes)).toBe('png');
      const mine = decodeImage(bytes);
      const ref = await decodeWithSharp(bytes);
      expect(mine.width).toBe(photo.width);
      let maxDiff = 0;
      for (let i = 0; i < mine.data.length; i++) maxDiff = Math.max(maxDiff, Math.abs(mine.data[i]! - ref.data[i]!));
      expect(maxDiff).toBeLessThanOrEqual(1);
    }
  });

  it('encodes a PNG only as far as a size limit allows: the same file below it, nothing past it', async () => {
    const width = 300, height = 200;
    const data = new Uint16Array(width * height * 3).map((_, i) => (i * 2654435761) % 65536);
    const png = encodePng(width, height, data, 3);
    const meta = await sharp(png).metadata();
    expect([meta.width, meta.height, meta.depth, meta.channels]).toEqual([width, height, 'ushort', 3]);
    expect(encodePngWithin(width, height, data, 3, png.byteLength)).toEqual(png);
    expect(encodePngWithin(width, height, data, 3, png.byteLength - 1)).toBeUndefined();
  });

  it('rejects bytes that are neither JPEG nor PNG', () => {
    expect(() => decodeImage(new TextEncoder().encode('<html>error</html>'))).toThrow('neither JPEG nor PNG');
  });

  it('round-trips through its own PNG encoder', () => {
    const data = new Uint8Array([1, 2, 3, 4, 250, 251, 252, 0]);
    const png = encodePng(2, 1, data, 4);
    expect(decodeImage(png).data).toEqual(data);
    expect(hasTransparency(data, 4)).toBe(true);
    expect(hasTransparency(new Uint8Array([1, 2, 3, 255]), 4)).toBe(false);
  });
});

describe('encodeJpeg', () => {
  it('encodes an opaque image as a JPEG libjpeg reads back alike, also in the panel\'s bundle, where UXP has no Buffer', async () => {
    const photo = await loadSample('outdoors/rocket.jpg', 64);
    const image = { width: photo.width, height: photo.height, data: rgbToRgba(photo.pixels) };
    // The panel's bundle of the codec, run with ECMAScript's globals only: jpeg-js's encoder ends with `Buffer.from`.
    const bundled = await build({
      ...PANEL_BUNDLE,
      stdin: { contents: "import { encodeJpeg } from './src/image/codec'; globalThis.encodeJpeg = encodeJpeg;", resolveDir: PANEL_DIR, loader: 'ts' },
      write: false,
      logLevel: 'silent',
    });
    const uxpLike = createContext({}) as { encodeJpeg?: typeof encodeJpeg };
    runInContext(bundled.outputFiles[0]!.text, uxpLike);

    // (The bundle's bytes are a Uint8Array of its own realm: copied for sharp.)
    for (const bytes of [encodeJpeg(image, 95), Uint8Array.from(uxpLike.encodeJpeg!(image, 95))]) {
      expect(sniffFormat(bytes)).toBe('jpeg');
      const ref = await decodeWithSharp(bytes);
      expect([ref.width, ref.height]).toEqual([image.width, image.height]);
      expect(meanDiff(ref.data, image.data)).toBeLessThan(2);
    }
  });
});

describe('resample', () => {
  it('averages whole blocks when halving a flat-block image', () => {
    // 4x2 image of 2x2 blocks: left block red, right block blue.
    const data = new Uint8Array(4 * 2 * 4);
    for (let y = 0; y < 2; y++) for (let x = 0; x < 4; x++) data.set(x < 2 ? [255, 0, 0, 255] : [0, 0, 255, 255], (y * 4 + x) * 4);
    const out = resample({ width: 4, height: 2, data }, 2, 1);
    expect(out.width).toBe(2);
    expect(out.data[0]).toBeGreaterThan(150);
    expect(out.data[6]).toBeGreaterThan(150);
    expect(out.data[3]).toBe(255);
  });

  it('does not darken colours next to transparent pixels (premultiplied alpha)', () => {
    const data = new Uint8Array([255, 255, 255, 255, 0, 0, 0, 0, 255, 255, 255, 255, 0, 0, 0, 0]);
    const out = resample({ width: 4, height: 1, data }, 2, 1);
    expect(out.data[0]).toBe(255);
    expect(out.data[3]).toBeGreaterThan(60);
    expect(out.data[3]).toBeLessThan(200);
  });

  it('returns the same image when the size already matches', () => {
    const img = { width: 1, height: 1, data: new Uint8Array([1, 2, 3, 4]) };
    expect(resample(img, 1, 1)).toBe(img);
  });
});

describe('cutoutParts', () => {
  /** The filter written plainly, whole image by whole image (premultiply, across, down, unpremultiply): the reference. */
  function plainResample(src: Rgba, width: number, height: number): Rgba {
    const axis = (data: Float32Array, w: number, h: number, len: number, across: boolean) => {
      const srcLen = across ? w : h;
      const [outW, outH] = across ? [len, h] : [w, len];
      const out = new Float32Array(outW * outH * 4);
      const ratio = srcLen / len, support = Math.max(1, ratio);
      for (let d = 0; d < len; d++) {
        const centre = (d + 0.5) * ratio - 0.5;
        const taps: [number, number][] = [];
        for (let s = Math.max(0, Math.floor(centre - support)); s <= Math.min(srcLen - 1, Math.ceil(centre + support)); s++) taps.push([s, Math.max(0, 1 - Math.abs(s - centre) / support)]);
        const total = taps.reduce((t, [, wt]) => t + wt, 0);
        for (let line = 0; line < (across ? h : w); line++) {
          for (let c = 0; c < 4; c++) {
            let sum = 0;
            for (const [s, wt] of taps) sum += data[(across ? line * w + s : s * w + line) * 4 + c]! * wt;
            out[(across ? line * outW + d : d * outW + line) * 4 + c] = sum / total;
          }
        }
      }
      return out;
    };
    const pre = Float32Array.from(src.data, (v, i) => ((i & 3) === 3 ? v : (v * src.data[i - (i & 3) + 3]!) / 255));
    const both = axis(axis(pre, src.width, src.height, width, true), width, src.height, height, false);
    const data = new Uint8Array(both.length);
    for (let i = 0; i < both.length; i += 4) {
      const a = both[i + 3]!;
      for (let c = 0; c < 3; c++) data[i + c] = a > 0 ? Math.max(0, Math.min(255, Math.round((both[i + c]! * 255) / a))) : 0;
      data[i + 3] = Math.max(0, Math.min(255, Math.round(a)));
    }
    return { width, height, data };
  }

  it('fits a smaller cut-out and the pixels sent to the source row by row, giving the pixels of fitting whole images first', () => {
    const noisy = (width: number, height: number, alpha: (x: number, y: number) => number): Rgba => {
      let seed = 7;
      const data = new Uint8Array(width * height * 4);
      for (let i = 0; i < data.length; i++) {
        seed = (seed * 1103515245 + 12345) >>> 0;
        const p = i >> 2;
        data[i] = (i & 3) === 3 ? alpha(p % width, Math.floor(p / width)) : seed >>> 24;
      }
      return { width, height, data };
    };
    const source = noisy(61, 47, () => 255);
    const sent = noisy(50, 38, () => 255);
    // The cut-out: a soft-edged disc.
    const result = noisy(50, 38, (x, y) => Math.max(0, Math.min(255, Math.round((14 - Math.hypot(x - 25, y - 19)) * 60))));

    const { pixels, mask } = cutoutParts(result, source, sent);

    const fittedResult = plainResample(result, 61, 47);
    const fittedSent = plainResample(sent, 61, 47);
    for (let p = 0; p < 61 * 47; p++) {
      const a = fittedResult.data[p * 4 + 3]!;
      expect(mask[p]).toBe(a);
      for (let c = 0; c < 3; c++) {
        const own = source.data[p * 4 + c]!;
        const want = a > 0 ? Math.max(0, Math.min(255, own + fittedResult.data[p * 4 + c]! - fittedSent.data[p * 4 + c]!)) : own;
        expect(Math.abs(pixels.data[p * 4 + c]! - want)).toBeLessThanOrEqual(1);
      }
    }
    expect(mask.some((v) => v > 0 && v < 255)).toBe(true);
  });
});

describe('toDepth', () => {
  it("maps 8-bit to Photoshop's 16-bit range 0–32768 and to linear floats", () => {
    const d16 = toDepth(new Uint8Array([0, 128, 255, 255]), 16) as Uint16Array;
    expect(Array.from(d16)).toEqual([0, 16448, 32768, 32768]);
    const d32 = toDepth(new Uint8Array([0, 128, 255, 128]), 32) as Float32Array;
    expect(d32[0]).toBe(0);
    expect(d32[1]).toBeCloseTo(0.2158, 3);
    expect(d32[2]).toBe(1);
    expect(d32[3]).toBeCloseTo(128 / 255, 5); // alpha stays linear
  });
});
