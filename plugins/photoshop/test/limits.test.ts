/**
 * The service's limits (web-api-v2.md, "Limits") as a user meets them: a source the
 * service would refuse for its size is refused before any pixel is read, and a
 * background removal's upload is made to fit (at most 5000 px, below 30 MB)
 * while the cut-out still lines up with the full-size layer. Driven through
 * `runCorrections` (what the panel's buttons call) against the emulator; the
 * bytes the backend was given are recorded, and the emulator itself rejects
 * background-removal inputs of 30 MB or more.
 */
import { createWebBackend, type CorrectionBackend } from '@pfc/core';
import { startEmulator, type EmulatorHandle } from '@pfc/emulator';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEFAULT_CHOICES, toParams } from '../src/correct/options';
import { makePreview } from '../src/correct/preview';
import { runCorrections } from '../src/correct/run';
import { resolveTargets } from '../src/correct/targets';
import { testEngine } from './emulator-engine';
import { simHost } from './helpers';

let emu: EmulatorHandle;
beforeAll(async () => {
  emu = await startEmulator({ webPort: 0, engine: testEngine });
});
afterAll(async () => {
  await emu?.close();
});

/** The Web API client on the emulator, with the bytes of every upload it was given. */
function recordingBackend(): { backend: CorrectionBackend; uploads: Uint8Array[] } {
  const backend = createWebBackend({ baseURL: emu.web, apiKey: 'test-key', poll: { initialDelayMs: 20, maxDelayMs: 100 } });
  const uploads: Uint8Array[] = [];
  const correct = backend.correct.bind(backend);
  vi.spyOn(backend, 'correct').mockImplementation((input, params, options) => {
    uploads.push(input as Uint8Array);
    return correct(input, params, options);
  });
  return { backend, uploads };
}

const removeBackground = toParams({ ...DEFAULT_CHOICES, background: 'transparent' });
const BG_LIMIT = 30_000_000;

/**
 * A photo-like image with sensor noise: smooth shading plus pseudo-random noise of deviation `sigma`, the kind of
 * content that makes a camera photo's PNG large (about 2 bytes a pixel at `sigma` 8). Chunky RGB, or RGBA with a
 * noisy alpha when `alpha` is set.
 */
function noisyPhoto(width: number, height: number, sigma: number, alpha = false): Uint8Array {
  const channels = alpha ? 4 : 3;
  const out = new Uint8Array(width * height * channels);
  let s = 2463534242;
  const random = () => {
    s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0;
    return s / 4294967296;
  };
  const noise = () => (random() + random() + random() + random() - 2) * Math.sqrt(3) * sigma;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * channels;
      const shade = 20 * Math.sin(x / 37) * Math.cos(y / 23);
      for (let c = 0; c < 3; c++) out[o + c] = Math.max(0, Math.min(255, Math.round(60 + (120 * x) / width + (30 * c * y) / height + shade + noise())));
      if (alpha) out[o + 3] = Math.max(1, Math.min(255, Math.round(200 + noise() * 4)));
    }
  }
  return out;
}

/** The test engine's look (`sharp.linear(1.15, 12)`) on one 8-bit sample. */
const look = (v: number) => Math.max(0, Math.min(255, Math.round(v * 1.15 + 12)));

/** Mean absolute difference between the layer's colours and the look applied to the source, over a square. */
function lookError(layer: Uint8Array, source: Uint8Array, docWidth: number, cx: number, cy: number, half: number): number {
  let sum = 0, n = 0;
  for (let y = cy - half; y < cy + half; y++) {
    for (let x = cx - half; x < cx + half; x++) {
      const o = (y * docWidth + x) * 4;
      for (let c = 0; c < 3; c++, n++) sum += Math.abs(layer[o + c]! - look(source[o + c]!));
    }
  }
  return sum / n;
}

