/** `exportPixels`: what leaves Photoshop for the upload, checked by decoding the bytes. */
import { describe, expect, it } from 'vitest';
import { exportPixels } from '../src/ps/export';
import { inModal } from '../src/ps/modal';
import sharp from 'sharp';
import { decodeWithSharp, loadSample, rgbToRgba, sameBytes, simHost } from './helpers';

describe('exportPixels', () => {
  it('sends the composite of an 8-bit RGB photo as a lossless 8-bit sRGB PNG: the same pixels exactly', async () => {
    const { host, sim } = simHost();
    const photo = await loadSample('portraits/astronaut.jpg', 256);
    const doc = sim.openDocument({ title: 'astronaut.jpg', width: photo.width, height: photo.height, pixels: photo.pixels, channels: 3 });
    const psDoc = host.ps.app.activeDocument!;

    const out = await inModal(host, 'read', () => exportPixels(host, psDoc));

    expect(out.contentType).toBe('image/png');
    expect(out.rect).toEqual({ left: 0, top: 0, right: doc.width, bottom: doc.height });
    const decoded = await decodeWithSharp(out.bytes);
    expect(decoded.format).toBe('png');
    expect([decoded.width, decoded.height]).toEqual([photo.width, photo.height]);
    expect(sameBytes(decoded.data, rgbToRgba(photo.pixels))).toBe(true);
    expect(sim.imaging.getPixelsLog).toEqual([{ documentID: doc.id, colorSpace: 'RGB', colorProfile: 'sRGB IEC61966-2.1', componentSize: 8 }]);
    expect(out.conversion).toBeUndefined();
    expect(sim.imaging.live.size).toBe(0); // every PhotoshopImageData was disposed
  });

  it('sends a layer with transparent pixels as PNG, cropped to the layer bounds, with its alpha kept', async () => {
    const { host, sim } = simHost();
    const w = 100, h = 80;
    const rgba = new Uint8Array(w * h * 4);
    // An opaque red square from (10,5) to (50,45), half-transparent edge column at x=50 (large enough for the service: over 32 px a side).
    for (let y = 5; y < 45; y++) {
      for (let x = 10; x <= 50; x++) {
        const i = (y * w + x) * 4;
        rgba.set([200, 30, 30, x === 50 ? 128 : 255], i);
      }
    }
    const doc = sim.openDocument({ title: 'cutout.psd', width: w, height: h, pixels: rgba, channels: 4 });
    const layerId = doc.layers[0]!.id;

    const out = await inModal(host, 'read', () => exportPixels(host, host.ps.app.activeDocument!, layerId));

    expect(out.contentType).toBe('image/png');
    expect(out.rect).toEqual({ left: 10, top: 5, right: 51, bottom: 45 });
    const decoded = await decodeWithSharp(out.bytes);
    expect([decoded.width, decoded.height]).toEqual([41, 40]);
    expect(decoded.data[3]).toBe(255);
    expect(decoded.data[40 * 4 + 3]).toBe(128);
    expect(out.alpha?.length).toBe(41 * 40);
    expect(sim.imaging.getPixelsLog[0]).toMatchObject({ layerID: layerId, colorSpace: 'RGB', componentSize: 8 });
  });

  it('sends a 16-bit RGB document as a 16-bit PNG (no 8-bit step) and says nothing was converted', async () => {
    const { host, sim } = simHost();
    const photo = await loadSample('objects/coffee.jpg', 50);
    sim.openDocument({ title: 'deep.psd', width: photo.width, height: photo.height, pixels: photo.pixels, channels: 3, bits: 'bitDepth16' });
    const out = await inModal(host, 'read', () => exportPixels(host, host.ps.app.activeDocument!));
    const meta = await sharp(out.bytes).metadata();
    expect(meta.depth).toBe('ushort');
    expect(sim.imaging.getPixelsLog[0]).toMatchObject({ colorSpace: 'RGB', componentSize: 16 });
    const { data } = await sharp(out.bytes).toColourspace('rgb16').raw({ depth: 'ushort' }).toBuffer({ resolveWithObject: true });
    const samples = new Uint16Array(data.buffer, data.byteOffset, data.byteLength / 2);
    // Photoshop's 0–32768 mapped to PNG's 0–65535: 255 (8-bit white) stays white, 0 black.
    expect(samples[0]).toBe(Math.round((Math.round((photo.pixels[0]! * 32768) / 255) * 65535) / 32768));
    expect(out.conversion).toBeUndefined();
  });

  it('asks Photoshop to convert a 16-bit CMYK document and tells the user', async () => {
    const { host, sim } = simHost();
    const photo = await loadSample('objects/coffee.jpg', 120);
    sim.openDocument({
      title: 'print.psd', width: photo.width, height: photo.height, pixels: photo.pixels, channels: 3,
      mode: 'CMYKColorMode', bits: 'bitDepth16', profile: 'U.S. Web Coated (SWOP) v2',
    });
    const out = await inModal(host, 'read', () => exportPixels(host, host.ps.app.activeDocument!));
    expect(out.contentType).toBe('image/png');
    expect(out.conversion).toContain('CMYK to RGB');
    expect(out.conversion).toContain('16-bit PNG');
  });

  it('tells the user when an 8-bit RGB document has another profile than sRGB', async () => {
    const { host, sim } = simHost();
    const photo = await loadSample('objects/coffee.jpg', 60);
    sim.openDocument({ title: 'wide.psd', width: photo.width, height: photo.height, pixels: photo.pixels, channels: 3, profile: 'Adobe RGB (1998)' });
    const out = await inModal(host, 'read', () => exportPixels(host, host.ps.app.activeDocument!));
    expect(out.conversion).toContain('Adobe RGB (1998)');
  });
});
