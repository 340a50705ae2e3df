/** The panel's own pixel code: decoding and encoding, resampling, bit depths. */
import { createContext, runInContext } from 'node:vm';
import { build } from 'esbuild';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { PANEL_BUNDLE } from '../scripts/bundle-options.mjs';
import { decodeImage, encodeJpeg, encodePng, hasTransparency, sniffFormat } from '../src/image/codec';
import { resample, toDepth } from '../src/image/pixels';
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

  it('decodes RGBA, 16-bit, grey+alpha and palette PNGs to 8-bit RGBA exactly', async () => {
    const photo = await loadSample('objects/chelsea.png', 40);
    const rgba = rgbToRgba(photo.pixels);
    for (let i = 3; i < rgba.length; i += 8) rgba[i] = 77;
    const raw = { raw: { width: photo.width, height: photo.height, channels: 4 as const } };
    const variants = [
      await sharp(Buffer.from(rgba), raw).png().toBuffer(),
      await sharp(Buffer.from(rgba), raw).toColourspace('rgb16').png().toBuffer(),
      await sharp(Buffer.from(rgba), raw).toColourspace('b-w').png().toBuffer(),
      await sharp(Buffer.from(rgba), raw).png({ palette: true, colours: 64 }).toBuffer(),
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