describe('the service\'s size limits', () => {
  it('refuses a layer or document the service would refuse for its size before reading a pixel, naming the limit', async () => {
    const { host, sim } = simHost();
    const doc = sim.openDocument({ title: 'banner.psd', width: 1200, height: 200, pixels: noisyPhoto(1200, 200, 4), channels: 3 });
    // A strip 1200×28 px on its own layer.
    const strip = new Uint8Array(doc.width * doc.height * 4);
    strip.fill(200, 40 * doc.width * 4, 68 * doc.width * 4);
    doc.layers.unshift({ id: 9100, name: 'strip', kind: 'pixel', visible: true, isBackground: false, pixels: strip, children: null });
    doc.activeLayerIds = [9100];
    const wide = sim.openDocument({ title: 'panorama.psd', width: 2100, height: 100, pixels: noisyPhoto(2100, 100, 4), channels: 3 });
    const { backend, uploads } = recordingBackend();

    sim.core.activeId = doc.id;
    const [layer] = await runCorrections(host, backend, resolveTargets(host, 'layer'), toParams(DEFAULT_CHOICES));
    sim.core.activeId = wide.id;
    const [panorama] = await runCorrections(host, backend, resolveTargets(host, 'document'), removeBackground);

    expect(layer).toMatchObject({
      status: 'failed',
      message: 'the layer "strip" cannot be sent to the service: image is 1200×28 px; the Web API needs more than 32 px on each side; nothing was sent',
    });
    expect(panorama).toMatchObject({
      status: 'failed',
      message: '"panorama.psd" cannot be sent to the service: image is 2100×100 px; the aspect ratio must be below 21:1; nothing was sent',
    });
    expect(sim.imaging.getPixelsLog).toEqual([]);
    expect(uploads).toEqual([]);
    expect(doc.history.map((h) => h.name)).toEqual(['Open']);
  });

  it('removes the background of a 24-megapixel photo: sent at 5000 px below 30 MB, its mask fitted to the full-size layer, whose pixels stay full-size', async () => {
    const { host, sim } = simHost();
    const width = 6000, height = 4000;
    const doc = sim.openDocument({ title: 'camera.jpg', width, height, pixels: noisyPhoto(width, height, 8), channels: 3 });
    const source = doc.layers[0]!.pixels!.slice();
    const { backend, uploads } = recordingBackend();

    const [outcome] = await runCorrections(host, backend, resolveTargets(host, 'document'), removeBackground);

    expect(outcome).toMatchObject({ status: 'done', message: 'added layer "Perfectly Clear: Universal, background removed"' });
    // The upload: scaled by Photoshop (targetSize) to the service's 5000 px, a JPEG since its PNG would be over 30 MB.
    expect(sim.imaging.getPixelsLog.map((r) => r.targetSize)).toEqual([undefined, { width: 5000 }]);
    expect(uploads).toHaveLength(1);
    const sent = await sharp(uploads[0]!).metadata();
    expect([sent.format, sent.width, sent.height]).toEqual(['jpeg', 5000, 3333]);
    expect(uploads[0]!.byteLength).toBeLessThan(BG_LIMIT);
    expect(outcome!.notes).toContain('the cut-out came back at 5000×3333 px: its mask was scaled to the layer, whose pixels keep their full size');

    const layer = doc.layers[0]!;
    // The mask lines up with the layer: the engine keeps a centred ellipse, 0.35 of the width across from the centre.
    const row = (height / 2) * width;
    const edge = width / 2 + 0.35 * width;
    expect([layer.mask![0], layer.mask![row + width / 2], layer.mask![row + edge - 6], layer.mask![row + edge + 6]]).toEqual([0, 255, 255, 0]);
    // Under the mask, the source's full-size pixels with the correction carried over: its noise is still there,
    // which an enlarged 5000-px result would have smoothed away (mean error about 7).
    expect(lookError(layer.pixels!, source, width, width / 2, height / 2, 100)).toBeLessThan(2);
    // Where the background was, the source's own pixels, untouched.
    expect(Buffer.from(layer.pixels!.subarray(0, width * 4)).equals(Buffer.from(source.subarray(0, width * 4)))).toBe(true);
  }, 180_000);

  it('removes the background of a 16-bit document from an 8-bit upload below 30 MB, where a 16-bit PNG would be over', async () => {
    const { host, sim } = simHost();
    const width = 4000, height = 3000;
    const doc = sim.openDocument({ title: 'deep.psd', width, height, pixels: noisyPhoto(width, height, 8), channels: 3, bits: 'bitDepth16' });
    const source = doc.layers[0]!.pixels!.slice();
    const { backend, uploads } = recordingBackend();

    const [outcome] = await runCorrections(host, backend, resolveTargets(host, 'document'), removeBackground);

    expect(outcome).toMatchObject({ status: 'done' });
    expect(outcome!.notes).toContain('for the background removal, "deep.psd" was sent as an 8-bit PNG, within the service\'s limits (cut-outs of at most 5000 px, inputs below 30.0 MB)');
    const sent = await sharp(uploads[0]!).metadata();
    expect([sent.format, sent.depth, sent.width, sent.height]).toEqual(['png', 'uchar', width, height]);
    expect(uploads[0]!.byteLength).toBeLessThan(BG_LIMIT);
    const layer = doc.layers[0]!;
    expect([layer.mask![0], layer.mask![(height / 2) * width + width / 2]]).toEqual([0, 255]);
    expect(lookError(layer.pixels!, source, width, width / 2, height / 2, 100)).toBeLessThan(1);
  }, 120_000);

  it('refuses a transparent layer whose upload cannot fit below 30 MB before sending it, saying its size and the limit', async () => {
    const { host, sim } = simHost();
    const width = 4000, height = 3000;
    const doc = sim.openDocument({ title: 'cutout.psd', width, height, pixels: noisyPhoto(width, height, 8, true), channels: 4 });
    const { backend, uploads } = recordingBackend();
    const before = emu.stats().requests;

    const [outcome] = await runCorrections(host, backend, resolveTargets(host, 'layer'), removeBackground);

    expect(outcome!.status).toBe('failed');
    expect(outcome!.message).toMatch(
      /^the layer "Layer 0" is too large to remove its background: at 4000×3000 px its PNG, which keeps its transparency, comes to 30\.0 MB or more, and the service takes inputs below 30\.0 MB for background removal; nothing was sent$/,
    );
    expect(uploads).toEqual([]);
    expect(emu.stats().requests).toEqual(before);
    expect(doc.layers).toHaveLength(1);
  }, 120_000);

  it('previews a narrow layer at a size the service takes (its short side above 32 px) and refuses, before reading, what Correct would refuse', async () => {
    const { host, sim } = simHost();
    sim.openDocument({ title: 'banner.psd', width: 2000, height: 100, pixels: noisyPhoto(2000, 100, 4), channels: 3 });
    const { backend, uploads } = recordingBackend();

    // 2000×100: a 400-px preview would be 400×20, which the service refuses.
    const preview = await makePreview(host, backend, toParams(DEFAULT_CHOICES), 'document');
    expect([preview.width, preview.height]).toEqual([660, 33]);
    expect(uploads).toHaveLength(1);

    // 2100×100 (21:1): Correct refuses it, so the preview does too, before a pixel is read or anything is sent.
    const wide = sim.openDocument({ title: 'panorama.psd', width: 2100, height: 100, pixels: noisyPhoto(2100, 100, 4), channels: 3 });
    sim.core.activeId = wide.id;
    const reads = sim.imaging.getPixelsLog.length;
    await expect(makePreview(host, backend, toParams(DEFAULT_CHOICES), 'document')).rejects.toThrow(
      '"panorama.psd" cannot be sent to the service: image is 2100×100 px; the aspect ratio must be below 21:1; nothing was sent',
    );
    expect(sim.imaging.getPixelsLog).toHaveLength(reads);
    expect(uploads).toHaveLength(1);
  });
});
